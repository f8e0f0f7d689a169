// SPDX-License-Identifier: LGPL-2.1-or-later
// Water height gauges against analytic answers: the profile -> height formula on given profiles
// (crossings of 1/2 interpolated exactly, column vs highest, a dry floor), then on particle
// lattices: a still-water layer of depth D with a detached blob of fluid above the probe
// (column reads D within dp/4, highest reads the blob's top), and a layer moved up by fractions
// of dp (the height follows by the same amount, not in steps of dp/2 or dp).
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "tide/case.h"
#include "tide/gauge_math.h"
#include "output.h"
#include "test_util.h"

static void test_profiles(void)
{
	enum { N = 40 };
	double f[N], b[N], z0 = -0.1, dz = 0.01;
	/* fluid 1 up to z = 0.1 (k = 20), then 0.8, 0.3 (crossing at k = 21.6: z = 0.116), air,
	 * and a blob 1.0 at k = 30..32 falling to 0.25 at k = 33 (crossing at 32 + 0.5/0.75) */
	for (int k = 0; k < N; k++) {
		f[k] = k <= 20 ? 1.0 : k == 21 ? 0.8 : k == 22 ? 0.3 : 0.0;
		if (k >= 30 && k <= 32) f[k] = 1.0;
		if (k == 33) f[k] = 0.25;
		b[k] = 0.0;
	}
	double col = tide_gauge_profile_height(f, b, N, z0, dz, TIDE_GAUGE_COLUMN);
	double top = tide_gauge_profile_height(f, b, N, z0, dz, TIDE_GAUGE_HIGHEST);
	CHECK(fabs(col - (z0 + 21.6 * dz)) < 1e-12, "column %.15g, want %.15g", col, z0 + 21.6 * dz);
	CHECK(fabs(top - (z0 + (32 + 0.5 / 0.75) * dz)) < 1e-12, "highest %.15g", top);
	/* a dry floor under the line: the boundary fraction, 1 below z = 0 and 0.2 at 0: the column
	 * ends at the floor (the blob above does not count) */
	double f2[N], b2[N];
	for (int k = 0; k < N; k++) {
		f2[k] = k >= 30 && k <= 32 ? 1.0 : 0.0;
		b2[k] = k < 10 ? 1.0 : k == 10 ? 0.2 : 0.0;
	}
	col = tide_gauge_profile_height(f2, b2, N, z0, dz, TIDE_GAUGE_COLUMN);
	CHECK(fabs(col - (z0 + (9 + 0.5 / 0.8) * dz)) < 1e-12, "dry floor column %.15g", col);
	top = tide_gauge_profile_height(f2, b2, N, z0, dz, TIDE_GAUGE_HIGHEST);
	CHECK(fabs(top - (z0 + 32.5 * dz)) < 1e-12, "dry floor highest %.15g (the blob, 1 to 0 above k = 32)", top);
	/* nothing on the line */
	for (int k = 0; k < N; k++) f2[k] = b2[k] = 0.0;
	CHECK(tide_gauge_profile_height(f2, b2, N, z0, dz, TIDE_GAUGE_COLUMN) == 0.0, "empty column");
	CHECK(tide_gauge_profile_height(f2, b2, N, z0, dz, TIDE_GAUGE_HIGHEST) == 0.0, "empty highest");
}

/* A 2-D tank floor (3 layers of boundary particles below z = 0, x in [0, 1]), a layer of water
 * of depth D lifted by dz_up (its particles at (k + 1/2) dp + dz_up), and optionally a blob of
 * fluid 0.3 m wide and 6 dp tall whose top is at blob_top. */
static void lattice(tide_particle_set *s, const tide_case *c, double D, double dz_up,
                    double blob_top)
{
	double dp = c->dp;
	int nx = (int)lround(1.0 / dp);
	for (int i = 0; i < nx; i++) {
		double x = (i + 0.5) * dp;
		for (int l = 0; l < 3; l++) tide_pset_push(s, x, 0.0, -(l + 0.5) * dp, 1000.f, TIDE_BOUND);
		for (int k = 0; k < (int)lround(D / dp); k++)
			tide_pset_push(s, x, 0.0, (k + 0.5) * dp + dz_up, 1000.f, TIDE_FLUID);
		if (blob_top > 0 && x > 0.35 && x < 0.65)
			for (int k = 0; k < 6; k++)
				tide_pset_push(s, x, 0.0, blob_top - (k + 0.5) * dp, 1000.f, TIDE_FLUID);
	}
}

static tide_case lattice_case(double dp)
{
	tide_case c = test_make_case(2, dp, 2.0, 10.0, TIDE_KERNEL_WENDLAND);
	c.domain.lo[0] = -0.1; c.domain.hi[0] = 1.1;
	c.domain.lo[2] = -0.1; c.domain.hi[2] = 1.0;
	return c;
}

static void test_blob(void)
{
	tide_case c = lattice_case(0.01);
	tide_particle_set s;
	memset(&s, 0, sizeof s);
	lattice(&s, &c, 0.3, 0.0, 0.7);
	c.gauge_mode = TIDE_GAUGE_COLUMN;
	double col = tide_gauge_height(&s, &c, 0.5, 0.0);
	c.gauge_mode = TIDE_GAUGE_HIGHEST;
	double top = tide_gauge_height(&s, &c, 0.5, 0.0);
	CHECK(fabs(col - 0.3) <= c.dp / 4, "column under a blob: %.6f, want 0.3 +- dp/4", col);
	CHECK(fabs(top - 0.7) <= c.dp / 2, "highest under a blob: %.6f, want the blob's top 0.7", top);
	/* beside the blob both read the layer */
	double beside = tide_gauge_height(&s, &c, 0.1, 0.0);
	CHECK(fabs(beside - 0.3) <= c.dp / 4, "highest beside the blob: %.6f, want 0.3", beside);
	printf("  layer 0.3 m + blob up to 0.7 m: column %.5f, highest %.5f, highest beside %.5f\n",
	       col, top, beside);
	tide_pset_free(&s);
}

/* The layer lifted by j dp/8: the height follows by j dp/8 (a gauge stepping by dz = dp/2 or
 * by dp would be off by up to dp/4 or dp/2). */
static void test_smooth(void)
{
	tide_case c = lattice_case(0.01);
	double h0 = 0, worst = 0;
	for (int j = 0; j <= 8; j++) {
		tide_particle_set s;
		memset(&s, 0, sizeof s);
		double up = j * c.dp / 8;
		lattice(&s, &c, 0.3, up, 0.0);
		double h = tide_gauge_height(&s, &c, 0.5, 0.0);
		if (j == 0) h0 = h;
		double err = fabs(h - (h0 + up));
		if (err > worst) worst = err;
		tide_pset_free(&s);
	}
	CHECK(worst <= c.dp / 20, "a layer lifted by j dp/8 moves the height by %.2g m more or less "
	      "than j dp/8; want <= dp/20 = %g", worst, c.dp / 20);
	printf("  layer lifted by 0 .. dp in steps of dp/8: height follows within %.2g m (dp %g)\n",
	       worst, c.dp);
}

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (test_tmpdir_create("gauge_height")) return 1;
	test_profiles();
	test_blob();
	test_smooth();
	return test_finish("gauge_height");
}
