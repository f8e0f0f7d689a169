// SPDX-License-Identifier: LGPL-2.1-or-later
// SWIFT/GADGET files with gas (PartType0) and collisionless particles (PartType1) for
// tests/test_gas_nbody_files.sh, written with tide's writer (src/swift_io.c) and read back with
// its reader and the HDF5 library:
//   gas_nbody_file make FILE
//     a gas ball (radius 1, lattice 0.2, 552 particles of mass 0.5/552, u 0.05, h 0.24,
//     ids 0..551) and
//     200 collisionless particles uniform in radius 1.2 (mass 0.5/200 each, speeds up to 0.3,
//     ids 1000..1199), in G = 1 units of cm and g (a code-units case reads them unchanged);
//   gas_nbody_file same A B TOL
//     the two files hold the same particles of both types (matched by type and id): counts,
//     Coordinates, Velocities and Masses within TOL of the largest magnitude (0: bit for bit);
//   gas_nbody_file counts FILE NGAS NNBODY
//     the Header's NumPart_ThisFile and NumPart_Total are NGAS, NNBODY for types 0, 1 and 0
//     for the others, and PartType1 has Coordinates, Velocities, Masses and ParticleIDs;
//   gas_nbody_file break FILE WHAT
//     spoils PartType1 in place: nan-velocity (Velocities[0] NaN), zero-mass (Masses[0] 0),
//     short-masses (Masses one row short), flat-coordinates (Coordinates N x 2), masstable
//     (Masses removed and the Header's MassTable[1] set to the same mass: a valid file).
// Exit 0 when every check holds, 1 otherwise (with what differed on stderr).
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "swift_io.h"

#define NNB 200

static int make(const char *path)
{
	static double pos[3 * 2000];
	static float vel[3 * 2000], mass[2000];
	static uint64_t id[2000];
	uint64_t ng = 0;
	for (int i = -5; i < 5; i++)
		for (int j = -5; j < 5; j++)
			for (int k = -5; k < 5; k++) {
				double p[3] = {(i + 0.5) * 0.2, (j + 0.5) * 0.2, (k + 0.5) * 0.2};
				if (p[0] * p[0] + p[1] * p[1] + p[2] * p[2] >= 1) continue;
				for (int d = 0; d < 3; d++) {
					pos[3 * ng + d] = p[d];
					vel[3 * ng + d] = 0;
				}
				ng++;
			}
	/* h and rho given: a run writes its t = 0 snapshot before its first density pass */
	static float u[2000], hh[2000], rho[2000];
	for (uint64_t i = 0; i < ng; i++) {
		mass[i] = (float)(0.5 / ng);
		u[i] = 0.05f;
		hh[i] = 0.24f;
		rho[i] = (float)(0.5 / ng / 0.008);
		id[i] = i;
	}
	uint64_t s = 88172645463325252ull;
	for (int q = 0; q < NNB; q++) {
		double p[3], r2;
		do {
			for (int d = 0; d < 3; d++) {
				s ^= s << 13; s ^= s >> 7; s ^= s << 17;
				p[d] = 1.2 * (2.0 * (double)(s >> 11) / 9007199254740992.0 - 1);
			}
			r2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
		} while (r2 >= 1.44);
		uint64_t k = ng + (uint64_t)q;
		for (int d = 0; d < 3; d++) {
			pos[3 * k + d] = p[d];
			vel[3 * k + d] = (float)(0.25 * p[(d + 1) % 3]);   /* a slow rotation */
		}
		mass[k] = 0.5f / NNB;
		id[k] = 1000 + (uint64_t)q;
	}
	/* G = 1 units of cm and g: a case in code units takes them as they are */
	tide_swift_header h = {.time = 0, .box = {6, 6, 6}, .units = tide_swift_units_g1(1, 1)};
	tide_swift_out t[TIDE_SWIFT_NTYPES];
	memset(t, 0, sizeof t);
	t[0] = (tide_swift_out){.n = ng, .pos = pos, .vel = vel, .mass = mass, .id = id, .u = u, .h = hh,
	                        .rho = rho};
	t[1] = (tide_swift_out){.n = NNB, .pos = pos + 3 * ng, .vel = vel + 3 * ng, .mass = mass + ng,
	                        .id = id + ng};
	return tide_swift_write(path, &h, t) != 0;
}

static int failures;
#define CHECK(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL: "); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static void load(const char *path, tide_swift_set *s)
{
	if (tide_swift_read(path, 3u, 0, 0, s)) {
		fprintf(stderr, "FAIL: tide_swift_read %s\n", path);
		exit(1);
	}
}

/* index of (type, id) in s, or -1 */
static long find(const tide_swift_set *s, int type, uint64_t id)
{
	for (uint64_t i = 0; i < s->n; i++)
		if (s->type[i] == type && s->id[i] == id) return (long)i;
	return -1;
}

static void same(const char *pa, const char *pb, double tol)
{
	tide_swift_set a, b;
	load(pa, &a);
	load(pb, &b);
	CHECK(a.count[0] == b.count[0] && a.count[1] == b.count[1], "counts %llu + %llu against %llu + %llu",
	      (unsigned long long)a.count[0], (unsigned long long)a.count[1],
	      (unsigned long long)b.count[0], (unsigned long long)b.count[1]);
	double big[3] = {0, 0, 0}, diff[3] = {0, 0, 0};
	long worst[2] = {-1, -1};   /* the type and id of the largest velocity difference */
	for (uint64_t i = 0; i < a.n; i++) {
		long j = find(&b, a.type[i], a.id[i]);
		if (j < 0) {
			CHECK(0, "PartType%d id %llu of %s is not in %s", a.type[i], (unsigned long long)a.id[i], pa, pb);
			break;
		}
		for (int k = 0; k < 3; k++) {
			big[0] = fmax(big[0], fabs(a.pos[3 * i + k]));
			diff[0] = fmax(diff[0], fabs(a.pos[3 * i + k] - b.pos[3 * j + k]));
			big[1] = fmax(big[1], fabs(a.vel[3 * i + k]));
			if (fabs(a.vel[3 * i + k] - b.vel[3 * j + k]) > diff[1])
				worst[0] = a.type[i], worst[1] = (long)a.id[i];
			diff[1] = fmax(diff[1], fabs(a.vel[3 * i + k] - b.vel[3 * j + k]));
		}
		big[2] = fmax(big[2], a.mass[i]);
		diff[2] = fmax(diff[2], fabs(a.mass[i] - b.mass[j]));
	}
	const char *name[3] = {"Coordinates", "Velocities", "Masses"};
	printf("same: %llu gas + %llu collisionless particles:", (unsigned long long)a.count[0],
	       (unsigned long long)a.count[1]);
	for (int k = 0; k < 3; k++) printf(" %s %.3g", name[k], big[k] > 0 ? diff[k] / big[k] : diff[k]);
	printf(" (largest difference / largest magnitude); largest velocity difference: PartType%ld "
	       "id %ld\n", worst[0], worst[1]);
	for (int k = 0; k < 3; k++)
		CHECK(diff[k] <= tol * big[k], "%s differ by %g (largest %g, tolerance %g)", name[k], diff[k],
		      big[k], tol);
	tide_swift_set_free(&a);
	tide_swift_set_free(&b);
}

static void counts(const char *path, double ng, double nn)
{
	hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f < 0) { fprintf(stderr, "FAIL: cannot open %s\n", path); exit(1); }
	hid_t h = H5Gopen2(f, "Header", H5P_DEFAULT);
	const char *names[2] = {"NumPart_ThisFile", "NumPart_Total"};
	for (int a = 0; a < 2; a++) {
		double v[6] = {-1, -1, -1, -1, -1, -1};
		hid_t at = H5Aopen(h, names[a], H5P_DEFAULT);
		CHECK(at >= 0 && H5Aread(at, H5T_NATIVE_DOUBLE, v) >= 0, "no Header/%s", names[a]);
		if (at >= 0) H5Aclose(at);
		CHECK(v[0] == ng && v[1] == nn && v[2] == 0 && v[3] == 0 && v[4] == 0 && v[5] == 0,
		      "Header/%s is %g %g %g %g %g %g, expected %g %g 0 0 0 0", names[a], v[0], v[1], v[2],
		      v[3], v[4], v[5], ng, nn);
	}
	H5Gclose(h);
	const char *ds[4] = {"Coordinates", "Velocities", "Masses", "ParticleIDs"};
	for (int k = 0; k < 4; k++) {
		char p[64];
		snprintf(p, sizeof p, "/PartType1/%s", ds[k]);
		CHECK(nn == 0 || H5Lexists(f, "PartType1", H5P_DEFAULT) > 0, "no PartType1");
		if (nn > 0 && H5Lexists(f, "PartType1", H5P_DEFAULT) > 0)
			CHECK(H5Lexists(f, p, H5P_DEFAULT) > 0, "no %s", p);
	}
	H5Fclose(f);
	printf("counts: %s holds %g gas and %g collisionless particles (Header and datasets)\n", path, ng, nn);
}

/* Replaces dataset name of PartType1 by one of rows x cols (cols 0: a list) of value v. */
static int replace(hid_t f, const char *name, hsize_t rows, hsize_t cols, double v)
{
	char p[64];
	snprintf(p, sizeof p, "/PartType1/%s", name);
	H5Ldelete(f, p, H5P_DEFAULT);
	hsize_t dims[2] = {rows, cols};
	hid_t sp = H5Screate_simple(cols ? 2 : 1, dims, NULL);
	hid_t d = H5Dcreate2(f, p, H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	size_t n = (size_t)rows * (cols ? cols : 1);
	double *z = malloc(n * sizeof *z);
	for (size_t i = 0; i < n; i++) z[i] = v;
	int rc = d < 0 || H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, z) < 0;
	free(z);
	if (d >= 0) H5Dclose(d);
	H5Sclose(sp);
	return rc;
}

static int spoil(const char *path, const char *what)
{
	tide_swift_set s;
	load(path, &s);
	uint64_t n = s.count[1], first = s.count[0];
	double vel[3 * NNB], mass = n ? s.mass[first] : 0;
	for (uint64_t i = 0; i < 3 * n && i < 3 * NNB; i++) vel[i] = s.vel[3 * first + i];
	tide_swift_set_free(&s);
	hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	if (f < 0 || n == 0 || n > NNB) return 1;
	int rc = 0;
	if (!strcmp(what, "nan-velocity")) {
		rc = replace(f, "Velocities", n, 3, 0);
		hid_t d = H5Dopen2(f, "/PartType1/Velocities", H5P_DEFAULT);
		vel[0] = NAN;
		rc |= H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, vel) < 0;
		H5Dclose(d);
	} else if (!strcmp(what, "zero-mass")) {
		rc = replace(f, "Masses", n, 0, mass);
		hid_t d = H5Dopen2(f, "/PartType1/Masses", H5P_DEFAULT), sp = H5Dget_space(d);
		hsize_t start = 0, one = 1;
		H5Sselect_hyperslab(sp, H5S_SELECT_SET, &start, NULL, &one, NULL);
		hid_t m = H5Screate_simple(1, &one, NULL);
		double z = 0;
		rc |= H5Dwrite(d, H5T_NATIVE_DOUBLE, m, sp, H5P_DEFAULT, &z) < 0;
		H5Sclose(m); H5Sclose(sp); H5Dclose(d);
	} else if (!strcmp(what, "short-masses")) rc = replace(f, "Masses", n - 1, 0, mass);
	else if (!strcmp(what, "flat-coordinates")) rc = replace(f, "Coordinates", n, 2, 0.1);
	else if (!strcmp(what, "masstable")) {
		rc = H5Ldelete(f, "/PartType1/Masses", H5P_DEFAULT) < 0;
		hid_t h = H5Gopen2(f, "Header", H5P_DEFAULT), a = H5Aopen(h, "MassTable", H5P_DEFAULT);
		double mt[6];
		rc |= H5Aread(a, H5T_NATIVE_DOUBLE, mt) < 0;
		mt[1] = mass;
		rc |= H5Awrite(a, H5T_NATIVE_DOUBLE, mt) < 0;
		H5Aclose(a);
		H5Gclose(h);
	} else rc = 1;
	H5Fclose(f);
	return rc != 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "make")) return make(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "break")) return spoil(argv[2], argv[3]);
	if (argc == 5 && !strcmp(argv[1], "same")) same(argv[2], argv[3], atof(argv[4]));
	else if (argc == 5 && !strcmp(argv[1], "counts")) counts(argv[2], atof(argv[3]), atof(argv[4]));
	else {
		fprintf(stderr, "usage: gas_nbody_file make FILE | same A B TOL | counts FILE NGAS NNBODY | "
		        "break FILE WHAT\n");
		return 2;
	}
	return failures ? 1 : 0;
}
