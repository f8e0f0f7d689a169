/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SPH smoothing kernels with compact support 2h, shared by C and CUDA.
 * W(r) = alpha * w(q), q = r/h.  grad_i W = r_ij * F(r) with F = dW/dr / r, so the force loops
 * never take a square root they do not need. */
#ifndef TIDE_SPH_KERNEL_H
#define TIDE_SPH_KERNEL_H
#include "tide/hd.h"

enum tide_kernel { TIDE_KERNEL_CUBIC = 0, TIDE_KERNEL_WENDLAND = 1 };

#define TIDE_PI 3.14159265358979323846

/* Normalisation constant alpha_D for a dimension (2 or 3) and h. */
TIDE_HD double tide_kernel_alpha(int kernel, int dim, double h)
{
	if (kernel == TIDE_KERNEL_CUBIC)
		return dim == 2 ? 10.0 / (7.0 * TIDE_PI * h * h) : 1.0 / (TIDE_PI * h * h * h);
	return dim == 2 ? 7.0 / (4.0 * TIDE_PI * h * h) : 21.0 / (16.0 * TIDE_PI * h * h * h);
}

/* W(q)/alpha for q = r/h, 0 outside q >= 2. */
TIDE_HD float tide_kernel_w(int kernel, float q)
{
	if (q >= 2.f) return 0.f;
	if (kernel == TIDE_KERNEL_CUBIC) {
		if (q < 1.f) return 1.f - 1.5f * q * q + 0.75f * q * q * q;
		float t = 2.f - q;
		return 0.25f * t * t * t;
	}
	float t = 1.f - 0.5f * q;
	float t2 = t * t;
	return t2 * t2 * (2.f * q + 1.f);
}

/* The kernel derivative (dW/dr)/r divided by alpha, times h^2, as a function of q = r/h
 * (0 < q < 2), written once for every form of the pair interaction: float here (host and
 * device), GCC vectors of floats in the CPU's SIMD form (sph_pair.h).  The cubic spline's two
 * branches are separate functions, the outer one times q, so that each form divides and selects
 * its own way:
 *   cubic, q < 1:      -3 + 9/4 q                  ((-3q + 9/4 q^2) / q)
 *   cubic, 1 <= q < 2: -3/4 (2 - q)^2 / q
 *   Wendland C2:       -5 (1 - q/2)^3              (d/dq = -5 q (1 - q/2)^3) */
#define TIDE_KERNEL_F_FORMS_(QUAL, T, S)                                                        \
	QUAL T tide_kf_cubic_in_##S(T q) { return -3.f + 2.25f * q; }                          \
	QUAL T tide_kf_cubic_out_q_##S(T q)                                                     \
	{                                                                                       \
		T t = 2.f - q;                                                                  \
		return -0.75f * t * t;                                                          \
	}                                                                                       \
	QUAL T tide_kf_wendland_##S(T q)                                                        \
	{                                                                                       \
		T t = 1.f - 0.5f * q;                                                           \
		return -5.f * t * t * t;                                                        \
	}
#define TIDE_KERNEL_F_FORMS(QUAL, T, S) TIDE_KERNEL_F_FORMS_(QUAL, T, S)
TIDE_KERNEL_F_FORMS(TIDE_HD, float, f)

/* w''(q) = d^2 (W/alpha) / dq^2, 0 for q >= 2 (the gas scheme's h iteration, gas_math.h):
 *   cubic, q < 1: -3 + 9/2 q;  1 <= q < 2: 3/2 (2 - q);  Wendland C2: 5 (1 - q/2)^2 (2q - 1) */
TIDE_HD float tide_kernel_d2w(int kernel, float q)
{
	if (q >= 2.f) return 0.f;
	if (kernel == TIDE_KERNEL_CUBIC) return q < 1.f ? -3.f + 4.5f * q : 1.5f * (2.f - q);
	float t = 1.f - 0.5f * q;
	return 5.f * t * t * (2.f * q - 1.f);
}

#ifdef __CUDA_ARCH__
/* 1/x on the GPU: the reciprocal instruction alone, flushing subnormals (rcp.approx.ftz, 1 ulp).
 * The pair physics divides by quantities far from the subnormal range (h, q > 1, r^2 + eta^2,
 * densities); __fdividef, without -ftz, wrapped each reciprocal in four instructions of
 * subnormal scaling, about a sixth of the pair loop. */
__device__ __forceinline__ float tide_rcp_ftz(float x)
{
	float r;
	asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
	return r;
}
#endif

/* F(r)*h^2/alpha as a function of q (q > 0), 0 for q >= 2.  The caller multiplies by
 * alpha/h^2 (precomputed) to get F so that grad_i W = F * (r_i - r_j). */
TIDE_HD float tide_kernel_f(int kernel, float q)
{
	if (q >= 2.f) return 0.f;
	if (kernel == TIDE_KERNEL_CUBIC) {
#ifdef __CUDA_ARCH__
		/* both branches and a select: lanes of a warp fall on both sides of q = 1; fast
		 * division on the GPU (see tide_fdiv) */
		float outer = tide_kf_cubic_out_q_f(q) * tide_rcp_ftz(q), inner = tide_kf_cubic_in_f(q);
		return q < 1.f ? inner : outer;
#else
		if (q < 1.f) return tide_kf_cubic_in_f(q);
		return tide_kf_cubic_out_q_f(q) / q;
#endif
	}
	return tide_kf_wendland_f(q);
}

#endif
