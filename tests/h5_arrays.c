// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helper: prints a tide particle file (particles_NNNN.h5, src/h5_output.c) as text, for
// scripts that compare files without h5py:
//   h5_arrays FILE.h5
// one line per numeric root attribute, "@NAME VALUE", then one line per dataset of the root
// group in name order, "NAME UNITS V1 V2 ..." (every element, rows one after the other; the
// "units" attribute, "-" when there is none), floats with 9 and doubles with 17 significant
// digits (both round-trip).  Exit 0, or 1 with a message when the file cannot be read.
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad;

static herr_t attr(hid_t obj, const char *name, const H5A_info_t *info, void *data)
{
	(void)info, (void)data;
	hid_t a = H5Aopen(obj, name, H5P_DEFAULT), t = H5Aget_type(a);
	if (H5Tget_class(t) == H5T_FLOAT || H5Tget_class(t) == H5T_INTEGER) {
		double v;
		if (H5Aread(a, H5T_NATIVE_DOUBLE, &v) >= 0) printf("@%s %.17g\n", name, v);
		else bad = 1;
	}
	H5Tclose(t);
	H5Aclose(a);
	return 0;
}

static void dataset(hid_t g, const char *name)
{
	hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
	if (d < 0) return; /* a group */
	hid_t sp = H5Dget_space(d), t = H5Dget_type(d);
	hssize_t n = H5Sget_simple_extent_npoints(sp);
	int dbl = H5Tget_class(t) == H5T_FLOAT && H5Tget_size(t) == 8;
	char units[64] = "-";
	if (H5Aexists(d, "units") > 0) {
		hid_t a = H5Aopen(d, "units", H5P_DEFAULT), at = H5Aget_type(a);
		size_t len = H5Tget_size(at);
		if (len < sizeof units && H5Aread(a, at, units) >= 0) units[len] = 0;
		H5Tclose(at);
		H5Aclose(a);
	}
	double *v = malloc(sizeof *v * (size_t)(n > 0 ? n : 1));
	if (!v || H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
		fprintf(stderr, "h5_arrays: cannot read the dataset %s\n", name);
		bad = 1;
	} else {
		printf("%s %s", name, units);
		for (hssize_t i = 0; i < n; i++) printf(dbl ? " %.17g" : " %.9g", v[i]);
		putchar('\n');
	}
	free(v);
	H5Tclose(t);
	H5Sclose(sp);
	H5Dclose(d);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: h5_arrays FILE.h5\n");
		return 2;
	}
	hid_t f = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f < 0) {
		fprintf(stderr, "h5_arrays: cannot open %s\n", argv[1]);
		return 1;
	}
	H5Aiterate2(f, H5_INDEX_NAME, H5_ITER_INC, NULL, attr, NULL);
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	H5G_info_t gi;
	if (H5Gget_info(f, &gi) < 0) bad = 1;
	for (hsize_t k = 0; !bad && k < gi.nlinks; k++) {
		char name[256];
		if (H5Lget_name_by_idx(f, ".", H5_INDEX_NAME, H5_ITER_INC, k, name, sizeof name, H5P_DEFAULT) < 0) {
			bad = 1;
			break;
		}
		dataset(f, name);
	}
	H5Fclose(f);
	return bad;
}
