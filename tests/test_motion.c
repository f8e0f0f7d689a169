// SPDX-License-Identifier: LGPL-2.1-or-later
// The maths of moving bodies and wave makers, on the host (no StarPU):
//  - include/tide/motion.h: a body moved stage by stage (random time steps, Verlet and the
//    symplectic half steps) through a sequence of segments stays on its analytic pose (positions
//    to 1e-12 m); a rotating body's normals keep their length (float round-off, no drift) and
//    rotate with it; the velocity field is the time derivative of the pose (finite differences);
//    2-D bodies stay in y = 0;
//  - src/wavemaker.c: the dispersion relation against its deep- and shallow-water limits and a
//    table point (d/L0 = 0.1 -> d/L = 0.1410, Dean & Dalrymple's Appendix / the SPM table), and
//    the Biesel transfer functions against their limits (piston: H/S -> 2 deep, -> kd shallow;
//    flap hinged at the bottom: -> 2 deep, -> kd/2 shallow; a hinge far below the bottom ->
//    piston) and hand-evaluated values at kd = 1.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "tide/motion.h"
#include "wavemaker.h"
#include "test_util.h"

/* x = P X */
static void apply(const tide_pose *P, const double X[3], double x[3])
{
	for (int i = 0; i < 3; i++)
		x[i] = P->R[3 * i] * X[0] + P->R[3 * i + 1] * X[1] + P->R[3 * i + 2] * X[2] + P->b[i];
}

/* A 3-D body: linear, then rotation about a tilted axis, rest, then a sine rotation. */
static void make_table(tide_motion_table *T)
{
	*T = (tide_motion_table){.nbody = 1, .nseg = 3};
	T->body[0] = (tide_motion_body){10, 20, 0, 3};
	T->seg[0] = (tide_motion_seg){.rot = 0, .profile = TIDE_PROFILE_LINEAR, .t0 = 0, .t1 = 0.3,
	                              .a = {0.5, -0.2, 0.1}};
	double e[3] = {1, 2, 2}, n = 3;
	T->seg[1] = (tide_motion_seg){.rot = 1, .profile = TIDE_PROFILE_LINEAR, .t0 = 0.3, .t1 = 0.8,
	                              .c = {0.4, 0.3, 0.2}, .e = {e[0] / n, e[1] / n, e[2] / n},
	                              .amp = 2.0};
	T->seg[2] = (tide_motion_seg){.rot = 1, .profile = TIDE_PROFILE_SINE, .t0 = 0.9, .t1 = INFINITY,
	                              .c = {0, 0, 0}, .e = {0, 0, 1}, .amp = 0.4, .omega = 7.0,
	                              .phase = 0.3};
}

static void test_stages(void)
{
	tide_motion_table T;
	make_table(&T);
	srand(7);
	double X[8][3], x[8][3];
	float n0[8][3], n[8][3], v[3];
	for (int p = 0; p < 8; p++) {
		for (int k = 0; k < 3; k++) {
			X[p][k] = x[p][k] = (double)rand() / RAND_MAX;
			n0[p][k] = n[p][k] = 0.01f * (float)((double)rand() / RAND_MAX - 0.5);
		}
	}
	double t = 0, worst = 0, nworst = 0, ldrift = 0;
	for (int step = 0; step < 4000; step++) {
		double dt = 1e-4 + 5e-4 * (double)rand() / RAND_MAX;
		/* a symplectic step (two halves) every other step, a Verlet one in between */
		double fr[3] = {0, step % 2 ? 0.5 : 1.0, 1.0};
		for (int s = 0; s + 1 < 3 && fr[s] < 1.0; s++) {
			tide_motion_step S;
			tide_motion_step_of(&T, 0, t + fr[s] * dt, t + fr[s + 1] * dt, &S);
			for (int p = 0; p < 8; p++)
				tide_motion_move(&S, 3, 1, &x[p][0], &x[p][1], &x[p][2], n[p], v);
		}
		t += dt;
		tide_pose P;
		tide_motion_pose(&T, 0, t, &P);
		for (int p = 0; p < 8; p++) {
			double e[3], m[3], l0 = 0, l1 = 0;
			apply(&P, X[p], e);
			for (int k = 0; k < 3; k++) worst = fmax(worst, fabs(e[k] - x[p][k]));
			for (int k = 0; k < 3; k++) {
				m[k] = P.R[3 * k] * n0[p][0] + P.R[3 * k + 1] * n0[p][1] + P.R[3 * k + 2] * n0[p][2];
				nworst = fmax(nworst, fabs(m[k] - n[p][k]) / 0.005);
				l0 += (double)n0[p][k] * n0[p][k];
				l1 += (double)n[p][k] * n[p][k];
			}
			ldrift = fmax(ldrift, fabs(sqrt(l1 / l0) - 1.0));
		}
	}
	printf("stages: t = %.3f s: positions off the pose by %.2g m, normals off the rotated ones by "
	       "%.2g (relative), their length by %.2g\n", t, worst, nworst, ldrift);
	CHECK(t > 1.0, "t = %g: the run should cross every segment", t);
	CHECK(worst < 1e-12, "positions off the analytic pose by %g m", worst);
	CHECK(nworst < 1e-5, "normals off the rotated ones by %g", nworst);
	/* float normals: each stage rounds them (~6e-8), kept from growing by restoring the length
	 * before the stage: a random walk of ~1e-7 sqrt(stages) over the 6000 stages, no drift */
	CHECK(ldrift < 2e-5, "normal length drifted by %g", ldrift);
}

/* The velocity field is d/dt of the pose, in every segment. */
static void test_velocity(void)
{
	tide_motion_table T;
	make_table(&T);
	const double ts[] = {0.1, 0.5, 0.85, 1.3, 2.0}, h = 1e-6, X[3] = {0.3, -0.2, 0.7};
	for (int j = 0; j < 5; j++) {
		tide_pose Pm, Pp, P0;
		tide_motion_pose(&T, 0, ts[j] - h, &Pm);
		tide_motion_pose(&T, 0, ts[j] + h, &Pp);
		tide_motion_pose(&T, 0, ts[j], &P0);
		double xm[3], xp[3], x0[3], u0[3], w[3], c[3], err = 0;
		apply(&Pm, X, xm);
		apply(&Pp, X, xp);
		apply(&P0, X, x0);
		tide_motion_velocity_field(&T, 0, ts[j], u0, w, c);
		double r[3] = {x0[0] - c[0], x0[1] - c[1], x0[2] - c[2]};
		double v[3] = {u0[0] + w[1] * r[2] - w[2] * r[1], u0[1] + w[2] * r[0] - w[0] * r[2],
		               u0[2] + w[0] * r[1] - w[1] * r[0]};
		for (int k = 0; k < 3; k++) err = fmax(err, fabs(v[k] - (xp[k] - xm[k]) / (2 * h)));
		CHECK(err < 1e-6, "t = %g: velocity off d/dt of the pose by %g m/s", ts[j], err);
	}
}

/* A flap in 2-D: rotation about y keeps y = 0 and the normal's length. */
static void test_2d(void)
{
	tide_motion_table T = {.nbody = 1, .nseg = 1};
	T.body[0] = (tide_motion_body){0, 1, 0, 1};
	T.seg[0] = (tide_motion_seg){.rot = 1, .profile = TIDE_PROFILE_RAMPED_SINE, .t0 = 0, .t1 = INFINITY,
	                             .c = {0.1, 0, 0}, .e = {0, 1, 0}, .amp = 0.2, .omega = 4.0, .ramp = 1.0};
	double x = 0.12, y = 0, z = 0.3, t = 0;
	float n[3] = {0.005f, 0, 0}, v[3];
	for (int s = 0; s < 3000; s++, t += 1e-3) {
		tide_motion_step S;
		tide_motion_step_of(&T, 0, t, t + 1e-3, &S);
		tide_motion_move(&S, 2, 1, &x, &y, &z, n, v);
	}
	tide_pose P;
	tide_motion_pose(&T, 0, t, &P);
	double e[3], X[3] = {0.12, 0, 0.3};
	apply(&P, X, e);
	CHECK(y == 0.0 && v[1] == 0.f && n[1] == 0.f, "2-D body left y = 0: y %g vy %g ny %g", y, v[1], n[1]);
	CHECK(fabs(e[0] - x) < 1e-12 && fabs(e[2] - z) < 1e-12, "2-D flap off its pose: %g %g", e[0] - x, e[2] - z);
	CHECK(fabs(sqrtf(n[0] * n[0] + n[2] * n[2]) / 0.005f - 1.f) < 2e-5f, "2-D normal length %g", sqrtf(n[0] * n[0] + n[2] * n[2]));
	/* the ramp: the paddle starts from rest (f and f' zero at tau = 0) */
	double f, df;
	tide_motion_profile(&T.seg[0], 0.0, &f, &df);
	CHECK(f == 0.0 && df == 0.0, "ramped sine at 0: f %g f' %g", f, df);
}

static void test_waves(void)
{
	const double g = 9.81;
	/* deep water: k = omega^2 / g */
	double T = 1.0, w = 2 * M_PI / T, k = tide_wave_number(T, 100.0, g);
	CHECK(fabs(k / (w * w / g) - 1) < 1e-12, "deep water k %g, omega^2/g %g", k, w * w / g);
	/* shallow water: k d -> omega d / sqrt(g d) (1 + (kd)^2 / 6 ...): kd = 0.0063 */
	double d = 0.1;
	T = 100.0;
	w = 2 * M_PI / T;
	k = tide_wave_number(T, d, g);
	double ks = w / sqrt(g * d);
	CHECK(fabs(k / ks - 1) < 1e-4, "shallow water k %g, omega/sqrt(g d) %g", k, ks);
	CHECK(fabs(w * w - g * k * tanh(k * d)) < 1e-12 * w * w, "dispersion residual");
	/* table: d/L0 = 0.1 (L0 = g T^2 / 2 pi) gives d/L = 0.1410 */
	T = 2.0;
	d = 0.1 * g * T * T / (2 * M_PI);
	k = tide_wave_number(T, d, g);
	printf("dispersion: d/L0 = 0.1 -> d/L = %.5f (table 0.1410)\n", k * d / (2 * M_PI));
	CHECK(fabs(k * d / (2 * M_PI) - 0.1410) < 6e-5, "d/L %g against the table's 0.1410", k * d / (2 * M_PI));
	/* transfer functions */
	CHECK(fabs(tide_piston_transfer(20.0) - 2.0) < 1e-6, "piston deep %g", tide_piston_transfer(20.0));
	CHECK(fabs(tide_piston_transfer(1e-3) / 1e-3 - 1.0) < 1e-3, "piston shallow %g", tide_piston_transfer(1e-3));
	CHECK(fabs(tide_flap_transfer(40.0, 0.0) - 2.0 * 39.0 / 40.0) < 1e-6, "flap deep %g", tide_flap_transfer(40.0, 0.0));
	CHECK(fabs(tide_flap_transfer(1e-3, 0.0) / 0.5e-3 - 1.0) < 1e-3, "flap shallow %g", tide_flap_transfer(1e-3, 0.0));
	CHECK(fabs(tide_flap_transfer(1.0, -1e7) / tide_piston_transfer(1.0) - 1.0) < 1e-5,
	      "flap hinged far below = piston: %g %g", tide_flap_transfer(1.0, -1e7), tide_piston_transfer(1.0));
	/* kd = 1: piston 2 (cosh 2 - 1) / (sinh 2 + 2); flap 4 sinh 1 (sinh 1 - cosh 1 + 1) / (sinh 2 + 2) */
	double p1 = 2 * (cosh(2.0) - 1) / (sinh(2.0) + 2), f1 = 4 * sinh(1.0) * (sinh(1.0) - cosh(1.0) + 1) / (sinh(2.0) + 2);
	printf("transfer at kd = 1: piston %.5f, flap %.5f, flap hinged at d/2 %.5f\n", tide_piston_transfer(1.0),
	       tide_flap_transfer(1.0, 0.0), tide_flap_transfer(1.0, 0.5));
	CHECK(fabs(tide_piston_transfer(1.0) - p1) < 1e-14 && fabs(p1 - 0.981789) < 1e-6, "piston kd = 1: %g", p1);
	CHECK(fabs(tide_flap_transfer(1.0, 0.0) - f1) < 1e-14 && fabs(f1 - 0.528088) < 1e-6, "flap kd = 1: %g", f1);
	/* a hinge at mid-depth: the paddle's lower half still, so less than the bottom-hinged flap */
	CHECK(tide_flap_transfer(1.0, 0.5) < f1, "flap hinged at d/2");
}

int main(void)
{
	test_stages();
	test_velocity();
	test_2d();
	test_waves();
	if (failures) {
		printf("test_motion: %d check(s) FAILED\n", failures);
		return 1;
	}
	printf("test_motion: all checks passed\n");
	return 0;
}
