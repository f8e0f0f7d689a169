// SPDX-License-Identifier: LGPL-2.1-or-later
// The synthetic fluid box of tide run --synthetic (src/synthetic.h): the weak- and strong-scaling
// runs of the simulation build need blocks of millions of particles per rank that no machine could
// build for a thousand simulated ranks; a uniform box has counts a formula gives (tasks/
// sph_lattice.c) and is made for real, small, to calibrate and check them (src/host_blocks.c).
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "synthetic.h"

int tide_synthetic_case(tide_case *c, double per_rank, int nranks, tide_lattice *L)
{
	if (c->scheme == TIDE_SCHEME_GAS) {
		fprintf(stderr, "tide run: --synthetic makes a box of weakly compressible fluid; %s uses "
		        "physics.scheme: gas, which it does not model.\n", c->path);
		return -1;
	}
	double total = per_rank * (nranks > 0 ? nranks : 1);
	memset(L, 0, sizeof *L);
	L->dim = c->dim;
	L->dp = c->dp;
	/* the lines of the box: equal but for the first axis, which rounds the total */
	double m = floor(c->dim == 3 ? cbrt(total) : sqrt(total));
	if (m < 1) m = 1;
	double first = fmax(1.0, round(total / (c->dim == 3 ? m * m : m)));
	if (first > 4e9 || m > 4e9) {
		fprintf(stderr, "tide run: --synthetic %g on %d ranks needs a line of %.3g particles, more "
		        "than 2^32.\n", per_rank, nranks, fmax(first, m));
		return -1;
	}
	L->n[0] = (uint32_t)first;
	L->n[1] = c->dim == 3 ? (uint32_t)m : 1;
	L->n[2] = (uint32_t)m;
	for (int d = 0; d < 3; d++) {
		L->lo[d] = c->domain.lo[d];
		if (c->dim == 3 || d != 1) c->domain.hi[d] = c->domain.lo[d] + L->n[d] * c->dp;
		c->gravity[d] = 0;
	}
	c->periodic = 0;
	c->motion.nbody = 0;
	c->nfloating = 0;
	c->self_gravity.on = 0;
	c->nheight = c->npressure = c->nvelocity = 0;
	c->gauge_forces = c->surge_front = 0;
	return 0;
}

void tide_synthetic_step(const tide_case *c, size_t count, tide_step_reduce *r)
{
	tide_step_reduce_init(r);
	r->dt = (float)(c->cfl * tide_case_h(c) / c->c0);
	r->vmax = 0.f;
	r->rho_min = r->rho_max = (float)c->rho0;
	r->fill = 0.f;
	r->nbad = 0;
	r->count = (uint32_t)count;
	r->hmax = (float)tide_case_h(c);
}

int tide_synthetic_reduce(void *arg, long step, tide_step_reduce *r)
{
	(void)step;
	*r = *(const tide_step_reduce *)arg;
	return 0;
}
