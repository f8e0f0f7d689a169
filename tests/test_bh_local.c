// SPDX-License-Identifier: LGPL-2.1-or-later
// The local expansions of the walks over received sets (bh_interact.h: bh_m2l, bh_l2p) against
// the exact field, in double, of a point mass and of a traceless quadrupole at R (|R| = 1, random
// directions, with and without softening), evaluated at offsets x of length h from the
// expansion's centre.  Checked:
//  - at x = 0: the expansion = bh_m2p at the centre (float rounding);
//  - the error's order in h: the monopole's acceleration is exact to second order in x (error
//    ~ h^3: halving h divides it by ~8), its potential to third (~16); the quadrupole's
//    acceleration to first order (~4), its potential to second (~8); checked as ratios of the
//    largest error over 64 directions of R and x, h = 0.16 .. 0.02 (errors above 1e-6: float
//    rounding below);
//  - the bound of bh_far2's theta_l (the default at theta 0.6: 0.12): for |x| <= theta_l |R| the
//    acceleration's relative error of a point mass is below 4 theta_l^3 (6.9e-3), and of a node
//    of size <= 0.6 |R| (quadrupole of 8 masses) below 4 theta_l^3 + 0.6^2 * 3 theta_l^2 (the
//    quadrupole's own first-order truncation);
//  - a massless padding node at R = (1, 0, 0) without softening adds exactly zero.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "tide/bh_interact.h"
#include "tide/bh_gravity.h"
#include "bh_field_ref.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double urand(void)
{
	rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}
static void unit(double v[3])
{
	double n;
	do {
		for (int d = 0; d < 3; d++) v[d] = 2.0 * urand() - 1.0;
		n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
	} while (n < 0.1 || n > 1.0);
	for (int d = 0; d < 3; d++) v[d] /= n;
}

static int failures;
static void check(int ok, const char *what, double v)
{
	if (!ok) { printf("FAIL %s: %.4g\n", what, v); failures++; }
}

/* The exact field (double) at p of mass m at c with traceless quadrupole q (xx xy xz yy yz zz),
 * softening eps2: acceleration and potential (bh_field_ref). */
static void exact(const double p[3], const double c[3], double m, const double q[6], double eps2,
                  double out[4])
{
	double o[6];
	bh_field_ref(c[0] - p[0], c[1] - p[1], c[2] - p[2], m, q, eps2, o);
	for (int k = 0; k < 4; k++) out[k] = o[k];
}

/* A random traceless quadrupole of 8 unit masses within size b of their centre of mass (the
 * node's moments, as bh_moments makes them), normalised by its mass. */
static void random_quad(double b, double q[6])
{
	double x[8][3], c[3] = {0, 0, 0};
	for (int k = 0; k < 8; k++)
		for (int d = 0; d < 3; d++) { x[k][d] = b * (2.0 * urand() - 1.0) / sqrt(3.0); c[d] += x[k][d] / 8; }
	for (int i = 0; i < 6; i++) q[i] = 0;
	for (int k = 0; k < 8; k++) {
		double d[3] = {x[k][0] - c[0], x[k][1] - c[1], x[k][2] - c[2]};
		double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
		q[0] += (3 * d[0] * d[0] - d2) / 8; q[1] += 3 * d[0] * d[1] / 8; q[2] += 3 * d[0] * d[2] / 8;
		q[3] += (3 * d[1] * d[1] - d2) / 8; q[4] += 3 * d[1] * d[2] / 8; q[5] += (3 * d[2] * d[2] - d2) / 8;
	}
}

/* Largest error over 64 random (R, x) with |x| = h: acceleration relative to |a(centre)|
 * (err[0]) and potential relative to |phi(centre)| (err[1]), the expansion of mass m and
 * quadrupole q (quad) with softening eps2. */
static void max_error(double h, double m, const double q[6], int quad, double eps2, double err[2])
{
	err[0] = err[1] = 0;
	uint64_t keep = rng;
	rng = 0x2545F4914F6CDD1Dull; /* the same directions for every h */
	for (int t = 0; t < 64; t++) {
		double R[3], n[3];
		unit(R); unit(n);
		float L[BH_LOCAL_N] = {0};
		bh_m2l(L, 1, (float)R[0], (float)R[1], (float)R[2], (float)m, (float)q[0], (float)q[1],
		       (float)q[2], (float)q[3], (float)q[4], (float)q[5], (float)eps2, quad);
		double zero[3] = {0, 0, 0}, x[3] = {h * n[0], h * n[1], h * n[2]}, c[4], e[4];
		double qq[6];
		for (int i = 0; i < 6; i++) qq[i] = quad ? (double)(float)q[i] : 0.0;
		exact(zero, R, (double)(float)m, qq, (double)(float)eps2, c);
		exact(x, R, (double)(float)m, qq, (double)(float)eps2, e);
		bh_acc a = bh_l2p(L, (float)x[0], (float)x[1], (float)x[2]);
		double an = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
		double ea = sqrt((a.ax - e[0]) * (a.ax - e[0]) + (a.ay - e[1]) * (a.ay - e[1]) +
		                 (a.az - e[2]) * (a.az - e[2])) / an;
		double ep = fabs(a.pot - e[3]) / fabs(c[3]);
		if (ea > err[0]) err[0] = ea;
		if (ep > err[1]) err[1] = ep;
	}
	rng = keep;
}

/* Halving h divides the error by ~2^order: the ratio between 0.6 and 1.6 times 2^order for each
 * halving from 0.16 to 0.02 (the errors at 0.02 stay well above float rounding). */
static void check_order(const char *name, double m, const double q[6], int quad, double eps2,
                        int order_a, int order_p)
{
	double prev[2] = {0, 0};
	for (double h = 0.16; h > 0.015; h *= 0.5) {
		double e[2];
		max_error(h, m, q, quad, eps2, e);
		printf("%-28s h %.3f  acc %.3e  pot %.3e", name, h, e[0], e[1]);
		if (prev[0] > 0) {
			double ra = prev[0] / e[0], rp = prev[1] / e[1];
			printf("  ratios %.2f %.2f", ra, rp);
			char what[96];
			snprintf(what, sizeof what, "%s acceleration order %d at h %.3f", name, order_a, h);
			check(ra > 0.6 * (1 << order_a) && ra < 1.6 * (1 << order_a), what, ra);
			snprintf(what, sizeof what, "%s potential order %d at h %.3f", name, order_p, h);
			/* the potential's error at h 0.02 is float rounding (~1e-7) for a point mass */
			if (e[1] > 1e-6)
				check(rp > 0.6 * (1 << order_p) && rp < 1.6 * (1 << order_p), what, rp);
		}
		printf("\n");
		prev[0] = e[0]; prev[1] = e[1];
	}
}

int main(void)
{
	double none[6] = {0, 0, 0, 0, 0, 0}, q[6];
	random_quad(0.5, q);
	/* the orders */
	check_order("point mass", 1.0, none, 0, 0.0, 3, 4);
	check_order("point mass, eps 0.3", 1.0, none, 0, 0.09, 3, 4);
	check_order("quadrupole alone", 0.0, q, 1, 0.0, 2, 3);
	check_order("quadrupole alone, eps 0.3", 0.0, q, 1, 0.09, 2, 3);

	/* at the centre: bh_m2p */
	double worst = 0;
	for (int t = 0; t < 1000; t++) {
		double R[3];
		unit(R);
		double s = 0.01 + 10 * urand();
		random_quad(0.6 * s, q);
		float L[BH_LOCAL_N] = {0};
		bh_mom M = {(float)(s * R[0]), (float)(s * R[1]), (float)(s * R[2]), 2.f, (float)(2 * q[0]),
		            (float)(2 * q[1]), (float)(2 * q[2]), (float)(2 * q[3]), (float)(2 * q[4]),
		            (float)(2 * q[5]), 0.f, 0.f};
		float eps2 = (t & 1) ? (float)(0.1 * s * s) : 0.f;
		bh_m2l(L, 1, M.x, M.y, M.z, M.m, M.qxx, M.qxy, M.qxz, M.qyy, M.qyz, M.qzz, eps2, 1);
		bh_acc a = bh_l2p(L, 0.f, 0.f, 0.f), b = {0, 0, 0, 0};
		bh_m2p(&b, 0.f, 0.f, 0.f, &M, eps2, 1);
		double bn = sqrt((double)b.ax * b.ax + (double)b.ay * b.ay + (double)b.az * b.az);
		double e = fmax(sqrt(((double)a.ax - b.ax) * (a.ax - b.ax) + ((double)a.ay - b.ay) * (a.ay - b.ay) +
		                     ((double)a.az - b.az) * (a.az - b.az)) / bn,
		                fabs((double)a.pot - b.pot) / fabs((double)b.pot));
		if (e > worst) worst = e;
	}
	printf("at the centre: largest difference from bh_m2p %.3e\n", worst);
	check(worst < 2e-5, "at the centre, difference from bh_m2p", worst);

	/* theta_l's bound: |x| <= theta_l |R| */
	const double th = TIDE_GRAVITY_FAR_RATIO * 0.6; /* theta_l at theta 0.6 */
	double e_mono = 0, e_node = 0;
	for (int t = 0; t < 2000; t++) {
		double R[3], n[3];
		unit(R); unit(n);
		double h = th * urand();
		random_quad(0.6, q);
		for (int pass = 0; pass < 2; pass++) {
			float L[BH_LOCAL_N] = {0};
			const double *qq = pass ? q : none;
			bh_m2l(L, 1, (float)R[0], (float)R[1], (float)R[2], 1.f, (float)qq[0], (float)qq[1],
			       (float)qq[2], (float)qq[3], (float)qq[4], (float)qq[5], 0.f, pass);
			double zero[3] = {0, 0, 0}, x[3] = {h * n[0], h * n[1], h * n[2]}, e[4], c[4], qf[6];
			for (int i = 0; i < 6; i++) qf[i] = (float)qq[i];
			exact(x, R, 1.0, qf, 0.0, e);
			exact(zero, R, 1.0, qf, 0.0, c);
			bh_acc a = bh_l2p(L, (float)x[0], (float)x[1], (float)x[2]);
			double en = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
			double err = sqrt((a.ax - e[0]) * (a.ax - e[0]) + (a.ay - e[1]) * (a.ay - e[1]) +
			                  (a.az - e[2]) * (a.az - e[2])) / en;
			if (pass) e_node = fmax(e_node, err);
			else e_mono = fmax(e_mono, err);
		}
	}
	double b_mono = 4 * th * th * th, b_node = b_mono + 0.36 * 3 * th * th;
	printf("theta_l %.2f: largest relative acceleration error: point mass %.3e (bound %.3e), "
	       "node of size 0.6 |R| %.3e (bound %.3e)\n", th, e_mono, b_mono, e_node, b_node);
	check(e_mono < b_mono, "theta_l bound, point mass", e_mono);
	check(e_node < b_node, "theta_l bound, quadrupole node", e_node);

	/* a padding node adds zeros */
	float L[BH_LOCAL_N];
	for (int k = 0; k < BH_LOCAL_N; k++) L[k] = 1.f;
	bh_m2l(L, 1, 1.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 1);
	for (int k = 0; k < BH_LOCAL_N; k++) check(L[k] == 1.f, "padding node", L[k]);

	if (failures) printf("%d failures\n", failures);
	else printf("OK\n");
	return failures ? 1 : 0;
}
