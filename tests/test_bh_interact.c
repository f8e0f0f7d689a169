// SPDX-License-Identifier: LGPL-2.1-or-later
// The three forms of the Barnes-Hut interactions (bh_interact.h) against a double-precision
// evaluation of the formulas written here and against each other: the reference bh_p2p/bh_m2p,
// the CPU walk's bh_p2p_lane/bh_m2p_lane and the fast CUDA walk's bh_p2p_fast/bh_m2p_fast (its
// host build: the same regrouping and fused multiply-adds, IEEE 1/sqrtf for MUFU.RSQ), on
// random sources at distances from 1e-3 to 10, with and without softening, monopoles and
// traceless quadrupoles of nodes up to 0.6 of their distance in size (the opening criterion
// keeps them smaller).  Checked: each component of the acceleration and the potential within TOL
// of its scale (the sum of the magnitudes of its terms: a quadrupole partly cancels the
// monopole) from the double evaluation, every form within TOL_FORMS of the reference form the
// same way, and a particle on itself without softening gives exactly 0 in every form.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "tide/bh_interact.h"
#include "bh_field_ref.h"

#define TOL 2e-6
#define TOL_FORMS 2e-6
#define NTRY 200000

static uint64_t rng = 0xD1B54A32D192ED03ull;
static double urand(void)
{
	rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static int failures;


/* Largest difference of a from b, the acceleration relative to the scale sa, the potential to
 * sp (exact's out[4], out[5]). */
static double differ(const bh_acc *a, const double b[4], double sa, double sp)
{
	double e = fabs(a->ax - b[0]) / sa;
	if (fabs(a->ay - b[1]) / sa > e) e = fabs(a->ay - b[1]) / sa;
	if (fabs(a->az - b[2]) / sa > e) e = fabs(a->az - b[2]) / sa;
	if (fabs(a->pot - b[3]) / sp > e) e = fabs(a->pot - b[3]) / sp;
	return e;
}

static void as_double(const bh_acc *a, double o[4])
{
	o[0] = a->ax; o[1] = a->ay; o[2] = a->az; o[3] = a->pot;
}

static const char *fname[] = {"reference", "lane (CPU walk)", "fast (CUDA walk)"};

/* The three forms' results f[3] against the double evaluation ex and each other. */
static void judge(const char *what, const bh_acc f[3], const double ex[6], double worst[2])
{
	for (int k = 0; k < 3; k++) {
		double e = differ(&f[k], ex, ex[4], ex[5]);
		if (e > worst[0] || e != e) worst[0] = e;
		if (!(e <= TOL) && failures++ < 10)
			fprintf(stderr, "FAIL %s %s: %.2g from the double evaluation (a %g %g %g phi %g, "
			        "exact %g %g %g %g)\n", what, fname[k], e, f[k].ax, f[k].ay, f[k].az,
			        f[k].pot, ex[0], ex[1], ex[2], ex[3]);
		double ref[4];
		as_double(&f[0], ref);
		e = differ(&f[k], ref, ex[4], ex[5]);
		if (e > worst[1] || e != e) worst[1] = e;
		if (!(e <= TOL_FORMS) && failures++ < 10)
			fprintf(stderr, "FAIL %s %s: %.2g from the reference form\n", what, fname[k], e);
	}
}

/* A point at distance r (log-uniform in [1e-3, 10]) in a random direction from (x, y, z). */
static void random_offset(double d[3])
{
	double n;
	do {
		for (int k = 0; k < 3; k++) d[k] = 2.0 * urand() - 1.0;
		n = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
	} while (n > 1.0 || n < 1e-2);
	double r = 1e-3 * pow(1e4, urand());
	for (int k = 0; k < 3; k++) d[k] *= r / n;
}

int main(void)
{
	double wp[2] = {0, 0}, wm[2] = {0, 0}, wq[2] = {0, 0};
	const double zero_q[6] = {0, 0, 0, 0, 0, 0};
	for (int t = 0; t < NTRY; t++) {
		float x = (float)(urand() - 0.5), y = (float)(urand() - 0.5), z = (float)(urand() - 0.5);
		float eps2 = urand() < 0.5 ? 0.f : (float)(1e-6 * pow(1e4, urand()));
		double d[3];
		random_offset(d);
		float sx = x + (float)d[0], sy = y + (float)d[1], sz = z + (float)d[2];
		float m = (float)(0.1 + 0.9 * urand());
		/* the offset as the forms see it, in float */
		double dx = (double)(sx - x), dy = (double)(sy - y), dz = (double)(sz - z);
		double ex[6];

		/* particle-particle */
		bh_field_ref(dx, dy, dz, m, zero_q, eps2, ex);
		bh_acc f[3] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};
		bh_body s = {sx, sy, sz, m};
		bh_p2p(&f[0], x, y, z, &s, eps2);
		f[1] = bh_p2p_lane(sx - x, sy - y, sz - z, m, eps2);
		bh_p2p_fast(&f[2], x, y, z, sx, sy, sz, m, eps2);
		judge("p2p", f, ex, wp);

		/* multipole-particle: a node of size up to 0.6 r, its traceless quadrupole of the
		 * order of m size^2 */
		double r = sqrt(dx * dx + dy * dy + dz * dz), size = 0.6 * r * urand(), q[6];
		for (int k = 0; k < 6; k++) q[k] = (2.0 * urand() - 1.0) * m * size * size;
		q[5] = -q[0] - q[3];
		bh_mom M = {0};
		M.x = sx; M.y = sy; M.z = sz; M.m = m;
		M.qxx = (float)q[0]; M.qxy = (float)q[1]; M.qxz = (float)q[2];
		M.qyy = (float)q[3]; M.qyz = (float)q[4]; M.qzz = (float)q[5];
		double qf[6] = {M.qxx, M.qxy, M.qxz, M.qyy, M.qyz, M.qzz};
		bh_quad bq = {M.qxx, M.qxy, M.qxz, M.qyy, M.qyz, M.qzz};
		for (int quad = 0; quad < 2; quad++) {
			bh_field_ref(dx, dy, dz, m, quad ? qf : zero_q, eps2, ex);
			bh_acc g[3] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};
			bh_m2p(&g[0], x, y, z, &M, eps2, quad);
			g[1] = quad ? bh_m2p_lane(sx - x, sy - y, sz - z, m, bq, eps2, 1)
			            : bh_m2p_lane(sx - x, sy - y, sz - z, m, bq, eps2, 0);
			bh_m2p_fast(&g[2], x, y, z, sx, sy, sz, m, M.qxx, M.qxy, M.qxz, M.qyy, M.qyz,
			            M.qzz, eps2, quad);
			judge(quad ? "m2p quadrupole" : "m2p monopole", g, ex, quad ? wq : wm);
		}
	}
	/* a particle on itself without softening: nothing, in every form */
	bh_body self = {0.25f, -0.5f, 0.125f, 1.f};
	bh_acc f[3] = {{0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}};
	bh_p2p(&f[0], self.x, self.y, self.z, &self, 0.f);
	f[1] = bh_p2p_lane(0.f, 0.f, 0.f, self.m, 0.f);
	bh_p2p_fast(&f[2], self.x, self.y, self.z, self.x, self.y, self.z, self.m, 0.f);
	for (int k = 0; k < 3; k++)
		if (f[k].ax != 0.f || f[k].ay != 0.f || f[k].az != 0.f || f[k].pot != 0.f) {
			fprintf(stderr, "FAIL p2p %s of a particle on itself: %g %g %g %g\n", fname[k],
			        f[k].ax, f[k].ay, f[k].az, f[k].pot);
			failures++;
		}
	printf("worst difference from the double evaluation / from the reference form:\n"
	       "  p2p %.1e / %.1e, m2p monopole %.1e / %.1e, quadrupole %.1e / %.1e\n",
	       wp[0], wp[1], wm[0], wm[1], wq[0], wq[1]);
	if (failures) fprintf(stderr, "%d failures\n", failures);
	return failures ? 1 : 0;
}
