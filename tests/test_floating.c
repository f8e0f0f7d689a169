// SPDX-License-Identifier: LGPL-2.1-or-later
// Floating rigid bodies, the maths and the force reduction (issue 22):
//  - include/tide/rigid.h: a body under a constant force follows the parabola to round-off
//    (Verlet/Euler steps and symplectic stages both); a 2-D body under a constant torque turns by
//    T t^2 / (2 I_yy) (symplectic: exact to round-off for a constant rate); a torque-free
//    asymmetric 3-D body spinning near its stable axis keeps its world angular momentum R I_b w
//    and its kinetic energy (relative drift < 1e-5 over 2000 symplectic steps: fails with the
//    gyroscopic term left out or of the wrong sign); constraints keep fixed components at zero;
//    a box's inertia is M (b^2 + c^2) / 12; the pose moves a body point with the body
//    (x = R (X - c0) + c) and tide_rigid_motion_step's increment takes one pose to the next;
//  - the codelet body_force on a block of fluid, fixed and two floating bodies' particles: the
//    sums equal the brute-force host sums over each body's particles (CPU, to 1e-12 relative);
//    with --cuda (test floating_cuda, SKIP without a CUDA worker) the CUDA half against the CPU.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/body_force.h"
#include "tide/codelet_decl.h"
#include "tide/codelets.h"
#include "tide/rigid.h"
#include "test_cuda_mode.h"
#include "test_util.h"

static void test_constant_force(void)
{
	double Ib[9], L[3] = {0.2, 0.1, 0.3}, c0[3] = {1, 2, 3}, g[3] = {0, 0, -9.81};
	double F[3] = {2.0, -1.0, 4.0}, T[3] = {0, 0, 0}, M = 3.0;
	tide_rigid_box_inertia(3, M, L, Ib);
	CHECK(fabs(Ib[0] - M * (0.01 + 0.09) / 12) < 1e-15 && fabs(Ib[8] - M * (0.04 + 0.01) / 12) < 1e-15,
	      "box inertia %g %g", Ib[0], Ib[8]);
	for (int scheme = 0; scheme < 2; scheme++) {
		tide_rigid B;
		CHECK(tide_rigid_init(&B, 3, M, c0, Ib, NULL), "init");
		double dt = 1e-3, t = 0;
		for (int n = 0; n < 500; n++) {
			if (scheme == 0) {
				tide_rigid_stage(&B, n % 40 == 39 ? 1 : 0, dt, F, T, g);
			} else {
				tide_rigid_stage(&B, 2, dt, F, T, g);
				tide_rigid_stage(&B, 3, dt, F, T, g);
			}
			t += dt;
		}
		double e = 0;
		for (int k = 0; k < 3; k++) {
			double a = F[k] / M + g[k], x = c0[k] + 0.5 * a * t * t;
			e = fmax(e, fabs(B.c[k] - x) + fabs(B.v[k] - a * t));
		}
		printf("constant force, %s: centre and velocity %.2g from the parabola after 0.5 s\n",
		       scheme ? "symplectic" : "Verlet/Euler", e);
		CHECK(e < 1e-12, "parabola: %g", e);
	}
}

static void test_2d_torque(void)
{
	double Ib[9], L[3] = {0.4, 0, 0.2}, c0[3] = {0.5, 0, 0.3}, g[3] = {0, 0, 0};
	double F[3] = {0, 0, 0}, T[3] = {0.3, 0.0, 0.0}, M = 2.0;
	tide_rigid_box_inertia(2, M, L, Ib);
	tide_rigid B;
	CHECK(tide_rigid_init(&B, 2, M, c0, Ib, NULL), "init 2-D");
	double dt = 2e-3, t = 0, Ty = 0.05;
	T[1] = Ty;
	for (int n = 0; n < 400; n++) {
		tide_rigid_stage(&B, 2, dt, F, T, g);
		tide_rigid_stage(&B, 3, dt, F, T, g);
		t += dt;
	}
	double th = 0.5 * Ty / Ib[4] * t * t;
	/* q = (cos th/2, 0, sin th/2, 0) for a turn by th about y */
	double th_q = 2.0 * atan2(B.q[2], B.q[0]);
	double ww[3];
	tide_rigid_omega_world(&B, ww);
	printf("2-D torque: angle %.12g rad (T t^2 / 2 I = %.12g), w_y %.12g (%.12g), x/z parts %.2g\n",
	       th_q, th, ww[1], Ty / Ib[4] * t, fabs(B.q[1]) + fabs(B.q[3]) + fabs(ww[0]) + fabs(ww[2]));
	CHECK(fabs(th_q - th) < 1e-9 * th && fabs(ww[1] - Ty / Ib[4] * t) < 1e-9, "2-D rotation");
	CHECK(B.q[1] == 0.0 && B.q[3] == 0.0 && B.c[1] == 0.0, "2-D body left its plane");
	/* the pose: the point X = c0 + (0.2, 0, 0) is at c + R (0.2, 0, 0) */
	tide_pose P;
	tide_rigid_pose(&B, &P);
	double X[3] = {c0[0] + 0.2, 0, c0[2]}, x[3];
	tide_mat3_vec(P.R, X, x);
	double ex = x[0] + P.b[0] - (B.c[0] + 0.2 * cos(th_q)), ez = x[2] + P.b[2] - (B.c[2] - 0.2 * sin(th_q));
	CHECK(fabs(ex) + fabs(ez) < 1e-14, "pose: %g %g", ex, ez);
}

static void test_free_spin(void)
{
	double Ib[9] = {1.0, 0, 0, 0, 2.0, 0, 0, 0, 3.0}, c0[3] = {0, 0, 0}, z[3] = {0, 0, 0};
	tide_rigid B;
	CHECK(tide_rigid_init(&B, 3, 1.0, c0, Ib, NULL), "init");
	B.w[0] = 0.1; B.w[1] = 0.2; B.w[2] = 3.0;   /* near the stable axis of largest inertia */
	double L0[3], R[9], Iw[3], E0 = 0;
	tide_quat_matrix(B.q, R);
	tide_mat3_vec(B.Ib, B.w, Iw);
	tide_mat3_vec(R, Iw, L0);
	for (int k = 0; k < 3; k++) E0 += 0.5 * B.w[k] * Iw[k];
	double dt = 1e-3;
	for (int n = 0; n < 2000; n++) {
		tide_rigid_stage(&B, 2, dt, z, z, z);
		tide_rigid_stage(&B, 3, dt, z, z, z);
	}
	double L[3], E = 0, dL = 0, nL = 0;
	tide_quat_matrix(B.q, R);
	tide_mat3_vec(B.Ib, B.w, Iw);
	tide_mat3_vec(R, Iw, L);
	for (int k = 0; k < 3; k++) {
		E += 0.5 * B.w[k] * Iw[k];
		dL += (L[k] - L0[k]) * (L[k] - L0[k]);
		nL += L0[k] * L0[k];
	}
	dL = sqrt(dL / nL);
	printf("torque-free spin, 2 s: world angular momentum drift %.2g, energy drift %.2g (relative)\n",
	       dL, fabs(E - E0) / E0);
	CHECK(dL < 1e-5 && fabs(E - E0) / E0 < 1e-5, "free spin drift %g %g", dL, fabs(E - E0) / E0);
	/* constraints: fixed z translation and fixed rotation about x and y, pushed along all */
	int fix[6] = {0, 0, 1, 1, 1, 0};
	double F[3] = {1, 1, 1}, T[3] = {1, 1, 1};
	CHECK(tide_rigid_init(&B, 3, 1.0, c0, Ib, fix), "init");
	for (int n = 0; n < 100; n++) tide_rigid_stage(&B, 0, dt, F, T, z);
	double ww[3];
	tide_rigid_omega_world(&B, ww);
	CHECK(B.c[2] == 0.0 && B.v[2] == 0.0 && fabs(ww[0]) + fabs(ww[1]) < 1e-15 && B.c[0] > 0 && ww[2] > 0,
	      "constraints: c_z %g, w %g %g %g", B.c[2], ww[0], ww[1], ww[2]);
	/* the motion step between two poses: Q Po = Pn */
	tide_pose Po, Pn;
	tide_rigid_pose(&B, &Po);
	B.w[2] += 1.0;
	tide_rigid_stage(&B, 0, 0.1, F, T, z);
	tide_rigid_pose(&B, &Pn);
	tide_motion_step S;
	tide_rigid_motion_step(&B, &Po, &S);
	tide_pose A = Po;
	tide_pose_compose(&S.Q, &A);
	double e = 0;
	for (int k = 0; k < 9; k++) e = fmax(e, fabs(A.R[k] - Pn.R[k]));
	for (int k = 0; k < 3; k++) e = fmax(e, fabs(A.b[k] - Pn.b[k]));
	CHECK(e < 1e-14, "motion step: %g", e);
}

/* n particles: fluid, fixed boundary and two floating bodies (ids 100..199, 300..349). */
static void fill_block(tide_block_view *v, uint32_t n)
{
	srand(5);
	for (uint32_t i = 0; i < n; i++) {
		v->x[i] = (double)rand() / RAND_MAX;
		v->y[i] = (double)rand() / RAND_MAX;
		v->z[i] = (double)rand() / RAND_MAX;
		v->ax[i] = (float)rand() / RAND_MAX - 0.5f;
		v->ay[i] = (float)rand() / RAND_MAX - 0.5f;
		v->az[i] = (float)rand() / RAND_MAX - 0.5f;
		v->id[i] = (i * 7u) % n;
		/* ids 120..139 fluid, as if a body's range held fluid by mistake: must not count */
		v->type[i] = v->id[i] < 80 || (v->id[i] >= 120 && v->id[i] < 140) ? TIDE_FLUID : TIDE_BOUND;
	}
	v->count = n;
}

static void run_body_force(const tide_body_force_arg *A, enum tide_where where, void *mem,
                           uint32_t n, tide_body_sums *out)
{
	starpu_data_handle_t B, S;
	tide_block_register(&B, STARPU_MAIN_RAM, mem, n, n);
	starpu_variable_data_register(&S, STARPU_MAIN_RAM, (uintptr_t)out, sizeof *out);
	tide_codelet_restrict(&tide_body_force_cl, where);
	tide_sph_params P;
	memset(&P, 0, sizeof P);
	P.dim = 3;
	P.mass[TIDE_FLUID] = 7.f;
	P.mass[TIDE_BOUND] = 0.125f;
	int rc = starpu_task_insert(&tide_body_force_cl, STARPU_R, B, STARPU_W, S, STARPU_VALUE, &P,
	                            sizeof P, STARPU_VALUE, A, sizeof *A, 0);
	CHECK(rc == 0, "task insert");
	starpu_task_wait_for_all();
	starpu_data_unregister(B);
	starpu_data_unregister(S);
	tide_codelet_restrict(&tide_body_force_cl, TIDE_WHERE_ANY);
}

static void test_codelet(int cuda)
{
	const uint32_t n = 4000;
	tide_body_force_arg A = {.n = 2, .id0 = {100, 300}, .id1 = {200, 350},
	                         .c = {{0.5, 0.4, 0.3}, {0.1, 0.9, 0.2}}};
	void *a = tide_block_alloc_host(n);
	tide_block_view v = tide_block_view_make(a, n, n);
	fill_block(&v, n);
	tide_body_sums cpu, other;
	run_body_force(&A, TIDE_WHERE_CPU, a, n, &cpu);
	if (cuda) {
		run_body_force(&A, TIDE_WHERE_CUDA, a, n, &other);
	} else {
		memset(&other, 0, sizeof other);
		for (uint32_t i = 0; i < n; i++) {
			if (v.type[i] == TIDE_FLUID) continue;
			for (int j = 0; j < 2; j++) {
				if (v.id[i] < A.id0[j] || v.id[i] >= A.id1[j]) continue;
				double m = 0.125, f[3] = {m * v.ax[i], m * v.ay[i], m * v.az[i]};
				double r[3] = {v.x[i] - A.c[j][0], v.y[i] - A.c[j][1], v.z[i] - A.c[j][2]}, t[3];
				tide_cross(r, f, t);
				for (int q = 0; q < 3; q++) {
					other.s[j][q] += f[q];
					other.s[j][3 + q] += t[q];
				}
			}
		}
	}
	double e = 0, s = 0;
	for (int j = 0; j < TIDE_MOTION_MAX_BODIES; j++)
		for (int q = 0; q < 6; q++) {
			e = fmax(e, fabs(cpu.s[j][q] - other.s[j][q]));
			s = fmax(s, fabs(other.s[j][q]));
		}
	printf("codelet body_force (%s): sums %.3g apart (largest %.3g)\n",
	       cuda ? "CUDA vs CPU" : "CPU vs host sums", e, s);
	CHECK(s > 0.1 && e < 1e-12 * s, "body_force sums %g apart", e);
	tide_block_free_host(a, n);
}

int main(int argc, char **argv)
{
	int cuda = test_cuda_requested(argc, argv);
	if (!cuda) {
		test_constant_force();
		test_2d_torque();
		test_free_spin();
	}
	if (starpu_init(NULL) != 0) { fprintf(stderr, "StarPU init failed\n"); return 77; }
	if (cuda && test_cuda_missing("floating_cuda")) { starpu_shutdown(); return TEST_SKIP; }
	test_codelet(cuda);
	starpu_shutdown();
	if (failures) {
		printf("test_floating: %d check(s) FAILED\n", failures);
		return 1;
	}
	printf("test_floating: all checks passed\n");
	return 0;
}
