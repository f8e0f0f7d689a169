/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Prescribed motion of solids (issue 22): the bodies' analytic rigid motion, written once for the
 * CPU and CUDA halves of the codelet body_motion and for the host (case checks, tests).
 *
 * A moving body is a box obstacle or an STL solid with a `motion` key (docs/case-format.md).  Its
 * motion is a sequence of segments, each active in [t0, t1) of simulated time and at rest
 * between and after them.  A segment moves the body rigidly, either by a translation
 * x -> x + a f(tau) or by a rotation about a fixed axis (unit e through the point c) by the
 * angle amp f(tau), tau = t - t0, with f one of the profiles
 *   linear:       f = tau                                  (constant velocity / angular velocity)
 *   sine:         f = sin(w tau + phi) - sin(phi)          (no jump in position at t0)
 *   ramped sine:  f = r(tau) sin(w tau + phi),  r = (1 - cos(pi tau / T_r)) / 2 for tau < T_r,
 *                 then 1 (wave makers: their velocity, too, starts from zero)
 *   ramped sum:   f = r(tau) sum_i A_i sin(w_i tau + phi_i)  (irregular wave makers: the table's
 *                 components comp0 .. comp0 + ncomp - 1)
 * Segments compose: the pose at time t (x = R X + b for X the position at t = 0) is each
 * earlier segment's whole transform applied in turn, then the active one's transform at tau.
 * The axes and centres are fixed in space (not carried by the earlier segments), as the
 * absolute axes of DualSPHysics' motion XML.
 *
 * Which particles belong to a body: the particle ids.  The case builder gives every box obstacle
 * and STL solid a contiguous range of ids (tank walls, obstacles, solids, then fluid, in case
 * order), and an id moves with its particle through sorting, migration, halos and checkpoints,
 * so the small table of bodies below (id ranges and segments, passed by value to the tasks)
 * finds a particle's body without a per-particle field: a plain run keeps its 77 bytes per
 * particle, and a moving run needs no extra bytes either.
 *
 * body_motion moves a body's boundary particles from the time t_old of their positions to t_new
 * by the increment Q = P(t_new) P(t_old)^-1 of the poses, computed in double: positions
 * x <- R_q x + b_q, normals (block.h: vx1..vz1) n <- R_q n, and velocities the rigid velocity
 * field at t_new, v = u0 + w x (x - c).  For a translation R_q is exactly the identity, so the
 * positions follow the analytic motion to round-off of the displacement differences. */
#ifndef TIDE_MOTION_H
#define TIDE_MOTION_H
#include <math.h>
#include <stdint.h>
#include "tide/block.h"
#include "tide/hd.h"

#define TIDE_MOTION_MAX_BODIES 16   /* moving obstacles and solids of a case */
#define TIDE_MOTION_MAX_SEGS 16     /* motion segments of all bodies together */

/* Profiles f(tau) of a segment (see the head of the file). */
enum tide_motion_profile { TIDE_PROFILE_LINEAR = 0, TIDE_PROFILE_SINE = 1, TIDE_PROFILE_RAMPED_SINE = 2,
                           TIDE_PROFILE_RAMPED_SUM = 3 };
#define TIDE_MOTION_MAX_COMP 64     /* sine components of irregular wave makers, all together */

/* One segment of a body's motion, in the form the codelet uses (src/motion_case.c derives it
 * from the case's keys: wave makers through the Biesel transfer function). */
typedef struct tide_motion_seg {
	int rot;          /* 0: translation by a f; 1: rotation by amp f about (c, e) */
	int profile;      /* enum tide_motion_profile */
	double t0, t1;    /* active in [t0, t1) [s]; t1 may be INFINITY */
	double a[3];      /* translation per unit f [m] */
	double c[3], e[3];/* rotation: a point of the axis [m], unit axis */
	double amp;       /* rotation: angle per unit f [rad] */
	double omega, phase;  /* sine profiles: angular frequency [rad/s], phase [rad] */
	double ramp;      /* ramped sine and sum: ramp duration T_r [s] (0: none) */
	int comp0, ncomp; /* ramped sum: its components in the table */
} tide_motion_seg;

typedef struct tide_motion_body {
	uint32_t id0, id1;   /* its particles' ids: [id0, id1) */
	int seg0, nseg;      /* its segments: seg[seg0 .. seg0 + nseg - 1], in time order */
	double ref[3];       /* its reference point at t = 0 (box or mesh centre), for the output */
	int rigid;           /* 0: prescribed motion; k + 1: floating body k (rigid.h), whose steps
	                      * come with the task (tide_body_motion_arg.F) */
} tide_motion_body;

typedef struct tide_motion_table {
	int nbody, nseg;
	tide_motion_body body[TIDE_MOTION_MAX_BODIES];
	tide_motion_seg seg[TIDE_MOTION_MAX_SEGS];
	int ncomp;
	double comp[TIDE_MOTION_MAX_COMP][3];  /* ramped sums' components: A_i, w_i [rad/s], phi_i */
} tide_motion_table;

/* The id ranges of the moving bodies alone (mdbc_ghost: which boundary particles have a wall
 * velocity other than zero). */
typedef struct tide_motion_ids {
	int n;
	uint32_t id0[TIDE_MOTION_MAX_BODIES], id1[TIDE_MOTION_MAX_BODIES];
} tide_motion_ids;

/* A rigid transform x -> R x + b (R row-major). */
typedef struct tide_pose {
	double R[9], b[3];
} tide_pose;

/* What body_motion applies to one body's particles in one stage: the increment of its pose, and
 * its velocity field at the new time, v = u0 + w x (x - c). */
typedef struct tide_motion_step {
	tide_pose Q;
	double u0[3], w[3], c[3];
} tide_motion_step;

/* What a body_motion task gets: the table, and its stage's times t_old = t + f_old dt and
 * t_new = t + f_new dt, with t the step's start time and dt the step's time step (read from the
 * step reduction on the device); set_vel: also set the particles' velocities (not in the
 * symplectic predictor under mDBC noslip/freeslip, whose boundary velocities are the ghost
 * pass's mirror, kept through the step as for fixed walls; floating bodies' particles, which
 * have no mirror, get theirs in any case). */
typedef struct tide_body_motion_arg {
	tide_motion_table T;
	double t, f_old, f_new;
	int set_vel;
	tide_motion_step F[TIDE_MOTION_MAX_BODIES];  /* the floating bodies' steps (by body index),
	                                              * from their integrated state (rigid.h) */
} tide_body_motion_arg;

/* The body of particle id, or -1 (fixed or fluid). */
TIDE_HD int tide_motion_body_of(const tide_motion_table *T, uint32_t id)
{
	for (int k = 0; k < T->nbody; k++)
		if (id >= T->body[k].id0 && id < T->body[k].id1) return k;
	return -1;
}

TIDE_HD int tide_motion_ids_has(const tide_motion_ids *M, uint32_t id)
{
	for (int k = 0; k < M->n; k++)
		if (id >= M->id0[k] && id < M->id1[k]) return 1;
	return 0;
}

/* f(tau) and f'(tau) of segment s of table T. */
TIDE_HD void tide_motion_profile(const tide_motion_table *T, const tide_motion_seg *s, double tau,
                                 double *f, double *df)
{
	if (s->profile == TIDE_PROFILE_LINEAR) {
		*f = tau;
		*df = 1.0;
		return;
	}
	double ph = s->omega * tau + s->phase, sn = sin(ph), cs = cos(ph);
	if (s->profile == TIDE_PROFILE_SINE) {
		*f = sn - sin(s->phase);
		*df = s->omega * cs;
		return;
	}
	double r = 1.0, dr = 0.0;
	if (s->ramp > 0.0 && tau < s->ramp) {
		const double pi = 3.14159265358979323846;
		r = 0.5 * (1.0 - cos(pi * tau / s->ramp));
		dr = 0.5 * pi / s->ramp * sin(pi * tau / s->ramp);
	}
	if (s->profile == TIDE_PROFILE_RAMPED_SUM) {
		double g = 0.0, dg = 0.0, g0 = 0.0;
		for (int i = s->comp0; i < s->comp0 + s->ncomp; i++) {
			const double *c = T->comp[i];
			g += c[0] * sin(c[1] * tau + c[2]);
			dg += c[0] * c[1] * cos(c[1] * tau + c[2]);
			g0 += c[0] * sin(c[2]);
		}
		*f = r * g - (s->ramp > 0.0 ? 0.0 : g0);
		*df = dr * g + r * dg;
		return;
	}
	*f = r * sn - (s->ramp > 0.0 ? 0.0 : sin(s->phase));
	*df = dr * sn + r * s->omega * cs;
}

TIDE_HD void tide_pose_identity(tide_pose *P)
{
	for (int k = 0; k < 9; k++) P->R[k] = (k % 4 == 0) ? 1.0 : 0.0;
	P->b[0] = P->b[1] = P->b[2] = 0.0;
}

/* The rotation by angle th about the unit axis e (Rodrigues' formula). */
TIDE_HD void tide_rotation(const double e[3], double th, double R[9])
{
	double c = cos(th), s = sin(th), C = 1.0 - c;
	R[0] = c + e[0] * e[0] * C;        R[1] = e[0] * e[1] * C - e[2] * s; R[2] = e[0] * e[2] * C + e[1] * s;
	R[3] = e[1] * e[0] * C + e[2] * s; R[4] = c + e[1] * e[1] * C;        R[5] = e[1] * e[2] * C - e[0] * s;
	R[6] = e[2] * e[0] * C - e[1] * s; R[7] = e[2] * e[1] * C + e[0] * s; R[8] = c + e[2] * e[2] * C;
}

/* A = M A (composition: first A, then M). */
TIDE_HD void tide_pose_compose(const tide_pose *M, tide_pose *A)
{
	tide_pose o;
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 3; j++)
			o.R[3 * i + j] = M->R[3 * i] * A->R[j] + M->R[3 * i + 1] * A->R[3 + j] +
			                 M->R[3 * i + 2] * A->R[6 + j];
		o.b[i] = M->R[3 * i] * A->b[0] + M->R[3 * i + 1] * A->b[1] + M->R[3 * i + 2] * A->b[2] +
		         M->b[i];
	}
	*A = o;
}

/* The transform of segment s after tau seconds of it. */
TIDE_HD void tide_motion_seg_pose(const tide_motion_table *T, const tide_motion_seg *s, double tau,
                                  tide_pose *M)
{
	double f, df;
	tide_motion_profile(T, s, tau, &f, &df);
	tide_pose_identity(M);
	if (!s->rot) {
		for (int k = 0; k < 3; k++) M->b[k] = s->a[k] * f;
		return;
	}
	tide_rotation(s->e, s->amp * f, M->R);
	for (int i = 0; i < 3; i++)
		M->b[i] = s->c[i] - (M->R[3 * i] * s->c[0] + M->R[3 * i + 1] * s->c[1] + M->R[3 * i + 2] * s->c[2]);
}

/* The pose of body k at time t (identity before its first segment). */
TIDE_HD void tide_motion_pose(const tide_motion_table *T, int k, double t, tide_pose *P)
{
	const tide_motion_body *B = &T->body[k];
	tide_pose_identity(P);
	for (int j = 0; j < B->nseg; j++) {
		const tide_motion_seg *s = &T->seg[B->seg0 + j];
		if (!(t > s->t0)) break;
		tide_pose M;
		tide_motion_seg_pose(T, s, (t < s->t1 ? t : s->t1) - s->t0, &M);
		tide_pose_compose(&M, P);
	}
}

/* The rigid velocity field of body k at time t: v(x) = u0 + w x (x - c); zero outside its
 * segments. */
TIDE_HD void tide_motion_velocity_field(const tide_motion_table *T, int k, double t, double u0[3],
                                        double w[3], double c[3])
{
	const tide_motion_body *B = &T->body[k];
	for (int q = 0; q < 3; q++) u0[q] = w[q] = c[q] = 0.0;
	for (int j = 0; j < B->nseg; j++) {
		const tide_motion_seg *s = &T->seg[B->seg0 + j];
		if (!(t >= s->t0 && t < s->t1)) continue;
		double f, df;
		tide_motion_profile(T, s, t - s->t0, &f, &df);
		for (int q = 0; q < 3; q++) {
			if (s->rot) {
				w[q] = s->e[q] * s->amp * df;
				c[q] = s->c[q];
			} else {
				u0[q] = s->a[q] * df;
			}
		}
		return;
	}
}

/* The step of body k from t_old to t_new: Q = P(t_new) P(t_old)^-1 and the velocity field at
 * t_new. */
TIDE_HD void tide_motion_step_of(const tide_motion_table *T, int k, double t_old, double t_new,
                                 tide_motion_step *S)
{
	tide_pose Po, Pn;
	tide_motion_pose(T, k, t_old, &Po);
	tide_motion_pose(T, k, t_new, &Pn);
	/* inverse of Po: R^T, -R^T b */
	tide_pose inv;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) inv.R[3 * i + j] = Po.R[3 * j + i];
	for (int i = 0; i < 3; i++)
		inv.b[i] = -(inv.R[3 * i] * Po.b[0] + inv.R[3 * i + 1] * Po.b[1] + inv.R[3 * i + 2] * Po.b[2]);
	/* the same rotation at both times (a translation, or rest): R_q = R R^T = I and
	 * b_q = b_n - b_o, taken exactly rather than through round-off of R R^T */
	int pure = 1;
	for (int q = 0; q < 9; q++) pure &= Po.R[q] == Pn.R[q];
	if (pure) {
		tide_pose_identity(&S->Q);
		for (int q = 0; q < 3; q++) S->Q.b[q] = Pn.b[q] - Po.b[q];
	} else {
		S->Q = inv;
		tide_pose_compose(&Pn, &S->Q);
	}
	tide_motion_velocity_field(T, k, t_new, S->u0, S->w, S->c);
}

/* Moves one particle of a body by the step S: position, normal (rotated, its length kept) and,
 * if set_vel, velocity (the rigid field at the new position).  2-D cases stay in y = 0. */
TIDE_HD void tide_motion_move(const tide_motion_step *S, int dim, int set_vel, double *x, double *y,
                              double *z, float n[3], float v[3])
{
	const double *R = S->Q.R, *b = S->Q.b;
	double p[3] = {*x, *y, *z}, q[3], m[3], nn0 = 0.0, nn1 = 0.0;
	for (int i = 0; i < 3; i++) {
		q[i] = R[3 * i] * p[0] + R[3 * i + 1] * p[1] + R[3 * i + 2] * p[2] + b[i];
		m[i] = R[3 * i] * (double)n[0] + R[3 * i + 1] * (double)n[1] + R[3 * i + 2] * (double)n[2];
		nn0 += (double)n[i] * (double)n[i];
		nn1 += m[i] * m[i];
	}
	if (dim == 2) { q[1] = 0.0; m[1] = 0.0; }
	/* a rotation keeps the normal's length (the particle's distance to the surface): restore it
	 * against the float round-off that would otherwise accumulate step after step */
	double f = nn1 > 0.0 ? sqrt(nn0 / nn1) : 1.0;
	*x = q[0]; *y = q[1]; *z = q[2];
	for (int i = 0; i < 3; i++) n[i] = (float)(m[i] * f);
	if (!set_vel) return;
	double r[3] = {q[0] - S->c[0], q[1] - S->c[1], q[2] - S->c[2]};
	v[0] = (float)(S->u0[0] + S->w[1] * r[2] - S->w[2] * r[1]);
	v[1] = dim == 2 ? 0.f : (float)(S->u0[1] + S->w[2] * r[0] - S->w[0] * r[2]);
	v[2] = (float)(S->u0[2] + S->w[0] * r[1] - S->w[1] * r[0]);
}

/* Body k's state at time t, for the output: its reference point's position x and velocity v,
 * and its rotation vector r (unit axis times angle [rad]) from the orientation at t = 0. */
TIDE_HD void tide_motion_state(const tide_motion_table *T, int k, double t, double x[3],
                               double v[3], double r[3])
{
	tide_pose P;
	double u0[3], w[3], c[3];
	tide_motion_pose(T, k, t, &P);
	tide_motion_velocity_field(T, k, t, u0, w, c);
	const double *X = T->body[k].ref, *R = P.R;
	for (int i = 0; i < 3; i++) x[i] = R[3 * i] * X[0] + R[3 * i + 1] * X[1] + R[3 * i + 2] * X[2] + P.b[i];
	double d[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
	v[0] = u0[0] + w[1] * d[2] - w[2] * d[1];
	v[1] = u0[1] + w[2] * d[0] - w[0] * d[2];
	v[2] = u0[2] + w[0] * d[1] - w[1] * d[0];
	/* the axis from the antisymmetric part, the angle from it and the trace (any angle in [0, pi]) */
	double a[3] = {R[7] - R[5], R[2] - R[6], R[3] - R[1]}, s = 0.5 * sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
	double th = atan2(s, 0.5 * (R[0] + R[4] + R[8] - 1.0));
	for (int i = 0; i < 3; i++) r[i] = s > 0.0 ? a[i] / (2.0 * s) * th : 0.0;
}

/* Particle i of block v, moved by its body's step of S[] (indexed as T's bodies) if it belongs
 * to a moving body: body_motion's per-particle work, on the CPU and the GPU. */
TIDE_HD void tide_motion_particle(const tide_motion_table *T, const tide_motion_step *S, int dim,
                                  int set_vel, tide_block_view *v, uint32_t i)
{
	if (v->type[i] == TIDE_FLUID) return;
	int k = tide_motion_body_of(T, v->id[i]);
	if (k < 0) return;
	/* a floating body's particles carry their rigid velocity in every slip mode (mdbc.h,
	 * tide_mdbc_slip_of: no mirror to keep through the step) */
	set_vel = set_vel || T->body[k].rigid;
	float n[3] = {v->TIDE_BN_X[i], v->TIDE_BN_Y[i], v->TIDE_BN_Z[i]}, u[3];
	tide_motion_move(&S[k], dim, set_vel, &v->x[i], &v->y[i], &v->z[i], n, u);
	v->TIDE_BN_X[i] = n[0]; v->TIDE_BN_Y[i] = n[1]; v->TIDE_BN_Z[i] = n[2];
	if (set_vel) { v->vx[i] = u[0]; v->vy[i] = u[1]; v->vz[i] = u[2]; }
}

/* The steps of all bodies of task M from t_old to t_new into S (floating ones: M's own). */
TIDE_HD void tide_motion_steps(const tide_body_motion_arg *M, int k, double t_old, double t_new,
                               tide_motion_step *S)
{
	if (M->T.body[k].rigid) *S = M->F[k];
	else tide_motion_step_of(&M->T, k, t_old, t_new, S);
}

#endif
