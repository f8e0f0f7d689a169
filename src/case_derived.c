// SPDX-License-Identifier: LGPL-2.1-or-later
// Quantities derived from a case's parameters, in one place so every user agrees on them.
#include <math.h>
#include "tide/case.h"

double tide_case_h(const tide_case *c) { return c->coefh * c->dp; }

double tide_case_mass(const tide_case *c) { return c->rho0 * pow(c->dp, c->dim); }

double tide_case_tait_b(const tide_case *c) { return c->c0 * c->c0 * c->rho0 / c->gamma; }

double tide_case_pressure(const tide_case *c, double rho)
{
	if (c->eos == TIDE_EOS_ISOTHERMAL) return c->cs_iso * c->cs_iso * (rho - c->rho0);
	return tide_case_tait_b(c) * (pow(rho / c->rho0, c->gamma) - 1.0);
}

double tide_case_density(const tide_case *c, double p)
{
	if (c->eos == TIDE_EOS_ISOTHERMAL) return c->rho0 + p / (c->cs_iso * c->cs_iso);
	return c->rho0 * pow(1.0 + p / tide_case_tait_b(c), 1.0 / c->gamma);
}

double tide_case_softening(const tide_case *c)
{
	return c->self_gravity.softening > 0 ? c->self_gravity.softening : c->dp;
}

double tide_case_gauge_every(const tide_case *c)
{
	return c->gauge_every > 0 ? c->gauge_every : c->t_out;
}

int tide_case_height_mode(const tide_case *c, int k)
{
	return c->height[k].mode >= 0 ? c->height[k].mode : c->gauge_mode;
}
