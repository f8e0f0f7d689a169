/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The exact solution of the Riemann problem of an ideal gas (Toro, "Riemann Solvers and
 * Numerical Methods for Fluid Dynamics", ch. 4: the pressure function's root by bisection, then
 * sampling), written independently of the SPH code, for the shock-tube tests
 * (tests/test_gas_sod.c, tests/test_gas_gen.c). */
#ifndef TIDE_TEST_RIEMANN_EXACT_H
#define TIDE_TEST_RIEMANN_EXACT_H
#include <math.h>

typedef struct state { double rho, u, p; } state;

static double sound(const state *s, double g) { return sqrt(g * s->p / s->rho); }

/* Toro's f_K(p): the velocity change across the left or right wave for a star pressure p. */
static double fk(double p, const state *s, double g)
{
	if (p > s->p) {
		double A = 2.0 / ((g + 1) * s->rho), B = (g - 1) / (g + 1) * s->p;
		return (p - s->p) * sqrt(A / (p + B));
	}
	return 2.0 * sound(s, g) / (g - 1) * (pow(p / s->p, (g - 1) / (2 * g)) - 1);
}

static void star(const state *L, const state *R, double g, double *ps, double *us)
{
	double lo = 1e-12, hi = 100 * (L->p > R->p ? L->p : R->p);
	for (int it = 0; it < 200; it++) { /* f is increasing in p */
		double m = 0.5 * (lo + hi);
		if (fk(m, L, g) + fk(m, R, g) + (R->u - L->u) > 0) hi = m;
		else lo = m;
	}
	*ps = 0.5 * (lo + hi);
	*us = 0.5 * (L->u + R->u) + 0.5 * (fk(*ps, R, g) - fk(*ps, L, g));
}

/* The solution at x / t = S (the interface at x = 0). */
static state sample(const state *L, const state *R, double g, double ps, double us, double S)
{
	double g6 = (g - 1) / (g + 1), e = (g - 1) / (2 * g);
	if (S <= us) {
		double c = sound(L, g), pr = ps / L->p;
		if (ps > L->p) {
			double SL = L->u - c * sqrt((g + 1) / (2 * g) * pr + e);
			if (S <= SL) return *L;
			return (state){L->rho * (pr + g6) / (g6 * pr + 1), us, ps};
		}
		double cs = c * pow(pr, e);
		if (S <= L->u - c) return *L;
		if (S > us - cs) return (state){L->rho * pow(pr, 1 / g), us, ps};
		double u = 2 / (g + 1) * (c + (g - 1) / 2 * L->u + S);
		double cf = 2 / (g + 1) * (c + (g - 1) / 2 * (L->u - S));
		return (state){L->rho * pow(cf / c, 2 / (g - 1)), u, L->p * pow(cf / c, 2 * g / (g - 1))};
	}
	double c = sound(R, g), pr = ps / R->p;
	if (ps > R->p) {
		double SR = R->u + c * sqrt((g + 1) / (2 * g) * pr + e);
		if (S >= SR) return *R;
		return (state){R->rho * (pr + g6) / (g6 * pr + 1), us, ps};
	}
	double cs = c * pow(pr, e);
	if (S >= R->u + c) return *R;
	if (S <= us + cs) return (state){R->rho * pow(pr, 1 / g), us, ps};
	double u = 2 / (g + 1) * (-c + (g - 1) / 2 * R->u + S);
	double cf = 2 / (g + 1) * (c - (g - 1) / 2 * (R->u - S));
	return (state){R->rho * pow(cf / c, 2 / (g - 1)), u, R->p * pow(cf / c, 2 * g / (g - 1))};
}

#endif
