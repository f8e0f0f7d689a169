// SPDX-License-Identifier: LGPL-2.1-or-later
// used_parameters.yaml: the case as it runs, every key with its value (defaults and derived
// values included), written so that it loads back as the same case (tide_case_print,
// tide_case_write_used).  Split from the reader (case_load.c), whose key table it mirrors.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tide/case.h"
#include "case_ctx.h"
#include "case_load.h"
#include "log.h"

/* ---- used_parameters.yaml ---------------------------------------------------------------- */

/* Shortest decimal that reads back to the same double, so the file round-trips exactly. */
const char *tide_case_num(double v, char *buf)
{
	for (int prec = 6; prec <= 17; prec++) {
		snprintf(buf, 32, "%.*g", prec, v);
		if (strtod(buf, NULL) == v) break;
	}
	return buf;
}

static void put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f) fprintf(f, "\\x%02x", ch);
		else fputc(ch, f);
	}
	fputc('"', f);
}

/* Writes the components of v given in a file of this dimension (count numbers along axes). */
static void put_coords(FILE *f, const double *v, int count, const int *axes)
{
	char b[32];
	fputc('[', f);
	for (int j = 0; j < count; j++) fprintf(f, "%s%s", j ? ", " : "", tide_case_num(v[axes[j]], b));
	fputc(']', f);
}

static void put_box(FILE *f, const tide_case *c, const tide_box *b)
{
	fputs("{lo: ", f);
	put_coords(f, b->lo, c->dim, axes_of(c->dim));
	fputs(", hi: ", f);
	put_coords(f, b->hi, c->dim, axes_of(c->dim));
	fputc('}', f);
}

static void put_boxes(FILE *f, const tide_case *c, const char *key, const tide_box *b, int n)
{
	fprintf(f, "%s:%s\n", key, n ? "" : " []");
	for (int i = 0; i < n; i++) {
		fputs("  - ", f);
		put_box(f, c, &b[i]);
		fputc('\n', f);
	}
}

static void put_probes(FILE *f, const tide_case *c, const char *key, const tide_probe *pr, int n,
                       int height)
{
	static const int axes_h[] = {0, 1};
	fprintf(f, "  %s:%s\n", key, n ? "" : " []");
	for (int i = 0; i < n; i++) {
		fputs("    - {name: ", f);
		put_str(f, pr[i].name);
		fputs(", at: ", f);
		if (height) put_coords(f, pr[i].p, c->dim - 1, axes_h);
		else put_coords(f, pr[i].p, c->dim, axes_of(c->dim));
		if (height && pr[i].mode >= 0) fprintf(f, ", mode: %s", tide_case_gauge_mode_names[pr[i].mode]);
		fputs("}\n", f);
	}
}

static void put_physics(FILE *f, const tide_case *c)
{
	char b[32];
	fprintf(f, "physics:\n  scheme: %s\n", tide_case_scheme_names[c->scheme]);
	fprintf(f, "  kernel: %s\n", tide_case_kernel_names[c->kernel]);
	fprintf(f, "  eos: %s\n", tide_case_eos_names[c->eos]);
	fprintf(f, "  boundary: %s\n", tide_case_boundary_names[c->boundary]);
	fprintf(f, "  mdbc_slip: %s\n", tide_case_mdbc_slip_names[c->mdbc_slip]);
	if (c->cs_iso > 0) fprintf(f, "  cs_iso: %s\n", tide_case_num(c->cs_iso, b));
	fprintf(f, "  rho0: %s\n", tide_case_num(c->rho0, b));
	fprintf(f, "  gamma: %s\n", tide_case_num(c->gamma, b));
	fprintf(f, "  coefsound: %s\n", tide_case_num(c->coefsound, b));
	fprintf(f, "  hswl: %s\n", tide_case_num(c->hswl, b));
	if (c->eos == TIDE_EOS_ISOTHERMAL)
		fprintf(f, "  # derived, not read: c0 = cs_iso = %s m/s\n", tide_case_num(c->c0, b));
	else
		fprintf(f, "  # derived, not read: c0 = coefsound*sqrt(|g|*hswl) = %s m/s\n", tide_case_num(c->c0, b));
	fprintf(f, "  visco: %s\n", tide_case_num(c->visco, b));
	fprintf(f, "  viscosity: %s\n", tide_case_viscosity_names[c->viscosity]);
	fprintf(f, "  nu: %s\n", tide_case_num(c->nu, b));
	fprintf(f, "  sps_cs: %s\n", tide_case_num(c->sps_cs, b));
	fprintf(f, "  sps_ci: %s\n", tide_case_num(c->sps_ci, b));
	fprintf(f, "  diffusion: %s\n", tide_case_diffusion_names[c->diffusion]);
	fprintf(f, "  delta: %s\n", tide_case_num(c->delta, b));
	fputs("  gravity: ", f);
	put_coords(f, c->gravity, c->dim, axes_of(c->dim));
	fprintf(f, "\n  cfl: %s\n", tide_case_num(c->cfl, b));
	fprintf(f, "  integrator: %s\n", tide_case_integrator_names[c->integrator]);
	fprintf(f, "  verlet_steps: %d\n", c->verlet_steps);
	if (c->self_gravity.on) {
		fprintf(f, "  self_gravity:\n    G: %s\n", tide_case_num(c->self_gravity.G, b));
		fprintf(f, "    theta: %s\n", tide_case_num(c->self_gravity.theta, b));
		fprintf(f, "    softening: %s\n", tide_case_num(tide_case_softening(c), b));
		fprintf(f, "    quadrupole: %s\n", c->self_gravity.quadrupole ? "true" : "false");
		if (c->scheme == TIDE_SCHEME_GAS)
			fprintf(f, "    h_factor: %s\n", tide_case_num(c->self_gravity.h_factor, b));
	}
}

/* The units and their constants (written as comments: the units key decides them). */
static void put_units(FILE *f, const tide_case *c)
{
	static const char *const what[] = {
		"# SI: m, kg, s; G = 6.674e-11 m^3 kg^-1 s^-2, k_B = 1.380649e-23 J/K, m_H = 1.6735575e-27 kg",
		"# cgs: cm, g, s; G = 6.674e-8 cm^3 g^-1 s^-2, k_B = 1.380649e-16 erg/K, m_H = 1.6735575e-24 g",
		"# code units: G = 1 (length, mass and time units chosen by the case)"};
	fprintf(f, "units: %s\n%s\n", tide_case_units_names[c->units], what[c->units]);
}

/* The gas scheme's section (physics.scheme: gas only: a water case shows none of it). */
static void put_gas(FILE *f, const tide_case *c)
{
	char b[32];
	const tide_gas_case *g = &c->gas;
	if (c->scheme != TIDE_SCHEME_GAS) return;
	fprintf(f, "gas:\n  eos: %s\n", tide_case_gas_eos_names[g->eos]);
	fprintf(f, "  gamma: %s\n", tide_case_num(g->gamma, b));
	fprintf(f, "  cs: %s\n", tide_case_num(g->cs, b));
	fprintf(f, "  rho_crit: %s\n", tide_case_num(g->rho_crit, b));
	fprintf(f, "  eta: %s\n", tide_case_num(g->eta, b));
	fprintf(f, "  h_tolerance: %s\n", tide_case_num(g->h_tolerance, b));
	fprintf(f, "  h_iterations: %d\n", g->h_iterations);
	fprintf(f, "  h_max: %s\n", tide_case_num(tide_case_gas_h_max(c), b));
	fprintf(f, "  h_min: %s\n", tide_case_num(g->h_min, b));
	fprintf(f, "  h_cell: %s\n", tide_case_num(tide_case_gas_h_cell(c), b));
	fprintf(f, "  alpha_visc: %s\n", tide_case_num(g->alpha_visc, b));
	fprintf(f, "  beta_visc: %s\n", tide_case_num(g->beta_visc, b));
	fprintf(f, "  alpha_cond: %s\n", tide_case_num(g->alpha_cond, b));
	fprintf(f, "  u_min: %s\n", tide_case_num(g->u_min, b));
	fprintf(f, "  u: %s\n", tide_case_num(g->u, b));
	if (c->sinks.on) {
		const tide_sinks_case *s = &c->sinks;
		fprintf(f, "sinks:\n  density_threshold: %s\n", tide_case_num(s->density_threshold, b));
		fprintf(f, "  accretion_radius: %s\n", tide_case_num(s->accretion_radius, b));
		fprintf(f, "  softening: %s\n", tide_case_num(s->softening > 0 ? s->softening
		                                                               : s->accretion_radius, b));
		fprintf(f, "  max: %d\n", s->max);
	}
	if (c->bonnor_ebert.on)
		fprintf(f, "bonnor_ebert:\n  xi_max: %s\n", tide_case_num(c->bonnor_ebert.xi_max, b));
	if (!c->turbulence.on) return;
	const tide_turbulence *t = &c->turbulence;
	fprintf(f, "turbulence:\n  mach: %s\n", tide_case_num(t->mach, b));
	fprintf(f, "  slope: %s\n", tide_case_num(t->slope, b));
	fprintf(f, "  solenoidal: %s\n", tide_case_num(t->solenoidal, b));
	fprintf(f, "  seed: %d\n  grid: %d\n", t->seed, t->grid);
}

/* The generator's section (gas only): the keys of its type (case_validate.c's gen_keys). */
static void put_generator(FILE *f, const tide_case *c)
{
	char b[32];
	const tide_generator *g = &c->generator;
	if (g->type == TIDE_GEN_NONE) return;
	fprintf(f, "generator:\n  type: %s\n", tide_gen_type_names[g->type]);
	fprintf(f, "  positions: %s\n", tide_gen_positions_names[g->positions]);
	if (*g->glass) {
		fputs("  glass: ", f);
		put_str(f, g->glass);
		fputc('\n', f);
	} else if (g->positions == TIDE_GEN_GLASS) {
		fputs("  # glass: not given, the shipped cases/glass/glass_4096.txt\n", f);
	}
	if (g->type == TIDE_GEN_SHOCK_TUBE) {
		fprintf(f, "  axis: %c\n  x0: %s\n", "xyz"[g->axis], tide_case_num(g->x0, b));
		for (int s = 0; s < 2; s++) {
			fprintf(f, "  %s: {rho: %s, ", s ? "right" : "left", tide_case_num(g->rho[s], b));
			fprintf(f, "p: %s, ", tide_case_num(g->p[s], b));
			fprintf(f, "v: %s}\n", tide_case_num(g->v[s], b));
		}
		fprintf(f, "  fixed_layers: %d\n", g->fixed_layers);
		return;
	}
	if (g->type == TIDE_GEN_SEDOV) {
		fprintf(f, "  E: %s\n", tide_case_num(g->E, b));
		fprintf(f, "  rho: %s\n", tide_case_num(g->rho_gas, b));
		fprintf(f, "  r_inj: %s\n", tide_case_num(g->r_inj, b));
	} else if (g->type == TIDE_GEN_TOP_HAT) {
		fprintf(f, "  rho_in: %s\n", tide_case_num(g->rho_in, b));
		fprintf(f, "  rho_out: %s\n", tide_case_num(g->rho_out, b));
		fprintf(f, "  R: %s\n", tide_case_num(g->R, b));
		if (g->u_out >= 0) fprintf(f, "  u_out: %s\n", tide_case_num(g->u_out, b));
		else fputs("  # u_out: not given, pressure equilibrium\n", f);
	} else {
		fprintf(f, "  M: %s\n", tide_case_num(g->M, b));
		fprintf(f, "  R: %s\n", tide_case_num(g->R, b));
	}
	if (g->type == TIDE_GEN_SEDOV || g->type == TIDE_GEN_TOP_HAT)
		fprintf(f, "  half: %s\n", tide_case_num(g->half, b));
	fprintf(f, "  u: %s\n  centre: ", tide_case_num(g->u, b));
	put_coords(f, g->centre, 3, axes3);
	fputc('\n', f);
}

void tide_case_print(FILE *f, const tide_case *c)
{
	char b[32];
	if (c->given) c = c->given; /* a case run in internal units: as given (src/case_units.h) */
	fputs("# SPDX-License-Identifier: LGPL-2.1-or-later\n", f);
	fputs("# Every parameter tide used for this run, defaults included (readable as a case file).\n", f);
	fputs("name: ", f);
	put_str(f, c->name);
	fputs("\ndescription: ", f);
	put_str(f, c->description);
	fprintf(f, "\ndim: %d\ndp: %s\n", c->dim, tide_case_num(c->dp, b));
	fprintf(f, "coefh: %s\n", tide_case_num(c->coefh, b));
	fputs("decomposition: ", f);
	put_str(f, c->decomp);
	fprintf(f, "\nblock_owners: %s", tide_case_owners_names[c->block_owners]);
	fputs("\ndomain: ", f);
	put_box(f, c, &c->domain);
	fputc('\n', f);
	fprintf(f, "periodic: [%s%s%s]\n", c->periodic & 1 ? "x" : "", c->periodic == 3 ? ", " : "",
	        c->periodic & 2 ? "y" : "");
	if (c->tank.present) {
		fputs("tank: {lo: ", f);
		put_coords(f, c->tank.box.lo, c->dim, axes_of(c->dim));
		fputs(", hi: ", f);
		put_coords(f, c->tank.box.hi, c->dim, axes_of(c->dim));
		fprintf(f, ", open_top: %s, layers: %d", c->tank.open_top ? "true" : "false",
		        c->tank.layers);
		if (c->tank_motion[1]) tide_case_put_motion(f, c, c->tank_motion[0], c->tank_motion[1]);
		fputs("}\n", f);
	}
	put_boxes(f, c, "fluid", c->fluid, c->nfluid);
	fprintf(f, "obstacles:%s\n", c->nobstacle ? "" : " []");
	for (int i = 0; i < c->nobstacle; i++) {
		fputs("  - {lo: ", f);
		put_coords(f, c->obstacle[i].lo, c->dim, axes_of(c->dim));
		fputs(", hi: ", f);
		put_coords(f, c->obstacle[i].hi, c->dim, axes_of(c->dim));
		if (c->obstacle_motion[i][1])
			tide_case_put_motion(f, c, c->obstacle_motion[i][0], c->obstacle_motion[i][1]);
		if (c->obstacle_floating[i]) tide_case_put_floating(f, c, c->obstacle_floating[i] - 1);
		fputs("}\n", f);
	}
	if (c->nsphere) fputs("fluid_spheres:\n", f);
	for (int i = 0; i < c->nsphere; i++) {
		fputs("  - {centre: ", f);
		put_coords(f, c->sphere[i].c, c->dim, axes_of(c->dim));
		fprintf(f, ", radius: %s, hydrostatic: %s}\n", tide_case_num(c->sphere[i].r, b),
		        c->sphere[i].hydrostatic ? "true" : "false");
	}
	for (int k = 0; k < 2; k++) {
		int n = k ? c->nvolume : c->nsolid;
		if (n) fprintf(f, "%s:\n", k ? "fluid_volumes" : "solids");
		for (int i = 0; i < n; i++) {
			const tide_stl_item *m = k ? &c->volume[i] : &c->solid[i];
			fputs("  - {stl: ", f);
			put_str(f, m->file);
			fprintf(f, ", scale: %s, rotate: ", tide_case_num(m->scale, b));
			put_coords(f, m->rotate, 3, axes3);
			fputs(", translate: ", f);
			put_coords(f, m->translate, 3, axes3);
			if (!k) fprintf(f, ", layers: %d, closed: %s", m->layers, m->closed ? "true" : "false");
			if (!k && c->solid_motion[i][1])
				tide_case_put_motion(f, c, c->solid_motion[i][0], c->solid_motion[i][1]);
			if (!k && c->solid_floating[i]) tide_case_put_floating(f, c, c->solid_floating[i] - 1);
			fputs("}\n", f);
		}
	}
	put_units(f, c);
	put_physics(f, c);
	put_gas(f, c);
	put_generator(f, c);
	if (c->initial_file[0]) { /* the gas particles from a file (gas_input.h) */
		fputs("initial: {file: ", f);
		put_str(f, c->initial_file);
		if (c->initial_nbody_file[0]) {
			fputs(", nbody_file: ", f);
			put_str(f, c->initial_nbody_file);
		}
		fputs("}\n", f);
	}
	fprintf(f, "time: {end: %s, ", tide_case_num(c->t_end, b));
	fprintf(f, "output: %s}\n", tide_case_num(c->t_out, b));
	fprintf(f, "output: {format: %s, precision: %s, fields: [", tide_case_format_names[c->output_format],
	        tide_case_precision_names[c->output_single]);
	/* the gas arrays only where a gas run writes them, Body where there are bodies */
	unsigned shown = tide_case_written_fields(c);
	for (int i = 0, n = 0; tide_output_field_names[i]; i++)
		if (shown >> i & 1u) fprintf(f, "%s%s", n++ ? ", " : "", tide_output_field_names[i]);
	fputs("]}\n", f);
	fputs("gauges:\n", f);
	if (c->gauge_every > 0) fprintf(f, "  every: %s\n", tide_case_num(c->gauge_every, b));
	else fprintf(f, "  # every: not given, at every output (time.output)\n");
	fprintf(f, "  mode: %s\n", tide_case_gauge_mode_names[c->gauge_mode]);
	put_probes(f, c, "height", c->height, c->nheight, 1);
	put_probes(f, c, "pressure", c->pressure, c->npressure, 0);
	put_probes(f, c, "velocity", c->velocity, c->nvelocity, 0);
	fprintf(f, "  forces: %s\n", c->gauge_forces ? "true" : "false");
	if (c->surge_front) {
		fprintf(f, "  surge_front: {a: %s, ", tide_case_num(c->surge_a, b));
		fprintf(f, "x0: %s}\n", tide_case_num(c->surge_x0, b));
	}
}

int tide_case_write_used(const tide_case *c, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "tide: cannot write %s: %s.\n", path, tide_io_reason(errno));
		return -1;
	}
	errno = 0;
	tide_case_print(f, c);
	int bad = ferror(f), err = errno;
	if (fclose(f) || bad) {
		fprintf(stderr, "tide: cannot write %s: %s.\n", path, tide_io_reason(err ? err : errno));
		return -1;
	}
	return 0;
}
