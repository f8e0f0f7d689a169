// SPDX-License-Identifier: LGPL-2.1-or-later
// Reads a gas run's particles_NNNN.h5 (h5_output.c) back with the HDF5 library and checks,
// particle by particle, that the file's Pressure is the gas equation of state of its Density
// and InternalEnergy (ideal: p = (gamma - 1) rho u; isothermal: p = cs^2 rho) and not the
// water scheme's Tait pressure, that SoundSpeed is sqrt(gamma p / rho) (ideal) or cs
// (isothermal), and that SmoothingLength is positive and finite.
//   gas_output_check FILE.h5 ideal GAMMA | isothermal CS
// Prints the largest relative errors; exit 0 when each is within float round-off.
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float *read_f32(hid_t f, const char *name, hsize_t *n)
{
	hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
	if (d < 0) {
		fprintf(stderr, "FAIL: no dataset %s\n", name);
		exit(1);
	}
	hid_t sp = H5Dget_space(d);
	hsize_t dims[2] = {0, 0};
	H5Sget_simple_extent_dims(sp, dims, NULL);
	*n = dims[0];
	float *o = malloc((dims[0] ? dims[0] : 1) * sizeof *o);
	if (!o || H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, o) < 0) {
		fprintf(stderr, "FAIL: cannot read %s\n", name);
		exit(1);
	}
	H5Sclose(sp);
	H5Dclose(d);
	return o;
}

static double rel(double a, double b)
{
	return fabs(a - b) / fmax(fabs(b), 1e-30);
}

int main(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[2], "ideal") && strcmp(argv[2], "isothermal"))) {
		fprintf(stderr, "usage: gas_output_check FILE.h5 ideal GAMMA | isothermal CS\n");
		return 2;
	}
	int ideal = !strcmp(argv[2], "ideal");
	double k = atof(argv[3]);
	hid_t f = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f < 0) {
		fprintf(stderr, "FAIL: cannot open %s\n", argv[1]);
		return 1;
	}
	hsize_t n, n1, n2, n3, n4;
	float *rho = read_f32(f, "Density", &n), *p = read_f32(f, "Pressure", &n1);
	float *u = read_f32(f, "InternalEnergy", &n2), *h = read_f32(f, "SmoothingLength", &n3);
	float *c = read_f32(f, "SoundSpeed", &n4);
	if (!n || n1 != n || n2 != n || n3 != n || n4 != n) {
		fprintf(stderr, "FAIL: %llu particles, datasets of %llu %llu %llu %llu rows\n",
		        (unsigned long long)n, (unsigned long long)n1, (unsigned long long)n2,
		        (unsigned long long)n3, (unsigned long long)n4);
		return 1;
	}
	double ep = 0, ec = 0, hmin = INFINITY, pmin = INFINITY, pmax = 0;
	for (hsize_t i = 0; i < n; i++) {
		double want = ideal ? (k - 1.0) * rho[i] * u[i] : k * k * rho[i];
		double cw = ideal ? sqrt(k * want / rho[i]) : k;
		ep = fmax(ep, rel(p[i], want));
		ec = fmax(ec, rel(c[i], cw));
		if (!(h[i] > 0) || !isfinite(h[i])) hmin = -1;
		else hmin = fmin(hmin, h[i]);
		pmin = fmin(pmin, p[i]);
		pmax = fmax(pmax, p[i]);
	}
	printf("%s: %llu particles, p in [%g, %g], max |p - p_eos| / p_eos = %.3g, "
	       "max |c - c_eos| / c_eos = %.3g, min h = %g\n", argv[1], (unsigned long long)n, pmin,
	       pmax, ep, ec, hmin);
	H5Fclose(f);
	/* the file holds float32: (gamma - 1) rho u in float and in double differ by a few ulp */
	if (ep > 4e-7 || ec > 4e-7 || !(hmin > 0) || !(pmax > 0)) {
		fprintf(stderr, "FAIL: pressure or sound speed not the gas EOS, or a bad h\n");
		return 1;
	}
	return 0;
}
