// SPDX-License-Identifier: LGPL-2.1-or-later
// SWIFT/GADGET HDF5 particle files (src/swift_io.h): the writer (header, units, one group per
// particle type, the unit attributes of every dataset) and the checked reader.  The attribute
// names and types follow SWIFT's snapshots and its initial-conditions documentation, so that the
// GADGET-2 readers (six-entry per-type arrays), SWIFT itself, swiftsimio and yt take the files.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_memory.h"
#include "log.h"
#include "snapshot_read.h"
#include "swift_io.h"

double tide_swift_time_unit_g1(const tide_swift_units *u)
{
	return sqrt(u->length * u->length * u->length / (TIDE_G_CGS * u->mass));
}

tide_swift_units tide_swift_units_g1(double L, double M)
{
	tide_swift_units u = {L, M, 1, 1, 1};
	u.time = tide_swift_time_unit_g1(&u);
	return u;
}

int tide_swift_is_hdf5(const char *path)
{
	/* the signature sits at byte 0, or after a user block of 512, 1024, 2048, ... bytes */
	static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
	FILE *f = fopen(path, "rb");
	if (!f) return 0;
	unsigned char b[8];
	int yes = 0;
	for (long off = 0; !yes && off <= (1L << 20); off = off ? 2 * off : 512) {
		if (fseek(f, off, SEEK_SET) || fread(b, 1, 8, f) != 8) break;
		yes = !memcmp(b, sig, 8);
	}
	fclose(f);
	return yes;
}

void tide_swift_set_free(tide_swift_set *s)
{
	free(s->pos); free(s->vel); free(s->mass); free(s->id); free(s->type);
	free(s->u); free(s->h); free(s->rho); free(s->acc); free(s->pot);
	free(s->vh); free(s->uh); free(s->dtk); free(s->hdot);
	memset(s, 0, sizeof *s);
}

#ifdef TIDE_HAVE_HDF5
#include <hdf5.h>
#include "h5_read.h"

/* ---- the datasets: names, dimensions in the base units (M, L, t, I, T), descriptions ---- */

typedef struct swift_field {
	const char *name;
	int ncomp;
	float dim[5];
	const char *expr;          /* "Expression for physical CGS units" */
	const char *description;
} swift_field;

enum { F_POS, F_VEL, F_MASS, F_ID, F_POT, F_ACC, F_U, F_H, F_RHO, F_VH, F_UH, F_DTK, F_HDOT, NFIELD };

static const swift_field fields[NFIELD] = {
	[F_POS] = {"Coordinates", 3, {0, 1, 0, 0, 0}, "U_L [ cm ]", "Positions of the particles."},
	[F_VEL] = {"Velocities", 3, {0, 1, -1, 0, 0}, "U_L U_t^-1 [ cm s^-1 ]",
	           "Velocities of the particles."},
	[F_MASS] = {"Masses", 1, {1, 0, 0, 0, 0}, "U_M [ g ]", "Masses of the particles."},
	[F_ID] = {"ParticleIDs", 1, {0, 0, 0, 0, 0}, "[ - ]", "Unique IDs of the particles."},
	[F_POT] = {"Potentials", 1, {0, 2, -2, 0, 0}, "U_L^2 U_t^-2 [ cm^2 s^-2 ]",
	           "Gravitational potential of the particles (G = 1 units of the Units group)."},
	[F_ACC] = {"Accelerations", 3, {0, 1, -2, 0, 0}, "U_L U_t^-2 [ cm s^-2 ]",
	           "Gravitational accelerations of the particles."},
	[F_U] = {"InternalEnergy", 1, {0, 2, -2, 0, 0}, "U_L^2 U_t^-2 [ cm^2 s^-2 ]",
	         "Specific internal energies of the particles."},
	[F_H] = {"SmoothingLength", 1, {0, 1, 0, 0, 0}, "U_L [ cm ]",
	         "Smoothing lengths of the particles."},
	[F_RHO] = {"Density", 1, {-3, 1, 0, 0, 0}, "U_M U_L^-3 [ g cm^-3 ]",
	           "Densities of the particles."},
	/* tide's leapfrog state of a gas run (gas_math.h), which SWIFT's readers pass over: a run
	 * started from the file goes on as the run that wrote it */
	[F_VH] = {"tide_HalfStepVelocities", 3, {0, 1, -1, 0, 0}, "U_L U_t^-1 [ cm s^-1 ]",
	          "tide's leapfrog: velocities at the last half step."},
	[F_UH] = {"tide_HalfStepInternalEnergy", 1, {0, 2, -2, 0, 0}, "U_L^2 U_t^-2 [ cm^2 s^-2 ]",
	          "tide's leapfrog: specific internal energies at the last half step."},
	[F_DTK] = {"tide_LastKickStep", 1, {0, 0, 1, 0, 0}, "U_t [ s ]",
	           "tide's leapfrog: the time step of each particle's last kick."},
	/* the rate from which the next density pass predicts h (gas_math.h); files without it
	 * (older ones) predict none */
	[F_HDOT] = {"tide_SmoothingLengthRate", 1, {0, 1, -1, 0, 0}, "U_L U_t^-1 [ cm s^-1 ]",
	            "tide's h iteration: dh/dt of each particle at its last density pass."},
};

/* ---- writing ---- */

/* Attribute name of loc, n values of memory type mt stored as file type ft.  0 or -1. */
static int attr(hid_t loc, const char *name, hid_t ft, hid_t mt, hsize_t n, const void *v)
{
	hid_t sp = H5Screate_simple(1, &n, NULL);
	hid_t a = sp >= 0 ? H5Acreate2(loc, name, ft, sp, H5P_DEFAULT, H5P_DEFAULT) : -1;
	int bad = a < 0 || H5Awrite(a, mt, v) < 0;
	if (a >= 0) H5Aclose(a);
	if (sp >= 0) H5Sclose(sp);
	return bad ? -1 : 0;
}

static int attr_d(hid_t loc, const char *name, double v)
{
	return attr(loc, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, &v);
}

static int attr_f(hid_t loc, const char *name, float v)
{
	return attr(loc, name, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 1, &v);
}

static int attr_i(hid_t loc, const char *name, int v)
{
	return attr(loc, name, H5T_STD_I32LE, H5T_NATIVE_INT, 1, &v);
}

/* A scalar fixed-length string, as SWIFT writes its text attributes. */
static int attr_s(hid_t loc, const char *name, const char *s)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	hid_t sp = H5Screate(H5S_SCALAR);
	int bad = t < 0 || sp < 0 || H5Tset_size(t, strlen(s) ? strlen(s) : 1) < 0;
	hid_t a = bad ? -1 : H5Acreate2(loc, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
	bad = a < 0 || H5Awrite(a, t, s) < 0;
	if (a >= 0) H5Aclose(a);
	if (sp >= 0) H5Sclose(sp);
	if (t >= 0) H5Tclose(t);
	return bad ? -1 : 0;
}

/* cgs value of one unit of a quantity of dimensions dim in units u */
static double cgs_factor(const tide_swift_units *u, const float dim[5])
{
	const double base[5] = {u->mass, u->length, u->time, u->current, u->temperature};
	double f = 1;
	for (int k = 0; k < 5; k++)
		if (dim[k] != 0) f *= pow(base[k], dim[k]);
	return f;
}

/* The unit attributes of one dataset, as SWIFT writes them.  tide runs are not cosmological:
 * the scale factor is 1, so a value is physical and comoving alike (a- and h-exponents 0, the
 * conversion to comoving allowed: it changes nothing). */
static int field_attrs(hid_t d, const swift_field *f, const tide_swift_units *u)
{
	static const char *exps[5] = {"U_M exponent", "U_L exponent", "U_t exponent", "U_I exponent",
	                              "U_T exponent"};
	int bad = 0;
	for (int k = 0; k < 5; k++) bad |= attr_f(d, exps[k], f->dim[k]);
	double c = cgs_factor(u, f->dim);
	bad |= attr_f(d, "h-scale exponent", 0.f);
	bad |= attr_f(d, "a-scale exponent", 0.f);
	bad |= attr_s(d, "Expression for physical CGS units", f->expr);
	bad |= attr_d(d, "Conversion factor to CGS (not including cosmological corrections)", c);
	bad |= attr_d(d, "Conversion factor to physical CGS (including cosmological corrections)", c);
	bad |= attr_i(d, "Value stored as physical", 1);
	bad |= attr_i(d, "Property can be converted to comoving", 1);
	bad |= attr_s(d, "Description", f->description);
	return bad;
}

/* The ranks writing one file (one rank: comm MPI_COMM_NULL). */
typedef struct writer {
	MPI_Comm comm;
	int rank;
	hid_t dxpl;
	int failed;              /* this rank failed: err_no says why */
	int err_no;
} writer;

/* Every rank must take the same path through the collective calls: a failure anywhere stops all. */
static int all_ok(writer *w, int ok)
{
	if (!ok && !w->failed) { /* the system's reason where HDF5 left it */
		w->failed = 1;
		w->err_no = errno ? errno : EIO;
	}
	int all = ok;
	if (w->comm != MPI_COMM_NULL) MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, w->comm);
	return all;
}

/* Dataset field of rows [off, off + n) of n_all (the other rows are the other ranks'). */
static int write_field(writer *w, hid_t g, int field, hid_t ft, hid_t mt, uint64_t n_all,
                       uint64_t off, uint64_t n, const void *v, const tide_swift_units *u)
{
	const swift_field *f = &fields[field];
	int nd = f->ncomp > 1 ? 2 : 1;
	hsize_t dims[2] = {n_all, (hsize_t)f->ncomp};
	hid_t sp = H5Screate_simple(nd, dims, NULL);
	hid_t d = sp >= 0 ? H5Dcreate2(g, f->name, ft, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
	int ok = all_ok(w, d >= 0);
	if (ok && n_all > 0) {
		hsize_t start[2] = {off, 0}, count[2] = {n, (hsize_t)f->ncomp};
		hsize_t mdims[2] = {n ? n : 1, (hsize_t)f->ncomp};
		hid_t mem = H5Screate_simple(nd, mdims, NULL);
		herr_t e = n ? H5Sselect_hyperslab(sp, H5S_SELECT_SET, start, NULL, count, NULL)
		             : H5Sselect_none(sp);
		if (!n && e >= 0) e = H5Sselect_none(mem);
		if (e >= 0) e = H5Dwrite(d, mt, mem, sp, w->dxpl, v);
		H5Sclose(mem);
		ok = all_ok(w, e >= 0);
	}
	if (ok) ok = all_ok(w, field_attrs(d, f, u) == 0);
	if (d >= 0) H5Dclose(d);
	if (sp >= 0) H5Sclose(sp);
	return ok;
}

/* What the ranks hold of one type: the total, this rank's first row, and the fields given. */
typedef struct type_plan {
	uint64_t n_all, off;
	unsigned fields;         /* bits F_POT, F_ACC, F_U, F_H, F_RHO, F_VH, F_UH, F_DTK */
} type_plan;

static unsigned optional_fields(int k, const tide_swift_out *t)
{
	if (t->n == 0) return 0;
	return (t->pot ? 1u << F_POT : 0) | (t->acc ? 1u << F_ACC : 0) |
	       (k == 0 && t->u ? 1u << F_U : 0) | (k == 0 && t->h ? 1u << F_H : 0) |
	       (k == 0 && t->rho ? 1u << F_RHO : 0) |
	       (k == 0 && t->vh && t->uh && t->dtk ? 1u << F_VH | 1u << F_UH | 1u << F_DTK : 0) |
	       (k == 0 && t->vh && t->hdot ? 1u << F_HDOT : 0);
}

static int write_type(writer *w, hid_t file, int k, const tide_swift_out *t, const type_plan *p,
                      const tide_swift_units *u)
{
	char name[16];
	snprintf(name, sizeof name, "PartType%d", k);
	hid_t g = H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (!all_ok(w, g >= 0)) return 0;
	const hid_t F = H5T_IEEE_F32LE, MF = H5T_NATIVE_FLOAT;
	uint64_t N = p->n_all, o = p->off, n = t->n;
	int ok = write_field(w, g, F_POS, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, N, o, n, t->pos, u) &&
	         write_field(w, g, F_VEL, F, MF, N, o, n, t->vel, u) &&
	         write_field(w, g, F_MASS, F, MF, N, o, n, t->mass, u) &&
	         write_field(w, g, F_ID, H5T_STD_U64LE, H5T_NATIVE_UINT64, N, o, n, t->id, u);
	const float *opt[NFIELD] = {[F_POT] = t->pot, [F_ACC] = t->acc, [F_U] = t->u, [F_H] = t->h,
	                            [F_RHO] = t->rho, [F_VH] = t->vh, [F_UH] = t->uh, [F_DTK] = t->dtk,
	                            [F_HDOT] = t->hdot};
	for (int i = F_POT; i < NFIELD && ok; i++)
		if (p->fields & (1u << i)) ok = write_field(w, g, i, F, MF, N, o, n, opt[i], u);
	H5Gclose(g);
	return ok;
}

/* Header: GADGET-2's attributes (the six-entry arrays), SWIFT's additions (Dimension, a 3-vector
 * BoxSize, Scale-factor), and the cosmology a non-cosmological GADGET run writes (yt reads
 * Omega0, OmegaLambda, HubbleParam). */
static int write_header(hid_t file, const tide_swift_header *h, const uint64_t n[TIDE_SWIFT_NTYPES])
{
	hid_t g = H5Gcreate2(file, "Header", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (g < 0) return -1;
	uint32_t lo[TIDE_SWIFT_NTYPES], hi[TIDE_SWIFT_NTYPES], zero[TIDE_SWIFT_NTYPES] = {0};
	double mass_table[TIDE_SWIFT_NTYPES] = {0}; /* 0: every type has its Masses dataset */
	for (int k = 0; k < TIDE_SWIFT_NTYPES; k++) {
		lo[k] = (uint32_t)n[k];
		hi[k] = (uint32_t)(n[k] >> 32);
	}
	const hsize_t nt = TIDE_SWIFT_NTYPES;
	int bad = attr(g, "BoxSize", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, h->box);
	bad |= attr_d(g, "Time", h->time);
	bad |= attr_d(g, "Redshift", 0);
	bad |= attr_d(g, "Scale-factor", 1);
	bad |= attr_i(g, "Dimension", 3);
	bad |= attr(g, "NumPart_ThisFile", H5T_STD_U32LE, H5T_NATIVE_UINT32, nt, lo);
	bad |= attr(g, "NumPart_Total", H5T_STD_U32LE, H5T_NATIVE_UINT32, nt, lo);
	bad |= attr(g, "NumPart_Total_HighWord", H5T_STD_U32LE, H5T_NATIVE_UINT32, nt, hi);
	bad |= attr(g, "MassTable", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, nt, mass_table);
	bad |= attr(g, "Flag_Entropy_ICs", H5T_STD_U32LE, H5T_NATIVE_UINT32, nt, zero);
	bad |= attr_i(g, "NumFilesPerSnapshot", 1);
	bad |= attr_i(g, "ThisFile", 0);
	static const char *flags[] = {"Flag_Sfr", "Flag_Cooling", "Flag_StellarAge", "Flag_Metals",
	                              "Flag_Feedback", "Flag_DoublePrecision"};
	for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) bad |= attr_i(g, flags[i], 0);
	bad |= attr_d(g, "Omega0", 0);
	bad |= attr_d(g, "OmegaLambda", 0);
	bad |= attr_d(g, "HubbleParam", 1);
	bad |= attr_s(g, "Code", "tide");
	H5Gclose(g);
	return bad;
}

static int write_group_attrs(hid_t file, const char *group, int (*fill)(hid_t, const void *),
                             const void *arg)
{
	hid_t g = H5Gcreate2(file, group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (g < 0) return -1;
	int bad = fill(g, arg);
	H5Gclose(g);
	return bad;
}

static int fill_units(hid_t g, const void *arg)
{
	const tide_swift_units *u = arg;
	int bad = attr_d(g, "Unit mass in cgs (U_M)", u->mass);
	bad |= attr_d(g, "Unit length in cgs (U_L)", u->length);
	bad |= attr_d(g, "Unit time in cgs (U_t)", u->time);
	bad |= attr_d(g, "Unit current in cgs (U_I)", u->current);
	bad |= attr_d(g, "Unit temperature in cgs (U_T)", u->temperature);
	return bad;
}

#define NBODY_STATE "tide nbody state"

static int fill_parameters(hid_t g, const void *arg)
{
	return attr(g, NBODY_STATE, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, TIDE_NBODY_STATE, arg);
}

static int fill_runtime(hid_t g, const void *arg)
{
	return attr_i(g, "PeriodicBoundariesOn", *(const int *)arg);
}

static int fill_cosmology(hid_t g, const void *arg)
{
	(void)arg;
	return attr_i(g, "Cosmological run", 0);
}

static int fill_code(hid_t g, const void *arg)
{
	(void)arg;
	return attr_s(g, "Code", "tide") | attr_s(g, "Code Version", TIDE_VERSION);
}

/* The file of one rank or of the ranks of w->comm: header, groups, then every type, written at
 * tmp and renamed to path by rank 0 once whole.  0, or 1 on every rank (one rank said why). */
static int write_file(writer *w, const char *path, const tide_swift_header *h,
                      const tide_swift_out types[TIDE_SWIFT_NTYPES])
{
	char tmp[4200];
	if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
		if (w->rank == 0) fprintf(stderr, "tide: cannot write %s: the path is too long.\n", path);
		return 1;
	}
	/* the types' totals, this rank's first rows and the optional fields given */
	type_plan p[TIDE_SWIFT_NTYPES];
	uint64_t n[TIDE_SWIFT_NTYPES], off[TIDE_SWIFT_NTYPES] = {0}, all[TIDE_SWIFT_NTYPES];
	unsigned mine[TIDE_SWIFT_NTYPES], any[TIDE_SWIFT_NTYPES], every[TIDE_SWIFT_NTYPES];
	for (int k = 0; k < TIDE_SWIFT_NTYPES; k++) {
		n[k] = types[k].n;
		mine[k] = optional_fields(k, &types[k]);
		/* a rank without particles of the type has no say in its fields */
		every[k] = types[k].n ? mine[k] : ~0u;
	}
	memcpy(all, n, sizeof all);
	memcpy(any, mine, sizeof any);
	if (w->comm != MPI_COMM_NULL) {
		MPI_Exscan(n, off, TIDE_SWIFT_NTYPES, MPI_UINT64_T, MPI_SUM, w->comm);
		if (w->rank == 0) memset(off, 0, sizeof off); /* MPI leaves rank 0's result undefined */
		MPI_Allreduce(n, all, TIDE_SWIFT_NTYPES, MPI_UINT64_T, MPI_SUM, w->comm);
		MPI_Allreduce(mine, any, TIDE_SWIFT_NTYPES, MPI_UNSIGNED, MPI_BOR, w->comm);
		MPI_Allreduce(MPI_IN_PLACE, every, TIDE_SWIFT_NTYPES, MPI_UNSIGNED, MPI_BAND, w->comm);
	}
	for (int k = 0; k < TIDE_SWIFT_NTYPES; k++) {
		p[k] = (type_plan){all[k], off[k], any[k]};
		if (any[k] != (every[k] & any[k])) {
			if (w->rank == 0)
				fprintf(stderr, "tide: cannot write %s: the ranks give other fields of type %d "
				        "(a program error).\n", path, k);
			return 1;
		}
	}
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	w->dxpl = H5Pcreate(H5P_DATASET_XFER);
#ifdef H5_HAVE_PARALLEL
	if (w->comm != MPI_COMM_NULL) {
		H5Pset_fapl_mpio(fapl, w->comm, MPI_INFO_NULL);
		H5Pset_dxpl_mpio(w->dxpl, H5FD_MPIO_COLLECTIVE);
	}
#endif
	errno = 0;
	hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	int ok = all_ok(w, f >= 0);   /* before anything else can change errno */
	H5Pclose(fapl);
	/* the attributes: every rank writes the same values (collective metadata) */
	if (ok) ok = all_ok(w, write_header(f, h, all) == 0 &&
	                       write_group_attrs(f, "Units", fill_units, &h->units) == 0 &&
	                       write_group_attrs(f, "RuntimePars", fill_runtime, &h->periodic) == 0 &&
	                       write_group_attrs(f, "Cosmology", fill_cosmology, NULL) == 0 &&
	                       write_group_attrs(f, "Code", fill_code, NULL) == 0 &&
	                       (!h->have_state ||
	                        write_group_attrs(f, "Parameters", fill_parameters, h->state) == 0));
	for (int k = 0; k < TIDE_SWIFT_NTYPES && ok; k++)
		if (all[k] > 0) ok = write_type(w, f, k, &types[k], &p[k], &h->units);
	if (f >= 0 && H5Fclose(f) < 0) ok = 0;
	H5Pclose(w->dxpl);
	ok = all_ok(w, ok);
	if (ok && w->rank == 0 && rename(tmp, path)) ok = all_ok(w, 0);
	else ok = all_ok(w, ok);
	H5Eclear2(H5E_DEFAULT);
	if (ok) return 0;
	if (w->rank == 0) remove(tmp);
	/* the lowest rank that failed says why */
	int size = 1, me = w->failed ? w->rank : 1 << 30, first = me;
	if (w->comm != MPI_COMM_NULL) {
		MPI_Comm_size(w->comm, &size);
		MPI_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, w->comm);
	}
	if (first == w->rank)
		fprintf(stderr, "tide: cannot write %s: %s.\n", path, tide_io_reason(w->err_no));
	return 1;
}

int tide_swift_write(const char *path, const tide_swift_header *h,
                     const tide_swift_out types[TIDE_SWIFT_NTYPES])
{
	writer w = {.comm = MPI_COMM_NULL};
	return write_file(&w, path, h, types);
}

int tide_swift_write_ranks(const char *path, const tide_swift_header *h,
                           const tide_swift_out types[TIDE_SWIFT_NTYPES], MPI_Comm comm)
{
	int size = 1, rank = 0;
	if (comm != MPI_COMM_NULL) {
		MPI_Comm_size(comm, &size);
		MPI_Comm_rank(comm, &rank);
	}
	if (size == 1) return tide_swift_write(path, h, types);
#ifndef H5_HAVE_PARALLEL
	if (rank == 0)
		fprintf(stderr, "tide: cannot write %s from %d ranks: this HDF5 has no parallel (MPI-IO) "
		        "support; install libhdf5-openmpi-dev and build again.\n", path, size);
	return 1;
#else
	writer w = {.comm = comm, .rank = rank};
	return write_file(&w, path, h, types);
#endif
}

/* ---- reading ---- */

/* One sentence about the file, TIDE_READ_BAD; HDF5's error stack is dropped. */
#define BAD(...) (H5Eclear2(H5E_DEFAULT), tide_read_fail(TIDE_READ_BAD, __VA_ARGS__))

/* Reads attribute name of loc (n values, converted to double) if present: 1 read, 0 absent,
 * -1 present but not n numbers. */
static int read_attr_d(hid_t loc, const char *name, double *v, int n)
{
	if (H5Aexists(loc, name) <= 0) return 0;
	hid_t a = H5Aopen(loc, name, H5P_DEFAULT);
	hid_t sp = a >= 0 ? H5Aget_space(a) : -1, t = a >= 0 ? H5Aget_type(a) : -1;
	H5T_class_t c = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
	hssize_t np = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
	int ok = (c == H5T_INTEGER || c == H5T_FLOAT) && np == n &&
	         H5Aread(a, H5T_NATIVE_DOUBLE, v) >= 0;
	if (t >= 0) H5Tclose(t);
	if (sp >= 0) H5Sclose(sp);
	if (a >= 0) H5Aclose(a);
	H5Eclear2(H5E_DEFAULT);
	return ok ? 1 : -1;
}

/* The per-type Header array name (6 or 7 entries, SWIFT writes 7): 1 read, 0 absent, -1 bad. */
static int read_type_attr(hid_t hdr, const char *name, double v[TIDE_SWIFT_NTYPES])
{
	double all[8] = {0};
	int r = read_attr_d(hdr, name, all, TIDE_SWIFT_NTYPES);
	if (r < 0) r = read_attr_d(hdr, name, all, 7);
	memcpy(v, all, sizeof(double) * TIDE_SWIFT_NTYPES);
	return r;
}

typedef struct header_info {
	int have_numpart;
	double numpart[TIDE_SWIFT_NTYPES], mass_table[TIDE_SWIFT_NTYPES];
} header_info;

static int read_header(const char *path, hid_t f, header_info *hi, tide_swift_set *s)
{
	memset(hi, 0, sizeof *hi);
	if (H5Lexists(f, "Header", H5P_DEFAULT) <= 0) { H5Eclear2(H5E_DEFAULT); return 0; }
	hid_t h = H5Gopen2(f, "Header", H5P_DEFAULT);
	if (h < 0) return BAD("%s: its Header is not a group", path);
	int rc = 0;
	double v[TIDE_SWIFT_NTYPES];
	double files = 1, dim = 3;
	if (read_attr_d(h, "NumFilesPerSnapshot", &files, 1) < 0 || read_attr_d(h, "Dimension", &dim, 1) < 0)
		rc = BAD("%s: its Header attribute NumFilesPerSnapshot or Dimension is not one number", path);
	else if (files != 1)
		rc = BAD("%s is one file of a snapshot in %g files (Header NumFilesPerSnapshot); tide reads "
		         "snapshots in one file: join the files first", path, files);
	else if (dim != 3)
		rc = BAD("%s holds a %g-dimensional run (Header Dimension); tide reads 3-dimensional ones",
		         path, dim);
	int r = rc ? 0 : read_type_attr(h, "NumPart_ThisFile", v);
	if (r < 0) rc = BAD("%s: its Header attribute NumPart_ThisFile is not 6 numbers", path);
	if (r > 0) { hi->have_numpart = 1; memcpy(hi->numpart, v, sizeof v); }
	r = rc ? 0 : read_type_attr(h, "MassTable", v);
	if (r < 0) rc = BAD("%s: its Header attribute MassTable is not 6 numbers", path);
	if (r > 0) memcpy(hi->mass_table, v, sizeof v);
	if (!rc && read_attr_d(h, "Time", &s->time, 1) > 0) {
		if (!isfinite(s->time)) rc = BAD("%s: its Header Time is %g, not a finite number", path, s->time);
		s->have_time = 1;
	}
	H5Gclose(h);
	return rc;
}

static int read_units(const char *path, hid_t f, tide_swift_set *s)
{
	s->units = (tide_swift_units){1, 1, 1, 1, 1};
	if (H5Lexists(f, "Units", H5P_DEFAULT) <= 0) { H5Eclear2(H5E_DEFAULT); return 0; }
	hid_t g = H5Gopen2(f, "Units", H5P_DEFAULT);
	if (g < 0) return BAD("%s: its Units is not a group", path);
	static const char *names[5] = {"Unit length in cgs (U_L)", "Unit mass in cgs (U_M)",
	                               "Unit time in cgs (U_t)", "Unit current in cgs (U_I)",
	                               "Unit temperature in cgs (U_T)"};
	double *dst[5] = {&s->units.length, &s->units.mass, &s->units.time, &s->units.current,
	                  &s->units.temperature};
	int rc = 0;
	for (int k = 0; k < 5 && !rc; k++) {
		int r = read_attr_d(g, names[k], dst[k], 1);
		/* current and temperature do not enter a gravity run: 1 when left out */
		if (r == 0 && k >= 3) continue;
		if (r <= 0 || !(*dst[k] > 0) || !isfinite(*dst[k]))
			rc = BAD("%s: its Units group has no valid '%s' (a number > 0 is needed)", path, names[k]);
	}
	H5Gclose(g);
	s->have_units = !rc;
	return rc;
}

/* Rows of dataset d if it is ncomp wide (N x ncomp; N or N x 1 for ncomp 1) and numbers of an
 * allowed class; else one sentence. */
static int dataset_rows(const char *path, const char *group, hid_t d, const swift_field *f,
                        uint64_t *rows)
{
	hid_t sp = H5Dget_space(d), t = H5Dget_type(d);
	hsize_t dims[3] = {0, 0, 0};
	int nd = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
	if (nd >= 1 && nd <= 3) H5Sget_simple_extent_dims(sp, dims, NULL);
	H5T_class_t c = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
	if (sp >= 0) H5Sclose(sp);
	if (t >= 0) H5Tclose(t);
	int shape = f->ncomp > 1 ? nd == 2 && dims[1] == (hsize_t)f->ncomp
	                         : nd == 1 || (nd == 2 && dims[1] == 1);
	int is_id = f == &fields[F_ID];
	if (!shape)
		return BAD("%s: %s/%s has the wrong shape (%d dimensions, %llu x %llu); it must be %s", path,
		           group, f->name, nd, (unsigned long long)dims[0], (unsigned long long)dims[1],
		           f->ncomp > 1 ? "N x 3" : "a list of N values");
	if (is_id ? c != H5T_INTEGER : c != H5T_FLOAT && c != H5T_INTEGER)
		return BAD("%s: %s/%s is not %s", path, group, f->name, is_id ? "integers" : "numbers");
	*rows = dims[0];
	return 0;
}

static int read_doubles(const char *path, const char *group, hid_t d, const swift_field *f,
                        double *out)
{
	if (H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0) {
		char what[160];
		snprintf(what, sizeof what, "is damaged: %s/%s cannot be read", group, f->name);
		return tide_h5_fail(path, what);
	}
	return 0;
}

static int read_ids(const char *path, const char *group, hid_t d, uint64_t n, uint64_t *out)
{
	hid_t t = H5Dget_type(d);
	int sign = t >= 0 ? H5Tget_sign(t) == H5T_SGN_2 : 0;
	if (t >= 0) H5Tclose(t);
	char what[160];
	snprintf(what, sizeof what, "is damaged: %s/ParticleIDs cannot be read", group);
	if (H5Dread(d, sign ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT,
	            out) < 0)
		return tide_h5_fail(path, what);
	for (uint64_t i = 0; sign && i < n; i++)
		if ((int64_t)out[i] < 0)
			return BAD("%s: %s/ParticleIDs[%llu] is %lld; ids must be >= 0", path, group,
			           (unsigned long long)i, (long long)(int64_t)out[i]);
	return 0;
}

/* Values v[0..count) of a field, each finite and (lo_open ? > lo : >= lo) when lo is not -inf. */
static int check_values(const char *path, const char *group, const swift_field *f,
                        const double *v, uint64_t count, double lo, int lo_open)
{
	for (uint64_t i = 0; i < count; i++) {
		int ok = isfinite(v[i]) && (lo_open ? v[i] > lo : v[i] >= lo);
		if (ok) continue;
		unsigned long long row = i / (uint64_t)f->ncomp;
		if (!isfinite(v[i]))
			return BAD("%s: %s/%s row %llu holds %g, not a finite number", path, group, f->name,
			           row, v[i]);
		return BAD("%s: %s/%s row %llu holds %g; it must be %s %g", path, group, f->name, row,
		           v[i], lo_open ? ">" : ">=", lo);
	}
	return 0;
}

static hid_t open_field(hid_t g, int field)
{
	hid_t d = H5Lexists(g, fields[field].name, H5P_DEFAULT) > 0
	          ? H5Dopen2(g, fields[field].name, H5P_DEFAULT) : -1;
	H5Eclear2(H5E_DEFAULT);
	return d;
}

/* Appends group PartTypek's particles at s->n (arrays sized by the caller). */
static int read_type(const char *path, hid_t f, int k, const header_info *hi, unsigned flags,
                     uint64_t first, tide_swift_set *s)
{
	char group[16];
	snprintf(group, sizeof group, "PartType%d", k);
	hid_t g = H5Gopen2(f, group, H5P_DEFAULT);
	if (g < 0) return BAD("%s: its %s is not a group", path, group);
	hid_t d[NFIELD];
	for (int i = 0; i < NFIELD; i++) d[i] = open_field(g, i);
	int rc = 0;
	uint64_t n = s->count[k], rows;
	int need_mass = !(hi->mass_table[k] > 0);
	if (d[F_POS] < 0) rc = BAD("%s: %s has no Coordinates dataset", path, group);
	else if (d[F_VEL] < 0) rc = BAD("%s: %s has no Velocities dataset", path, group);
	else if (need_mass && d[F_MASS] < 0)
		rc = BAD("%s: %s has no Masses dataset and the Header's MassTable gives no mass for type "
		         "%d", path, group, k);
	for (int i = 0; i < NFIELD && !rc; i++) {
		int gas = i >= F_U, force = i == F_POT || i == F_ACC;   /* gas: F_U .. F_DTK */
		if (d[i] < 0 || (force && !s->acc) || (gas && !(k == 0 && (flags & TIDE_SWIFT_GAS))))
			continue;
		if ((rc = dataset_rows(path, group, d[i], &fields[i], &rows))) break;
		if (rows != n)
			rc = BAD("%s: %s/%s has %llu rows, but %s %llu particles", path, group, fields[i].name,
			         (unsigned long long)rows, hi->have_numpart ? "the Header's NumPart_ThisFile "
			         "says" : "its Coordinates hold", (unsigned long long)n);
	}
	if (!rc) rc = read_doubles(path, group, d[F_POS], &fields[F_POS], s->pos + 3 * first);
	if (!rc) rc = check_values(path, group, &fields[F_POS], s->pos + 3 * first, 3 * n, -INFINITY, 0);
	if (!rc) rc = read_doubles(path, group, d[F_VEL], &fields[F_VEL], s->vel + 3 * first);
	if (!rc) rc = check_values(path, group, &fields[F_VEL], s->vel + 3 * first, 3 * n, -INFINITY, 0);
	if (!rc && d[F_MASS] >= 0) {
		rc = read_doubles(path, group, d[F_MASS], &fields[F_MASS], s->mass + first);
		if (!rc) rc = check_values(path, group, &fields[F_MASS], s->mass + first, n, 0, 1);
	} else if (!rc) {
		for (uint64_t i = 0; i < n; i++) s->mass[first + i] = hi->mass_table[k];
	}
	if (!rc && d[F_ID] >= 0) rc = read_ids(path, group, d[F_ID], n, s->id + first);
	else if (!rc)
		for (uint64_t i = 0; i < n; i++) s->id[first + i] = first + i + 1;
	for (uint64_t i = 0; !rc && i < n; i++) s->type[first + i] = (uint8_t)k;
	if (!rc && s->acc && (d[F_ACC] < 0 || d[F_POT] < 0)) { /* forces of some types only: none */
		free(s->acc); free(s->pot);
		s->acc = s->pot = NULL;
	}
	if (!rc && s->acc) {
		rc = read_doubles(path, group, d[F_ACC], &fields[F_ACC], s->acc + 3 * first);
		if (!rc) rc = check_values(path, group, &fields[F_ACC], s->acc + 3 * first, 3 * n, -INFINITY, 0);
		if (!rc) rc = read_doubles(path, group, d[F_POT], &fields[F_POT], s->pot + first);
		if (!rc) rc = check_values(path, group, &fields[F_POT], s->pot + first, n, -INFINITY, 0);
	}
	if (!rc && k == 0 && (flags & TIDE_SWIFT_GAS)) {
		double **dst[3] = {&s->u, &s->h, &s->rho};
		const double lo[3] = {0, 0, 0};
		const int open[3] = {0, 1, 0};
		for (int i = 0; i < 3 && !rc; i++) {
			if (d[F_U + i] < 0) continue;
			*dst[i] = malloc(sizeof(double) * (n ? n : 1));
			if (!*dst[i]) { rc = tide_read_nomem(path); break; }
			rc = read_doubles(path, group, d[F_U + i], &fields[F_U + i], *dst[i]);
			if (!rc) rc = check_values(path, group, &fields[F_U + i], *dst[i], n, lo[i], open[i]);
		}
		/* tide's leapfrog state: all three or none */
		if (!rc && d[F_VH] >= 0 && d[F_UH] >= 0 && d[F_DTK] >= 0) {
			s->vh = malloc(sizeof(double) * 3 * (n ? n : 1));
			s->uh = malloc(sizeof(double) * (n ? n : 1));
			s->dtk = malloc(sizeof(double) * (n ? n : 1));
			if (!s->vh || !s->uh || !s->dtk) rc = tide_read_nomem(path);
			if (!rc) rc = read_doubles(path, group, d[F_VH], &fields[F_VH], s->vh);
			if (!rc) rc = check_values(path, group, &fields[F_VH], s->vh, 3 * n, -INFINITY, 0);
			if (!rc) rc = read_doubles(path, group, d[F_UH], &fields[F_UH], s->uh);
			if (!rc) rc = check_values(path, group, &fields[F_UH], s->uh, n, 0, 0);
			if (!rc) rc = read_doubles(path, group, d[F_DTK], &fields[F_DTK], s->dtk);
			if (!rc) rc = check_values(path, group, &fields[F_DTK], s->dtk, n, 0, 0);
			if (!rc && d[F_HDOT] >= 0) {
				s->hdot = malloc(sizeof(double) * (n ? n : 1));
				if (!s->hdot) rc = tide_read_nomem(path);
				if (!rc) rc = read_doubles(path, group, d[F_HDOT], &fields[F_HDOT], s->hdot);
				if (!rc) rc = check_values(path, group, &fields[F_HDOT], s->hdot, n, -INFINITY, 0);
			}
		}
	}
	for (int i = 0; i < NFIELD; i++)
		if (d[i] >= 0) H5Dclose(d[i]);
	H5Gclose(g);
	return rc;
}

/* The particles of type k: the Header's count when it has one, else the Coordinates' rows
 * (0 when there is no group). */
static int type_count(const char *path, hid_t f, int k, const header_info *hi, uint64_t *n)
{
	char group[16];
	snprintf(group, sizeof group, "PartType%d", k);
	int exists = H5Lexists(f, group, H5P_DEFAULT) > 0;
	H5Eclear2(H5E_DEFAULT);
	double c = hi->have_numpart ? hi->numpart[k] : 0;
	if (!(c >= 0 && c == floor(c) && c < 1.8e19))
		return BAD("%s: its Header NumPart_ThisFile[%d] is %g, not a count", path, k, c);
	*n = (uint64_t)c;
	if (!exists) {
		if (*n > 0)
			return BAD("%s: its Header says %llu particles of type %d, but it has no %s group",
			           path, (unsigned long long)*n, k, group);
		return 0;
	}
	/* a type with rows is read and checked row by row; a group the Header counts as empty
	 * must be empty (its particles would be left out) */
	if (hi->have_numpart && *n > 0) return 0;
	hid_t g = H5Gopen2(f, group, H5P_DEFAULT);
	hid_t d = g >= 0 ? open_field(g, F_POS) : -1;
	int rc = 0;
	uint64_t rows = 0;
	if (g < 0) rc = BAD("%s: its %s is not a group", path, group);
	else if (d < 0 && !hi->have_numpart) rc = BAD("%s: %s has no Coordinates dataset", path, group);
	else if (d >= 0) rc = dataset_rows(path, group, d, &fields[F_POS], &rows);
	if (!rc && hi->have_numpart && rows > 0)
		rc = BAD("%s: %s/Coordinates has %llu rows, but the Header's NumPart_ThisFile says 0 "
		         "particles of type %d", path, group, (unsigned long long)rows, k);
	if (!rc && !hi->have_numpart) *n = rows;
	if (d >= 0) H5Dclose(d);
	if (g >= 0) H5Gclose(g);
	return rc;
}

int tide_swift_read(const char *path, unsigned types_mask, unsigned flags, double extra_bytes,
                    tide_swift_set *s)
{
	memset(s, 0, sizeof *s);
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);   /* our one sentence instead of HDF5's stack */
	int open_rc;
	FILE *probe = tide_read_open(path, &open_rc);   /* a missing file named as such */
	if (!probe) return open_rc;
	fclose(probe);
	if (!tide_swift_is_hdf5(path))
		return BAD("%s is not an HDF5 file (no HDF5 signature; truncated or another format?)", path);
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f < 0) return tide_h5_fail(path, "cannot be opened as HDF5 (truncated or damaged?)");
	header_info hi;
	int rc = read_header(path, f, &hi, s);
	if (!rc) rc = read_units(path, f, s);
	if (!rc && H5Lexists(f, "Parameters", H5P_DEFAULT) > 0) {
		hid_t g = H5Gopen2(f, "Parameters", H5P_DEFAULT);
		if (g >= 0 && read_attr_d(g, NBODY_STATE, s->state, TIDE_NBODY_STATE) > 0) {
			s->have_state = 1;
			for (int k = 0; k < TIDE_NBODY_STATE; k++) s->have_state &= isfinite(s->state[k]) != 0;
		}
		if (g >= 0) H5Gclose(g);
	}
	H5Eclear2(H5E_DEFAULT);
	for (int k = TIDE_SWIFT_NTYPES; k < 16 && !rc; k++) {
		char group[16];
		snprintf(group, sizeof group, "PartType%d", k);
		if (H5Lexists(f, group, H5P_DEFAULT) > 0)
			rc = BAD("%s has a %s group; tide reads particle types 0 to 5", path, group);
		H5Eclear2(H5E_DEFAULT);
	}
	for (int k = 0; k < TIDE_SWIFT_NTYPES && !rc; k++)
		if (types_mask & (1u << k)) {
			rc = type_count(path, f, k, &hi, &s->count[k]);
			s->n += s->count[k];
		}
	if (!rc && s->n == 0)
		rc = BAD("%s holds no particles (no PartType group with rows%s)", path,
		         types_mask == (1u << TIDE_SWIFT_NTYPES) - 1 ? "" : " of the types read");
	if (!rc && s->n > (uint64_t)1 << 40)
		rc = BAD("%s holds %llu particles, more than tide can hold", path, (unsigned long long)s->n);
	/* positions, velocities, masses (double), ids, types; forces; gas fields */
	double per = 7 * sizeof(double) + sizeof(uint64_t) + 1 + extra_bytes +
	             ((flags & TIDE_SWIFT_FORCES) ? 4 * sizeof(double) : 0) +
	             ((flags & TIDE_SWIFT_GAS) ? 3 * sizeof(double) : 0);
	char what[4200];
	snprintf(what, sizeof what, "tide: reading %s (%llu particles)", path, (unsigned long long)s->n);
	if (!rc && tide_host_memory_check(what, per * (double)s->n, "the particles as read and as "
	                                  "held", "use a machine with more memory"))
		rc = TIDE_READ_IO;
	if (!rc) {
		size_t m = (size_t)s->n;
		s->pos = malloc(sizeof(double) * 3 * m);
		s->vel = malloc(sizeof(double) * 3 * m);
		s->mass = malloc(sizeof(double) * m);
		s->id = malloc(sizeof(uint64_t) * m);
		s->type = malloc(m);
		if (flags & TIDE_SWIFT_FORCES) {
			s->acc = malloc(sizeof(double) * 3 * m);
			s->pot = malloc(sizeof(double) * m);
		}
		if (!s->pos || !s->vel || !s->mass || !s->id || !s->type ||
		    ((flags & TIDE_SWIFT_FORCES) && (!s->acc || !s->pot)))
			rc = tide_read_nomem(path);
	}
	uint64_t first = 0;
	for (int k = 0; k < TIDE_SWIFT_NTYPES && !rc; k++) {
		if (s->count[k] > 0) rc = read_type(path, f, k, &hi, flags, first, s);
		first += s->count[k];
	}
	H5Eclear2(H5E_DEFAULT);
	H5Fclose(f);
	if (rc) tide_swift_set_free(s);
	return rc;
}

int tide_swift_has_type(const char *path, int k)
{
	if (!tide_swift_is_hdf5(path)) return 0;
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f < 0) return 0;
	char group[16];
	snprintf(group, sizeof group, "PartType%d", k);
	header_info hi;
	tide_swift_set s;
	memset(&s, 0, sizeof s);
	uint64_t n = 0;
	int has = H5Lexists(f, group, H5P_DEFAULT) > 0 && read_header(path, f, &hi, &s) == 0 &&
	          type_count(path, f, k, &hi, &n) == 0 && n > 0;
	H5Eclear2(H5E_DEFAULT);
	H5Fclose(f);
	return has;
}

#else /* no HDF5 */

int tide_swift_has_type(const char *path, int k)
{
	(void)path, (void)k;
	return 0;
}

int tide_swift_write_ranks(const char *path, const tide_swift_header *h,
                           const tide_swift_out types[TIDE_SWIFT_NTYPES], MPI_Comm comm)
{
	(void)comm;
	return tide_swift_write(path, h, types);
}

int tide_swift_write(const char *path, const tide_swift_header *h,
                     const tide_swift_out types[TIDE_SWIFT_NTYPES])
{
	(void)h, (void)types;
	fprintf(stderr, "tide: cannot write %s: this tide was built without HDF5 (install "
	        "libhdf5-openmpi-dev and build again).\n", path);
	return 1;
}

int tide_swift_read(const char *path, unsigned types_mask, unsigned flags, double extra_bytes,
                    tide_swift_set *s)
{
	(void)types_mask, (void)flags, (void)extra_bytes;
	memset(s, 0, sizeof *s);
	return tide_read_fail(TIDE_READ_BAD, "cannot read %s: this tide was built without HDF5 "
	                      "(install libhdf5-openmpi-dev and build again)", path);
}

#endif
