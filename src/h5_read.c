// SPDX-License-Identifier: LGPL-2.1-or-later
// Reader of tide's HDF5 particle snapshots (src/h5_read.h) for tide probe.  Each
// dataset is read in slabs of rows converted by HDF5 to double, then checked and stored as the
// .vtp reader stores its arrays (tide_field_store), so a large snapshot needs no full-size copy.
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "h5_read.h"

#ifdef TIDE_HAVE_HDF5
#include <hdf5.h>

#define ROWS 8192   /* rows per read */

/* The datasets' names in the .h5 (the .vtp's Points is Position there). */
static const char *dataset(int field)
{
	return field == TIDE_FIELD_POSITION ? "Position" : tide_field_name(field);
}

/* HDF5's innermost message: the cause (e.g. "truncated file: eof = ..."). */
static herr_t first_desc(unsigned n, const H5E_error2_t *e, void *data)
{
	if (n == 0 && e->desc) snprintf(data, 160, "%s", e->desc);
	return 0;
}

int tide_h5_fail(const char *path, const char *what)
{
	char cause[160] = "";
	H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_desc, cause);
	H5Eclear2(H5E_DEFAULT);
	return tide_read_fail(TIDE_READ_BAD, "%s %s%s%s%s", path, what, *cause ? " (HDF5: " : "",
	                      cause, *cause ? ")" : "");
}

/* Rows of dataset d (rank 1, or rank 2 with ncomp columns); -1 if its shape is another. */
static long long rows_of(hid_t d, int ncomp)
{
	hid_t sp = H5Dget_space(d);
	hsize_t dims[2] = { 0, 0 };
	int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
	if (rank >= 1 && rank <= 2) H5Sget_simple_extent_dims(sp, dims, NULL);
	if (sp >= 0) H5Sclose(sp);
	int ok = rank == 1 ? ncomp == 1 : rank == 2 && dims[1] == (hsize_t)ncomp;
	return ok ? (long long)dims[0] : -1;
}

static int read_dataset(const char *path, hid_t d, int field, uint64_t n, tide_particle_set *s,
                        float *pressure)
{
	int nc = tide_field_ncomp(field);
	hid_t type = H5Dget_type(d);
	int numeric = type >= 0 && (H5Tget_class(type) == H5T_INTEGER || H5Tget_class(type) == H5T_FLOAT);
	if (type >= 0) H5Tclose(type);
	if (!numeric)
		return tide_read_fail(TIDE_READ_BAD, "%s: its %s dataset is not numbers", path, dataset(field));
	double *buf = malloc(ROWS * (size_t)nc * sizeof *buf);
	if (!buf) return tide_read_nomem(path);
	hid_t file_space = H5Dget_space(d);
	tide_field_sink sink = { path, field, s, pressure, 0 };
	int rc = 0;
	char what[96];
	snprintf(what, sizeof what, "is damaged: its %s dataset cannot be read", dataset(field));
	for (uint64_t first = 0; first < n && !rc; first += ROWS) {
		hsize_t count[2] = { n - first < ROWS ? n - first : ROWS, (hsize_t)nc };
		hsize_t start[2] = { first, 0 };
		int rank = H5Sget_simple_extent_ndims(file_space);
		hid_t mem = H5Screate_simple(rank, count, NULL);
		herr_t e = H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL, count, NULL);
		if (e >= 0) e = H5Dread(d, H5T_NATIVE_DOUBLE, mem, file_space, H5P_DEFAULT, buf);
		H5Sclose(mem);
		if (e < 0) rc = tide_h5_fail(path, what);
		else rc = tide_field_store(&sink, first * (uint64_t)nc, buf, (size_t)(count[0] * (hsize_t)nc));
	}
	H5Sclose(file_space);
	free(buf);
	return rc;
}

static int read_fields(const char *path, hid_t f, unsigned need, tide_particle_set *s,
                       float **pressure, unsigned *have)
{
	hid_t d[TIDE_NFIELDS];
	long long n = -1;
	int rc = 0;
	*have = 0;
	for (int k = 0; k < TIDE_NFIELDS; k++) {
		d[k] = H5Lexists(f, dataset(k), H5P_DEFAULT) > 0 ? H5Dopen2(f, dataset(k), H5P_DEFAULT) : -1;
		H5Eclear2(H5E_DEFAULT);
		if (d[k] < 0) continue;
		long long rows = rows_of(d[k], tide_field_ncomp(k));
		if (rows < 0 && !rc)
			rc = tide_read_fail(TIDE_READ_BAD, "%s: its %s dataset is not %s", path, dataset(k),
			                    tide_field_ncomp(k) > 1 ? "N x 3" : "a list of N values");
		else if (n >= 0 && rows != n && !rc)
			rc = tide_read_fail(TIDE_READ_BAD, "%s is inconsistent: its %s dataset has %lld rows, "
			                    "%s has %lld", path, dataset(k), rows, dataset(0), n);
		if (k == TIDE_FIELD_POSITION) n = rows;
		*have |= TIDE_READ_BIT(k);
	}
	for (int k = 0; k < TIDE_NFIELDS && !rc; k++)
		if ((need | TIDE_READ_BIT(TIDE_FIELD_POSITION)) & ~*have & TIDE_READ_BIT(k))
			rc = tide_read_fail(TIDE_READ_BAD, "%s has no %s dataset, which is needed here (was it "
			                    "written with output.fields leaving it out?)", path, dataset(k));
	int want_p = !rc && pressure && (*have & TIDE_READ_BIT(TIDE_FIELD_PRESSURE));
	if (want_p) *pressure = malloc((n ? (size_t)n : 1) * sizeof(float));
	if (!rc && ((want_p && !*pressure) || tide_pset_reserve(s, (size_t)n)))
		rc = tide_read_fail(TIDE_READ_IO, "cannot read %s: out of memory for %lld particles", path, n);
	if (!rc) s->n = (size_t)n;
	for (int k = 0; k < TIDE_NFIELDS && !rc; k++)
		if (d[k] >= 0 && (k != TIDE_FIELD_PRESSURE || want_p))
			rc = read_dataset(path, d[k], k, (uint64_t)n, s, want_p ? *pressure : NULL);
	for (int k = 0; k < TIDE_NFIELDS; k++)
		if (d[k] >= 0) H5Dclose(d[k]);
	if (!rc) tide_fields_fill_missing(s, *have);
	return rc;
}

int tide_h5_read(const char *path, unsigned need, tide_particle_set *s, float **pressure,
                 unsigned *have, double *t, int *have_t)
{
	unsigned got = 0;
	if (pressure) *pressure = NULL;
	s->n = 0;
	*have_t = 0;
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);   /* our one sentence instead of HDF5's stack */
	int open_rc;
	FILE *probe = tide_read_open(path, &open_rc);   /* a missing file named as such */
	if (!probe) return open_rc;
	fclose(probe);
#if H5_VERSION_GE(1, 12, 0)
	htri_t is_h5 = H5Fis_accessible(path, H5P_DEFAULT);
#else
	htri_t is_h5 = H5Fis_hdf5(path);
#endif
	if (is_h5 <= 0)
		return tide_h5_fail(path, "is not an HDF5 file (or it is truncated or damaged)");
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f < 0) return tide_h5_fail(path, "cannot be opened as HDF5 (truncated or damaged?)");
	int rc = read_fields(path, f, need, s, pressure, &got);
	if (!rc && H5Aexists(f, "time") > 0) {
		hid_t a = H5Aopen(f, "time", H5P_DEFAULT);
		if (a >= 0 && H5Aread(a, H5T_NATIVE_DOUBLE, t) >= 0) *have_t = 1;
		if (a >= 0) H5Aclose(a);
	}
	H5Eclear2(H5E_DEFAULT);
	H5Fclose(f);
	if (rc) {
		s->n = 0;
		if (pressure) { free(*pressure); *pressure = NULL; }
	}
	if (have) *have = rc ? 0 : got;
	return rc;
}

#else /* no HDF5 */

int tide_h5_read(const char *path, unsigned need, tide_particle_set *s, float **pressure,
                 unsigned *have, double *t, int *have_t)
{
	(void)need, (void)t, (void)have;
	s->n = 0;
	*have_t = 0;
	if (pressure) *pressure = NULL;
	return tide_read_fail(TIDE_READ_BAD, "cannot read %s: this tide was built without HDF5 "
	                      "(install libhdf5-openmpi-dev and build again)", path);
}

#endif
