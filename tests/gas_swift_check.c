// SPDX-License-Identifier: LGPL-2.1-or-later
// Reads gas runs' SWIFT/GADGET snapshots (output.format: swift, src/swift_output.c) back with
// tide's reader (src/swift_io.c) and the HDF5 library:
//   gas_swift_check layout FILE N TIME BOX
//     the file holds N gas particles (PartType0 alone) at Header Time TIME, BoxSize BOX on every
//     axis, NumPart_ThisFile = NumPart_Total = N, MassTable[0] = 0 (masses per particle), a Units
//     group, and every gas dataset (Coordinates, Velocities, Masses, InternalEnergy,
//     SmoothingLength, Density, ParticleIDs) with ids 0..N-1 once each, masses > 0, h > 0,
//     rho > 0, u >= 0, rho h^3 = m eta^3 (eta 1.2) within 1e-3 where h < h_max (0.6);
//   gas_swift_check same A B TOL
//     the two files hold the same particles (matched by id) at the same time: every field's
//     largest difference within TOL of its largest magnitude (TOL 0: bit for bit);
//   gas_swift_check break FILE WHAT
//     spoils the snapshot FILE in place for the bad-file tests: no-masses (PartType0/Masses
//     removed), short-density (Density one row short), nan-u (InternalEnergy[0] NaN), zero-mass,
//     negative-mass (Masses[0] 0, -1), outside (Coordinates[0] x = 1e3); and no-h
//     (SmoothingLength and Density removed: a valid file that gives neither).
// Prints what it measured; exit 0 when every check holds, 1 otherwise.
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "swift_io.h"

static int failures;
#define CHECK(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL: "); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static void load(const char *path, tide_swift_set *s)
{
	if (tide_swift_read(path, 1u, TIDE_SWIFT_GAS, 0, s)) {
		fprintf(stderr, "FAIL: tide_swift_read %s\n", path);
		exit(1);
	}
	if (!s->u || !s->h || !s->rho) {
		fprintf(stderr, "FAIL: %s lacks InternalEnergy, SmoothingLength or Density\n", path);
		exit(1);
	}
}

static void attr(hid_t g, const char *name, double *out, int n)
{
	hid_t a = H5Aopen(g, name, H5P_DEFAULT);
	CHECK(a >= 0 && H5Aread(a, H5T_NATIVE_DOUBLE, out) >= 0, "no attribute %s", name);
	if (a >= 0) H5Aclose(a);
	(void)n;
}

static void layout(const char *path, uint64_t n, double t, double box)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f < 0) { fprintf(stderr, "FAIL: cannot open %s\n", path); exit(1); }
	hid_t h = H5Gopen2(f, "Header", H5P_DEFAULT);
	double bs[3] = {0, 0, 0}, this[6], tot[6], mt[6], time = -1;
	attr(h, "BoxSize", bs, 3);
	attr(h, "NumPart_ThisFile", this, 6);
	attr(h, "NumPart_Total", tot, 6);
	attr(h, "MassTable", mt, 6);
	attr(h, "Time", &time, 1);
	H5Gclose(h);
	CHECK(H5Lexists(f, "Units", H5P_DEFAULT) > 0, "no Units group");
	H5Fclose(f);
	printf("layout: Header Time %.9g, BoxSize %g %g %g, NumPart_ThisFile[0] %g, NumPart_Total[0] %g, MassTable[0] %g\n",
	       time, bs[0], bs[1], bs[2], this[0], tot[0], mt[0]);
	CHECK(time == t, "Time %.17g, expected %.17g", time, t);
	for (int k = 0; k < 3; k++) CHECK(bs[k] == box, "BoxSize[%d] %g, expected %g", k, bs[k], box);
	CHECK(this[0] == (double)n && tot[0] == (double)n && mt[0] == 0, "counts or MassTable wrong");
	for (int k = 1; k < 6; k++) CHECK(this[k] == 0 && tot[k] == 0, "PartType%d not empty", k);
	tide_swift_set s;
	load(path, &s);
	CHECK(s.n == n && s.count[0] == n, "%llu particles, expected %llu", (unsigned long long)s.n,
	      (unsigned long long)n);
	char *seen = calloc(n ? n : 1, 1);
	double worst = 0;
	int bad = 0, nres = 0;
	for (uint64_t i = 0; i < s.n; i++) {
		if (s.id[i] >= n || seen[s.id[i]]++) bad++;
		if (!(s.mass[i] > 0 && s.h[i] > 0 && s.rho[i] > 0 && s.u[i] >= 0)) bad++;
		if (s.h[i] < 0.6 * 0.999) {
			worst = fmax(worst, fabs(s.rho[i] * pow(s.h[i], 3) / (s.mass[i] * 1.2 * 1.2 * 1.2) - 1));
			nres++;
		}
	}
	printf("layout: %llu particles, ids 0..N-1 once each, |rho h^3 / (m eta^3) - 1| <= %.2e over %d below h_max\n",
	       (unsigned long long)s.n, worst, nres);
	CHECK(!bad, "%d bad ids or values", bad);
	CHECK(worst < 1e-3, "rho h^3 = m eta^3 off by %g", worst);
	free(seen);
	tide_swift_set_free(&s);
}

static void same(const char *pa, const char *pb, double tol)
{
	tide_swift_set a, b;
	load(pa, &a);
	load(pb, &b);
	CHECK(a.n == b.n, "%llu against %llu particles", (unsigned long long)a.n, (unsigned long long)b.n);
	CHECK(a.time == b.time, "times %.17g and %.17g", a.time, b.time);
	if (a.n != b.n) exit(1);
	uint64_t n = a.n, *where = malloc(n * sizeof *where);
	for (uint64_t i = 0; i < n; i++) where[i] = UINT64_MAX;
	for (uint64_t i = 0; i < n; i++)
		if (b.id[i] < n) where[b.id[i]] = i;
	const char *name[6] = {"Coordinates", "Velocities", "Masses", "InternalEnergy", "SmoothingLength", "Density"};
	double big[6] = {0}, diff[6] = {0};
	for (uint64_t i = 0; i < n; i++) {
		uint64_t j = a.id[i] < n ? where[a.id[i]] : UINT64_MAX;
		if (j == UINT64_MAX) { failures++; fprintf(stderr, "FAIL: id %llu of %s not in %s\n", (unsigned long long)a.id[i], pa, pb); break; }
		for (int k = 0; k < 3; k++) {
			big[0] = fmax(big[0], fabs(a.pos[3 * i + k]));
			diff[0] = fmax(diff[0], fabs(a.pos[3 * i + k] - b.pos[3 * j + k]));
			big[1] = fmax(big[1], fabs(a.vel[3 * i + k]));
			diff[1] = fmax(diff[1], fabs(a.vel[3 * i + k] - b.vel[3 * j + k]));
		}
		const double *qa[4] = {a.mass, a.u, a.h, a.rho}, *qb[4] = {b.mass, b.u, b.h, b.rho};
		for (int k = 0; k < 4; k++) {
			big[2 + k] = fmax(big[2 + k], fabs(qa[k][i]));
			diff[2 + k] = fmax(diff[2 + k], fabs(qa[k][i] - qb[k][j]));
		}
	}
	printf("same: %llu particles at t = %.9g:", (unsigned long long)n, a.time);
	for (int k = 0; k < 6; k++) printf(" %s %.3g", name[k], big[k] > 0 ? diff[k] / big[k] : diff[k]);
	printf(" (largest difference / largest magnitude)\n");
	for (int k = 0; k < 6; k++)
		CHECK(diff[k] <= tol * big[k], "%s differs by %g (largest %g, tolerance %g)", name[k], diff[k], big[k], tol);
	free(where);
	tide_swift_set_free(&a);
	tide_swift_set_free(&b);
}

/* Overwrites element 0 of a float or double dataset of PartType0 with v. */
static int set_first(hid_t f, const char *name, double v)
{
	char path[64];
	snprintf(path, sizeof path, "/PartType0/%s", name);
	hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
	if (d < 0) return -1;
	hid_t sp = H5Dget_space(d);
	int nd = H5Sget_simple_extent_ndims(sp);
	hsize_t start[2] = {0, 0}, count[2] = {1, 1};
	H5Sselect_hyperslab(sp, H5S_SELECT_SET, start, NULL, count, NULL);
	hid_t mem = H5Screate_simple(nd, count, NULL);
	herr_t e = H5Dwrite(d, H5T_NATIVE_DOUBLE, mem, sp, H5P_DEFAULT, &v);
	H5Sclose(mem);
	H5Sclose(sp);
	H5Dclose(d);
	return e < 0 ? -1 : 0;
}

static int spoil(const char *path, const char *what)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	if (f < 0) return 1;
	int rc = 0;
	if (!strcmp(what, "no-masses")) rc = H5Ldelete(f, "/PartType0/Masses", H5P_DEFAULT) < 0;
	else if (!strcmp(what, "short-density")) {
		hid_t d = H5Dopen2(f, "/PartType0/Density", H5P_DEFAULT), sp = H5Dget_space(d);
		hsize_t n;
		H5Sget_simple_extent_dims(sp, &n, NULL);
		H5Sclose(sp);
		H5Dclose(d);
		H5Ldelete(f, "/PartType0/Density", H5P_DEFAULT);
		hsize_t m = n - 1;
		sp = H5Screate_simple(1, &m, NULL);
		d = H5Dcreate2(f, "/PartType0/Density", H5T_IEEE_F32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
		float *z = calloc(m, sizeof *z);
		for (hsize_t i = 0; i < m; i++) z[i] = 1.f;
		rc = d < 0 || H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, z) < 0;
		free(z);
		H5Dclose(d);
		H5Sclose(sp);
	} else if (!strcmp(what, "nan-u")) rc = set_first(f, "InternalEnergy", NAN);
	else if (!strcmp(what, "zero-mass")) rc = set_first(f, "Masses", 0);
	else if (!strcmp(what, "negative-mass")) rc = set_first(f, "Masses", -1);
	else if (!strcmp(what, "outside")) rc = set_first(f, "Coordinates", 1e3);
	else if (!strcmp(what, "no-h")) /* a file of other codes': neither h nor rho given */
		rc = H5Ldelete(f, "/PartType0/SmoothingLength", H5P_DEFAULT) < 0 ||
		     H5Ldelete(f, "/PartType0/Density", H5P_DEFAULT) < 0;
	else rc = 1;
	H5Fclose(f);
	return rc != 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "break")) return spoil(argv[2], argv[3]);
	if (argc == 6 && !strcmp(argv[1], "layout"))
		layout(argv[2], strtoull(argv[3], NULL, 10), atof(argv[4]), atof(argv[5]));
	else if (argc == 5 && !strcmp(argv[1], "same"))
		same(argv[2], argv[3], atof(argv[4]));
	else {
		fprintf(stderr, "usage: gas_swift_check layout FILE N TIME BOX | same A B TOL | break FILE WHAT\n");
		return 2;
	}
	if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
	return 0;
}
