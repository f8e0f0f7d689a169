/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Barnes-Hut interactions, particle-particle and multipole-particle, in the three forms the
 * walks use, side by side (test_bh_interact compares them with each other and with a
 * double-precision evaluation):
 *   bh_p2p, bh_m2p            the reference form: the classic CUDA walk and the tests;
 *   bh_p2p_lane, bh_m2p_lane  the CPU walk's (codelets/bh_walk.c): one target per SIMD lane of
 *                             its loops, no branch (the loops vectorize), the quadrupole terms
 *                             regrouped, IEEE 1/sqrtf;
 *   bh_p2p_fast, bh_m2p_fast  the fast CUDA walk's (codelets/bh_walk.cu): regrouped around fused
 *                             multiply-adds, 1/r from MUFU.RSQ on the device (bh_rsqrt_fast), the
 *                             IEEE 1/sqrtf on the host (so the test checks the regrouping).
 * The field is without G; d points from the particle to the source, r^2 = d^2 + eps^2:
 *   phi = -M/r - (d.Q.d)/(2 r^5),  a = M d/r^3 - Q d/r^5 + 5/2 (d.Q.d) d/r^7
 * (Q: the traceless quadrupole of a node about its centre of mass, softened as a point mass).
 * A zero distance without softening (a particle on itself) contributes nothing in every form;
 * an accepted node's centre of mass lies outside the group's box, so there r > 0. */
#ifndef TIDE_BH_INTERACT_H
#define TIDE_BH_INTERACT_H
#include <math.h>
#include "tide/bh_tree.h"

/* ---- the reference form ---- */

TIDE_HD void bh_p2p(bh_acc *a, float x, float y, float z, const bh_body *s, float eps2)
{
	float dx = s->x - x, dy = s->y - y, dz = s->z - z;
	float r2 = dx * dx + dy * dy + dz * dz + eps2;
	float rinv = r2 > 0.f ? 1.f / sqrtf(r2) : 0.f;
	float mr = s->m * rinv, mr3 = mr * rinv * rinv;
	a->ax += mr3 * dx; a->ay += mr3 * dy; a->az += mr3 * dz;
	a->pot -= mr;
}

/* Node (monopole, optionally quadrupole) on particle (x, y, z). */
TIDE_HD void bh_m2p(bh_acc *a, float x, float y, float z, const bh_mom *M, float eps2, int quad)
{
	float dx = M->x - x, dy = M->y - y, dz = M->z - z;
	float r2 = dx * dx + dy * dy + dz * dz + eps2;
	float rinv = 1.f / sqrtf(r2);
	float rinv2 = rinv * rinv;
	float mr = M->m * rinv, mr3 = mr * rinv2;
	float ax = mr3 * dx, ay = mr3 * dy, az = mr3 * dz, pot = -mr;
	if (quad) {
		float qx = M->qxx * dx + M->qxy * dy + M->qxz * dz;
		float qy = M->qxy * dx + M->qyy * dy + M->qyz * dz;
		float qz = M->qxz * dx + M->qyz * dy + M->qzz * dz;
		float dqd = qx * dx + qy * dy + qz * dz;
		float r5 = rinv2 * rinv2 * rinv, r7 = r5 * rinv2;
		float c = 2.5f * dqd * r7;
		ax += c * dx - qx * r5;
		ay += c * dy - qy * r5;
		az += c * dz - qz * r5;
		pot -= 0.5f * dqd * r5;
	}
	a->ax += ax; a->ay += ay; a->az += az; a->pot += pot;
}

/* ---- the CPU walk's form: what one source adds to one target (lane) ---- */
#ifndef __CUDACC__
/* The quadrupole of a node, as the CPU walk's lists hold it. */
typedef struct bh_quad {
	float xx, xy, xz, yy, yz, zz;
} bh_quad;

/* Particle of mass m at d = (dx, dy, dz) from the target.  rinv = keep / sqrt(r^2 + 1 - keep)
 * with keep = (r^2 > 0): 0 for the particle itself without a division by zero, and no
 * conditional expression, which would keep GCC from vectorizing under -ftrapping-math. */
static inline __attribute__((always_inline)) bh_acc bh_p2p_lane(float dx, float dy, float dz,
                                                                float m, float eps2)
{
	float r2 = dx * dx + dy * dy + dz * dz + eps2;
	float keep = (float)(r2 > 0.f);
	float rinv = keep / sqrtf(r2 + (1.f - keep));
	float mr = m * rinv, mr3 = mr * rinv * rinv;
	bh_acc f = {mr3 * dx, mr3 * dy, mr3 * dz, -mr};
	return f;
}

/* Node of mass m (quadrupole q if quad) with its centre of mass at d from the target, regrouped
 * as c = M/r^3 + 5/2 (d.Q.d)/r^7,  a = c d - Q d/r^5,  phi = -(M/r + (d.Q.d)/(2 r^5)). */
static inline __attribute__((always_inline)) bh_acc bh_m2p_lane(float dx, float dy, float dz,
                                                                float m, bh_quad q, float eps2,
                                                                const int quad)
{
	float r2 = dx * dx + dy * dy + dz * dz + eps2;
	float rinv = 1.f / sqrtf(r2);
	float rinv2 = rinv * rinv;
	float mr = m * rinv, mr3 = mr * rinv2;
	if (!quad) {
		bh_acc f = {mr3 * dx, mr3 * dy, mr3 * dz, -mr};
		return f;
	}
	float qx = q.xx * dx + q.xy * dy + q.xz * dz;
	float qy = q.xy * dx + q.yy * dy + q.yz * dz;
	float qz = q.xz * dx + q.yz * dy + q.zz * dz;
	float dqd = qx * dx + qy * dy + qz * dz;
	float r5 = rinv2 * rinv2 * rinv, c = mr3 + 2.5f * dqd * r5 * rinv2;
	bh_acc f = {c * dx - qx * r5, c * dy - qy * r5, c * dz - qz * r5, -(mr + 0.5f * dqd * r5)};
	return f;
}
#endif

/* ---- the fast CUDA walk's form ---- */

/* 1/sqrt(x): on the device MUFU.RSQ alone (~2 ulp); rsqrtf without fast math adds a rescaling of
 * subnormal inputs, which cannot matter here (a squared distance below 1.2e-38 gives an
 * overflowing force with either, as on the host).  On the host the IEEE form. */
TIDE_HD float bh_rsqrt_fast(float x)
{
#ifdef __CUDA_ARCH__
	float r;
	asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
	return r;
#else
	return 1.f / sqrtf(x);
#endif
}

/* Particle (sx, sy, sz) of mass sm on the particle (x, y, z). */
TIDE_HD void bh_p2p_fast(bh_acc *a, float x, float y, float z, float sx, float sy, float sz,
                         float sm, float eps2)
{
	float dx = sx - x, dy = sy - y, dz = sz - z;
	float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
	float rinv = r2 > 0.f ? bh_rsqrt_fast(r2) : 0.f;
	float mr = sm * rinv, mr3 = mr * rinv * rinv;
	a->ax = fmaf(mr3, dx, a->ax); a->ay = fmaf(mr3, dy, a->ay); a->az = fmaf(mr3, dz, a->az);
	a->pot -= mr;
}

/* Node with centre of mass c and mass m (quadrupole qxx .. qzz) on the particle (x, y, z),
 * regrouped as
 *   phi = -(M/r + w/2),  a = d (M/r + 5/2 w) / r^2 - Q d / r^5,  w = (d.Q.d) / r^5. */
TIDE_HD void bh_m2p_fast(bh_acc *a, float x, float y, float z, float cx, float cy, float cz,
                         float m, float qxx, float qxy, float qxz, float qyy, float qyz, float qzz,
                         float eps2, const int quad)
{
	float dx = cx - x, dy = cy - y, dz = cz - z;
	float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
	float rinv = bh_rsqrt_fast(r2);
	float rinv2 = rinv * rinv;
	float mr = m * rinv;
	if (!quad) {
		float mr3 = mr * rinv2;
		a->ax = fmaf(mr3, dx, a->ax); a->ay = fmaf(mr3, dy, a->ay); a->az = fmaf(mr3, dz, a->az);
		a->pot -= mr;
		return;
	}
	float qx = fmaf(qxx, dx, fmaf(qxy, dy, qxz * dz));
	float qy = fmaf(qxy, dx, fmaf(qyy, dy, qyz * dz));
	float qz = fmaf(qxz, dx, fmaf(qyz, dy, qzz * dz));
	float dqd = fmaf(qx, dx, fmaf(qy, dy, qz * dz));
	float r5 = rinv2 * rinv2 * rinv;
	float w = dqd * r5;
	float g = fmaf(2.5f, w, mr) * rinv2;
	a->ax = fmaf(g, dx, fmaf(-r5, qx, a->ax));
	a->ay = fmaf(g, dy, fmaf(-r5, qy, a->ay));
	a->az = fmaf(g, dz, fmaf(-r5, qz, a->az));
	a->pot -= fmaf(0.5f, w, mr);
}
/* ---- the far field of received sets: local (Taylor) expansions about a walk group's centre ----
 * A received node far from a group (bh_far2) adds its field's Taylor expansion about the group's
 * box centre g to the group's local expansion (bh_m2l), which each particle of the group then
 * evaluates once at its offset x = p - g (bh_l2p), instead of one bh_m2p per particle and node.
 * With f = 1/s, s^2 = |R|^2 + eps^2, R = com - g (the derivatives of the softened kernel have the
 * unsoftened form with s for r), the potential about g is
 *   phi(x) = L0 + L_i x_i + 1/2 L_ij x_i x_j + 1/6 L_ijk x_i x_j x_k,   a(x) = -grad phi:
 *   monopole    L0 = -M f, L_i = M f_i, L_ij = -M f_ij, L_ijk = M f_ijk (acceleration to second
 *               order in x: relative error <= 4 (|x|/|R|)^3 + ...),
 *   quadrupole  phi_Q = -1/6 Q_ab f_ab(R - x): L0, L_i, L_ij (acceleration to first order in x:
 *               relative to the monopole's field it is (b/R)^2 smaller, b the node's size),
 * f_i = -R_i u^3, f_ij = 3 R_i R_j u^5 - d_ij u^3, f_ijk = -15 R_i R_j R_k u^7 + 3 (d_ij R_k +
 * d_ik R_j + d_jk R_i) u^5, and Q_ab f_abij from f_ijkl with Q traceless (u = 1/s).
 * Coefficients: [0] L0, [1..3] L_x L_y L_z, [4..9] L_xx xy xz yy yz zz, [10..19] L_xxx xxy xxz
 * xyy xyz xzz yyy yyz yzz zzz.  test_bh_local checks both against the exact field and the
 * error's order in |x|. */
#define BH_LOCAL_N 20

/* bh_m2l inlined also where the caller's optimization attributes differ (the CPU walk's SIMD
 * clones, codelets/bh_walk.c: GCC does not inline a plain inline function there, and the call
 * keeps its lane loop from vectorizing: 25 ns per node instead of 2.9, CPU time of 8 lanes). */
#ifdef __CUDACC__
#define BH_LOCAL_INLINE TIDE_HD
#else
#define BH_LOCAL_INLINE static inline __attribute__((always_inline))
#endif

/* The node (com at R from the group's centre, mass m, quadrupole q6 = xx xy xz yy yz zz if quad)
 * added into L[k * stride], k < BH_LOCAL_N.  R^2 + eps2 > 0 (an accepted node lies outside the
 * group's box; no guard against 0, which kept GCC from vectorizing the CPU's lane loop); a node
 * with m = 0 and no quadrupole at R = (1, 0, 0) adds zeros (the CPU's padding entries). */
BH_LOCAL_INLINE void bh_m2l(float *L, int stride, float rx, float ry, float rz, float m, float qxx,
                    float qxy, float qxz, float qyy, float qyz, float qzz, float eps2, int quad)
{
	float r2 = rx * rx + ry * ry + rz * rz + eps2;
	float u = 1.f / sqrtf(r2), u2 = u * u;
	float mu = m * u, mu3 = mu * u2, mu5 = mu3 * u2, mu7 = mu5 * u2;
	float l0 = -mu, a1 = -mu3, b2 = -3.f * mu5, c2 = mu3;
	float qx = 0.f, qy = 0.f, qz = 0.f, u5 = 0.f, w7 = 0.f;
	if (quad) {
		qx = qxx * rx + qxy * ry + qxz * rz;
		qy = qxy * rx + qyy * ry + qyz * rz;
		qz = qxz * rx + qyz * ry + qzz * rz;
		float w = qx * rx + qy * ry + qz * rz;         /* R.Q.R */
		u5 = u2 * u2 * u;
		float w5 = w * u5;
		w7 = 5.f * w5 * u2;                             /* 5 w u^7 */
		l0 -= 0.5f * w5;
		a1 -= 0.5f * w7;                                /* -2.5 w u^7 */
		b2 -= 3.5f * w7 * u2;                           /* -17.5 w u^9 */
		c2 += 0.5f * w7;                                /* +2.5 w u^7 */
		w7 = 5.f * u5 * u2;                             /* now 5 u^7, for q_i R_j */
	}
	L[0] += l0;
	L[1 * stride] += a1 * rx + u5 * qx;
	L[2 * stride] += a1 * ry + u5 * qy;
	L[3 * stride] += a1 * rz + u5 * qz;
	/* L_ij = b2 R_i R_j + c2 d_ij + 5 u^7 (q_i R_j + q_j R_i) - u^5 Q_ij */
	L[4 * stride] += b2 * rx * rx + c2 + w7 * 2.f * qx * rx - u5 * qxx;
	L[5 * stride] += b2 * rx * ry + w7 * (qx * ry + qy * rx) - u5 * qxy;
	L[6 * stride] += b2 * rx * rz + w7 * (qx * rz + qz * rx) - u5 * qxz;
	L[7 * stride] += b2 * ry * ry + c2 + w7 * 2.f * qy * ry - u5 * qyy;
	L[8 * stride] += b2 * ry * rz + w7 * (qy * rz + qz * ry) - u5 * qyz;
	L[9 * stride] += b2 * rz * rz + c2 + w7 * 2.f * qz * rz - u5 * qzz;
	/* L_ijk = -15 m u^7 R_i R_j R_k + 3 m u^5 (d_ij R_k + d_ik R_j + d_jk R_i) */
	float t = -15.f * mu7, s3 = 3.f * mu5;
	float tx = t * rx, ty = t * ry, tz = t * rz;
	L[10 * stride] += tx * rx * rx + 3.f * s3 * rx;
	L[11 * stride] += tx * rx * ry + s3 * ry;
	L[12 * stride] += tx * rx * rz + s3 * rz;
	L[13 * stride] += tx * ry * ry + s3 * rx;
	L[14 * stride] += tx * ry * rz;
	L[15 * stride] += tx * rz * rz + s3 * rx;
	L[16 * stride] += ty * ry * ry + 3.f * s3 * ry;
	L[17 * stride] += ty * ry * rz + s3 * rz;
	L[18 * stride] += ty * rz * rz + s3 * ry;
	L[19 * stride] += tz * rz * rz + 3.f * s3 * rz;
}

/* The local expansion L (stride 1) at the offset x from the group's centre: the acceleration
 * -grad phi and the potential, without G. */
TIDE_HD bh_acc bh_l2p(const float *L, float x, float y, float z)
{
	/* g2 = L_ij x_j, g3 = L_ijk x_j x_k */
	float g2x = L[4] * x + L[5] * y + L[6] * z;
	float g2y = L[5] * x + L[7] * y + L[8] * z;
	float g2z = L[6] * x + L[8] * y + L[9] * z;
	float xx = x * x, yy = y * y, zz = z * z, xy2 = 2.f * x * y, xz2 = 2.f * x * z, yz2 = 2.f * y * z;
	float g3x = L[10] * xx + L[13] * yy + L[15] * zz + L[11] * xy2 + L[12] * xz2 + L[14] * yz2;
	float g3y = L[11] * xx + L[16] * yy + L[18] * zz + L[13] * xy2 + L[14] * xz2 + L[17] * yz2;
	float g3z = L[12] * xx + L[17] * yy + L[19] * zz + L[14] * xy2 + L[15] * xz2 + L[18] * yz2;
	bh_acc a;
	a.ax = -(L[1] + g2x + 0.5f * g3x);
	a.ay = -(L[2] + g2y + 0.5f * g3y);
	a.az = -(L[3] + g2z + 0.5f * g3z);
	a.pot = L[0] + L[1] * x + L[2] * y + L[3] * z +
	        0.5f * (g2x * x + g2y * y + g2z * z) + (g3x * x + g3y * y + g3z * z) / 6.f;
	return a;
}

/* The far criterion of a group (box b, its targets' softenings in [elo, ehi]) for the local
 * expansion of the accepted received nodes, as a squared distance: a node goes into the expansion
 * when |com - centre|^2 >= bh_far2 (> 0; theta_l = 0: never; the walks take theta_l =
 * far theta, far the codelets' argument: bh_walk_sets.h).  It asks
 *   (half diagonal of b) / |R| <= theta_l   (the expansion's truncation: 4 theta_l^3 at most
 *                                            on the acceleration, less on average),
 *   (ehi^2 - elo^2) / |R|^2 <= theta_l^3    (the expansion uses the group's mean softening,
 *                                            0.5 (elo^2 + ehi^2); one softening for all (not
 *                                            soft_h): always true).
 * Float overflow of the division (theta_l tiny) gives infinity: never far. */
TIDE_HD float bh_far2(const bh_box *b, float elo, float ehi, float theta_l)
{
	if (!(theta_l > 0.f)) return INFINITY;
	float t2 = theta_l * theta_l;
	float r2 = (b->hx * b->hx + b->hy * b->hy + b->hz * b->hz) / t2;
	float e2 = (ehi * ehi - elo * elo) / (t2 * theta_l);
	return r2 > e2 ? r2 : e2;
}

#endif
