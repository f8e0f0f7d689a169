// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helper for tests/test_h5_output.sh: reads particle snapshots written by tide run, a .h5
// through the HDF5 C API and a .vtp through tide's .vtp reader, and compares them as sets keyed
// by particle id.
//
//   compare_particles A B      A, B: .h5 or .vtp files.  Exit 0 when both hold the same ids,
//                              each once, with bit-identical position, velocity, density,
//                              pressure and type; otherwise 1 with the first difference.
//                              A or B may also be a checkpoint's DIR/particles.bin (read by
//                              the layout of block.h; it has no pressure, which is then not
//                              compared: it is a function of the density, which is).
//   compare_particles --attrs F.h5
//                              prints the root attributes case_name, dp, h, tide_version
//                              ("name=value" lines), then "Dataset=units" for every dataset
//                              present, in the order Position, Velocity, Density, Pressure,
//                              Type, Id, Connectivity.
//   compare_particles --info F.h5
//                              prints "N TIME STEP RANKS" of a .h5 (its Id length and
//                              attributes) after checking every dataset's shape and type, that
//                              ids are unique and that Connectivity is 0..N-1.
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tide/block.h"
#include "checkpoint.h"
#include "vtp_read.h"

typedef struct pset {
	size_t n;
	double *pos;      /* n x 3 */
	float *vel;       /* n x 3 */
	float *rho, *p;
	uint8_t *type;
	uint32_t *id;
	double time;      /* .h5 only */
	long long step;
	int ranks;
} pset;

static void die(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "compare_particles: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	exit(1);
}

/* ---- .h5 ---------------------------------------------------------------------------------- */

static void *read_dataset(hid_t f, const char *file, const char *name, hid_t mtype, size_t esize,
                          int ncomp, size_t *n)
{
	hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
	if (d < 0) die("%s: no dataset %s", file, name);
	hid_t sp = H5Dget_space(d), ft = H5Dget_type(d);
	hsize_t dims[2] = {0, 0};
	int rank = H5Sget_simple_extent_ndims(sp);
	H5Sget_simple_extent_dims(sp, dims, NULL);
	if (rank != (ncomp > 1 ? 2 : 1) || (ncomp > 1 && dims[1] != (hsize_t)ncomp))
		die("%s: dataset %s has the wrong shape", file, name);
	if (H5Tget_size(ft) != esize || H5Tget_class(ft) != H5Tget_class(mtype))
		die("%s: dataset %s has the wrong type", file, name);
	if (*n == (size_t)-1) *n = dims[0];
	if (dims[0] != *n) die("%s: dataset %s has another length than Position", file, name);
	void *buf = malloc((*n ? *n : 1) * esize * (size_t)ncomp);
	if (!buf || H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
		die("%s: cannot read dataset %s", file, name);
	H5Tclose(ft);
	H5Sclose(sp);
	H5Dclose(d);
	return buf;
}

static void read_attr(hid_t f, const char *file, const char *name, hid_t mtype, void *v)
{
	hid_t a = H5Aopen(f, name, H5P_DEFAULT);
	if (a < 0 || H5Aread(a, mtype, v) < 0) die("%s: no attribute %s", file, name);
	H5Aclose(a);
}

static void load_h5(const char *file, pset *s)
{
	hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f < 0) die("%s: not an HDF5 file%s", file, "");
	size_t n = (size_t)-1;
	s->pos = read_dataset(f, file, "Position", H5T_NATIVE_DOUBLE, 8, 3, &n);
	s->vel = read_dataset(f, file, "Velocity", H5T_NATIVE_FLOAT, 4, 3, &n);
	s->rho = read_dataset(f, file, "Density", H5T_NATIVE_FLOAT, 4, 1, &n);
	s->p = read_dataset(f, file, "Pressure", H5T_NATIVE_FLOAT, 4, 1, &n);
	s->type = read_dataset(f, file, "Type", H5T_NATIVE_UINT8, 1, 1, &n);
	s->id = read_dataset(f, file, "Id", H5T_NATIVE_UINT32, 4, 1, &n);
	s->n = n;
	/* the .xmf's Polyvertex cells: cell i holds point i */
	uint32_t *conn = read_dataset(f, file, "Connectivity", H5T_NATIVE_UINT32, 4, 1, &n);
	for (size_t i = 0; i < n; i++)
		if (conn[i] != i) die("%s: Connectivity is not 0, 1, ..., N-1%s", file, "");
	free(conn);
	read_attr(f, file, "time", H5T_NATIVE_DOUBLE, &s->time);
	int64_t step;
	read_attr(f, file, "step", H5T_NATIVE_INT64, &step);
	s->step = step;
	read_attr(f, file, "ranks", H5T_NATIVE_INT, &s->ranks);
	H5Fclose(f);
}

/* ---- .vtp (through tide's reader, src/vtp_read.c, which checks every array) -------------- */

static void load_vtp(const char *file, pset *s)
{
	tide_particle_set ps;
	memset(&ps, 0, sizeof ps);
	if (tide_vtp_read(file, &ps, &s->p) != TIDE_READ_OK) exit(1);
	s->n = ps.n;
	s->pos = malloc((ps.n ? ps.n : 1) * 3 * sizeof *s->pos);
	s->vel = malloc((ps.n ? ps.n : 1) * 3 * sizeof *s->vel);
	s->type = malloc(ps.n ? ps.n : 1);
	if (!s->pos || !s->vel || !s->type) die("%s: out of memory%s", file, "");
	for (size_t i = 0; i < ps.n; i++) {
		s->pos[3 * i] = ps.x[i];
		s->pos[3 * i + 1] = ps.y[i];
		s->pos[3 * i + 2] = ps.z[i];
		s->vel[3 * i] = ps.vx[i];
		s->vel[3 * i + 1] = ps.vy[i];
		s->vel[3 * i + 2] = ps.vz[i];
		s->type[i] = ps.type[i]; /* the reader let only 0 and 1 through */
	}
	s->rho = ps.rho;
	s->id = ps.id;
}

/* ---- checkpoint particles.bin: every block.h field, one array after the other ------------ */

/* WCSPH checkpoints (no aux fields): 84 bytes per particle, the type a uint32_t */
#define CKPT_BPP (TIDE_BLOCK_BPP - 1 + TIDE_CKPT_TYPE_BYTES + TIDE_CKPT_KEY_BYTES)

static void *field_of(const char *base, size_t n, int f)
{
	return (void *)(base + tide_ckpt_field(f, NULL) * n);
}

static void load_ckpt(const char *file, pset *s)
{
	struct stat st;
	FILE *f = fopen(file, "rb");
	if (!f || stat(file, &st)) die("%s: cannot open%s", file, "");
	size_t bytes = (size_t)st.st_size, n = bytes / CKPT_BPP;
	if (n * CKPT_BPP != bytes) die("%s: not a whole number of particles%s", file, "");
	char *buf = malloc(bytes ? bytes : 1);
	if (!buf || fread(buf, 1, bytes, f) != bytes) die("%s: cannot read%s", file, "");
	fclose(f);
	s->n = n;
	s->pos = malloc((n ? n : 1) * 3 * sizeof *s->pos);
	s->vel = malloc((n ? n : 1) * 3 * sizeof *s->vel);
	s->type = malloc(n ? n : 1);
	s->rho = malloc((n ? n : 1) * sizeof *s->rho);
	s->id = malloc((n ? n : 1) * sizeof *s->id);
	if (!s->pos || !s->vel || !s->type || !s->rho || !s->id) die("%s: out of memory%s", file, "");
	const double *x = field_of(buf, n, TIDE_F_x), *y = field_of(buf, n, TIDE_F_y),
	             *z = field_of(buf, n, TIDE_F_z);
	const float *vx = field_of(buf, n, TIDE_F_vx), *vy = field_of(buf, n, TIDE_F_vy),
	            *vz = field_of(buf, n, TIDE_F_vz), *rho = field_of(buf, n, TIDE_F_rho);
	const uint32_t *id = field_of(buf, n, TIDE_F_id), *type = field_of(buf, n, TIDE_F_type);
	for (size_t i = 0; i < n; i++) {
		s->pos[3 * i] = x[i];
		s->pos[3 * i + 1] = y[i];
		s->pos[3 * i + 2] = z[i];
		s->vel[3 * i] = vx[i];
		s->vel[3 * i + 1] = vy[i];
		s->vel[3 * i + 2] = vz[i];
		s->rho[i] = rho[i];
		s->id[i] = id[i];
		s->type[i] = (uint8_t)type[i];
	}
	free(buf);
}

/* ---- root and dataset attributes ---------------------------------------------------------- */

static void print_string_attr(hid_t obj, const char *file, const char *name)
{
	hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
	if (a < 0) die("%s: no attribute %s", file, name);
	hid_t t = H5Aget_type(a);
	if (H5Tget_class(t) != H5T_STRING) die("%s: attribute %s is not a string", file, name);
	size_t len = H5Tget_size(t);
	char *v = calloc(len + 1, 1);
	if (!v || H5Aread(a, t, v) < 0) die("%s: cannot read attribute %s", file, name);
	printf("%s", v);
	free(v);
	H5Tclose(t);
	H5Aclose(a);
}

static int print_attrs(const char *file)
{
	hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f < 0) die("%s: not an HDF5 file%s", file, "");
	double dp, h;
	printf("case_name=");
	print_string_attr(f, file, "case_name");
	read_attr(f, file, "dp", H5T_NATIVE_DOUBLE, &dp);
	read_attr(f, file, "h", H5T_NATIVE_DOUBLE, &h);
	printf("\ndp=%.17g\nh=%.17g\ntide_version=", dp, h);
	print_string_attr(f, file, "tide_version");
	printf("\n");
	static const char *const names[] = {"Position", "Velocity", "Density", "Pressure", "Type",
	                                    "Id", "Connectivity"};
	for (int k = 0; k < 7; k++) {
		if (H5Lexists(f, names[k], H5P_DEFAULT) <= 0) continue;
		hid_t d = H5Dopen2(f, names[k], H5P_DEFAULT);
		hid_t t = H5Dget_type(d);
		printf("%s=", names[k]);
		print_string_attr(d, file, "units");
		printf(" %s%zu\n", H5Tget_class(t) == H5T_FLOAT ? "float" : "int", 8 * H5Tget_size(t));
		H5Tclose(t);
		H5Dclose(d);
	}
	H5Fclose(f);
	return 0;
}

/* ---- comparison --------------------------------------------------------------------------- */

static void load(const char *file, pset *s)
{
	memset(s, 0, sizeof *s);
	size_t len = strlen(file);
	if (len > 3 && !strcmp(file + len - 3, ".h5")) load_h5(file, s);
	else if (len > 4 && !strcmp(file + len - 4, ".vtp")) load_vtp(file, s);
	else if (len >= 13 && !strcmp(file + len - 13, "particles.bin")) load_ckpt(file, s);
	else die("%s: neither .h5, .vtp nor a checkpoint's particles.bin%s", file, "");
}

static const uint32_t *sort_ids;

static int by_id(const void *a, const void *b)
{
	uint32_t x = sort_ids[*(const size_t *)a], y = sort_ids[*(const size_t *)b];
	return (x > y) - (x < y);
}

/* Indices of s in increasing id order; fails on a repeated id. */
static size_t *order(const pset *s, const char *file)
{
	size_t *o = malloc((s->n ? s->n : 1) * sizeof *o);
	if (!o) die("%s: out of memory%s", file, "");
	for (size_t i = 0; i < s->n; i++) o[i] = i;
	sort_ids = s->id;
	qsort(o, s->n, sizeof *o, by_id);
	for (size_t i = 1; i < s->n; i++)
		if (s->id[o[i]] == s->id[o[i - 1]]) die("%s: a particle id appears twice%s", file, "");
	return o;
}

int main(int argc, char **argv)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	if (argc == 3 && !strcmp(argv[1], "--info")) {
		pset s;
		load(argv[2], &s);
		order(&s, argv[2]);
		printf("%zu %.17g %lld %d\n", s.n, s.time, s.step, s.ranks);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--attrs")) return print_attrs(argv[2]);
	if (argc != 3) {
		fprintf(stderr, "usage: compare_particles A B | --info FILE.h5 | --attrs FILE.h5\n");
		return 2;
	}
	pset a, b;
	load(argv[1], &a);
	load(argv[2], &b);
	if (a.n != b.n) die("%s and %s hold different particle counts", argv[1], argv[2]);
	size_t *oa = order(&a, argv[1]), *ob = order(&b, argv[2]);
	for (size_t k = 0; k < a.n; k++) {
		size_t i = oa[k], j = ob[k];
		char what[96] = "";
		if (a.id[i] != b.id[j]) snprintf(what, sizeof what, "different ids (%u, %u)", a.id[i], b.id[j]);
		else if (memcmp(a.pos + 3 * i, b.pos + 3 * j, 3 * sizeof(double)))
			snprintf(what, sizeof what, "particle %u: position", a.id[i]);
		else if (memcmp(a.vel + 3 * i, b.vel + 3 * j, 3 * sizeof(float)))
			snprintf(what, sizeof what, "particle %u: velocity", a.id[i]);
		else if (memcmp(&a.rho[i], &b.rho[j], sizeof(float)))
			snprintf(what, sizeof what, "particle %u: density", a.id[i]);
		else if (a.p && b.p && memcmp(&a.p[i], &b.p[j], sizeof(float)))
			snprintf(what, sizeof what, "particle %u: pressure", a.id[i]);
		else if (a.type[i] != b.type[j])
			snprintf(what, sizeof what, "particle %u: type", a.id[i]);
		if (*what) {
			fprintf(stderr, "compare_particles: %s and %s differ: %s\n", argv[1], argv[2], what);
			return 1;
		}
	}
	printf("same %zu particles\n", a.n);
	return 0;
}
