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
//    piston) and hand-evaluated values at kd = 1; JONSWAP components (Hs from the zeroth moment,
//    the peak, phases from the seed) and their ramped sum;
//  - the codelet body_motion on a block of fluid, fixed and moving boundary particles (two
//    bodies), one symplectic step in two stages with the time step read from the reduction: the
//    same particles as the host maths (CPU); with --cuda (test motion_cuda, SKIP without a CUDA
//    worker) the CUDA half against the CPU half.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelet_decl.h"
#include "tide/codelets.h"
#include "tide/motion.h"
#include "wavemaker.h"
#include "test_cuda_mode.h"
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
	T->body[0] = (tide_motion_body){10, 20, 0, 3, {0, 0, 0}, 0};
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
	T.body[0] = (tide_motion_body){0, 1, 0, 1, {0, 0, 0}, 0};
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
	tide_motion_profile(&T, &T.seg[0], 0.0, &f, &df);
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

/* JONSWAP components: the zeroth moment gives Hs, the largest near the peak, phases from the
 * seed alone; the ramped sum starts from rest and then is the plain sum. */
static void test_jonswap(void)
{
	enum { N = 40 };
	double a[N], f[N], p[N], a2[N], f2[N], p2[N];
	const double Hs = 0.05, Tp = 1.5;
	tide_jonswap(Hs, Tp, 3.3, N, 7, a, f, p);
	double m0 = 0;
	int imax = 0, same = 1, inrange = 1;
	for (int i = 0; i < N; i++) {
		m0 += 0.5 * a[i] * a[i];
		if (a[i] > a[imax]) imax = i;
		inrange &= p[i] >= 0 && p[i] < 2 * M_PI;
	}
	printf("jonswap: 4 sqrt(m0) = %.6g m (Hs %g), peak component at %.4f Hz (fp %.4f)\n",
	       4 * sqrt(m0), Hs, f[imax], 1 / Tp);
	CHECK(fabs(4 * sqrt(m0) / Hs - 1) < 1e-12, "4 sqrt(m0) = %g, Hs = %g", 4 * sqrt(m0), Hs);
	CHECK(fabs(f[imax] - 1 / Tp) <= 2.5 / Tp / N, "peak at %g Hz, fp %g", f[imax], 1 / Tp);
	CHECK(inrange, "phases outside [0, 2 pi)");
	tide_jonswap(Hs, Tp, 3.3, N, 7, a2, f2, p2);
	for (int i = 0; i < N; i++) same &= a2[i] == a[i] && f2[i] == f[i] && p2[i] == p[i];
	CHECK(same, "the same seed gave other components");
	tide_jonswap(Hs, Tp, 3.3, N, 8, a2, f2, p2);
	CHECK(p2[0] != p[0] && p2[5] != p[5], "another seed gave the same phases");
	tide_motion_table T = {.nbody = 1, .nseg = 1, .ncomp = N};
	T.seg[0] = (tide_motion_seg){.profile = TIDE_PROFILE_RAMPED_SUM, .t1 = INFINITY, .a = {1, 0, 0},
	                             .ramp = 3.0, .comp0 = 0, .ncomp = N};
	for (int i = 0; i < N; i++) {
		T.comp[i][0] = a[i];
		T.comp[i][1] = 2 * M_PI * f[i];
		T.comp[i][2] = p[i];
	}
	double fv, dfv, sum = 0;
	tide_motion_profile(&T, &T.seg[0], 0.0, &fv, &dfv);
	CHECK(fv == 0.0 && dfv == 0.0, "ramped sum at 0: %g %g", fv, dfv);
	tide_motion_profile(&T, &T.seg[0], 4.2, &fv, &dfv);
	for (int i = 0; i < N; i++) sum += a[i] * sin(2 * M_PI * f[i] * 4.2 + p[i]);
	CHECK(fabs(fv - sum) < 1e-14, "ramped sum after the ramp %g, the sum %g", fv, sum);
}

/* n particles: fluid, fixed boundary, and two bodies' (ids 100..199 and 300..349). */
static void fill_block(tide_block_view *v, uint32_t n)
{
	srand(11);
	for (uint32_t i = 0; i < n; i++) {
		v->x[i] = (double)rand() / RAND_MAX;
		v->y[i] = (double)rand() / RAND_MAX;
		v->z[i] = (double)rand() / RAND_MAX;
		v->id[i] = (i * 7u) % n; /* shuffled, as after sorting */
		v->type[i] = v->id[i] < 80 ? TIDE_FLUID : TIDE_BOUND;
		v->vx[i] = v->vy[i] = v->vz[i] = 0.25f;
		v->TIDE_BN_X[i] = 0.003f; v->TIDE_BN_Y[i] = -0.002f; v->TIDE_BN_Z[i] = 0.004f;
		v->rho[i] = 1000.f;
	}
	v->count = n;
}

/* One symplectic step (predictor t -> t + dt/2, corrector -> t + dt) of body_motion on where. */
static int run_codelet(const tide_motion_table *T, enum tide_where where, void *mem, uint32_t cap)
{
	starpu_data_handle_t B, R;
	tide_step_reduce red;
	tide_step_reduce_init(&red);
	red.dt = 3e-3f;
	tide_block_register(&B, STARPU_MAIN_RAM, mem, cap, cap);
	starpu_variable_data_register(&R, STARPU_MAIN_RAM, (uintptr_t)&red, sizeof red);
	tide_codelet_restrict(&tide_body_motion_cl, where);
	tide_sph_params P;
	memset(&P, 0, sizeof P);
	P.dim = 3;
	int rc = 0;
	for (int s = 0; s < 2 && !rc; s++) {
		tide_body_motion_arg M = {.T = *T, .t = 0.25, .f_old = 0.5 * s, .f_new = 0.5 + 0.5 * s, .set_vel = 1};
		rc = starpu_task_insert(&tide_body_motion_cl, STARPU_RW, B, STARPU_R, R, STARPU_VALUE, &P,
		                        sizeof P, STARPU_VALUE, &M, sizeof M, 0);
	}
	starpu_task_wait_for_all();
	starpu_data_unregister(B);
	starpu_data_unregister(R);
	tide_codelet_restrict(&tide_body_motion_cl, TIDE_WHERE_ANY);
	return rc;
}

static void test_codelet(int cuda)
{
	const uint32_t n = 400;
	tide_motion_table T;
	make_table(&T);
	T.nbody = 2;
	T.body[0] = (tide_motion_body){100, 200, 0, 3, {0, 0, 0}, 0};
	T.body[1] = (tide_motion_body){300, 350, 2, 1, {0, 0, 0}, 0};
	void *a = tide_block_alloc_host(n), *b = tide_block_alloc_host(n);
	tide_block_view va = tide_block_view_make(a, n, n), vb = tide_block_view_make(b, n, n);
	fill_block(&va, n);
	fill_block(&vb, n);
	CHECK(run_codelet(&T, TIDE_WHERE_CPU, a, n) == 0, "CPU task");
	if (cuda) {
		CHECK(run_codelet(&T, TIDE_WHERE_CUDA, b, n) == 0, "CUDA task");
	} else {
		/* the host maths, stage by stage */
		double t = 0.25, dt = (double)3e-3f;
		for (int s = 0; s < 2; s++) {
			tide_motion_step S[2];
			for (int k = 0; k < 2; k++) tide_motion_step_of(&T, k, t + 0.5 * s * dt, t + (0.5 + 0.5 * s) * dt, &S[k]);
			for (uint32_t i = 0; i < n; i++) tide_motion_particle(&T, S, 3, 1, &vb, i);
		}
	}
	double dx = 0, dn = 0, dv = 0;
	int moved = 0, still = 0;
	for (uint32_t i = 0; i < n; i++) {
		dx = fmax(dx, fmax(fabs(va.x[i] - vb.x[i]), fmax(fabs(va.y[i] - vb.y[i]), fabs(va.z[i] - vb.z[i]))));
		dn = fmax(dn, fabs(va.TIDE_BN_X[i] - vb.TIDE_BN_X[i]) + fabs(va.TIDE_BN_Z[i] - vb.TIDE_BN_Z[i]));
		dv = fmax(dv, fabs(va.vx[i] - vb.vx[i]) + fabs(va.vy[i] - vb.vy[i]) + fabs(va.vz[i] - vb.vz[i]));
		int body = tide_motion_body_of(&T, va.id[i]) >= 0 && va.type[i] != TIDE_FLUID;
		moved += body && va.vx[i] != 0.25f;
		still += !body && va.vx[i] == 0.25f && va.TIDE_BN_X[i] == 0.003f;
	}
	printf("codelet body_motion (%s): positions %.2g m, normals %.2g, velocities %.2g m/s apart; %d "
	       "moved, %d left alone\n", cuda ? "CUDA vs CPU" : "CPU vs host maths", dx, dn, dv, moved, still);
	CHECK(dx < 1e-13, "positions differ by %g m", dx);
	CHECK(dn < 1e-8 && dv < 1e-5, "normals %g, velocities %g apart", dn, dv);
	CHECK(moved == 150 && still == 250, "%d moved (150), %d left alone (250)", moved, still);
	tide_block_free_host(a, n);
	tide_block_free_host(b, n);
}

int main(int argc, char **argv)
{
	int cuda = test_cuda_requested(argc, argv);
	if (starpu_init(NULL) != 0) { fprintf(stderr, "StarPU init failed\n"); return 77; }
	if (cuda && test_cuda_missing("motion_cuda")) { starpu_shutdown(); return TEST_SKIP; }
	if (!cuda) {
		test_stages();
		test_velocity();
		test_2d();
		test_waves();
		test_jonswap();
	}
	test_codelet(cuda);
	starpu_shutdown();
	if (failures) {
		printf("test_motion: %d check(s) FAILED\n", failures);
		return 1;
	}
	printf("test_motion: all checks passed\n");
	return 0;
}
