// SPDX-License-Identifier: LGPL-2.1-or-later
// A gas case's internal units and its values converted into them (src/case_units.h).
#include <math.h>
#include <stddef.h>
#include "case_units.h"
#include "tide/gas_params.h"

tide_unit_system tide_case_internal_units(const tide_case *c)
{
	if (c->scheme != TIDE_SCHEME_GAS || c->units == TIDE_UNITS_CODE) return tide_units_identity();
	double L = 0;
	for (int k = 0; k < c->dim; k++) L = fmax(L, c->domain.hi[k] - c->domain.lo[k]);
	if (!(L > 0)) return tide_units_identity();
	double M = c->rho0 * pow(L, c->dim);
	if (c->self_gravity.on && c->self_gravity.G > 0) return tide_units_g1_of(L, M, c->self_gravity.G);
	double v = c->c0; /* derived: the gas's initial sound speed (tide_case_derive) */
	return (tide_unit_system){L, M, v > 0 ? L / v : 1.0};
}

/* x in the case's units <-> internal */
static void conv(double *x, int n, const tide_unit_system *u, tide_dim d, int to_internal)
{
	double f = tide_units_factor(u, d);
	for (int i = 0; i < n; i++) x[i] = to_internal ? x[i] / f : x[i] * f;
}

void tide_case_rescale(tide_case *c, const tide_unit_system *u, int in)
{
	const tide_dim L = TIDE_DIM_LENGTH, RHO = TIDE_DIM_DENSITY, V = TIDE_DIM_VELOCITY,
	               E = TIDE_DIM_SPECIFIC_ENERGY, T = TIDE_DIM_TIME;
	conv(&c->dp, 1, u, L, in);
	conv(c->domain.lo, 3, u, L, in);
	conv(c->domain.hi, 3, u, L, in);
	for (int i = 0; i < c->nfluid; i++) {
		conv(c->fluid[i].lo, 3, u, L, in);
		conv(c->fluid[i].hi, 3, u, L, in);
	}
	for (int i = 0; i < c->nsphere; i++) {
		conv(c->sphere[i].c, 3, u, L, in);
		conv(&c->sphere[i].r, 1, u, L, in);
	}
	conv(&c->rho0, 1, u, RHO, in);
	conv(c->gravity, 3, u, TIDE_DIM_ACCELERATION, in);
	/* self-gravity */
	conv(&c->self_gravity.G, 1, u, TIDE_DIM_G, in);
	conv(&c->self_gravity.softening, 1, u, L, in);
	/* gas */
	conv(&c->gas.cs, 1, u, V, in);
	conv(&c->c0, 1, u, V, in); /* derived: the gas's initial sound speed */
	conv(&c->gas.rho_crit, 1, u, RHO, in);
	conv(&c->gas.h_max, 1, u, L, in);
	conv(&c->gas.h_min, 1, u, L, in);
	conv(&c->gas.h_cell, 1, u, L, in);
	conv(&c->gas.u_min, 1, u, E, in);
	conv(&c->gas.u, 1, u, E, in);
	/* sinks */
	conv(&c->sinks.density_threshold, 1, u, RHO, in);
	conv(&c->sinks.accretion_radius, 1, u, L, in);
	conv(&c->sinks.softening, 1, u, L, in);
	/* generator */
	tide_generator *g = &c->generator;
	conv(&g->x0, 1, u, L, in);
	conv(g->rho, 2, u, RHO, in);
	conv(g->p, 2, u, TIDE_DIM_PRESSURE, in);
	conv(g->v, 2, u, V, in);
	conv(&g->E, 1, u, TIDE_DIM_ENERGY, in);
	conv(&g->r_inj, 1, u, L, in);
	conv(&g->half, 1, u, L, in);
	conv(&g->rho_gas, 1, u, RHO, in);
	conv(&g->u, 1, u, E, in);
	conv(&g->M, 1, u, TIDE_DIM_MASS, in);
	conv(&g->R, 1, u, L, in);
	conv(g->centre, 3, u, L, in);
	conv(&g->rho_in, 1, u, RHO, in);
	conv(&g->rho_out, 1, u, RHO, in);
	if (g->u_out >= 0) conv(&g->u_out, 1, u, E, in); /* < 0: a flag (pressure equilibrium) */
	/* time */
	conv(&c->t_end, 1, u, T, in);
	conv(&c->t_out, 1, u, T, in);
	conv(&c->gauge_every, 1, u, T, in);
	for (int i = 0; i < c->nheight; i++) conv(c->height[i].p, 3, u, L, in);
	for (int i = 0; i < c->npressure; i++) conv(c->pressure[i].p, 3, u, L, in);
	for (int i = 0; i < c->nvelocity; i++) conv(c->velocity[i].p, 3, u, L, in);
}

void tide_case_to_internal(tide_case *c, const tide_unit_system *u)
{
	int si = c->units == TIDE_UNITS_SI;
	tide_case_rescale(c, u, 1);
	c->units_given = c->units;
	c->units = TIDE_UNITS_CODE;
	c->code_length = u->length * (si ? 100.0 : 1.0); /* m -> cm */
	c->code_mass = u->mass * (si ? 1000.0 : 1.0);    /* kg -> g */
	c->code_time = u->time;
}

int tide_case_output_system(const tide_case *c)
{
	return c->code_time > 0 ? c->units_given : c->units;
}

tide_unit_system tide_case_output_units(const tide_case *c)
{
	if (!(c->code_time > 0)) return tide_units_identity();
	int si = c->units_given == TIDE_UNITS_SI;
	return (tide_unit_system){c->code_length / (si ? 100.0 : 1.0), c->code_mass / (si ? 1000.0 : 1.0),
	                          c->code_time};
}

/* The names of the units, SI's and cgs's, of the dimensions the outputs write; the 2-D names
 * of the extensive ones (per unit of width) after. */
static const struct unit_name {
	tide_dim d;
	int per_width;
	const char *si, *cgs;
} unit_names[] = {
	{TIDE_DIM_NONE, 0, "-", "-"},
	{TIDE_DIM_LENGTH, 0, "m", "cm"},
	{TIDE_DIM_MASS, 0, "kg", "g"},
	{TIDE_DIM_TIME, 0, "s", "s"},
	{TIDE_DIM_VELOCITY, 0, "m/s", "cm/s"},
	{TIDE_DIM_ACCELERATION, 0, "m/s^2", "cm/s^2"},
	{TIDE_DIM_DENSITY, 0, "kg/m^3", "g/cm^3"},
	{TIDE_DIM_SPECIFIC_ENERGY, 0, "J/kg", "erg/g"},
	{TIDE_DIM_ENERGY, 0, "J", "erg"},
	{TIDE_DIM_PRESSURE, 0, "Pa", "dyn/cm^2"},
	{TIDE_DIM_MOMENTUM, 0, "kg m/s", "g cm/s"},
	{TIDE_DIM_FORCE, 0, "N", "dyn"},
	{TIDE_DIM_ANGULAR_MOMENTUM, 0, "kg m^2/s", "g cm^2/s"},
	{TIDE_DIM_MASS, 1, "kg/m", "g/cm"},
	{TIDE_DIM_ENERGY, 1, "J/m", "erg/cm"},
	{TIDE_DIM_MOMENTUM, 1, "kg/s", "g/s"},
	{TIDE_DIM_FORCE, 1, "N/m", "dyn/cm"},
};

const char *tide_case_unit_name(const tide_case *c, tide_dim d, int per_width)
{
	int cgs = tide_case_output_system(c) == TIDE_UNITS_CGS;
	per_width = per_width && c->dim == 2;
	for (size_t i = 0; i < sizeof unit_names / sizeof *unit_names; i++) {
		const struct unit_name *u = &unit_names[i];
		if (u->d.l == d.l && u->d.m == d.m && u->d.t == d.t && u->per_width == per_width)
			return cgs ? u->cgs : u->si;
	}
	return "?";
}
