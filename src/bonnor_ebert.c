// SPDX-License-Identifier: LGPL-2.1-or-later
// The Bonnor-Ebert profile generator (case key bonnor_ebert; the maths in bonnor_ebert.h).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "bonnor_ebert.h"
#include "log.h"

/* y = (psi, psi'); the equation's right-hand side. */
static void rhs(double xi, const double y[2], double d[2])
{
	d[0] = y[1];
	d[1] = exp(-y[0]) - 2.0 * y[1] / xi;
}

void tide_be_solve(double xi, double *psi, double *mu)
{
	/* from the centre's series psi = xi^2 / 6 - xi^4 / 120 (the equation is singular at 0) */
	double x = fmin(1e-3, xi), y[2] = {x * x / 6 - x * x * x * x / 120, x / 3 - x * x * x / 30};
	int n = (int)ceil((xi - x) / 1e-3);
	double h = n > 0 ? (xi - x) / n : 0;
	for (int k = 0; k < n; k++) {
		double k1[2], k2[2], k3[2], k4[2], t[2];
		rhs(x, y, k1);
		for (int j = 0; j < 2; j++) t[j] = y[j] + 0.5 * h * k1[j];
		rhs(x + 0.5 * h, t, k2);
		for (int j = 0; j < 2; j++) t[j] = y[j] + 0.5 * h * k2[j];
		rhs(x + 0.5 * h, t, k3);
		for (int j = 0; j < 2; j++) t[j] = y[j] + h * k3[j];
		rhs(x + h, t, k4);
		for (int j = 0; j < 2; j++) y[j] += h / 6 * (k1[j] + 2 * k2[j] + 2 * k3[j] + k4[j]);
		x += h;
	}
	*psi = y[0];
	*mu = xi * xi * y[1];
}

#define NTAB 4096

int tide_bonnor_ebert_apply(const tide_case *c, tide_block_view *v, size_t n)
{
	if (c->nsphere < 1) {
		fprintf(stderr, "tide: %s: key 'bonnor_ebert' shapes the first of 'fluid_spheres', and "
		        "the case has none; allowed: a case with fluid_spheres.\n", c->path);
		return -1;
	}
	const tide_sphere *S = &c->sphere[0];
	double xm = c->bonnor_ebert.xi_max, R = S->r;
	/* the table mu(xi) / mu(xi_max), psi on NTAB + 1 points, by one integration */
	double *xi = malloc(sizeof(double) * 3 * (NTAB + 1)), *f = xi + NTAB + 1, *ps = f + NTAB + 1;
	if (!xi) return -1;
	for (int k = 0; k <= NTAB; k++) {
		xi[k] = xm * k / NTAB;
		if (k == 0) { f[k] = ps[k] = 0; continue; }
		tide_be_solve(xi[k], &ps[k], &f[k]);
	}
	double mu_max = f[NTAB], rho_c = c->rho0 * xm * xm * xm / (3 * mu_max);
	for (int k = 0; k <= NTAB; k++) f[k] /= mu_max;
	for (size_t i = 0; i < n; i++) {
		double d[3] = {v->x[i] - S->c[0], v->y[i] - S->c[1], v->z[i] - S->c[2]};
		double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
		if (v->type[i] != TIDE_FLUID || !(r < R * (1 + 1e-9)) || r == 0) continue;
		double q = r / R, want = q * q * q;
		int lo = 0, hi = NTAB;
		while (hi - lo > 1) {
			int mid = (lo + hi) / 2;
			if (f[mid] < want) lo = mid; else hi = mid;
		}
		double w = f[hi] > f[lo] ? (want - f[lo]) / (f[hi] - f[lo]) : 0;
		double x = xi[lo] + w * (xi[hi] - xi[lo]), p = ps[lo] + w * (ps[hi] - ps[lo]);
		double s = (R * x / xm) / r;
		v->x[i] = S->c[0] + s * d[0];
		v->y[i] = S->c[1] + s * d[1];
		v->z[i] = S->c[2] + s * d[2];
		v->rho[i] = (float)(rho_c * exp(-p));
	}
	double a = R / xm, cs = a * sqrt(4 * M_PI * c->self_gravity.G * rho_c);
	tide_info("bonnor_ebert: xi_max %g, rho_c = %.4g = %.4g rho_edge, the equilibrium sound "
	          "speed %.4g (gas.cs %.4g)\n", xm, rho_c, exp(ps[NTAB]), cs, c->gas.cs);
	free(xi);
	return 0;
}
