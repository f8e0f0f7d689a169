// SPDX-License-Identifier: LGPL-2.1-or-later
// A gas case's generated initial conditions (gas_generator.h): the case's keys in the structs of
// src/gas_ic.c, whose functions hold the formulas (the tests call the same ones).
#include <math.h>
#include "gas_generator.h"
#include "gas_ic.h"
#include "glass.h"

int tide_gen_glass(const tide_case *c, tide_glass *g, char *why, size_t nwhy)
{
	g->n = 0;
	g->p = NULL;
	if (c->generator.positions != TIDE_GEN_GLASS) return 0;
	char def[1200];
	tide_glass_default_path(def, sizeof def);
	return tide_glass_read(*c->generator.glass ? c->generator.glass : def, g, why, nwhy);
}

/* The case's glass, or NULL (lattices; or an unreadable glass, refused when the case was read). */
static const tide_glass *glass_of(const tide_case *c, tide_glass *g)
{
	char why[1200];
	return !tide_gen_glass(c, g, why, sizeof why) && g->p ? g : NULL;
}

/* Lattice points across the spheres' diameter: spacing dp before any stretching. */
static int sphere_points(const tide_case *c)
{
	int n = (int)lround(2 * c->generator.R / c->dp);
	return n > 0 ? n : 1;
}

static tide_gas_sphere sphere_of(const tide_case *c, const tide_glass *gl)
{
	const tide_generator *g = &c->generator;
	tide_gas_sphere s = {.evrard = g->type == TIDE_GEN_EVRARD, .n = sphere_points(c), .R = g->R,
	                     .M = g->M, .u = g->u, .eta = c->gas.eta, .glass = gl};
	for (int d = 0; d < 3; d++) s.centre[d] = g->centre[d];
	if (g->type == TIDE_GEN_TOP_HAT) {
		s.M = g->rho_in * 4.0 / 3.0 * M_PI * g->R * g->R * g->R;
		s.half = g->half;
		s.rho_out = g->rho_out;
		/* pressure equilibrium of the ideal gas: (gamma - 1) rho u the same on both sides */
		s.u_out = g->u_out >= 0 ? g->u_out : g->u * g->rho_in / g->rho_out;
	}
	return s;
}

double tide_gen_mass(const tide_case *c)
{
	const tide_generator *g = &c->generator;
	double v = c->dp * c->dp * c->dp;
	switch (g->type) {
	case TIDE_GEN_SHOCK_TUBE: return g->rho[0] * v;
	case TIDE_GEN_SEDOV: return g->rho_gas * v;
	default: {
		tide_glass gl;
		tide_gas_sphere s = sphere_of(c, glass_of(c, &gl));
		double m = tide_gas_ic_sphere_mass(&s);
		tide_glass_free(&gl);
		return m;
	}
	}
}

double tide_gen_u(const tide_case *c)
{
	const tide_generator *g = &c->generator;
	if (g->type == TIDE_GEN_SHOCK_TUBE) return g->p[0] / ((c->gas.gamma - 1) * g->rho[0]);
	return g->u;
}

size_t tide_gen_build(const tide_case *c, tide_block_view *v)
{
	const tide_generator *g = &c->generator;
	double m = tide_gen_mass(c);
	tide_glass store;
	const tide_glass *gl = glass_of(c, &store);
	size_t n;
	if (g->type == TIDE_GEN_SHOCK_TUBE) {
		tide_gas_tube t = {.axis = g->axis, .x0 = g->x0, .m = m, .gamma = c->gas.gamma,
		                   .eta = c->gas.eta, .fixed = g->fixed_layers, .glass = gl};
		for (int k = 0; k < 3; k++) {
			t.lo[k] = c->domain.lo[k];
			t.hi[k] = c->domain.hi[k];
		}
		for (int s = 0; s < 2; s++) {
			t.rho[s] = g->rho[s];
			t.p[s] = g->p[s];
			t.vel[s] = g->v[s];
		}
		n = tide_gas_ic_shock_tube(&t, v);
	} else if (g->type == TIDE_GEN_SEDOV) {
		tide_gas_sedov s = {.half = g->half, .m = m, .rho = g->rho_gas, .u_bg = g->u, .E = g->E,
		                    .r_inj = g->r_inj, .eta = c->gas.eta, .glass = gl};
		for (int d = 0; d < 3; d++) s.centre[d] = g->centre[d];
		n = tide_gas_ic_sedov(&s, v);
	} else {
		tide_gas_sphere s = sphere_of(c, gl);
		n = tide_gas_ic_sphere(&s, v);
	}
	tide_glass_free(&store);
	return n;
}

void tide_gen_box(const tide_case *c, tide_box *b)
{
	const tide_generator *g = &c->generator;
	double r = g->type == TIDE_GEN_SEDOV || g->type == TIDE_GEN_TOP_HAT ? g->half : g->R;
	for (int d = 0; d < 3; d++) {
		b->lo[d] = g->type == TIDE_GEN_SHOCK_TUBE ? c->domain.lo[d] : g->centre[d] - r;
		b->hi[d] = g->type == TIDE_GEN_SHOCK_TUBE ? c->domain.hi[d] : g->centre[d] + r;
	}
}
