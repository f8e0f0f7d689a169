/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The case the gas scheme's tests make in code (tests/test_gas*.c): a 3-D gas case in code
 * units with the gas section's defaults, particle mass rho0 dp^3 = dp^3, cubic kernel, slabs,
 * the domain the cube [-half, half]^3 (grown by 0.01 along x, so that slabs cut x); the test
 * then sets what its problem needs. */
#ifndef TIDE_TEST_GAS_CASE_H
#define TIDE_TEST_GAS_CASE_H
#include <stdio.h>
#include <string.h>
#include "tide/case.h"
#include "case_load.h"

static inline void test_gas_case(tide_case *c, const char *name, double dp, double h_max,
                                 double half)
{
	memset(c, 0, sizeof *c);
	tide_case_gas_defaults(c);
	snprintf(c->name, sizeof c->name, "%s", name);
	snprintf(c->path, sizeof c->path, "(test)");
	c->dim = 3;
	c->dp = dp;
	c->rho0 = 1.0;
	c->coefh = 1.2;
	c->kernel = TIDE_KERNEL_CUBIC;
	c->scheme = TIDE_SCHEME_GAS;
	c->units = TIDE_UNITS_CODE;
	c->gas.h_max = h_max;
	c->cfl = 0.3;
	c->gamma = 7;            /* the water scheme's keys, unused: their defaults */
	c->c0 = 1;
	c->verlet_steps = 40;
	strcpy(c->decomp, "slabs");
	for (int d = 0; d < 3; d++) {
		c->domain.lo[d] = -half;
		c->domain.hi[d] = half;
	}
	c->domain.hi[0] += 0.01;
	c->t_end = c->t_out = 1;
}

/* Self-gravity in code units (G = 1): Barnes-Hut with theta 0.5, quadrupoles, Plummer
 * softening eps. */
static inline void test_gas_self_gravity(tide_case *c, double eps)
{
	c->self_gravity.on = 1;
	c->self_gravity.G = 1.0;
	c->self_gravity.theta = 0.5;
	c->self_gravity.softening = eps;
	c->self_gravity.quadrupole = 1;
}

#endif
