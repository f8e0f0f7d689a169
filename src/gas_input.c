// SPDX-License-Identifier: LGPL-2.1-or-later
// A gas case's particles from a SWIFT/GADGET HDF5 or a text file (src/gas_input.h): the
// reader's particles converted to the case's units, checked against the domain and put into
// one host block with the gas fields of the first step.
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "case_units.h"
#include "gas_ic.h"
#include "gas_input.h"
#include "log.h"
#include "particle_input.h"   /* tide_parse_numbers, tide_particle_line_check */
#include "runtime.h"
#include "sinks_swift.h"      /* TIDE_SINK_SWIFT_TYPE */
#include "snapshot_read.h"
#include "swift_output.h"     /* tide_swift_case_units */
#include "tide/block_interface.h"
#include "tide/gas_math.h"
#include "tide/sph_sim.h"

/* The particles as read, in the case's units (double: converted before the float check). */
typedef struct gas_rows {
	size_t n, ngas;   /* particles; the first ngas are gas, the others collisionless */
	double *pos, *vel, *mass, *u, *h, *rho;   /* 3 n, 3 n, n, n (or NULL), n (or NULL), n (or NULL) */
	double *vh, *uh, *dtk;   /* tide's leapfrog state (swift_io.h), or NULL */
	double *hdot;            /* dh/dt (swift_io.h), or NULL: no prediction of h */
	uint64_t *id;
	uint8_t *type;   /* SWIFT type of each particle (0 gas, 1 collisionless), or NULL: all gas */
	double t;
} gas_rows;

static void rows_free(gas_rows *r)
{
	free(r->pos); free(r->vel); free(r->mass); free(r->u); free(r->h); free(r->rho); free(r->id);
	free(r->vh); free(r->uh); free(r->dtk); free(r->hdot); free(r->type);
	memset(r, 0, sizeof *r);
}

/* ---- text: x y z m [vx vy vz [u]] ---- */

/* The numbers of the next line of f that has any (blank and comment lines skipped): how many
 * (-1: a word is not a number), or -2 at the end of the file. */
static int next_numbers(FILE *f, char **line, size_t *len, long *lineno, double v[8])
{
	while (getline(line, len, f) >= 0) {
		++*lineno;
		char *bad = NULL;
		int k = tide_parse_numbers(*line, v, &bad);
		if (k != 0) return k;
	}
	return -2;
}

static int read_text(const char *path, FILE *f, gas_rows *r)
{
	size_t cap = 0, len = 0;
	char *line = NULL;
	long lineno = 0;
	int rc = 0, with_u = -1, k;
	double v[8];
	while (!rc && (k = next_numbers(f, &line, &len, &lineno, v)) != -2) {
		if (k != 4 && k != 7 && k != 8) {
			rc = tide_read_fail(TIDE_READ_BAD, "%s line %ld: %s; allowed: 4 numbers (x y z m), 7 "
			                    "(x y z m vx vy vz) or 8 (x y z m vx vy vz u)", path, lineno,
			                    k < 0 ? "a word is not a number" : "not 4, 7 or 8 numbers");
			break;
		}
		if (with_u < 0) with_u = k == 8;
		rc = tide_particle_line_check(path, lineno, v, k);
		if (!rc && k == 8 && !(v[7] >= 0))
			rc = tide_read_fail(TIDE_READ_BAD, "%s line %ld: the internal energy u is %g; it must "
			                    "be >= 0", path, lineno, v[7]);
		if (!rc && (k == 8) != with_u)
			rc = tide_read_fail(TIDE_READ_BAD, "%s line %ld: %d numbers, but earlier lines %s u; "
			                    "give u on every line or on none", path, lineno, k,
			                    with_u ? "give" : "do not give");
		if (rc) break;
		if (r->n == cap) {
			cap = cap ? 2 * cap : 1024;
			double *p = realloc(r->pos, 3 * cap * sizeof(double)), *w = p ? realloc(r->vel, 3 * cap * sizeof(double)) : NULL;
			if (p) r->pos = p;
			if (w) r->vel = w;
			double *m = w ? realloc(r->mass, cap * sizeof(double)) : NULL;
			if (m) r->mass = m;
			double *u = m ? realloc(r->u, cap * sizeof(double)) : NULL;
			if (u) r->u = u;
			if (!u) { rc = tide_read_nomem(path); break; }
		}
		for (int j = 0; j < 3; j++) {
			r->pos[3 * r->n + j] = v[j];
			r->vel[3 * r->n + j] = k >= 7 ? v[4 + j] : 0.0;
		}
		r->mass[r->n] = v[3];
		r->u[r->n] = k == 8 ? v[7] : -1.0;   /* -1: gas.u */
		r->n++;
		r->ngas++;
	}
	free(line);
	fclose(f);
	if (!rc && r->n == 0)
		rc = tide_read_fail(TIDE_READ_BAD, "%s holds no particles (no line of x y z m)", path);
	if (!rc && !(r->id = malloc(r->n * sizeof(uint64_t)))) rc = tide_read_nomem(path);
	for (size_t i = 0; !rc && i < r->n; i++) r->id[i] = i;
	if (!rc && with_u == 0) { free(r->u); r->u = NULL; }
	return rc;
}

/* ---- HDF5 (swift_io.h) ---- */

static const char *type_name(int k)
{
	static const char *const names[TIDE_SWIFT_NTYPES] = {"gas", "dark matter / N-body",
	                                                     "background dark matter", "sink",
	                                                     "star", "black hole"};
	return names[k];
}

static int read_hdf5(const char *path, tide_case *c, gas_rows *r)
{
	tide_swift_set s;
	int rc = tide_swift_read(path, (1u << TIDE_SWIFT_NTYPES) - 1, TIDE_SWIFT_GAS,
	                         (double)tide_block_bpp(), &s);
	if (rc) return rc;
	for (int k = 2; k < TIDE_SWIFT_NTYPES && !rc; k++)
		if (s.count[k] && !(k == TIDE_SINK_SWIFT_TYPE && c->sinks.on)) /* sinks: sinks_swift.h */
			rc = tide_read_fail(TIDE_READ_BAD, "%s holds %llu PartType%d (%s) particles; the gas "
			                    "scheme carries gas (PartType0), collisionless N-body particles "
			                    "(PartType1) and, in a case with sinks, sinks (PartType5) only",
			                    path, (unsigned long long)s.count[k], k, type_name(k));
	if (!rc && s.count[0] == 0)
		rc = tide_read_fail(TIDE_READ_BAD, "%s holds no gas particles (its PartType0 is empty or "
		                    "missing%s); a gas run needs gas: give PartType0 too", path,
		                    s.count[1] ? ", its PartType1 collisionless particles alone" : "");
	if (rc) { tide_swift_set_free(&s); return rc; }
	/* the case's units: a file in other units is converted (gas_input.h) */
	double fl = 1, fm = 1, ft = 1;
	if (s.have_units) {
		tide_swift_units cu = tide_swift_case_units(c);
		if (c->units == TIDE_UNITS_CODE && !(c->code_time > 0)) { /* not internal units */
			cu = tide_swift_units_g1(s.units.length, s.units.mass);
			c->code_length = s.units.length;
			c->code_mass = s.units.mass;
		}
		fl = s.units.length / cu.length;
		fm = s.units.mass / cu.mass;
		ft = s.units.time / cu.time;
	}
	double fv = fl / ft;
	/* the set owns its arrays: taken over, converted in place */
	r->n = s.count[0] + s.count[1];   /* type after type: the gas first */
	r->ngas = s.count[0];
	r->type = s.type;
	s.type = NULL;
	r->pos = s.pos; r->vel = s.vel; r->mass = s.mass; r->id = s.id;
	r->u = s.u; r->h = s.h; r->rho = s.rho;
	r->vh = s.vh; r->uh = s.uh; r->dtk = s.dtk; r->hdot = s.hdot;
	r->t = s.have_time ? s.time * ft : 0.0;
	s.pos = s.vel = s.mass = s.u = s.h = s.rho = s.vh = s.uh = s.dtk = s.hdot = NULL;
	s.id = NULL;
	tide_swift_set_free(&s);
	if (fl != 1 || fm != 1 || ft != 1)
		for (size_t i = 0; i < r->n; i++) {
			for (int k = 0; k < 3; k++) {
				r->pos[3 * i + k] *= fl;
				r->vel[3 * i + k] *= fv;
				if (r->vh && i < r->ngas) r->vh[3 * i + k] *= fv;
			}
			r->mass[i] *= fm;
			if (i >= r->ngas) continue;   /* the gas fields are PartType0's alone */
			if (r->uh) r->uh[i] *= fv * fv;
			if (r->dtk) r->dtk[i] *= ft;
			if (r->hdot) r->hdot[i] *= fv;
			if (r->u) r->u[i] *= fv * fv;
			if (r->h) r->h[i] *= fl;
			if (r->rho) r->rho[i] *= fm / (fl * fl * fl);
		}
	static const char *const what[6] = {"Velocities", "Masses", "InternalEnergy",
	                                    "SmoothingLength", "Density", "ParticleIDs"};
	for (size_t i = 0; i < r->n && !rc; i++) {
		int gas = i < r->ngas;
		double q[5] = {fmax(fabs(r->vel[3 * i]), fmax(fabs(r->vel[3 * i + 1]), fabs(r->vel[3 * i + 2]))),
		               r->mass[i], gas && r->u ? r->u[i] : 0, gas && r->h ? r->h[i] : 1,
		               gas && r->rho ? r->rho[i] : 0};
		for (int a = 0; a < 5 && !rc; a++)
			if (!tide_fits_float(q[a]) || (a == 1 && !((float)q[a] > 0)))
				rc = tide_read_fail(TIDE_READ_BAD, "%s: PartType%d/%s of particle id %llu is %g "
				                    "in the case's units, beyond single precision%s", path,
				                    gas ? 0 : 1, what[a],
				                    (unsigned long long)r->id[i], q[a],
				                    a == 1 ? " or too small for it (masses must be > 0)" : "");
		if (!rc && r->id[i] > UINT32_MAX)
			rc = tide_read_fail(TIDE_READ_BAD, "%s: PartType%d/ParticleIDs holds %llu, beyond the "
			                    "32 bits of tide's particle ids (at most %u)", path, gas ? 0 : 1,
			                    (unsigned long long)r->id[i], UINT32_MAX);
	}
	return rc;
}

/* Every particle inside the case's domain (the cells and blocks cover it alone). */
static int check_domain(const char *path, const tide_case *c, const gas_rows *r, int hdf5)
{
	for (size_t i = 0; i < r->n; i++) {
		const double *p = &r->pos[3 * i];
		int in = 1;
		for (int k = 0; k < 3; k++) in &= p[k] >= c->domain.lo[k] && p[k] <= c->domain.hi[k];
		if (in) continue;
		char where[64];
		if (hdf5) snprintf(where, sizeof where, "PartType%d/Coordinates of particle id %llu",
		                   i < r->ngas ? 0 : 1, (unsigned long long)r->id[i]);
		else snprintf(where, sizeof where, "particle %zu (its line's x y z)", i + 1);
		return tide_read_fail(TIDE_READ_BAD, "%s: %s is (%g, %g, %g), outside the case's domain "
		                      "[%g, %g] x [%g, %g] x [%g, %g]; every particle must lie inside "
		                      "'domain'", path, where, p[0], p[1], p[2], c->domain.lo[0],
		                      c->domain.hi[0], c->domain.lo[1], c->domain.hi[1], c->domain.lo[2],
		                      c->domain.hi[2]);
	}
	return 0;
}

/* ---- initial.nbody_file: collisionless particles, text "x y z m [vx vy vz]" ---- */

/* Room for n more particles in every array the collisionless ones use. */
static int rows_grow(gas_rows *r, size_t n)
{
	size_t m = r->n + n;
	double *p = realloc(r->pos, 3 * m * sizeof(double));
	if (p) r->pos = p;
	double *w = p ? realloc(r->vel, 3 * m * sizeof(double)) : NULL;
	if (w) r->vel = w;
	double *ms = w ? realloc(r->mass, m * sizeof(double)) : NULL;
	if (ms) r->mass = ms;
	uint64_t *id = ms ? realloc(r->id, m * sizeof(uint64_t)) : NULL;
	if (id) r->id = id;
	uint8_t *t = id ? realloc(r->type, m) : NULL;
	if (!t) return -1;
	if (!r->type) memset(t, 0, r->n);   /* a text file's rows: all gas */
	r->type = t;
	return 0;
}

/* Appends the collisionless particles of path after the file's (ids after the largest id). */
static int read_nbody_text(const char *path, const tide_case *c, gas_rows *r)
{
	int rc = 0;
	FILE *f = tide_read_open(path, &rc);
	if (!f) return rc;
	uint64_t next = 0;
	for (size_t i = 0; i < r->n; i++)
		if (r->id[i] + 1 > next) next = r->id[i] + 1;
	size_t len = 0, added = 0;
	char *line = NULL;
	long lineno = 0;
	int k;
	double v[8];
	while (!rc && (k = next_numbers(f, &line, &len, &lineno, v)) != -2) {
		if (k != 4 && k != 7) {
			rc = tide_read_fail(TIDE_READ_BAD, "%s line %ld: %s; allowed: 4 numbers (x y z m) or "
			                    "7 (x y z m vx vy vz) per collisionless particle", path, lineno,
			                    k < 0 ? "a word is not a number" : "not 4 or 7 numbers");
			break;
		}
		if ((rc = tide_particle_line_check(path, lineno, v, k))) break;
		int in = 1;
		for (int d = 0; d < 3; d++) in &= v[d] >= c->domain.lo[d] && v[d] <= c->domain.hi[d];
		if (!in) {
			rc = tide_read_fail(TIDE_READ_BAD, "%s line %ld: the particle is at (%g, %g, %g), "
			                    "outside the case's domain; every particle must lie inside "
			                    "'domain'", path, lineno, v[0], v[1], v[2]);
			break;
		}
		if (next > UINT32_MAX) {
			rc = tide_read_fail(TIDE_READ_BAD, "%s line %ld: its id %llu (after the gas's ids) is "
			                    "beyond the 32 bits of tide's particle ids", path, lineno,
			                    (unsigned long long)next);
			break;
		}
		if (rows_grow(r, 1)) { rc = tide_read_nomem(path); break; }
		size_t i = r->n++;
		for (int d = 0; d < 3; d++) {
			r->pos[3 * i + d] = v[d];
			r->vel[3 * i + d] = k == 7 ? v[4 + d] : 0.0;
		}
		r->mass[i] = v[3];
		r->id[i] = next++;
		r->type[i] = 1;
		added++;
	}
	free(line);
	fclose(f);
	if (!rc && added == 0)
		rc = tide_read_fail(TIDE_READ_BAD, "%s holds no particles (no line of x y z m)", path);
	return rc;
}

static int hdf5_name(const char *path)
{
	const char *dot = strrchr(path, '.');
	return dot && (!strcmp(dot, ".hdf5") || !strcmp(dot, ".h5") || !strcmp(dot, ".hdf"));
}

static int read_rows(tide_case *c, gas_rows *r, int *hdf5)
{
	const char *path = c->initial_file;
	int rc;
	FILE *f = tide_read_open(path, &rc);
	if (!f) return rc;
	*hdf5 = tide_swift_is_hdf5(path) || hdf5_name(path);
	if (*hdf5) {
		fclose(f);
		rc = read_hdf5(path, c, r);
	} else {
		rc = read_text(path, f, r);
	}
	if (!rc) rc = check_domain(path, c, r, *hdf5);
	/* the collisionless particles go after the file's, which puts gas first (gas_rows) */
	if (!rc && c->initial_nbody_file[0]) rc = read_nbody_text(c->initial_nbody_file, c, r);
	return rc;
}

int tide_gas_input_build(tide_case *c, int nblocks, void **mem, tide_block_view *v,
                         size_t *n_fluid, size_t *n_nbody, double *t0)
{
	gas_rows r = {0};
	int hdf5 = 0;
	/* every rank reads the same file: rank 0 says what is wrong */
	int saved = tide_quiet_stderr(tide_runtime_uses_mpi() && tide_log_rank != 0);
	int rc = read_rows(c, &r, &hdf5);
	tide_restore_stderr(saved);
	if (rc) {
		rows_free(&r);
		return rc == TIDE_READ_BAD ? -2 : -1;
	}
	uint32_t n = (uint32_t)r.n;
	uint32_t cap = nblocks == 1 ? tide_sim_block_cap(n, 1, 0, 0) : n;
	*mem = tide_block_alloc_host_pin(cap, nblocks == 1);
	if (!*mem) {
		fprintf(stderr, "tide: out of host memory for the %u particles of %s.\n", n, c->initial_file);
		rows_free(&r);
		return -1;
	}
	*v = tide_block_view_make(*mem, cap, 0);
	double eta = c->gas.eta;
	for (uint32_t i = 0; i < n; i++) {
		if (i >= r.ngas) { /* collisionless (gas_math.h): no h, u or density */
			tide_gas_ic_push(v, &r.pos[3 * i], &r.vel[3 * i], 0.0, r.mass[i], 0.0, 0.0);
			v->type[i] = TIDE_NBODY;
			v->id[i] = (uint32_t)r.id[i];
			continue;
		}
		double m = r.mass[i], rho = r.rho && r.rho[i] > 0 ? r.rho[i] : c->rho0;
		/* h: the file's; else rho h^dim = m eta^dim at the file's density, else at rho0, as the
		 * generators start (gas_ic.h), from which the first density pass iterates (gas_math.h).
		 * Never 0: the t = 0 snapshot, written before that pass, must be readable back as
		 * initial.file (h > 0) and continue as this run does (it starts from that same h). */
		double h = r.h && r.h[i] > 0 ? r.h[i] : eta * pow(m / rho, 1.0 / c->dim);
		double u = r.u && r.u[i] >= 0 ? r.u[i] : c->gas.u;
		tide_gas_ic_push(v, &r.pos[3 * i], &r.vel[3 * i], rho, m, u, h);
		v->id[i] = (uint32_t)r.id[i];
		if (r.vh) { /* tide's own snapshot: the leapfrog goes on where it was (gas_math.h) */
			v->vx1[i] = (float)r.vh[3 * i];
			v->vy1[i] = (float)r.vh[3 * i + 1];
			v->vz1[i] = (float)r.vh[3 * i + 2];
			v->TIDE_GAS_UHALF[i] = (float)r.uh[i];
			v->TIDE_GAS_DTK[i] = (float)r.dtk[i];
			v->TIDE_GAS_HDOT[i] = r.hdot ? (float)r.hdot[i] : 0.f;
		}
	}
	tide_unit_system U = tide_case_output_units(c); /* the log's t: the case's units */
	*n_fluid = r.ngas;
	*n_nbody = r.n - r.ngas;
	*t0 = r.t;
	tide_info("%zu gas and %zu collisionless particles from %s%s, t = %.9g\n", r.ngas,
	          r.n - r.ngas, c->initial_file, hdf5 ? " (SWIFT/GADGET HDF5)" : " (text)",
	          r.t * tide_units_factor(&U, TIDE_DIM_TIME));
	rows_free(&r);
	return 0;
}
