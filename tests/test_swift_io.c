// SPDX-License-Identifier: LGPL-2.1-or-later
// The SWIFT/GADGET layout's API for a gas scheme (src/swift_io.h): PartType0 with its gas fields
// (InternalEnergy, SmoothingLength, Density) and PartType1 written, read back with
// TIDE_SWIFT_GAS exactly (float fields and double positions), the types' order, the Header
// Time, the units and the nbody state; gas fields that are not physical (h <= 0, u < 0, NaN)
// refused with exit code 2; a type subset read alone.  h5py reads the same file in
// test_astro_io.sh's kind of check (tests/astro_files.py) for the N-body side.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "swift_io.h"
#include "test_util.h"

enum { NG = 37, ND = 11 };

static double pos[(NG + ND) * 3];
static float vel[(NG + ND) * 3], mass[NG + ND], u[NG], h[NG], rho[NG];
static uint64_t id[NG + ND];

static void fill(void)
{
	for (int i = 0; i < NG + ND; i++) {
		for (int k = 0; k < 3; k++) {
			pos[3 * i + k] = 1e6 + 0.123456789012345 * i + k; /* needs double */
			vel[3 * i + k] = (float)(0.01 * i - k);
		}
		mass[i] = (float)(1.0 / (i + 3));
		id[i] = 1000 + (uint64_t)i * 7;
	}
	for (int i = 0; i < NG; i++) {
		u[i] = (float)(0.05 * (i + 1));
		h[i] = (float)(0.1 + 0.001 * i);
		rho[i] = (float)(2.0 + i);
	}
}

static int write_file(const char *path, const float *hh)
{
	tide_swift_out t[TIDE_SWIFT_NTYPES];
	memset(t, 0, sizeof t);
	t[0] = (tide_swift_out){.n = NG, .pos = pos, .vel = vel, .mass = mass, .id = id, .u = u,
	                        .h = hh, .rho = rho};
	t[1] = (tide_swift_out){.n = ND, .pos = pos + 3 * NG, .vel = vel + 3 * NG, .mass = mass + NG,
	                        .id = id + NG};
	tide_swift_header hd = {.time = 2.5, .box = {3, 4, 5},
	                        .units = tide_swift_units_g1(3.0857e18, 1.989e33), .have_state = 1,
	                        .state = {-1, -2, -3, 1, 2, 3, 0.5, 0.01, 1}};
	return tide_swift_write(path, &hd, t);
}

int main(void)
{
	if (test_tmpdir_create("swift_io")) return 1;
	fill();
	const char *path = tmp_path("gas.hdf5");
	CHECK(write_file(path, h) == 0, "writing %s", path);
	tide_swift_set s;
	CHECK(tide_swift_read(path, 0x3f, TIDE_SWIFT_GAS, 0, &s) == 0, "reading %s back", path);
	CHECK(s.n == NG + ND && s.count[0] == NG && s.count[1] == ND, "counts %llu %llu %llu",
	      (unsigned long long)s.n, (unsigned long long)s.count[0], (unsigned long long)s.count[1]);
	int bad = 0;
	for (int i = 0; i < NG + ND && s.n == NG + ND; i++) {
		for (int k = 0; k < 3; k++)
			bad += s.pos[3 * i + k] != pos[3 * i + k] || s.vel[3 * i + k] != vel[3 * i + k];
		bad += s.mass[i] != mass[i] || s.id[i] != id[i] || s.type[i] != (i < NG ? 0 : 1);
	}
	CHECK(bad == 0, "%d values differ after the round trip", bad);
	CHECK(s.u && s.h && s.rho, "gas fields not read");
	bad = 0;
	for (int i = 0; i < NG && s.u && s.h && s.rho; i++)
		bad += s.u[i] != u[i] || s.h[i] != h[i] || s.rho[i] != rho[i];
	CHECK(bad == 0, "%d gas values differ", bad);
	CHECK(s.have_time && s.time == 2.5, "time %g", s.time);
	CHECK(s.have_units && s.units.length == 3.0857e18 && s.units.mass == 1.989e33 &&
	      fabs(s.units.time / sqrt(pow(3.0857e18, 3) / (6.67430e-8 * 1.989e33)) - 1) < 1e-15,
	      "units %g %g %g", s.units.length, s.units.mass, s.units.time);
	CHECK(s.have_state && s.state[0] == -1 && s.state[5] == 3 && s.state[8] == 1, "nbody state");
	tide_swift_set_free(&s);
	/* the dark matter alone, no gas fields asked */
	CHECK(tide_swift_read(path, 1u << 1, 0, 0, &s) == 0 && s.n == ND && s.pos[0] == pos[3 * NG] &&
	      s.id[ND - 1] == id[NG + ND - 1] && !s.u, "PartType1 alone");
	tide_swift_set_free(&s);
	/* unphysical gas fields are refused (and nothing is left allocated: valgrind-clean) */
	float hz[NG], un[NG];
	memcpy(hz, h, sizeof hz);
	hz[4] = 0;
	const char *p2 = tmp_path("h0.hdf5");
	CHECK(write_file(p2, hz) == 0, "writing %s", p2);
	CHECK(tide_swift_read(p2, 0x3f, TIDE_SWIFT_GAS, 0, &s) == 2 && s.n == 0 && !s.pos,
	      "h = 0 not refused");
	CHECK(tide_swift_read(p2, 0x3f, 0, 0, &s) == 0, "h = 0 refused without TIDE_SWIFT_GAS");
	tide_swift_set_free(&s);
	memcpy(un, u, sizeof un);
	un[2] = -1;
	memcpy(u, un, sizeof un);
	const char *p3 = tmp_path("u.hdf5");
	CHECK(write_file(p3, h) == 0 && tide_swift_read(p3, 0x3f, TIDE_SWIFT_GAS, 0, &s) == 2,
	      "u < 0 not refused");
	u[2] = NAN;
	CHECK(write_file(p3, h) == 0 && tide_swift_read(p3, 0x3f, TIDE_SWIFT_GAS, 0, &s) == 2,
	      "u = NaN not refused");
	/* an unwritable path: 1 and no file */
	CHECK(write_file(tmp_path("no/such/dir/x.hdf5"), h) == 1, "unwritable path not reported");
	return test_finish("swift_io");
}
