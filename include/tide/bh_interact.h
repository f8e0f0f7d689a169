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
#endif
