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
#include "gas_ic.h"
#include "tide/sph_sim.h"

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

/* Two regions of different h, at rest at equal pressure (ideal gas, gamma 5/3): a slab x in
 * [-12 a, 12 a], y and z in [-3 a, 3 a], of density 8 for x < 0 (lattice spacing a / 2, h
 * about 0.6 a) and 1 for x > 0 (spacing a, h about 1.2 a), particle mass a^3, cells of side
 * 0.4 a (h_cell 0.2 a), h_max 1.5 a, slabs along x; the aux fields set and the particles in a
 * new host block (*mem, *all).  The gas halos per block (include/tide/gas_halo.h) narrow
 * between the dense slabs.  0 or -1. */
static inline int test_gas_two_regions(tide_case *c, double a, void **mem, tide_block_view *all)
{
	const double m = a * a * a, gam = 5.0 / 3.0, eta = 1.2, L = 12 * a, W = 3 * a;
	test_gas_case(c, "gas_two_regions", a, 1.5 * a, 1.0);
	c->gas.eos = TIDE_GAS_IDEAL;
	c->gas.gamma = gam;
	c->gas.eta = eta;
	c->gas.h_cell = 0.2 * a;
	for (int d = 0; d < 3; d++) {
		c->domain.lo[d] = -(d ? W : L) - 2 * a;
		c->domain.hi[d] = (d ? W : L) + 2 * a;
	}
	tide_sim_set_aux(c);
	tide_gas_tube t = {.axis = 0, .lo = {-L, -W, -W}, .hi = {L, W, W}, .x0 = 0,
	                   .rho = {8, 1}, .p = {1, 1}, .vel = {0, 0}, .m = m, .gamma = gam,
	                   .eta = eta};
	if (tide_gas_ic_alloc(tide_gas_ic_shock_tube(&t, NULL), 0, mem, all)) return -1;
	tide_gas_ic_shock_tube(&t, all);
	return 0;
}

#endif
