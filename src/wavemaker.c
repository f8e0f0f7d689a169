// SPDX-License-Identifier: LGPL-2.1-or-later
// Linear wave-maker theory: dispersion relation and Biesel transfer functions (wavemaker.h).
#include <math.h>
#include <stdint.h>
#include "wavemaker.h"

double tide_wave_number(double T, double d, double g)
{
	double w = 2.0 * M_PI / T, y = w * w * d / g; /* y = kd tanh kd */
	/* start from the deep- or shallow-water limit, whichever is closer; Newton converges
	 * monotonically from above for this convex function */
	double x = y > 1.0 ? y : sqrt(y);
	if (x < y) x = y;           /* x tanh x = y has x >= y: start above the root */
	for (int it = 0; it < 100; it++) {
		double th = tanh(x), f = x * th - y, df = th + x * (1.0 - th * th);
		double dx = f / df;
		x -= dx;
		if (fabs(dx) <= 1e-15 * x) break;
	}
	return x / d;
}

double tide_piston_transfer(double kd)
{
	return 2.0 * (cosh(2.0 * kd) - 1.0) / (sinh(2.0 * kd) + 2.0 * kd);
}

double tide_flap_transfer(double kd, double l_over_d)
{
	/* k int_{s0}^{d} (s - l)/(d - l) cosh(k s) ds, s the height above the bottom, s0 = max(l, 0) */
	double kl = kd * l_over_d, kdl = kd - kl, ks0 = kl > 0.0 ? kl : 0.0;
	double I = (kdl * sinh(kd) - (ks0 - kl) * sinh(ks0) - (cosh(kd) - cosh(ks0))) / kdl;
	return 4.0 * sinh(kd) * I / (sinh(2.0 * kd) + 2.0 * kd);
}

/* splitmix64 (Steele, Lea & Flood 2014): a portable sequence from one seed */
static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void tide_jonswap(double Hs, double Tp, double gamma, int n, unsigned long long seed, double *a,
                  double *f, double *phi)
{
	double fp = 1.0 / Tp, df = 2.5 * fp / n, m0 = 0.0;
	uint64_t st = seed;
	for (int i = 0; i < n; i++) {
		f[i] = fp * 0.5 + (i + 0.5) * df;
		double sg = f[i] <= fp ? 0.07 : 0.09, q = (f[i] - fp) / (sg * fp);
		double S = pow(f[i], -5.0) * exp(-1.25 * pow(fp / f[i], 4.0)) * pow(gamma, exp(-0.5 * q * q));
		a[i] = S * df;   /* S df for now */
		m0 += a[i];
		phi[i] = 2.0 * M_PI * (double)(splitmix64(&st) >> 11) * 0x1.0p-53;
	}
	for (int i = 0; i < n; i++) a[i] = sqrt(2.0 * a[i] * (Hs * Hs / 16.0) / m0);
}
