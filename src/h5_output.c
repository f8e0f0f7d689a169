// SPDX-License-Identifier: LGPL-2.1-or-later
// HDF5 particle snapshots (src/h5_output.h): one file per output, written by every rank
// at once (parallel HDF5, collective MPI-IO, hyperslabs at prefix-sum offsets) or by rank 0 from
// the gathered particles; the .xmf series that lists them comes from xdmf_output.c.
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "h5_output.h"

#ifdef TIDE_HAVE_HDF5
#include <hdf5.h>
#include <mpi.h>
#include "case_units.h"
#include "log.h"
#include "runtime.h"
#include "tide/gas_math.h"
#include "tide/sph_sim.h"

/* Particles per write call and rank: bounds the copy buffer (24 MiB of positions), so a large
 * snapshot needs no full-size copy. */
#define H5_CHUNK ((uint64_t)1 << 20)

/* The particles one rank writes, in order: its blocks' main-memory replicas (or the gathered
 * set), one after the other. */
typedef struct h5_src {
	int nv;
	const tide_block_view *v;
	const tide_case *c;
	double tait_b;
	int gas;                 /* physics.scheme gas: its equation of state and fields */
	tide_gas_params G;       /* (gas) the run's constants, as the codelets get them */
	uint64_t row0;           /* row of the file where this rank's particles start */
} h5_src;

/* Fills out with particles [i0, i0 + n) of block view v, which go to rows row, row + 1, ... */
typedef void (*h5_fill)(const h5_src *s, const tide_block_view *v, uint32_t i0, uint32_t n,
                        uint64_t row, void *out);

static void fill_position(const h5_src *s, const tide_block_view *v, uint32_t i0, uint32_t n,
                          uint64_t row, void *out)
{
	(void)s, (void)row;
	double *o = out;
	for (uint32_t k = 0; k < n; k++) {
		o[3 * k] = v->x[i0 + k];
		o[3 * k + 1] = v->y[i0 + k];
		o[3 * k + 2] = v->z[i0 + k];
	}
}

static void fill_velocity(const h5_src *s, const tide_block_view *v, uint32_t i0, uint32_t n,
                          uint64_t row, void *out)
{
	(void)s, (void)row;
	float *o = out;
	for (uint32_t k = 0; k < n; k++) {
		o[3 * k] = v->vx[i0 + k];
		o[3 * k + 1] = v->vy[i0 + k];
		o[3 * k + 2] = v->vz[i0 + k];
	}
}

static void fill_density(const h5_src *s, const tide_block_view *v, uint32_t i0, uint32_t n,
                         uint64_t row, void *out)
{
	(void)s, (void)row;
	memcpy(out, v->rho + i0, n * sizeof(float));
}

static void fill_pressure(const h5_src *s, const tide_block_view *v, uint32_t i0, uint32_t n,
                          uint64_t row, void *out)
{
	(void)row;
	float *o = out;
	if (s->gas) /* the gas EOS, gas_math.h */
		for (uint32_t k = 0; k < n; k++)
			o[k] = tide_gas_pressure(&s->G, v->rho[i0 + k], v->TIDE_GAS_U[i0 + k]);
	else
		for (uint32_t k = 0; k < n; k++) o[k] = tide_tait_pressure(s->c, s->tait_b, v->rho[i0 + k]);
}

static void fill_internal_energy(const h5_src *s, const tide_block_view *v, uint32_t i0,
                                 uint32_t n, uint64_t row, void *out)
{
	(void)s, (void)row;
	memcpy(out, v->TIDE_GAS_U + i0, n * sizeof(float));
}

static void fill_smoothing_length(const h5_src *s, const tide_block_view *v, uint32_t i0,
                                  uint32_t n, uint64_t row, void *out)
{
	(void)s, (void)row;
	memcpy(out, v->TIDE_GAS_H + i0, n * sizeof(float));
}

static void fill_sound_speed(const h5_src *s, const tide_block_view *v, uint32_t i0, uint32_t n,
                             uint64_t row, void *out)
{
	(void)row;
	float *o = out;
	for (uint32_t k = 0; k < n; k++) o[k] = tide_gas_sound(&s->G, v->rho[i0 + k], v->TIDE_GAS_U[i0 + k]);
}

static void fill_mass(const h5_src *s, const tide_block_view *v, uint32_t i0, uint32_t n,
                      uint64_t row, void *out)
{
	(void)s, (void)row;
	memcpy(out, v->TIDE_GAS_MASS + i0, n * sizeof(float));
}

static void fill_type(const h5_src *s, const tide_block_view *v, uint32_t i0, uint32_t n,
                      uint64_t row, void *out)
{
	(void)s, (void)row;
	uint8_t *o = out;
	for (uint32_t k = 0; k < n; k++) o[k] = (uint8_t)v->type[i0 + k];
}

static void fill_id(const h5_src *s, const tide_block_view *v, uint32_t i0, uint32_t n,
                    uint64_t row, void *out)
{
	(void)s, (void)row;
	memcpy(out, v->id + i0, n * sizeof(uint32_t));
}

static void fill_body(const h5_src *s, const tide_block_view *v, uint32_t i0, uint32_t n,
                      uint64_t row, void *out)
{
	(void)row;
	tide_body_numbers(s->c, v->id + i0, n, out);
}

/* The Polyvertex cells of the .xmf: cell i is point i (XDMF 3 readers, ParaView's default for
 * .xmf, make no cells without it). */
static void fill_connectivity(const h5_src *s, const tide_block_view *v, uint32_t i0,
                              uint32_t n, uint64_t row, void *out)
{
	(void)s, (void)v, (void)i0;
	uint32_t *o = out;
	for (uint32_t k = 0; k < n; k++) o[k] = (uint32_t)(row + k);
}

/* HDF5's type ids are run-time values, so the table names them by code. */
enum { T_F64, T_F32, T_U8, T_U32, T_I32 };

static hid_t mem_type(int t)
{
	return t == T_F64 ? H5T_NATIVE_DOUBLE : t == T_F32 ? H5T_NATIVE_FLOAT
	     : t == T_U8 ? H5T_NATIVE_UINT8 : t == T_I32 ? H5T_NATIVE_INT32 : H5T_NATIVE_UINT32;
}

/* Stored little-endian whatever the writer, as the .xmf assumes nothing else. */
static hid_t file_type(int t)
{
	return t == T_F64 ? H5T_IEEE_F64LE : t == T_F32 ? H5T_IEEE_F32LE
	     : t == T_U8 ? H5T_STD_U8LE : t == T_I32 ? H5T_STD_I32LE : H5T_STD_U32LE;
}

typedef struct h5_field {
	const char *name;
	int type, ncomp;
	size_t elsize;
	h5_fill fill;
	tide_dim dim;            /* its dimensions: the "units" attribute ("1": a number without
	                          * unit), and the conversion from the run's units to the case's */
	unsigned out;            /* its output.fields bit (0: always written) */
} h5_field;

static const h5_field fields[] = {
	{"Position", T_F64, 3, 8, fill_position, TIDE_DIM_LENGTH, TIDE_OUT_POSITION},
	{"Velocity", T_F32, 3, 4, fill_velocity, TIDE_DIM_VELOCITY, TIDE_OUT_VELOCITY},
	{"Density", T_F32, 1, 4, fill_density, TIDE_DIM_DENSITY, TIDE_OUT_DENSITY},
	{"Pressure", T_F32, 1, 4, fill_pressure, TIDE_DIM_PRESSURE, TIDE_OUT_PRESSURE},
	{"Type", T_U8, 1, 1, fill_type, TIDE_DIM_NONE, TIDE_OUT_TYPE},
	{"Id", T_U32, 1, 4, fill_id, TIDE_DIM_NONE, TIDE_OUT_ID},
	/* gas runs only (TIDE_OUT_GAS_FIELDS) */
	{"InternalEnergy", T_F32, 1, 4, fill_internal_energy, TIDE_DIM_SPECIFIC_ENERGY, TIDE_OUT_INTERNAL_ENERGY},
	{"SmoothingLength", T_F32, 1, 4, fill_smoothing_length, TIDE_DIM_LENGTH, TIDE_OUT_SMOOTHING_LENGTH},
	{"SoundSpeed", T_F32, 1, 4, fill_sound_speed, TIDE_DIM_VELOCITY, TIDE_OUT_SOUND_SPEED},
	{"Masses", T_F32, 1, 4, fill_mass, TIDE_DIM_MASS, TIDE_OUT_MASS},
	/* cases with bodies only */
	{"Body", T_I32, 1, 4, fill_body, TIDE_DIM_NONE, TIDE_OUT_BODY},
	{"Connectivity", T_U32, 1, 4, fill_connectivity, TIDE_DIM_NONE, 0},
};
#define NFIELDS ((int)(sizeof fields / sizeof fields[0]))

/* output.precision single: the positions stored as float32 */
static void fill_position_single(const h5_src *s, const tide_block_view *v, uint32_t i0,
                                 uint32_t n, uint64_t row, void *out)
{
	(void)s, (void)row;
	float *o = out;
	for (uint32_t k = 0; k < n; k++) {
		o[3 * k] = (float)v->x[i0 + k];
		o[3 * k + 1] = (float)v->y[i0 + k];
		o[3 * k + 2] = (float)v->z[i0 + k];
	}
}

/* Copies particles [first, first + n) of the rank's sequence into out. */
static void fill_range(const h5_src *s, const h5_field *f, uint64_t first, uint64_t n, char *out)
{
	uint64_t base = 0;
	for (int b = 0; b < s->nv && n; b++) {
		uint64_t cnt = s->v[b].count;
		if (first >= base + cnt) {
			base += cnt;
			continue;
		}
		uint32_t i0 = (uint32_t)(first - base);
		uint32_t k = (uint32_t)(cnt - i0 < n ? cnt - i0 : n);
		f->fill(s, &s->v[b], i0, k, s->row0 + first, out);
		out += (size_t)k * (size_t)f->ncomp * f->elsize;
		first += k;
		n -= k;
		base += cnt;
	}
}

typedef struct h5_writer {
	char tmp[1100];
	int par;                     /* the ranks write together */
	MPI_Comm comm;               /* a duplicate of MPI_COMM_WORLD (par only) */
	hid_t file, dxpl;
	uint64_t n_loc, offset, n_all, rounds;
	char *buf;
	char err[400];               /* this rank's first failure */
} h5_writer;

/* HDF5's innermost error message (the cause: e.g. the file driver's errno text).  Every HDF5
 * call clears the error stack, so failed() comes right after the call that failed. */
static herr_t innermost(unsigned n, const H5E_error2_t *e, void *data)
{
	if (n) return 0;
	/* a file driver's message ends in "error message = 'No space left on device', ...": keep
	 * the system's words */
	const char *d = e->desc ? e->desc : "", *m = strstr(d, "error message = '");
	const char *q = m ? strchr(m + 17, '\'') : NULL;
	if (q) snprintf(data, 200, "%.*s", (int)(q - m - 17), m + 17);
	else snprintf(data, 200, "%s", d);
	return 0;
}

static int failed(h5_writer *w, const char *what)
{
	if (*w->err) return 0;
	char cause[200] = "";
	H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost, cause);
	H5Eclear2(H5E_DEFAULT);
	if (*cause) snprintf(w->err, sizeof w->err, "%s (HDF5: %s)", what, cause);
	else snprintf(w->err, sizeof w->err, "%s", what);
	return 0;
}

/* Every rank must take the same path through the collective calls: one failure stops all. */
static int agree(const h5_writer *w, int ok)
{
	if (!w->par) return ok;
	int all = ok;
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, w->comm);
	return all;
}

/* Offsets and sizes: this rank's rows start after those of the lower ranks (exclusive prefix
 * sum of the counts); every rank makes as many write calls as the one with the most rows. */
static int plan(h5_writer *w, int ok)
{
	w->offset = 0;
	w->n_all = w->n_loc;
	uint64_t mine[2] = {(w->n_loc + H5_CHUNK - 1) / H5_CHUNK, (uint64_t)!ok}, most[2];
	if (w->par) {
		int rank;
		MPI_Comm_rank(w->comm, &rank);
		MPI_Exscan(&w->n_loc, &w->offset, 1, MPI_UINT64_T, MPI_SUM, w->comm);
		if (rank == 0) w->offset = 0;   /* MPI leaves rank 0's result undefined */
		MPI_Allreduce(&w->n_loc, &w->n_all, 1, MPI_UINT64_T, MPI_SUM, w->comm);
		MPI_Allreduce(mine, most, 2, MPI_UINT64_T, MPI_MAX, w->comm);
	} else {
		memcpy(most, mine, sizeof most);
	}
	w->rounds = most[0];
	return most[1] == 0;
}

static int put_attr_on(h5_writer *w, hid_t obj, const char *name, hid_t ftype, hid_t mtype,
                       const void *v)
{
	hid_t sp = H5Screate(H5S_SCALAR);
	hid_t a = H5Acreate2(obj, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT);
	int ok = a >= 0 && H5Awrite(a, mtype, v) >= 0;
	if (!ok) failed(w, "cannot write the attributes");
	if (a >= 0) H5Aclose(a);
	H5Sclose(sp);
	return ok;
}

static int put_attr(h5_writer *w, const char *name, hid_t ftype, hid_t mtype, const void *v)
{
	return put_attr_on(w, w->file, name, ftype, mtype, v);
}

/* A fixed-length, NUL-terminated ASCII string attribute. */
static int put_string_attr(h5_writer *w, hid_t obj, const char *name, const char *v)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	H5Tset_size(t, strlen(v) + 1);
	H5Tset_strpad(t, H5T_STR_NULLTERM);
	int ok = put_attr_on(w, obj, name, t, t, v);
	H5Tclose(t);
	return ok;
}

/* n rows of a float field times scale, rounded as the .vtp files' (vtk_output.c): the two
 * formats of one output hold the same numbers. */
static void scale_rows(const h5_field *f, uint64_t n, double scale, char *buf)
{
	size_t k = (size_t)n * (size_t)f->ncomp;
	if (f->type == T_F64)
		for (size_t i = 0; i < k; i++) ((double *)buf)[i] *= scale;
	else if (f->type == T_F32)
		for (size_t i = 0; i < k; i++) ((float *)buf)[i] = (float)(((float *)buf)[i] * scale);
}

static int write_dataset(h5_writer *w, const h5_src *s, const h5_field *f)
{
	h5_field single = *f;
	if (f->fill == fill_position && s->c->output_single) {
		single.type = T_F32;
		single.elsize = 4;
		single.fill = fill_position_single;
		f = &single;
	}
	int rank = f->ncomp > 1 ? 2 : 1;
	hsize_t dims[2] = {w->n_all, (hsize_t)f->ncomp};
	hid_t space = H5Screate_simple(rank, dims, NULL);
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
	H5Pset_obj_track_times(dcpl, 0);   /* no time stamps: the same particles, the same file */
	hid_t d = H5Dcreate2(w->file, f->name, file_type(f->type), space, H5P_DEFAULT, dcpl,
	                     H5P_DEFAULT);
	char what[96];
	snprintf(what, sizeof what, "cannot create the dataset %s", f->name);
	if (d < 0) failed(w, what);
	H5Pclose(dcpl);
	int ok = agree(w, d >= 0);
	int none = f->dim.l == 0 && f->dim.m == 0 && f->dim.t == 0;
	if (ok) ok = agree(w, put_string_attr(w, d, "units", none ? "1" : tide_case_unit_name(s->c, f->dim, 0)));
	/* a gas case in cgs or SI runs in internal units: written in the case's (case_units.h) */
	tide_unit_system U = tide_case_output_units(s->c);
	double scale = tide_units_factor(&U, f->dim);
	snprintf(what, sizeof what, "cannot write the dataset %s", f->name);
	for (uint64_t r = 0; r < w->rounds && ok; r++) {
		uint64_t first = r * H5_CHUNK;
		uint64_t n = first < w->n_loc ? w->n_loc - first : 0;
		if (n > H5_CHUNK) n = H5_CHUNK;
		if (n) fill_range(s, f, first, n, w->buf);
		if (n && scale != 1.0) scale_rows(f, n, scale, w->buf);
		hsize_t start[2] = {w->offset + first, 0}, count[2] = {n, (hsize_t)f->ncomp};
		hsize_t mdims[2] = {n ? n : 1, (hsize_t)f->ncomp};
		hid_t mem = H5Screate_simple(rank, mdims, NULL);
		herr_t e = n ? H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL)
		             : H5Sselect_none(space);
		if (!n && e >= 0) e = H5Sselect_none(mem);
		if (e >= 0) e = H5Dwrite(d, mem_type(f->type), mem, space, w->dxpl, w->buf);
		if (e < 0) failed(w, what);
		H5Sclose(mem);
		ok = agree(w, e >= 0);
	}
	if (d >= 0) H5Dclose(d);
	H5Sclose(space);
	return ok;
}

static int write_file(h5_writer *w, const h5_src *s, const tide_h5_snap *snap)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	w->dxpl = H5Pcreate(H5P_DATASET_XFER);
#ifdef H5_HAVE_PARALLEL
	if (w->par) {
		H5Pset_fapl_mpio(fapl, w->comm, MPI_INFO_NULL);
		H5Pset_all_coll_metadata_ops(fapl, 1);
		H5Pset_coll_metadata_write(fapl, 1);
		H5Pset_dxpl_mpio(w->dxpl, H5FD_MPIO_COLLECTIVE);
	}
#endif
	w->file = H5Fcreate(w->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	if (w->file < 0) failed(w, "cannot create the file");
	H5Pclose(fapl);
	int ok = agree(w, w->file >= 0);
	if (ok) {
		tide_unit_system U = tide_case_output_units(s->c);
		double t = tide_units_to_case(&U, snap->t, TIDE_DIM_TIME),
		       dp = tide_units_to_case(&U, s->c->dp, TIDE_DIM_LENGTH),
		       h = tide_units_to_case(&U, tide_case_h(s->c), TIDE_DIM_LENGTH);
		int64_t step = snap->step;
		int32_t ranks = 1;
		if (w->par) MPI_Comm_size(w->comm, &ranks);
		ok = put_attr(w, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &t) &&
		     put_attr(w, "step", H5T_STD_I64LE, H5T_NATIVE_INT64, &step) &&
		     put_attr(w, "ranks", H5T_STD_I32LE, H5T_NATIVE_INT32, &ranks) &&
		     put_string_attr(w, w->file, "case_name", s->c->name) &&
		     put_attr(w, "dp", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &dp) &&
		     put_attr(w, "h", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &h) &&
		     put_string_attr(w, w->file, "tide_version", TIDE_VERSION);
		ok = agree(w, ok);
	}
	for (int f = 0; f < NFIELDS && ok; f++)
		if (!fields[f].out || (tide_case_written_fields(s->c) & fields[f].out))
			ok = write_dataset(w, s, &fields[f]);
	if (w->file >= 0 && H5Fclose(w->file) < 0) ok = failed(w, "cannot complete the file");
	w->file = -1;
	H5Pclose(w->dxpl);
	return agree(w, ok);
}

int tide_h5_support(void)
{
#ifdef H5_HAVE_PARALLEL
	return 2;
#else
	return 1;
#endif
}

int tide_h5_ranks_write_together(int mpi)
{
#ifdef H5_HAVE_PARALLEL
	return mpi && tide_runtime_mpi_multiple();
#else
	(void)mpi;
	return 0;
#endif
}

/* Writes one snapshot; also gives the number of particles written. */
static int h5_write(const char *path, const tide_h5_snap *snap, const tide_case *c,
                    uint64_t *written)
{
	h5_writer w;
	memset(&w, 0, sizeof w);
	w.file = -1;
	w.par = snap->comm != MPI_COMM_NULL;
	w.comm = snap->comm;
	int rank = 0;
	if (w.par) MPI_Comm_rank(w.comm, &rank);
	if (strlen(path) + 5 > sizeof w.tmp) {
		fprintf(stderr, "tide: cannot write %s: the path is too long.\n", path);
		return -1;
	}
	snprintf(w.tmp, sizeof w.tmp, "%s.tmp", path);
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);   /* our one sentence instead of HDF5's stack */

	h5_src s = {snap->nv, snap->v, c, tide_case_tait_b(c), c->scheme == TIDE_SCHEME_GAS, {0}, 0};
	if (s.gas) {
		tide_sph_params P;
		tide_sim_params(c, &P);
		s.G = P.gas;
	}
	for (int b = 0; b < s.nv; b++) w.n_loc += s.v[b].count;
	uint64_t nbuf = w.n_loc < H5_CHUNK ? w.n_loc : H5_CHUNK;
	w.buf = malloc((nbuf ? nbuf : 1) * 3 * sizeof(double));
	int ok = 1;
	if (!w.buf) ok = failed(&w, "out of host memory");
	ok = plan(&w, ok);
	s.row0 = w.offset;
	if (ok) ok = write_file(&w, &s, snap);
	free(w.buf);

	int ret = 0;
	if (*w.err) fprintf(stderr, "tide: cannot write %s: %s.\n", path, w.err);
	if (rank == 0) {
		if (ok && rename(w.tmp, path) != 0) {
			fprintf(stderr, "tide: cannot write %s: %s.\n", path, strerror(errno));
			ok = 0;
		}
		if (!ok) unlink(w.tmp);
		ret = ok ? 0 : -1;
	}
	if (w.par) MPI_Bcast(&ret, 1, MPI_INT, 0, w.comm);
	if (written) *written = w.n_all;
	return ret;
}

int tide_h5_write(const char *path, const tide_h5_snap *snap, const tide_case *c)
{
	return h5_write(path, snap, c, NULL);
}

static int xmf_path(tide_pvd *xmf, const char *dir)
{
	if ((size_t)snprintf(xmf->path, sizeof xmf->path, "%s/particles.xmf", dir) >= sizeof xmf->path) {
		fprintf(stderr, "tide: cannot write %s/particles.xmf: the path is too long.\n", dir);
		return -1;
	}
	return 0;
}

int tide_h5_output(tide_pvd *xmf, const char *dir, int index, const tide_h5_snap *snap,
                   const tide_case *c)
{
	char path[1100];
	snprintf(path, sizeof path, "%s/particles_%04d.h5", dir, index);
	uint64_t n = 0;
	double w0 = tide_wtime();
	int ret = h5_write(path, snap, c, &n);
	int rank = 0;
	if (snap->comm != MPI_COMM_NULL) MPI_Comm_rank(snap->comm, &rank);
	if (ret || rank != 0) return ret;
	tide_debug("%s%s: %llu particles in %.3f s (%s)\n", isatty(1) ? "\n" : "", path,
	           (unsigned long long)n, tide_wtime() - w0,
	           snap->comm != MPI_COMM_NULL ? "all ranks" : "rank 0");
	if (!xmf->path[0] && xmf_path(xmf, dir)) return -1;
	xmf->fields = tide_case_written_fields(c);
	xmf->single = c->output_single;
	tide_unit_system U = tide_case_output_units(c);
	return tide_series_append(xmf, path, tide_units_to_case(&U, snap->t, TIDE_DIM_TIME), (size_t)n) ||
	       tide_xdmf_write(xmf) ? -1 : 0;
}

/* Particles in a snapshot (the length of its Connectivity dataset, which every file has
 * whatever output.fields said), or -1; *layout: the fields it holds and whether its positions
 * are float32 (tide_pvd.layout). */
static long long h5_count(const char *path, unsigned *layout)
{
	long long n = -1;
	*layout = 0;
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	hid_t d = f >= 0 ? H5Dopen2(f, "Connectivity", H5P_DEFAULT) : -1;
	hid_t sp = d >= 0 ? H5Dget_space(d) : -1;
	hsize_t dims[1];
	if (sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 &&
	    H5Sget_simple_extent_dims(sp, dims, NULL) == 1)
		n = (long long)dims[0];
	for (int k = 0; k < NFIELDS && f >= 0; k++) {
		if (!fields[k].out || H5Lexists(f, fields[k].name, H5P_DEFAULT) <= 0) continue;
		*layout |= fields[k].out;
		if (fields[k].fill != fill_position) continue;
		hid_t p = H5Dopen2(f, fields[k].name, H5P_DEFAULT), t = p >= 0 ? H5Dget_type(p) : -1;
		if (t >= 0 && H5Tget_size(t) == 4) *layout |= TIDE_LAYOUT_SINGLE;
		if (t >= 0) H5Tclose(t);
		if (p >= 0) H5Dclose(p);
	}
	if (!(*layout & TIDE_OUT_POSITION)) n = -1;
	if (sp >= 0) H5Sclose(sp);
	if (d >= 0) H5Dclose(d);
	if (f >= 0) H5Fclose(f);
	H5Eclear2(H5E_DEFAULT);
	return n;
}

int tide_h5_reopen(tide_pvd *xmf, const char *dir, int n, const double *times,
                   const tide_case *c)
{
	memset(xmf, 0, sizeof *xmf);
	if (xmf_path(xmf, dir)) return -1;
	xmf->fields = tide_case_written_fields(c);
	xmf->single = c->output_single;
	tide_unit_system U = tide_case_output_units(c); /* times: the run's, written in the case's */
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	for (int i = 0; i < n; i++) {
		char path[1100];
		snprintf(path, sizeof path, "%s/particles_%04d.h5", dir, i);
		if (access(path, F_OK) != 0) continue;
		unsigned layout;
		long long count = h5_count(path, &layout);
		if (count < 0) {
			fprintf(stderr, "tide: %s is not a readable tide particle file; it is left out of "
			        "%s.\n", path, xmf->path);
			continue;
		}
		if (tide_series_append(xmf, path, tide_units_to_case(&U, times[i], TIDE_DIM_TIME), (size_t)count))
			return -1;
		xmf->layout[xmf->n - 1] = layout;   /* as the file was written */
	}
	return tide_xdmf_write(xmf);
}

#else /* no HDF5 */

int tide_h5_support(void) { return 0; }

static int no_hdf5(const char *what)
{
	fprintf(stderr, "tide: cannot write %s: this tide was built without HDF5 (install "
	        "libhdf5-openmpi-dev and build again).\n", what);
	return -1;
}

int tide_h5_ranks_write_together(int mpi)
{
	(void)mpi;
	return 0;
}

int tide_h5_write(const char *path, const tide_h5_snap *snap, const tide_case *c)
{
	(void)snap, (void)c;
	return no_hdf5(path);
}

int tide_h5_output(tide_pvd *xmf, const char *dir, int index, const tide_h5_snap *snap,
                   const tide_case *c)
{
	(void)xmf, (void)index, (void)snap, (void)c;
	return no_hdf5(dir);
}

int tide_h5_reopen(tide_pvd *xmf, const char *dir, int n, const double *times,
                   const tide_case *c)
{
	(void)xmf, (void)n, (void)times, (void)c;
	return no_hdf5(dir);
}

#endif
