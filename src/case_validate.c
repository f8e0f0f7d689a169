// SPDX-License-Identifier: LGPL-2.1-or-later
// Case validation: the checks that need the whole case (boxes inside the domain and tank,
// probes, physics and output constraints) and the values derived from it (domain, hswl, c0),
// run after loading (src/case_load.c, finish_load) and again after every --set (set_value).
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "tide/case.h"
#include "case_ctx.h"
#include "case_load.h"
#include "gas_generator.h"
#include "glass.h"

/* ---- whole-case checks and derived values ----------------------------------------------- */

void tide_case_box_text(const tide_case *c, const tide_box *b, char *buf, size_t n)
{
	if (c->dim == 2)
		snprintf(buf, n, "[%g, %g]..[%g, %g]", b->lo[0], b->lo[2], b->hi[0], b->hi[2]);
	else
		snprintf(buf, n, "[%g, %g, %g]..[%g, %g, %g]", b->lo[0], b->lo[1], b->lo[2], b->hi[0],
		         b->hi[1], b->hi[2]);
}

int tide_case_check_box(struct ctx *x, int line, const char *path, const tide_box *b)
{
	static const char axis[] = "xyz";
	for (int j = 0; j < x->c->dim; j++) {
		int a = axes_of(x->c->dim)[j];
		if (!(b->lo[a] < b->hi[a]))
			return tide_case_fail(x, line, "key '%s' has lo >= hi on the %c axis (%g >= %g); allowed: lo < hi "
			            "on every axis.", path, axis[a], b->lo[a], b->hi[a]);
	}
	return 0;
}

/* Small tolerance so that a box given with the same decimals as its container counts as inside. */
static int box_inside(const tide_case *c, const tide_box *in, const tide_box *out)
{
	for (int j = 0; j < c->dim; j++) {
		int a = axes_of(c->dim)[j];
		double tol = 1e-9 * (1 + fabs(out->lo[a]) + fabs(out->hi[a]));
		if (in->lo[a] < out->lo[a] - tol || in->hi[a] > out->hi[a] + tol) return 0;
	}
	return 1;
}

static int check_inside(struct ctx *x, int line, const char *path, const tide_box *b, int in_tank)
{
	const tide_case *c = x->c;
	char bb[128], ob[128];
	tide_case_box_text(c, b, bb, sizeof bb);
	if (!box_inside(c, b, &c->domain)) {
		tide_case_box_text(c, &c->domain, ob, sizeof ob);
		return tide_case_fail(x, line, "key '%s' = %s lies outside the domain; allowed: a box inside the "
		            "domain %s.", path, bb, ob);
	}
	if (in_tank && c->tank.present && !box_inside(c, b, &c->tank.box)) {
		tide_case_box_text(c, &c->tank.box, ob, sizeof ob);
		return tide_case_fail(x, line, "key '%s' = %s lies outside the tank interior; allowed: a box inside "
		            "the tank %s.", path, bb, ob);
	}
	return 0;
}

static int check_probes(struct ctx *x, const char *path, const tide_probe *pr, int n,
                        const int *lines, int height)
{
	const tide_case *c = x->c;
	for (int i = 0; i < n; i++) {
		tide_box pt = {{pr[i].p[0], pr[i].p[1], pr[i].p[2]}, {pr[i].p[0], pr[i].p[1], pr[i].p[2]}};
		if (height) pt.lo[2] = pt.hi[2] = c->domain.lo[2];   /* a vertical line: z is free */
		if (!box_inside(c, &pt, &c->domain)) {
			char ob[128];
			tide_case_box_text(c, &c->domain, ob, sizeof ob);
			return tide_case_fail(x, lines[i], "key '%s[%d].at' lies outside the domain; allowed: a point "
			            "inside %s.", path, i, ob);
		}
	}
	return 0;
}

int tide_case_check_geometry(struct ctx *x)
{
	const tide_case *c = x->c;
	char p[32];
	if (c->tank.present && tide_case_check_box(x, x->line[tide_case_find_key("tank")], "tank", &c->tank.box)) return -1;
	if (tide_case_check_box(x, x->line[tide_case_find_key("domain")], "domain", &c->domain)) return -1;
	for (int i = 0; i < c->nfluid; i++) {
		snprintf(p, sizeof p, "fluid[%d]", i);
		if (tide_case_check_box(x, x->fluid_line[i], p, &c->fluid[i]) ||
		    check_inside(x, x->fluid_line[i], p, &c->fluid[i], 1)) return -1;
	}
	for (int i = 0; i < c->nobstacle; i++) {
		snprintf(p, sizeof p, "obstacles[%d]", i);
		if (tide_case_check_box(x, x->obstacle_line[i], p, &c->obstacle[i]) ||
		    check_inside(x, x->obstacle_line[i], p, &c->obstacle[i], 1)) return -1;
	}
	/* obstacles are solid: a fluid box inside one would hold no water */
	for (int i = 0; i < c->nfluid; i++)
		for (int m = 0; m < c->nobstacle; m++) {
			if (!box_inside(c, &c->fluid[i], &c->obstacle[m])) continue;
			char fb[128], ob[128];
			tide_case_box_text(c, &c->fluid[i], fb, sizeof fb);
			tide_case_box_text(c, &c->obstacle[m], ob, sizeof ob);
			return tide_case_fail(x, x->fluid_line[i], "key 'fluid[%d]' = %s lies inside 'obstacles[%d]' = %s, "
			            "so it holds no water (obstacles are solid); allowed: a fluid box not "
			            "covered by an obstacle.", i, fb, m, ob);
		}
	for (int i = 0; i < c->nsphere; i++) {
		const tide_sphere *s = &c->sphere[i];
		tide_box b;
		for (int a = 0; a < 3; a++) {
			b.lo[a] = s->c[a] - s->r;
			b.hi[a] = s->c[a] + s->r;
		}
		snprintf(p, sizeof p, "fluid_spheres[%d]", i);
		if (check_inside(x, x->sphere_line[i], p, &b, 1)) return -1;
	}
	if (tide_case_check_meshes(x, 2)) return -1;
	if (c->gauge_forces && c->nobstacle == 0)
		return tide_case_fail(x, x->line[tide_case_find_key("gauges.forces")], "key 'gauges.forces' = true needs "
		            "obstacles; allowed: false, or a case with 'obstacles'.");
	return check_probes(x, "gauges.height", c->height, c->nheight, x->height_line, 1) ||
	       check_probes(x, "gauges.pressure", c->pressure, c->npressure, x->pressure_line, 0) ||
	       check_probes(x, "gauges.velocity", c->velocity, c->nvelocity, x->velocity_line, 0);
}

/* Tank outer box (inner box grown by layers*dp on every walled side), grown upward by the tank
 * height so splashes stay inside. */
tide_box tide_case_default_domain(const tide_case *c)
{
	tide_box d = c->tank.box;
	double w = c->tank.layers * c->dp;
	for (int j = 0; j < c->dim; j++) {
		int a = axes_of(c->dim)[j];
		if (c->periodic >> a & 1) continue; /* open there: the tank's extent is the period */
		d.lo[a] -= w;
		if (a != 2 || !c->tank.open_top) d.hi[a] += w;
	}
	/* a moving tank (sloshing): room for everywhere its walls go */
	double D = tide_case_tank_sweep(c, &d);
	for (int j = 0; j < c->dim && D > 0; j++) {
		int a = axes_of(c->dim)[j];
		d.lo[a] -= D;
		d.hi[a] += D;
	}
	d.hi[2] += c->tank.box.hi[2] - c->tank.box.lo[2];
	return d;
}

/* Still water level: highest fluid top above the tank floor (or above the lowest fluid). */
double tide_case_default_hswl(const tide_case *c)
{
	double top = -INFINITY, floor_z = INFINITY;
	if (c->generator.type != TIDE_GEN_NONE) { /* the generated gas's height (unused by gas) */
		tide_box g;
		tide_gen_box(c, &g);
		return g.hi[2] - g.lo[2];
	}
	for (int i = 0; i < c->nfluid; i++) {
		top = fmax(top, c->fluid[i].hi[2]);
		floor_z = fmin(floor_z, c->fluid[i].lo[2]);
	}
	for (int i = 0; i < c->nsphere; i++) {
		top = fmax(top, c->sphere[i].c[2] + c->sphere[i].r);
		floor_z = fmin(floor_z, c->sphere[i].c[2] - c->sphere[i].r);
	}
	for (int i = 0; i < c->nvolume; i++) {
		top = fmax(top, c->volume[i].hi[2]);
		floor_z = fmin(floor_z, c->volume[i].lo[2]);
	}
	if (c->tank.present) floor_z = c->tank.box.lo[2];
	/* particles from a file (initial.file, a gas case: hswl unused): the domain's height */
	if (!(top > floor_z)) return c->domain.hi[2] - c->domain.lo[2];
	return top - floor_z;
}

static double gravity_norm(const tide_case *c)
{
	return sqrt(c->gravity[0] * c->gravity[0] + c->gravity[1] * c->gravity[1] +
	            c->gravity[2] * c->gravity[2]);
}

/* Periodic axes: x, and y in 3-D, each at least two cells of side 2h long. */
static int check_periodic(struct ctx *x)
{
	const tide_case *c = x->c;
	int line = x->line[tide_case_find_key("periodic")];
	if (!c->periodic) return 0;
	if (c->dim == 2 && (c->periodic & 2))
		return tide_case_fail(x, line, "key 'periodic' names y in a 2-D case (the x-z plane); "
		                      "allowed: x.");
	if (c->self_gravity.on)
		return tide_case_fail(x, line, "key 'periodic' with 'physics.self_gravity': the "
		                      "Barnes-Hut field is not periodic; allowed: one of the two.");
	for (int a = 0; a < 2; a++) {
		double len = c->domain.hi[a] - c->domain.lo[a], need = 4.0 * tide_case_cell_h(c);
		if ((c->periodic >> a & 1) && !(len >= need))
			return tide_case_fail(x, line, "key 'periodic': the domain is %g m long along %c, "
			                      "less than the 4h = %g m (two cells of side 2h%s) a periodic "
			                      "axis needs; allowed: a longer domain or a smaller %s.", len,
			                      "xy"[a], need, c->scheme == TIDE_SCHEME_GAS ? ", h = gas.h_max" : "",
			                      c->scheme == TIDE_SCHEME_GAS ? "gas.h_max" : "dp");
	}
	return 0;
}

/* Turbulent initial velocities: a 3-D gas case, a grid the radix-2 FFT takes. */
static int check_turbulence(struct ctx *x)
{
	const tide_turbulence *t = &x->c->turbulence;
	int line = x->line[tide_case_find_key("turbulence")];
	if (!t->on) return 0;
	if (x->c->scheme != TIDE_SCHEME_GAS || x->c->dim != 3)
		return tide_case_fail(x, line, "key 'turbulence' needs a 3-D gas case; allowed: "
		                      "physics.scheme: gas and dim: 3, or no turbulence section.");
	if (t->grid & (t->grid - 1))
		return tide_case_fail(x, x->line[tide_case_find_key("turbulence.grid")], "key "
		                      "'turbulence.grid' is %d; allowed: a power of two from 8 to %d.",
		                      t->grid, TIDE_TURB_GRID_MAX);
	return 0;
}

/* ---- generated initial conditions (section generator; src/gas_generator.h) ---- */

/* The keys under generator. that each type takes (enum tide_gen_type): the required ones, then
 * after "|" the optional ones. */
static const char *const gen_keys[][12] = {
	[TIDE_GEN_SHOCK_TUBE] = {"left", "right", "|", "axis", "x0", "fixed_layers", "positions",
	                         "glass", NULL},
	[TIDE_GEN_SEDOV] = {"E", "rho", "half", "|", "u", "r_inj", "centre", "positions", "glass", NULL},
	[TIDE_GEN_EVRARD] = {"M", "R", "u", "|", "centre", "positions", "glass", NULL},
	[TIDE_GEN_UNIFORM_SPHERE] = {"M", "R", "u", "|", "centre", "positions", "glass", NULL},
	[TIDE_GEN_TOP_HAT] = {"rho_in", "rho_out", "R", "u", "half", "|", "u_out", "centre",
	                      "positions", "glass", NULL},
};

/* generator.glass: relative to the case file's directory (as STL files), kept absolute; read
 * once here so that a bad file is refused before any run. */
static int check_glass(struct ctx *x)
{
	tide_generator *g = &x->c->generator;
	int k = tide_case_find_key("generator.glass");
	if (*g->glass && g->positions != TIDE_GEN_GLASS)
		return tide_case_fail(x, x->line[k], "key 'generator.glass' without generator.positions: "
		                      "glass; allowed: both, or neither.");
	if (g->positions != TIDE_GEN_GLASS) return 0;
	if (*g->glass && g->glass[0] != '/' && x->file && strrchr(x->file, '/')) {
		char full[2200];
		const char *slash = strrchr(x->file, '/');
		snprintf(full, sizeof full, "%.*s/%s", (int)(slash - x->file), x->file, g->glass);
		if (strlen(full) >= sizeof g->glass)
			return tide_case_fail(x, x->line[k], "key 'generator.glass': the path '%s' is too "
			                      "long; allowed: at most %zu characters.", full, sizeof g->glass - 1);
		strcpy(g->glass, full);
	}
	tide_glass gl;
	char why[1200];
	if (tide_gen_glass(x->c, &gl, why, sizeof why))
		return tide_case_fail(x, x->line[k] ? x->line[k] : x->line[tide_case_find_key("generator")],
		                      "key 'generator.glass': %s; allowed: a glass file of 'x y z' lines in "
		                      "[0, 1) (tide glass makes one).", why);
	tide_glass_free(&gl);
	return 0;
}

static int gen_takes(int type, const char *leaf, int *required)
{
	*required = 1;
	for (int i = 0; gen_keys[type][i]; i++) {
		if (!strcmp(gen_keys[type][i], "|")) *required = 0;
		else if (!strcmp(gen_keys[type][i], leaf)) return 1;
	}
	return 0;
}

/* The keys of the type, and no others (a Sedov E in a shock tube would be silently unused);
 * the particles only from the generator, inside the domain; rho0 derived from its mass. */
static int check_generator(struct ctx *x)
{
	tide_case *c = x->c;
	const tide_generator *g = &c->generator;
	int line = x->line[tide_case_find_key("generator")], req;
	if (g->type == TIDE_GEN_NONE) return 0;
	const char *type = tide_gen_type_names[g->type];
	if (c->scheme != TIDE_SCHEME_GAS || c->dim != 3)
		return tide_case_fail(x, line, "key 'generator' needs a 3-D gas case; allowed: "
		                      "physics.scheme: gas and dim: 3, or no generator section.");
	if (c->nfluid || c->nsphere || c->nvolume || c->nobstacle || c->nsolid || c->tank.present)
		return tide_case_fail(x, line, "key 'generator' with fluid, fluid_spheres, fluid_volumes, "
		                      "obstacles, solids or a tank: the generator makes all the particles; "
		                      "allowed: one or the other.");
	if (!x->set) { /* --set only changes values: the file's keys were checked when it was read */
		char path[64];
		for (int i = 0; gen_keys[g->type][i]; i++) {
			if (!strcmp(gen_keys[g->type][i], "|")) break;
			snprintf(path, sizeof path, "generator.%s", gen_keys[g->type][i]);
			if (!x->seen[tide_case_find_key(path)])
				return tide_case_fail(x, line, "missing required key '%s' for generator type %s.",
				                      path, type);
		}
		for (int k = tide_case_find_key("generator.axis"); k >= 0; k++) {
			const char *p = tide_case_key_path(k);
			if (!p || strncmp(p, "generator.", 10)) break;
			const char *leaf = p + 10;
			if (strchr(leaf, '.') || !x->seen[k] || gen_takes(g->type, leaf, &req)) continue;
			char allowed[160] = "";
			for (int i = 0; gen_keys[g->type][i]; i++)
				if (strcmp(gen_keys[g->type][i], "|"))
					snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s",
					         *allowed ? ", " : "", gen_keys[g->type][i]);
			return tide_case_fail(x, x->line[k], "key '%s' is not used by generator type %s; "
			                      "allowed: type, %s.", p, type, allowed);
		}
	}
	/* the values too: a --set of generator.type skips the file's key checks above */
	int ok = g->type == TIDE_GEN_SHOCK_TUBE ? g->rho[0] > 0 && g->rho[1] > 0 && g->p[0] > 0 && g->p[1] > 0
	         : g->type == TIDE_GEN_SEDOV ? g->E > 0 && g->rho_gas > 0 && g->half > 0
	         : g->type == TIDE_GEN_TOP_HAT ? g->rho_in > 0 && g->rho_out > 0 && g->R > 0 && g->half > 0
	         : g->M > 0 && g->R > 0;
	if (!ok) {
		char need[160] = "";
		for (int i = 0; gen_keys[g->type][i] && strcmp(gen_keys[g->type][i], "|"); i++)
			snprintf(need + strlen(need), sizeof need - strlen(need), "%s%s", *need ? ", " : "",
			         gen_keys[g->type][i]);
		return tide_case_fail(x, line, "key 'generator.type' = %s lacks values of its required "
		                      "keys (%s); allowed: a generator section that gives them.", type, need);
	}
	if (check_glass(x)) return -1;
	if (g->type == TIDE_GEN_SHOCK_TUBE &&
	    !(g->x0 > c->domain.lo[g->axis] && g->x0 < c->domain.hi[g->axis]))
		return tide_case_fail(x, x->line[tide_case_find_key("generator.x0")], "key 'generator.x0' "
		                      "= %g is not inside the domain along %c (%g..%g); allowed: a point "
		                      "strictly inside.", g->x0, "xyz"[g->axis], c->domain.lo[g->axis],
		                      c->domain.hi[g->axis]);
	if (g->type == TIDE_GEN_TOP_HAT && !(g->half > g->R))
		return tide_case_fail(x, x->line[tide_case_find_key("generator.half")], "key "
		                      "'generator.half' = %g is not larger than generator.R = %g; allowed: "
		                      "a background cube larger than the sphere.", g->half, g->R);
	tide_box b;
	tide_gen_box(c, &b);
	if (!box_inside(c, &b, &c->domain)) {
		char bb[128], ob[128];
		tide_case_box_text(c, &b, bb, sizeof bb);
		tide_case_box_text(c, &c->domain, ob, sizeof ob);
		return tide_case_fail(x, line, "key 'generator': its particles fill %s, outside the domain "
		                      "%s; allowed: a generator inside the domain.", bb, ob);
	}
	double est = (double)tide_gen_build(c, NULL);
	if (!(est >= 1) || est > 4e9)
		return tide_case_fail(x, line, "key 'generator' with dp = %g makes %.3g particles; "
		                      "allowed: 1 to 4e9 (change dp).", c->dp, est);
	/* rho0 is the generator's: m / dp^3; a given one (a used_parameters.yaml read back) must
	 * be that */
	double rho0 = tide_gen_mass(c) / (c->dp * c->dp * c->dp);
	int k = tide_case_find_key("physics.rho0");
	if (!x->set && x->seen[k] && fabs(c->rho0 - rho0) > 1e-9 * rho0)
		return tide_case_fail(x, x->line[k], "key 'physics.rho0' = %g with a generator: rho0 is "
		                      "derived from the generator's particle mass m as m / dp^3 = %.10g; "
		                      "allowed: no physics.rho0 (or that value).", c->rho0, rho0);
	c->rho0 = rho0;
	return 0;
}

/* Sink particles: a 3-D self-gravitating gas, both required keys (--set may turn the section on
 * with one of them). */
static int check_sinks(struct ctx *x)
{
	const tide_sinks_case *s = &x->c->sinks;
	int line = x->line[tide_case_find_key("sinks")];
	if (!s->on) return 0;
	if (x->c->scheme != TIDE_SCHEME_GAS || x->c->dim != 3 || !x->c->self_gravity.on)
		return tide_case_fail(x, line, "key 'sinks' needs a 3-D self-gravitating gas case; "
		                      "allowed: physics.scheme: gas, dim: 3 and physics.self_gravity, or "
		                      "no sinks section.");
	if (!(s->density_threshold > 0) || !(s->accretion_radius > 0))
		return tide_case_fail(x, line, "key 'sinks' needs %s; allowed: a number > 0.",
		                      s->density_threshold > 0 ? "sinks.accretion_radius"
		                                               : "sinks.density_threshold");
	return 0;
}

/* Self-gravity, equation of state, viscosity and periodic checks: they need the whole case. */
int tide_case_check_physics(struct ctx *x)
{
	const tide_case *c = x->c;
	if (check_periodic(x)) return -1;
	if (check_turbulence(x)) return -1;
	if (check_sinks(x)) return -1;
	if (x->c->bonnor_ebert.on && (x->c->scheme != TIDE_SCHEME_GAS || x->c->dim != 3 ||
	                              x->c->nsphere < 1))
		return tide_case_fail(x, x->line[tide_case_find_key("bonnor_ebert")], "key "
		                      "'bonnor_ebert' shapes the first of 'fluid_spheres' of a 3-D gas "
		                      "case; allowed: physics.scheme: gas, dim: 3 and fluid_spheres, or "
		                      "no bonnor_ebert section.");
	if (check_generator(x)) return -1;
	if (c->self_gravity.h_factor > 0 && c->scheme != TIDE_SCHEME_GAS)
		return tide_case_fail(x, x->line[tide_case_find_key("physics.self_gravity.h_factor")],
		                      "key 'physics.self_gravity.h_factor' needs the gas scheme (softening "
		                      "tied to each particle's h); allowed: physics.scheme: gas, or 0.");
	if (c->self_gravity.on && c->dim != 3)
		return tide_case_fail(x, x->line[tide_case_find_key("physics.self_gravity")], "key 'physics.self_gravity' "
		            "needs a 3-D case (the Barnes-Hut field is 3-D); allowed: dim: 3.");
	if (c->eos == TIDE_EOS_ISOTHERMAL && !(c->cs_iso > 0))
		return tide_case_fail(x, x->line[tide_case_find_key("physics.eos")], "missing required key 'physics.cs_iso' "
		            "(the isothermal sound speed in m/s, > 0) for 'physics.eos' = isothermal.");
	/* the gas scheme has its own viscosity and no wall model: the water scheme's options would
	 * be silently ignored */
	if (c->scheme == TIDE_SCHEME_GAS && c->viscosity != TIDE_VISC_ARTIFICIAL)
		return tide_case_fail(x, x->line[tide_case_find_key("physics.viscosity")], "key "
		            "'physics.viscosity' = %s with 'physics.scheme' = gas (the gas has its own "
		            "artificial viscosity, gas.alpha_visc); allowed: artificial.",
		            tide_case_viscosity_names[c->viscosity]);
	if (c->scheme == TIDE_SCHEME_GAS && c->boundary != TIDE_BOUNDARY_DBC)
		return tide_case_fail(x, x->line[tide_case_find_key("physics.boundary")], "key "
		            "'physics.boundary' = %s with 'physics.scheme' = gas (boundary particles are "
		            "fixed gas particles there); allowed: dbc.", tide_case_boundary_names[c->boundary]);
	/* the gas cells: no larger than the largest support, and with periodic boundaries equal to
	 * it (one ghost layer of cells holds the images, tide_case_gas_h_cell) */
	if (c->scheme == TIDE_SCHEME_GAS && c->gas.h_cell > 0 &&
	    (c->gas.h_cell > tide_case_gas_h_max(c) * (1 + 1e-12) ||
	     (c->periodic && c->gas.h_cell < tide_case_gas_h_max(c) * (1 - 1e-12))))
		return tide_case_fail(x, x->line[tide_case_find_key("gas.h_cell")], "key 'gas.h_cell' "
		            "= %g with gas.h_max = %g%s; allowed: 0 < h_cell <= h_max%s.", c->gas.h_cell,
		            tide_case_gas_h_max(c), c->periodic ? " and periodic boundaries" : "",
		            c->periodic ? ", and h_cell = h_max (or none) with periodic boundaries" : "");
	/* the units decide G unless the case gives it */
	if (!x->seen[tide_case_find_key("physics.self_gravity.G")] && c->units != TIDE_UNITS_SI)
		x->c->self_gravity.G = c->units == TIDE_UNITS_CGS ? 6.674e-8 : 1.0;
	return 0;
}

/* The one derivation of c0, run after loading and after every --set, so c0 always follows
 * coefsound, gravity and hswl (Tait), or cs_iso (isothermal).  A zero gravity is allowed only
 * with self-gravity; the Tait c0 then takes the surface gravity of a uniform sphere of diameter
 * hswl, (2 pi / 3) G rho0 hswl, in place of |g|. */
int tide_case_derive(struct ctx *x)
{
	tide_case *c = x->c;
	double g = gravity_norm(c);
	int gline = x->line[tide_case_find_key("physics.gravity")];
	if (c->scheme == TIDE_SCHEME_GAS) {
		/* the gas has its own equation of state (gas.*): c0 is its initial sound speed (what
		 * the water scheme's c0 stands for in messages and summaries), any gravity is fine */
		double u = c->generator.type != TIDE_GEN_NONE ? tide_gen_u(c) : c->gas.u;
		c->c0 = c->gas.eos == TIDE_GAS_IDEAL ? sqrt(c->gas.gamma * (c->gas.gamma - 1) * u)
		                                     : c->gas.cs;
		return 0;
	}
	/* the isothermal equation of state has its own c0 (cs_iso): any gravity, zero included
	 * (e.g. a floating body's momentum exchange with gravity off) */
	if (!(g > 0) && !c->self_gravity.on && c->eos != TIDE_EOS_ISOTHERMAL)
		return tide_case_fail(x, gline, "key 'physics.gravity' is zero, so c0 = coefsound*sqrt(|g|*hswl) "
		            "would be 0; allowed: a nonzero gravity vector (a zero one only with "
		            "'physics.self_gravity' or 'physics.eos: isothermal').");
	if (!(g > 0)) g = 2.0 * M_PI / 3.0 * c->self_gravity.G * c->rho0 * c->hswl;
	c->c0 = c->eos == TIDE_EOS_ISOTHERMAL ? c->cs_iso : c->coefsound * sqrt(g * c->hswl);
	if (!(c->c0 > 0) || !isfinite(c->c0))
		return tide_case_fail(x, gline, "key 'physics.gravity' gives c0 = coefsound*sqrt(|g|*hswl) = %g m/s; "
		            "allowed: a gravity, hswl and coefsound that give a finite c0 > 0.", c->c0);
	return tide_case_derive_motion(x);
}

int tide_case_check_surge(struct ctx *x)
{
	if (x->c->surge_front && !(x->c->surge_a > 0))
		return tide_case_fail(x, x->line[tide_case_find_key("gauges.surge_front")], "missing required key "
		            "'gauges.surge_front.a' (the initial column width, > 0).");
	return 0;
}

/* .h5 files need the HDF5 library, found (or not) when tide was built. */
int tide_case_check_output(struct ctx *x)
{
#ifndef TIDE_HAVE_HDF5
	if (x->c->output_format != TIDE_OUT_VTP)
		return tide_case_fail(x, x->line[tide_case_find_key("output.format")], "key 'output.format' = '%s' needs "
		            "HDF5, but this tide was built without it (install libhdf5-openmpi-dev and "
		            "build again); allowed here: vtp.", tide_case_format_names[x->c->output_format]);
#endif
	/* SWIFT/GADGET snapshots (swift_output.h) hold gas particles: PartType0 with u and h */
	if (x->c->output_format == TIDE_OUT_SWIFT && x->c->scheme != TIDE_SCHEME_GAS)
		return tide_case_fail(x, x->line[tide_case_find_key("output.format")], "key 'output.format' "
		            "= 'swift' writes gas snapshots (PartType0 with u and h) and needs "
		            "'physics.scheme: gas'; allowed here: vtp, hdf5, both.");
	return 0;
}

/* ---- derived values after --set -------------------------------------------------------------- */

static int box_equal(const tide_box *a, const tide_box *b)
{
	return !memcmp(a->lo, b->lo, sizeof a->lo) && !memcmp(a->hi, b->hi, sizeof a->hi);
}

int tide_case_derived_domain(const tide_case *c)
{
	tide_box d = tide_case_default_domain(c);
	return c->tank.present && box_equal(&d, &c->domain);
}

/* initial.file (gas_input.h): the whole particle set of a gas case, so the geometry's particles
 * and the turbulence made for them do not go with it. */
int tide_case_check_initial(struct ctx *x)
{
	const tide_case *c = x->c;
	int sec = tide_case_find_key("initial");
	if (x->seen[sec] && !c->initial_file[0])
		return tide_case_fail(x, x->line[sec], "key 'initial' needs 'initial.file'; allowed: "
		                      "{file: PATH} (a SWIFT/GADGET HDF5 file or a text file of x y z m lines).");
	if (c->initial_nbody_file[0] && !c->initial_file[0])
		return tide_case_fail(x, x->line[tide_case_find_key("initial.nbody_file")],
		                      "key 'initial.nbody_file' needs 'initial.file' (the gas); allowed: "
		                      "{file: GAS, nbody_file: PATH}.");
	if (!c->initial_file[0]) return 0;
	int line = x->line[tide_case_find_key("initial.file")];
	if (c->scheme != TIDE_SCHEME_GAS || c->dim != 3)
		return tide_case_fail(x, line, "key 'initial.file' needs a 3-D gas case; allowed: "
		                      "physics.scheme: gas and dim: 3.");
	const char *other = c->nfluid ? "fluid" : c->nsphere ? "fluid_spheres" : c->nvolume ? "fluid_volumes"
	                  : c->tank.present ? "tank" : c->nobstacle ? "obstacles" : c->nsolid ? "solids"
	                  : c->turbulence.on ? "turbulence" : NULL;
	if (other)
		return tide_case_fail(x, line, "key 'initial.file' gives all the particles of the case, and "
		                      "'%s' would add to them or change them; allowed: 'initial.file' "
		                      "without fluid, fluid_spheres, fluid_volumes, tank, obstacles, solids "
		                      "and turbulence.", other);
	return 0;
}
