/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Floating rigid bodies (issue 22): the rigid state of a body and its integration, small host
 * maths (one body, a few dozen flops a stage), the one home of these formulas.
 *
 * State: centre of mass c, its velocity v (world frame), orientation quaternion q (body frame ->
 * world frame; the body frame is the world frame at t = 0, so q = 1 at the start) and angular
 * velocity w in the body frame, where the inertia tensor I_b about the centre is constant.  A
 * particle at X at t = 0 is at x = R(q) (X - c0) + c: the pose (motion.h's tide_pose) is
 * R = R(q), b = c - R c0.
 *
 * Forces: F and T are the sums over the body's particles k of m_k a_k and (x_k - c) x m_k a_k,
 * a_k the pair accelerations from the fluid (sph_forces, without gravity), reduced by the codelet
 * body_force; gravity acts on the body's own mass M: a = F / M + g.  Euler's equations in the
 * body frame: I_b dw/dt = R^T T - w x (I_b w).
 *
 * Constraints fix translations along world axes and rotations about world axes: the constrained
 * components of v and of the world angular velocity R w (and of their rates) stay zero.  A 2-D
 * case (x-z plane) always fixes the translation along y and the rotations about x and z.
 *
 * Integration, with the fluid's scheme (enum tide_stage of codelets.h):
 *   Verlet and Euler steps (one force pass a step): c += dt v + dt^2/2 a, v += dt a, and for the
 *     rotation w_m = w + dt/2 dw/dt, q <- q (x) exp(w_m dt / 2), w += dt dw/dt: the body's
 *     acceleration at the step's start, as the fluid's Euler step (DualSPHysics' Verlet moves its
 *     floating bodies by the same first-order update, without the fluid's two-level leap);
 *   symplectic predictor (forces at t_n): c_h = c_n + dt/2 v_n, v_h = v_n + dt/2 a_n,
 *     q_h = q_n (x) exp(w_n dt / 4), w_h = w_n + dt/2 dw/dt_n;
 *   symplectic corrector (forces at t_n + dt/2): v = v_n + dt a_h, c = c_n + dt/2 (v_n + v),
 *     w = w_n + dt dw/dt_h, q = q_n (x) exp((w_n + w) dt / 4): the fluid's corrector. */
#ifndef TIDE_RIGID_H
#define TIDE_RIGID_H
#include <math.h>
#include <string.h>
#include "tide/motion.h"

#define TIDE_RIGID_MAX TIDE_MOTION_MAX_BODIES

typedef struct tide_rigid {
	double mass;            /* M [kg] (2-D: per metre of width, as the particles' masses) */
	double Ib[9], Ibinv[9]; /* inertia tensor about the centre in the body frame [kg m^2] */
	double c0[3];           /* centre of mass at t = 0 [m] */
	int fix[6];             /* 1: translation x, y, z / rotation about x, y, z fixed */
	double c[3], v[3], q[4], w[3];   /* the state (q = (s, x, y, z)) */
	double cn[3], vn[3], qn[4], wn[3];  /* the symplectic step's start */
	double F[3], T[3];      /* the last fluid force and torque about c (for the output) */
} tide_rigid;

static inline void tide_mat3_vec(const double A[9], const double x[3], double y[3])
{
	double r[3];
	for (int i = 0; i < 3; i++) r[i] = A[3 * i] * x[0] + A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2];
	memcpy(y, r, sizeof r);
}

static inline void tide_mat3T_vec(const double A[9], const double x[3], double y[3])
{
	double r[3];
	for (int i = 0; i < 3; i++) r[i] = A[i] * x[0] + A[3 + i] * x[1] + A[6 + i] * x[2];
	memcpy(y, r, sizeof r);
}

static inline void tide_cross(const double a[3], const double b[3], double c[3])
{
	double r[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
	memcpy(c, r, sizeof r);
}

/* The inverse of a symmetric positive definite 3x3 matrix; 0 if singular. */
static inline int tide_mat3_inverse(const double A[9], double B[9])
{
	double d = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
	           A[2] * (A[3] * A[7] - A[4] * A[6]);
	if (!(fabs(d) > 0.0)) return 0;
	B[0] = (A[4] * A[8] - A[5] * A[7]) / d; B[1] = (A[2] * A[7] - A[1] * A[8]) / d;
	B[2] = (A[1] * A[5] - A[2] * A[4]) / d; B[3] = (A[5] * A[6] - A[3] * A[8]) / d;
	B[4] = (A[0] * A[8] - A[2] * A[6]) / d; B[5] = (A[2] * A[3] - A[0] * A[5]) / d;
	B[6] = (A[3] * A[7] - A[4] * A[6]) / d; B[7] = (A[1] * A[6] - A[0] * A[7]) / d;
	B[8] = (A[0] * A[4] - A[1] * A[3]) / d;
	return 1;
}

/* R(q) for a unit quaternion q = (s, x, y, z), row-major. */
static inline void tide_quat_matrix(const double q[4], double R[9])
{
	double s = q[0], x = q[1], y = q[2], z = q[3];
	R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - s * z);     R[2] = 2 * (x * z + s * y);
	R[3] = 2 * (x * y + s * z);     R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - s * x);
	R[6] = 2 * (x * z - s * y);     R[7] = 2 * (y * z + s * x);     R[8] = 1 - 2 * (x * x + y * y);
}

/* q <- q0 (x) exp(h) with h = w dt / 2 (the rotation by |w| dt about w, in the body frame),
 * renormalised against round-off. */
static inline void tide_quat_advance(const double q0[4], const double w[3], double dt, double q[4])
{
	double h[3] = {0.5 * w[0] * dt, 0.5 * w[1] * dt, 0.5 * w[2] * dt};
	double a = sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]);
	double s = cos(a), f = a > 1e-300 ? sin(a) / a : 1.0;
	double p[4] = {s, f * h[0], f * h[1], f * h[2]}, r[4];
	r[0] = q0[0] * p[0] - q0[1] * p[1] - q0[2] * p[2] - q0[3] * p[3];
	r[1] = q0[0] * p[1] + q0[1] * p[0] + q0[2] * p[3] - q0[3] * p[2];
	r[2] = q0[0] * p[2] - q0[1] * p[3] + q0[2] * p[0] + q0[3] * p[1];
	r[3] = q0[0] * p[3] + q0[1] * p[2] - q0[2] * p[1] + q0[3] * p[0];
	double n = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
	for (int k = 0; k < 4; k++) q[k] = r[k] / n;
}

/* A body at rest at its initial pose, with mass M, centre c0, inertia Ib and constraints fix
 * (2-D adds its own).  0 if Ib is singular. */
static inline int tide_rigid_init(tide_rigid *B, int dim, double M, const double c0[3],
                                  const double Ib[9], const int fix[6])
{
	memset(B, 0, sizeof *B);
	B->mass = M;
	memcpy(B->Ib, Ib, sizeof B->Ib);
	memcpy(B->c0, c0, sizeof B->c0);
	memcpy(B->c, c0, sizeof B->c);
	for (int k = 0; k < 6; k++) B->fix[k] = fix ? fix[k] : 0;
	if (dim == 2) B->fix[1] = B->fix[3] = B->fix[5] = 1;
	B->q[0] = 1.0;
	if (dim == 2) {
		/* only I_yy acts: the other axes are fixed (a 2-D body's I_xx, I_zz may be 0) */
		double Iyy = Ib[4];
		double D[9] = {1, 0, 0, 0, Iyy, 0, 0, 0, 1};
		if (!(Iyy > 0.0)) return 0;
		return tide_mat3_inverse(D, B->Ibinv);
	}
	return tide_mat3_inverse(Ib, B->Ibinv);
}

/* Mass properties of a box of sides L (2-D: L[1] ignored, per metre of width) and mass M,
 * about its centre, axes along the box's. */
static inline void tide_rigid_box_inertia(int dim, double M, const double L[3], double Ib[9])
{
	double lx2 = L[0] * L[0], ly2 = dim == 2 ? 0.0 : L[1] * L[1], lz2 = L[2] * L[2];
	for (int k = 0; k < 9; k++) Ib[k] = 0.0;
	Ib[0] = M / 12.0 * (ly2 + lz2);
	Ib[4] = M / 12.0 * (lx2 + lz2);
	Ib[8] = M / 12.0 * (lx2 + ly2);
}

/* The body's pose x = R X + b (X: positions at t = 0). */
static inline void tide_rigid_pose(const tide_rigid *B, tide_pose *P)
{
	tide_quat_matrix(B->q, P->R);
	double Rc0[3];
	tide_mat3_vec(P->R, B->c0, Rc0);
	for (int i = 0; i < 3; i++) P->b[i] = B->c[i] - Rc0[i];
}

/* World angular velocity R w. */
static inline void tide_rigid_omega_world(const tide_rigid *B, double ww[3])
{
	double R[9];
	tide_quat_matrix(B->q, R);
	tide_mat3_vec(R, B->w, ww);
}

/* Zero the constrained components: x (world translation, fix[0..2]) and the world angular
 * vector of a body-frame vector wb (fix[3..5]) at orientation R. */
static inline void tide_rigid_constrain(const tide_rigid *B, const double R[9], double x[3],
                                        double wb[3])
{
	double ww[3];
	tide_mat3_vec(R, wb, ww);
	for (int k = 0; k < 3; k++) {
		if (B->fix[k]) x[k] = 0.0;
		if (B->fix[3 + k]) ww[k] = 0.0;
	}
	tide_mat3T_vec(R, ww, wb);
}

/* Linear acceleration a and body-frame angular acceleration dw from the fluid force F and torque
 * T (world, about c) at the current state, gravity g. */
static inline void tide_rigid_accel(const tide_rigid *B, const double F[3], const double T[3],
                                    const double g[3], double a[3], double dw[3])
{
	double R[9], Tb[3], Iw[3], gyro[3];
	tide_quat_matrix(B->q, R);
	for (int k = 0; k < 3; k++) a[k] = F[k] / B->mass + g[k];
	tide_mat3T_vec(R, T, Tb);
	tide_mat3_vec(B->Ib, B->w, Iw);
	tide_cross(B->w, Iw, gyro);
	for (int k = 0; k < 3; k++) Tb[k] -= gyro[k];
	tide_mat3_vec(B->Ibinv, Tb, dw);
	tide_rigid_constrain(B, R, a, dw);
}

/* One stage of the integration (enum tide_stage: 0 Verlet, 1 Euler, 2 symplectic predictor,
 * 3 corrector) over the step dt with the fluid force F and torque T of this stage's force pass. */
static inline void tide_rigid_stage(tide_rigid *B, int stage, double dt, const double F[3],
                                    const double T[3], const double g[3])
{
	double a[3], dw[3];
	memcpy(B->F, F, sizeof B->F);
	memcpy(B->T, T, sizeof B->T);
	tide_rigid_accel(B, F, T, g, a, dw);
	if (stage == 0 || stage == 1) {
		double wm[3];
		for (int k = 0; k < 3; k++) {
			B->c[k] += dt * B->v[k] + 0.5 * dt * dt * a[k];
			B->v[k] += dt * a[k];
			wm[k] = B->w[k] + 0.5 * dt * dw[k];
			B->w[k] += dt * dw[k];
		}
		tide_quat_advance(B->q, wm, dt, B->q);
	} else if (stage == 2) {
		memcpy(B->cn, B->c, sizeof B->c);
		memcpy(B->vn, B->v, sizeof B->v);
		memcpy(B->qn, B->q, sizeof B->q);
		memcpy(B->wn, B->w, sizeof B->w);
		tide_quat_advance(B->qn, B->wn, 0.5 * dt, B->q);
		for (int k = 0; k < 3; k++) {
			B->c[k] = B->cn[k] + 0.5 * dt * B->vn[k];
			B->v[k] = B->vn[k] + 0.5 * dt * a[k];
			B->w[k] = B->wn[k] + 0.5 * dt * dw[k];
		}
	} else {
		double wm[3];
		for (int k = 0; k < 3; k++) {
			B->v[k] = B->vn[k] + dt * a[k];
			B->c[k] = B->cn[k] + 0.5 * dt * (B->vn[k] + B->v[k]);
			B->w[k] = B->wn[k] + dt * dw[k];
			wm[k] = 0.5 * (B->wn[k] + B->w[k]);
		}
		tide_quat_advance(B->qn, wm, dt, B->q);
	}
	/* a and dw had their constrained components zeroed, so v, c and w keep theirs (zero from
	 * the start): nothing drifts a 2-D body out of its plane */
}

/* The body's state for the output: centre x, its velocity v and the rotation vector r (unit axis
 * times angle [rad], the angle in [0, pi]) from the orientation at t = 0. */
static inline void tide_rigid_state(const tide_rigid *B, double x[3], double v[3], double r[3])
{
	double s = sqrt(B->q[1] * B->q[1] + B->q[2] * B->q[2] + B->q[3] * B->q[3]);
	/* q and -q are the same rotation: the angle 2 atan2(|q_v|, |q_s|) with the sign of q_s */
	double sg = B->q[0] < 0.0 ? -1.0 : 1.0, th = 2.0 * atan2(s, fabs(B->q[0]));
	for (int k = 0; k < 3; k++) {
		x[k] = B->c[k];
		v[k] = B->v[k];
		r[k] = s > 0.0 ? sg * B->q[1 + k] / s * th : 0.0;
	}
}

/* What body_motion applies to the body's particles to take them from pose Po to the body's
 * current state: the increment Q = P Po^-1 and the rigid velocity field v + (R w) x (x - c). */
static inline void tide_rigid_motion_step(const tide_rigid *B, const tide_pose *Po,
                                          tide_motion_step *S)
{
	tide_pose Pn, inv;
	tide_rigid_pose(B, &Pn);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) inv.R[3 * i + j] = Po->R[3 * j + i];
	tide_mat3_vec(inv.R, Po->b, inv.b);
	for (int i = 0; i < 3; i++) inv.b[i] = -inv.b[i];
	S->Q = inv;
	tide_pose_compose(&Pn, &S->Q);
	tide_rigid_omega_world(B, S->w);
	for (int k = 0; k < 3; k++) {
		S->u0[k] = B->v[k];
		S->c[k] = B->c[k];
	}
}

#endif
