// SPDX-License-Identifier: LGPL-2.1-or-later
// The user's particles for the N-body commands (src/particle_input.h): text or SWIFT/GADGET
// HDF5 in, checked, converted to the solver's single-precision bodies in G = 1 units; the
// bodies written back in the SWIFT/GADGET layout.
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tide/bh_gravity.h"
#include "bh_ic.h"
#include "checkpoint.h"
#include "host_memory.h"
#include "log.h"
#include "particle_input.h"
#include "rank_agree.h"
#include "runtime.h"
#include "snapshot_read.h"

/* Units of runs whose particles come without any: centimetre, gram and the G = 1 time unit. */
static tide_swift_units default_units(void) { return tide_swift_units_g1(1, 1); }

void tide_bodies_free(tide_bodies *b)
{
	free(b->body); free(b->vel); free(b->id); free(b->type); free(b->acc);
	memset(b, 0, sizeof *b);
}

void tide_bodies_generated(tide_bodies *b, uint32_t n)
{
	memset(b, 0, sizeof *b);
	b->n = n;
	b->units = default_units();
}

static int alloc_bodies(const char *path, tide_bodies *b, uint64_t n)
{
	size_t m = n ? (size_t)n : 1;
	b->n = (uint32_t)n;
	b->body = malloc(sizeof(bh_body) * m);
	b->vel = calloc(4 * m, sizeof(float));
	b->id = malloc(sizeof(uint64_t) * m);
	b->type = malloc(m);
	if (b->body && b->vel && b->id && b->type) return 0;
	tide_bodies_free(b);
	return tide_read_nomem(path);
}

/* The solver holds single precision: a finite double beyond it would become inf. */
int tide_fits_float(double v) { return isfinite(v) && fabs(v) <= FLT_MAX; }

int tide_particle_line_check(const char *path, long lineno, const double *v, int k)
{
	for (int j = 0; j < k; j++)
		if (!tide_fits_float(v[j]))
			return tide_read_fail(TIDE_READ_BAD, "%s line %ld: value %d is %g, not a finite "
			                      "single-precision number", path, lineno, j + 1, v[j]);
	if (!(v[3] > 0))
		return tide_read_fail(TIDE_READ_BAD, "%s line %ld: the mass is %g; masses must be > 0",
		                      path, lineno, v[3]);
	return 0;
}

/* ---- text: x y z m [vx vy vz] per line ---- */

int tide_parse_numbers(char *line, double v[8], char **bad)
{
	char *hash = strchr(line, '#');
	if (hash) *hash = '\0';
	int k = 0;
	char *p = line;
	for (;;) {
		while (isspace((unsigned char)*p)) p++;
		if (!*p) return k;
		char *end;
		errno = 0;
		double x = strtod(p, &end);
		if (end == p || (*end && !isspace((unsigned char)*end))) { *bad = p; return -1; }
		if (k < 8) v[k] = x;
		k++;
		p = end;
	}
}

static int read_text(const char *path, FILE *f, tide_bodies *b)
{
	size_t cap = 1024, n = 0, len = 0;
	double *rows = malloc(sizeof(double) * 7 * cap);
	char *line = NULL;
	ssize_t got;
	long lineno = 0;
	int rc = 0;
	if (!rows) { fclose(f); return tide_read_nomem(path); }
	while (!rc && (got = getline(&line, &len, f)) >= 0) {
		lineno++;
		if ((size_t)got != strlen(line)) {
			rc = tide_read_fail(TIDE_READ_BAD, "%s line %ld holds a NUL byte: it is not a text file "
			                    "of x y z m lines", path, lineno);
			break;
		}
		char shown[64];
		snprintf(shown, sizeof shown, "%.*s", (int)strcspn(line, "\r\n"), line);
		double v[8];
		char *bad = NULL;
		int k = tide_parse_numbers(line, v, &bad);
		if (k == 0) continue;
		if (k < 0 || (k != 4 && k != 7)) {
			rc = tide_read_fail(TIDE_READ_BAD, "%s line %ld: '%s' is not 4 numbers (x y z m) or 7 "
			                    "(x y z m vx vy vz)%s%.*s%s", path, lineno, shown,
			                    k < 0 ? "; not a number: '" : "", k < 0 ? (int)strcspn(bad, " \t\r\n") : 0,
			                    k < 0 ? bad : "", k < 0 ? "'" : "");
			break;
		}
		rc = tide_particle_line_check(path, lineno, v, k);
		if (!rc && n >= BH_MAX_N)
			rc = tide_read_fail(TIDE_READ_BAD, "%s holds more than %.0f particles, the most tide "
			                    "takes", path, BH_MAX_N);
		if (rc) break;
		if (n == cap) {
			double *r = realloc(rows, sizeof(double) * 7 * 2 * cap);
			if (!r) { rc = tide_read_nomem(path); break; }
			rows = r;
			cap *= 2;
		}
		for (int j = 0; j < 7; j++) rows[7 * n + j] = j < k ? v[j] : 0;
		n++;
	}
	if (!rc && ferror(f)) rc = tide_read_ioerr(path);
	free(line);
	fclose(f);
	if (!rc && n == 0)
		rc = tide_read_fail(TIDE_READ_BAD, "%s holds no particles (no line of x y z m)", path);
	if (!rc) rc = alloc_bodies(path, b, n);
	for (size_t i = 0; !rc && i < n; i++) {
		const double *r = &rows[7 * i];
		b->body[i] = (bh_body){(float)r[0], (float)r[1], (float)r[2], (float)r[3]};
		for (int k = 0; k < 3; k++) b->vel[4 * i + k] = (float)r[4 + k];
		b->id[i] = i + 1;
		b->type[i] = 1;
	}
	free(rows);
	if (!rc) b->units = default_units();
	return rc;
}

/* ---- HDF5: every type a body ---- */

static int read_hdf5(const char *path, tide_bodies *b)
{
	tide_swift_set s;
	/* beside the set: the bodies, their velocities, ids, types and forces */
	double extra = sizeof(bh_body) + 16 + sizeof(uint64_t) + 1 + sizeof(bh_acc);
	int rc = tide_swift_read(path, (1u << TIDE_SWIFT_NTYPES) - 1, TIDE_SWIFT_FORCES, extra, &s);
	if (rc) return rc;
	if (s.n > BH_MAX_N)
		rc = tide_read_fail(TIDE_READ_BAD, "%s holds %llu particles, more than the %.0f tide "
		                    "takes", path, (unsigned long long)s.n, BH_MAX_N);
	/* velocities to the time unit that makes G = 1 with the file's length and mass units (a
	 * factor of exactly 1 for the files tide writes) */
	tide_swift_units u = s.have_units ? s.units : default_units();
	double tg = tide_swift_time_unit_g1(&u), vf = s.have_units ? tg / s.units.time : 1;
	u.time = tg;
	static const char *what[3] = {"Coordinates", "Velocities", "Masses"};
	for (uint64_t i = 0; !rc && i < s.n; i++) {
		const double *q[3] = {&s.pos[3 * i], &s.vel[3 * i], &s.mass[i]};
		for (int a = 0; a < 3 && !rc; a++)
			for (int k = 0; k < (a < 2 ? 3 : 1) && !rc; k++) {
				double v = q[a][k] * (a == 1 ? vf : 1);
				if (!tide_fits_float(v) || (a == 2 && !((float)v > 0)))
					rc = tide_read_fail(TIDE_READ_BAD, "%s: PartType%d/%s of particle id %llu is "
					                    "%g, beyond single precision%s", path, s.type[i], what[a],
					                    (unsigned long long)s.id[i], v,
					                    a == 2 ? " or too small for it (masses must be > 0)" : "");
			}
	}
	if (!rc) rc = alloc_bodies(path, b, s.n);
	for (uint64_t i = 0; !rc && i < s.n; i++) {
		b->body[i] = (bh_body){(float)s.pos[3 * i], (float)s.pos[3 * i + 1],
		                       (float)s.pos[3 * i + 2], (float)s.mass[i]};
		for (int k = 0; k < 3; k++) b->vel[4 * i + k] = (float)(s.vel[3 * i + k] * vf);
		b->id[i] = s.id[i];
		b->type[i] = s.type[i];
	}
	if (!rc) {
		b->units = u;
		b->time = s.have_time ? s.time / vf : 0; /* in the G = 1 time unit too */
		b->have_state = s.have_state;
		memcpy(b->state, s.state, sizeof b->state);
		/* forces in single precision, of files that hold them for every particle; those of
		 * another time unit are not converted (only tide nbody's own are used, state says) */
		b->acc = s.acc && vf == 1 ? malloc(sizeof(bh_acc) * (s.n ? s.n : 1)) : NULL;
		for (uint64_t i = 0; b->acc && i < s.n; i++)
			b->acc[i] = (bh_acc){(float)s.acc[3 * i], (float)s.acc[3 * i + 1],
			                     (float)s.acc[3 * i + 2], (float)s.pot[i]};
	}
	tide_swift_set_free(&s);
	return rc;
}

static int hdf5_name(const char *path)
{
	const char *dot = strrchr(path, '.');
	return dot && (!strcmp(dot, ".hdf5") || !strcmp(dot, ".h5") || !strcmp(dot, ".hdf"));
}

int tide_bodies_read(const char *path, tide_bodies *b)
{
	memset(b, 0, sizeof *b);
	int rc;
	FILE *f = tide_read_open(path, &rc);
	if (!f) return rc;
	if (tide_swift_is_hdf5(path) || hdf5_name(path)) {
		fclose(f);
		return read_hdf5(path, b);
	}
	return read_text(path, f, b);
}

uint64_t tide_bodies_fingerprint(const tide_bodies *b)
{
	uint64_t h = tide_fnv1a(TIDE_FNV_INIT, &b->n, sizeof b->n);
	h = tide_fnv1a(h, b->body, sizeof(bh_body) * b->n);
	h = tide_fnv1a(h, b->vel, 16 * (size_t)b->n);
	if (b->id) h = tide_fnv1a(h, b->id, sizeof(uint64_t) * b->n);
	if (b->type) h = tide_fnv1a(h, b->type, b->n);
	if (b->acc) h = tide_fnv1a(h, b->acc, sizeof(bh_acc) * b->n);
	h = tide_fnv1a(h, &b->have_state, sizeof b->have_state);
	h = tide_fnv1a(h, b->state, sizeof b->state);
	return tide_fnv1a(h, &b->units, sizeof b->units);
}

int tide_bodies_load(const char *path, tide_bodies *b)
{
	/* the same file gives every rank the same sentence: rank 0 says it */
	int saved = tide_quiet_stderr(tide_runtime_uses_mpi() && tide_log_rank != 0);
	int rc = tide_bodies_read(path, b);
	tide_restore_stderr(saved);
	tide_rank_view me = {.status = rc, .input = rc ? 0 : tide_bodies_fingerprint(b)};
	tide_rank_verdict v;
	tide_ranks_agree(&me, &v);
	if (v.rank0.status) { /* rank 0 said why */
		tide_bodies_free(b);
		return v.rank0.status;
	}
	if (v.first_bad >= 0) {
		if (tide_log_rank == 0)
			fprintf(stderr, "tide: MPI rank %d %s %s%s; every rank must read the same file (a "
			        "copy on each node must be identical).\n", v.first_bad,
			        v.bad.status ? "could not read" : "read other particles from", path,
			        v.bad.status ? ", which rank 0 read" : " than rank 0");
		tide_bodies_free(b);
		if (v.first_bad == tide_log_rank && rc) { /* that rank says why (it was quiet) */
			tide_bodies_read(path, b);
			tide_bodies_free(b);
		}
		return v.bad.status ? v.bad.status : 2;
	}
	return 0;
}

/* ---- writing ---- */

int tide_bodies_write(const char *path, const tide_bodies *b, const bh_body *body,
                      const float *vel, const bh_acc *acc, double t, const double *state)
{
	size_t n = b->n, m = n ? n : 1;
	double *pos = malloc(sizeof(double) * 3 * m);
	float *v = malloc(sizeof(float) * 3 * m), *mass = malloc(sizeof(float) * m);
	float *pot = acc ? malloc(sizeof(float) * m) : NULL, *a = acc ? malloc(sizeof(float) * 3 * m) : NULL;
	uint64_t *id = malloc(sizeof(uint64_t) * m);
	int rc = 0;
	if (!pos || !v || !mass || !id || (acc && (!pot || !a))) {
		fprintf(stderr, "tide: cannot write %s: out of host memory for %zu particles.\n", path, n);
		rc = 1;
	}
	for (size_t i = 0; !rc && i < n; i++) {
		uint32_t j = bh_get_id(&vel[4 * i]);
		pos[3 * j] = body[i].x; pos[3 * j + 1] = body[i].y; pos[3 * j + 2] = body[i].z;
		mass[j] = body[i].m;
		memcpy(&v[3 * (size_t)j], &vel[4 * i], 3 * sizeof(float));
		if (acc) {
			a[3 * j] = acc[i].ax; a[3 * j + 1] = acc[i].ay; a[3 * j + 2] = acc[i].az;
			pot[j] = acc[i].pot;
		}
	}
	for (size_t i = 0; !rc && i < n; i++) id[i] = b->id ? b->id[i] : i + 1;
	/* the bodies are in file order, so each type is one contiguous range */
	tide_swift_out types[TIDE_SWIFT_NTYPES];
	memset(types, 0, sizeof types);
	tide_swift_header h = {.time = t, .units = b->units, .have_state = state != NULL};
	if (state) memcpy(h.state, state, sizeof h.state);
	for (size_t i = 0; !rc && i < n;) {
		int k = b->type ? b->type[i] : 1;
		size_t e = i;
		while (e < n && (b->type ? b->type[e] : 1) == k) e++;
		if (types[k].n > 0) { /* a type in two ranges: not from tide_bodies_read */
			fprintf(stderr, "tide: cannot write %s: particles of type %d are not together.\n", path, k);
			rc = 1;
			break;
		}
		types[k] = (tide_swift_out){.n = e - i, .pos = pos + 3 * i, .vel = v + 3 * i,
		                            .mass = mass + i, .id = id + i, .pot = pot ? pot + i : NULL,
		                            .acc = a ? a + 3 * i : NULL};
		i = e;
	}
	/* not a periodic run: the box is the particles' extent */
	if (!rc && n > 0) {
		double lo[3], hi[3];
		for (int k = 0; k < 3; k++) lo[k] = hi[k] = pos[k];
		for (size_t i = 1; i < n; i++)
			for (int k = 0; k < 3; k++) {
				lo[k] = fmin(lo[k], pos[3 * i + k]);
				hi[k] = fmax(hi[k], pos[3 * i + k]);
			}
		for (int k = 0; k < 3; k++) h.box[k] = hi[k] - lo[k];
	}
	if (!rc) rc = tide_swift_write(path, &h, types);
	free(pos); free(v); free(mass); free(pot); free(a); free(id);
	return rc;
}

int tide_bodies_memory_agree(const char *prefix, double bytes, const char *what, const char *advice)
{
	int saved = tide_quiet_stderr(tide_log_rank != 0);
	tide_rank_view me = {.status = tide_host_memory_check(prefix, bytes, what, advice) ? 1 : 0};
	tide_restore_stderr(saved);
	tide_rank_verdict v;
	tide_ranks_agree(&me, &v);
	if (!v.rank0.status && v.first_bad == tide_log_rank) /* rank 0 had room: this rank says it */
		tide_host_memory_check(prefix, bytes, what, advice);
	return v.rank0.status || v.first_bad >= 0;
}
