// SPDX-License-Identifier: LGPL-2.1-or-later
// The sinks of a gas run's SWIFT snapshot (PartType5, src/sinks_swift.c) read back with tide's
// reader and the HDF5 library, for tests/test_sinks_swift.sh:
//   sinks_swift_check FILE
//     prints "time T", "sinks N" and one line per sink: id (ParticleIDs - 2^40), mass, x, y, z,
//     vx, vy, vz (%.9g); checks that the Header's NumPart_ThisFile[5] and NumPart_Total[5] are N,
//     that every sink's ParticleID is 2^40 + a small id and every gas id below 2^40 (distinct
//     from the gas), and that the sinks' masses are > 0.
// Exit 0 when the checks hold, 1 otherwise.
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include "swift_io.h"

#define BASE (1ull << 40)

static double header5(hid_t f, const char *name)
{
	double v[6] = {-1, -1, -1, -1, -1, -1};
	hid_t h = H5Gopen2(f, "Header", H5P_DEFAULT);
	hid_t a = h >= 0 ? H5Aopen(h, name, H5P_DEFAULT) : -1;
	if (a >= 0) H5Aread(a, H5T_NATIVE_DOUBLE, v);
	if (a >= 0) H5Aclose(a);
	if (h >= 0) H5Gclose(h);
	return v[5];
}

int main(int argc, char **argv)
{
	if (argc != 2) { fprintf(stderr, "usage: sinks_swift_check FILE\n"); return 2; }
	tide_swift_set s;
	if (tide_swift_read(argv[1], 1u | 1u << 5, 0, 0, &s)) return 1;
	int bad = 0;
	uint64_t n0 = s.count[0], n5 = s.count[5];
	hid_t f = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
	double this5 = header5(f, "NumPart_ThisFile"), tot5 = header5(f, "NumPart_Total");
	H5Fclose(f);
	if (this5 != (double)n5 || tot5 != (double)n5) {
		fprintf(stderr, "FAIL: NumPart_ThisFile[5] %g, NumPart_Total[5] %g, PartType5 rows %llu\n",
		        this5, tot5, (unsigned long long)n5);
		bad = 1;
	}
	for (uint64_t i = 0; i < n0; i++)
		if (s.id[i] >= BASE) { fprintf(stderr, "FAIL: gas id %llu\n", (unsigned long long)s.id[i]); bad = 1; break; }
	printf("time %.17g\nsinks %llu\n", s.time, (unsigned long long)n5);
	for (uint64_t k = n0; k < n0 + n5; k++) {
		if (s.id[k] < BASE || s.id[k] - BASE > 0xffffffffull || !(s.mass[k] > 0)) {
			fprintf(stderr, "FAIL: sink id %llu mass %g\n", (unsigned long long)s.id[k], s.mass[k]);
			bad = 1;
		}
		printf("%llu %.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", (unsigned long long)(s.id[k] - BASE),
		       s.mass[k], s.pos[3 * k], s.pos[3 * k + 1], s.pos[3 * k + 2], s.vel[3 * k],
		       s.vel[3 * k + 1], s.vel[3 * k + 2]);
	}
	tide_swift_set_free(&s);
	return bad;
}
