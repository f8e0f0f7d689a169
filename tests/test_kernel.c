// SPDX-License-Identifier: LGPL-2.1-or-later
// The SPH kernels of sph_kernel.h (cubic spline and Wendland C2, 2-D and 3-D), checked against
// their defining properties rather than against a second copy of the formulas:
//  - normalisation: the integral of W = alpha * w(r/h) over the support (radial quadrature,
//    composite Gauss-Legendre on pieces split at q = 1, where the cubic spline changes formula)
//    is 1 within 1e-4, for several h;
//  - gradient: F * r with F = (alpha/h^2) f(q) equals dW/dr from central differences of W within
//    1e-3 relative, at q on a fine grid of (0, 2) and at random q;
//  - support: W and F are 0 at q >= 2 and W tends to 0 as q -> 2 from below;
//  - continuity of the cubic spline's two pieces (W and F) at q = 1;
//  - signs: W > 0 and F < 0 inside the support (F < 0 is what makes pressure repulsive).
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "tide/sph_kernel.h"

static int failures;
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static const char *kname(int k) { return k == TIDE_KERNEL_CUBIC ? "cubic" : "wendland"; }

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double urand(void)
{
	rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* W(r) for the kernel, dimension and h, through the shipped functions. */
static double W(int k, int dim, double h, double r)
{
	return tide_kernel_alpha(k, dim, h) * (double)tide_kernel_w(k, (float)(r / h));
}

/* Integral over the plane (2-D) or space (3-D) of W: int_0^2h W(r) * (2 pi r | 4 pi r^2) dr. */
static double integral(int k, int dim, double h)
{
	/* 5-point Gauss-Legendre nodes/weights on [-1, 1] */
	static const double xg[5] = {0.0, -0.5384693101056831, 0.5384693101056831,
	                             -0.9061798459386640, 0.9061798459386640};
	static const double wg[5] = {0.5688888888888889, 0.4786286704993665, 0.4786286704993665,
	                             0.2369268850561891, 0.2369268850561891};
	const int nsub = 4000;   /* per unit of q: [0,1] and [1,2] each split into nsub pieces */
	double sum = 0.0;
	for (int piece = 0; piece < 2; piece++) {
		for (int s = 0; s < nsub; s++) {
			double a = h * (piece + (double)s / nsub), b = h * (piece + (double)(s + 1) / nsub);
			double mid = 0.5 * (a + b), half = 0.5 * (b - a);
			for (int g = 0; g < 5; g++) {
				double r = mid + half * xg[g];
				double shell = dim == 2 ? 2.0 * TIDE_PI * r : 4.0 * TIDE_PI * r * r;
				sum += wg[g] * half * W(k, dim, h, r) * shell;
			}
		}
	}
	return sum;
}

/* Compares F*r with the central difference of W at q (h = 1 scaled by alpha; dim only changes
 * alpha, which the relation is linear in, but both are checked). Returns the relative error. */
static double grad_error(int k, int dim, double h, double q, double *fr_out, double *num_out)
{
	double r = q * h;
	double F = tide_kernel_alpha(k, dim, h) / (h * h) * (double)tide_kernel_f(k, (float)q);
	double fr = F * r;
	/* The step e (in q): W is evaluated in single precision (rounding ~6e-8 of W), so e must
	 * be large enough that the rounding over 2e stays well below 1e-3 of dW/dr, and small
	 * enough that the truncation error e^2/6 W''' does too.  e = 2e-3 does both for q >= 0.05
	 * (cubic: W''' = 4.5 alpha/h^3 gives 3e-6 alpha/h; rounding 3e-5 alpha/h; |dW/dr| >=
	 * 0.15 alpha/h there).  Near q = 2, dW/dr ~ (2-q)^2 (cubic) or (2-q)^3 (Wendland)
	 * vanishes, so the step shrinks with the distance to the edge: e = 0.01 (2-q) keeps the
	 * truncation error ~1e-4 relative, and the rounding, relative to W ~ (2-q)^3 there, far
	 * smaller.  The evaluation points are rounded to floats and their actual distance used. */
	double e = fmin(2e-3, 0.01 * (2.0 - q));
	float qp = (float)(q + e), qm = (float)(q - e);
	double num = (W(k, dim, h, (double)qp * h) - W(k, dim, h, (double)qm * h)) /
	             (((double)qp - (double)qm) * h);
	*fr_out = fr;
	*num_out = num;
	return fabs(fr - num) / fabs(num);
}

int main(int argc, char **argv)
{
	(void)argc; (void)argv;
	const double hs[] = {1.0, 0.02, 0.0035};
	for (int k = 0; k < 2; k++) {
		for (int dim = 2; dim <= 3; dim++) {
			/* normalisation */
			for (size_t ih = 0; ih < sizeof hs / sizeof *hs; ih++) {
				double I = integral(k, dim, hs[ih]);
				EXPECT(fabs(I - 1.0) < 1e-4, "%s %dD h = %g: integral of W = %.9f, differs "
				       "from 1 by %.3g (limit 1e-4)", kname(k), dim, hs[ih], I, I - 1.0);
				if (ih == 0) printf("%-8s %dD: integral of W = %.9f\n", kname(k), dim, I);
			}
			/* gradient */
			double h = 0.013, worst = 0, wq = 0, wfr = 0, wnum = 0;
			int n = 0;
			for (int s = 0; s <= 1930; s++) {
				double q = 0.05 + 0.001 * s;   /* 0.05 .. 1.98, includes q = 1 */
				double fr, num, e = grad_error(k, dim, h, q, &fr, &num);
				n++;
				if (e > worst) { worst = e; wq = q; wfr = fr; wnum = num; }
			}
			for (int s = 0; s < 2000; s++) {
				double q = 0.05 + 1.93 * urand();
				double fr, num, e = grad_error(k, dim, h, q, &fr, &num);
				n++;
				if (e > worst) { worst = e; wq = q; wfr = fr; wnum = num; }
			}
			EXPECT(worst < 1e-3, "%s %dD: F*r differs from the numerical dW/dr by %.3g "
			       "relative at q = %.4f (F*r = %.9g, dW/dr = %.9g; limit 1e-3)", kname(k), dim,
			       worst, wq, wfr, wnum);
			printf("%-8s %dD: gradient, worst relative error %.3g over %d q (at q = %.4f)\n",
			       kname(k), dim, worst, n, wq);
		}

		/* support */
		const float out[] = {2.f, nextafterf(2.f, 3.f), 2.5f, 3.f, 100.f};
		for (size_t i = 0; i < sizeof out / sizeof *out; i++) {
			float w = tide_kernel_w(k, out[i]), f = tide_kernel_f(k, out[i]);
			EXPECT(w == 0.f && f == 0.f, "%s: at q = %.9g, w = %g and f = %g, expected 0 "
			       "outside the support", kname(k), out[i], w, f);
		}
		float wedge = tide_kernel_w(k, nextafterf(2.f, 0.f));
		EXPECT(wedge >= 0.f && wedge < 1e-12f, "%s: w just below q = 2 is %g, expected -> 0 "
		       "(W continuous at the edge of the support)", kname(k), wedge);
		float fedge = tide_kernel_f(k, nextafterf(2.f, 0.f));
		EXPECT(fabsf(fedge) < 1e-6f, "%s: f just below q = 2 is %g, expected -> 0", kname(k),
		       fedge);

		/* signs inside the support */
		int badsign = 0;
		float qbad = 0.f;
		for (int s = 1; s < 2000; s++) {
			float q = 0.001f * s;
			if (!(tide_kernel_w(k, q) > 0.f) || !(tide_kernel_f(k, q) < 0.f)) { badsign++; qbad = q; }
		}
		EXPECT(!badsign, "%s: %d q in (0, 2) with w <= 0 or f >= 0 (e.g. q = %g: w = %g, "
		       "f = %g)", kname(k), badsign, qbad, tide_kernel_w(k, qbad), tide_kernel_f(k, qbad));
		/* w(0) = 1 for both (the normalisation lives in alpha) and its maximum */
		EXPECT(tide_kernel_w(k, 0.f) == 1.f, "%s: w(0) = %g, expected 1", kname(k),
		       tide_kernel_w(k, 0.f));
	}

	/* cubic spline: its two pieces meet at q = 1 (value 1/4, F piece -3/4) */
	float below = nextafterf(1.f, 0.f), above = nextafterf(1.f, 2.f);
	float wb = tide_kernel_w(TIDE_KERNEL_CUBIC, below), wa = tide_kernel_w(TIDE_KERNEL_CUBIC, above);
	float w1 = tide_kernel_w(TIDE_KERNEL_CUBIC, 1.f);
	EXPECT(fabsf(wb - 0.25f) < 1e-6f && fabsf(wa - 0.25f) < 1e-6f && fabsf(w1 - 0.25f) < 1e-6f,
	       "cubic: w is discontinuous at q = 1: w(1-) = %.9g, w(1) = %.9g, w(1+) = %.9g "
	       "(expected 0.25)", wb, w1, wa);
	float fb = tide_kernel_f(TIDE_KERNEL_CUBIC, below), fa = tide_kernel_f(TIDE_KERNEL_CUBIC, above);
	EXPECT(fabsf(fb - fa) < 1e-5f && fabsf(fb + 0.75f) < 1e-5f,
	       "cubic: f is discontinuous at q = 1: f(1-) = %.9g, f(1+) = %.9g (expected -0.75)",
	       fb, fa);
	printf("cubic at q = 1: w(1-) = %.9g, w(1+) = %.9g, f(1-) = %.9g, f(1+) = %.9g\n", wb, wa,
	       fb, fa);

	if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
	printf("kernel: all checks pass\n");
	return 0;
}
