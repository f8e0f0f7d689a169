// SPDX-License-Identifier: LGPL-2.1-or-later
// Case-file loader (YAML, libyaml document API) and --set overrides.
// The whole-case checks and derived values (domain, hswl, c0) are in src/case_validate.c, the
// used-parameters writer in src/case_print.c.
// One table, keys[], lists every key with its type and allowed range; the file walker and
// tide_case_set() both go through it, so a file and an override can never disagree on what is
// valid.  Every error is one sentence: where (file:line, or the --set text), which key, what is
// allowed.  The format is documented in docs/case-format.md.
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>
#include "tide/case.h"
#include "case_ctx.h"
#include "case_load.h"
#include "tide/decomposition.h"
#include "geometry_fill.h"
#include "log.h"
#include "run_dir.h"
#include "tide/sph_kernel.h"
#include "tide/sph_sim.h"
#include "tide/sink.h"      /* TIDE_SINK_MAX */

enum kind { K_SECTION, K_LIST, K_NUM, K_INT, K_BOOL, K_STR, K_ENUM, K_POINT };


struct ctx;
typedef int (*list_fn)(struct ctx *, const yaml_node_t *, const char *);

struct key {
	const char *path;
	enum kind kind;
	size_t off;                   /* of the field in tide_case */
	int flags;
	double lo, hi;                /* numeric range, per flags */
	const char *const *names;     /* K_ENUM: names in enum order, NULL-terminated */
	size_t size;                  /* K_STR: buffer size */
	list_fn list;                 /* K_LIST */
};

static int list_fluid(struct ctx *x, const yaml_node_t *v, const char *path);
static int list_obstacles(struct ctx *x, const yaml_node_t *v, const char *path);
static int list_solids(struct ctx *x, const yaml_node_t *v, const char *path);
static int list_volumes(struct ctx *x, const yaml_node_t *v, const char *path);
/* tank.motion: the box tank's walls move as one body (src/case_motion.c) */
static int list_tank_motion(struct ctx *x, const yaml_node_t *v, const char *path)
{
	return tide_case_get_motion(x, v, path, 2, 0);
}
static int list_height(struct ctx *x, const yaml_node_t *v, const char *path);
static int list_pressure(struct ctx *x, const yaml_node_t *v, const char *path);
static int list_velocity(struct ctx *x, const yaml_node_t *v, const char *path);
static int list_spheres(struct ctx *x, const yaml_node_t *v, const char *path);
static int list_output_fields(struct ctx *x, const yaml_node_t *v, const char *path);
static int list_periodic(struct ctx *x, const yaml_node_t *v, const char *path);
static int list_initial_file(struct ctx *x, const yaml_node_t *v, const char *path);
static int list_initial_nbody_file(struct ctx *x, const yaml_node_t *v, const char *path);

const char *const tide_case_kernel_names[] = {"cubic", "wendland", NULL};
const char *const tide_case_integrator_names[] = {"verlet", "symplectic", NULL};
const char *const tide_case_diffusion_names[] = {"none", "molteni", "fourtakas", NULL};
const char *const tide_case_eos_names[] = {"tait", "isothermal", NULL};
const char *const tide_case_boundary_names[] = {"dbc", "mdbc", NULL};
const char *const tide_case_mdbc_slip_names[] = {"vel0", "noslip", "freeslip", NULL};
/* enum tide_viscosity */
const char *const tide_case_viscosity_names[] = {"artificial", "laminar", "laminar+sps", NULL};
const char *const tide_case_scheme_names[] = {"wcsph", "gas", NULL};      /* enum tide_scheme */
const char *const tide_case_gas_eos_names[] = {"ideal", "isothermal", "barotropic", NULL};
const char *const tide_case_units_names[] = {"si", "cgs", "code", NULL};    /* enum tide_units */
const char *const tide_case_format_names[] = {"vtp", "hdf5", "both", "swift", NULL};
const char *const tide_case_precision_names[] = {"double", "single", NULL};
const char *const tide_case_owners_names[] = {"boxes", "hilbert", NULL}; /* enum tide_block_owners */
const char *const tide_output_field_names[] = {"position", "velocity", "density", "pressure",
                                               "type", "id", "internal_energy",
                                               "smoothing_length", "sound_speed", "mass", "body", NULL};
const char *const tide_case_gauge_mode_names[] = {"column", "highest", NULL}; /* enum tide_gauge_mode */
/* enum tide_gen_type ("none" is the default, not a value a case gives: the list starts after it) */
const char *const tide_gen_type_names[] = {"none", "shock_tube", "sedov", "evrard", "uniform_sphere",
                                           "top_hat", NULL};
const char *const tide_case_axis_names[] = {"x", "y", "z", NULL};
const char *const tide_gen_positions_names[] = {"lattice", "glass", NULL};

#define OFF(f) offsetof(tide_case, f)
#define SZ(f) sizeof(((tide_case *)0)->f)
#define NUM(p, f, fl, a, b) {p, K_NUM, OFF(f), fl, a, b, NULL, 0, NULL}
#define INT(p, f, fl, a, b) {p, K_INT, OFF(f), fl, a, b, NULL, 0, NULL}
#define ENUM(p, f, n) {p, K_ENUM, OFF(f), 0, 0, 0, n, 0, NULL}
#define POINT(p, f, fl) {p, K_POINT, OFF(f), fl, 0, 0, NULL, 0, NULL}
#define SECTION(p) {p, K_SECTION, 0, 0, 0, 0, NULL, 0, NULL}
#define LIST(p, fn, fl) {p, K_LIST, 0, fl, 0, 0, NULL, 0, fn}
#define STR(p, f) {p, K_STR, OFF(f), 0, 0, 0, NULL, SZ(f), NULL}

static const struct key keys[] = {
	STR("name", name),
	STR("description", description),
	INT("dim", dim, R_GE | R_LE, 2, 3),
	NUM("dp", dp, R_GT | REQ, 0, 0),
	NUM("coefh", coefh, R_GE | R_LE, 0.5, 4),
	SECTION("domain"),
	POINT("domain.lo", domain.lo, REQ_IN),
	POINT("domain.hi", domain.hi, REQ_IN),
	LIST("periodic", list_periodic, 0),
	SECTION("tank"),
	POINT("tank.lo", tank.box.lo, REQ_IN),
	POINT("tank.hi", tank.box.hi, REQ_IN),
	{"tank.open_top", K_BOOL, OFF(tank.open_top), 0, 0, 0, NULL, 0, NULL},
	INT("tank.layers", tank.layers, R_GE | R_LE, 1, 8),
	LIST("tank.motion", list_tank_motion, 0),
	LIST("fluid", list_fluid, 0),       /* fluid or fluid_spheres is required */
	LIST("fluid_spheres", list_spheres, 0),
	LIST("obstacles", list_obstacles, 0),
	LIST("solids", list_solids, 0),
	LIST("fluid_volumes", list_volumes, 0),
	ENUM("units", units, tide_case_units_names),
	SECTION("physics"),
	ENUM("physics.scheme", scheme, tide_case_scheme_names),
	ENUM("physics.kernel", kernel, tide_case_kernel_names),
	ENUM("physics.eos", eos, tide_case_eos_names),
	ENUM("physics.boundary", boundary, tide_case_boundary_names),
	ENUM("physics.mdbc_slip", mdbc_slip, tide_case_mdbc_slip_names),
	NUM("physics.cs_iso", cs_iso, R_GT, 0, 0),
	NUM("physics.rho0", rho0, R_GT, 0, 0),
	NUM("physics.gamma", gamma, R_GE | R_LE, 1, 10),
	NUM("physics.coefsound", coefsound, R_GT, 0, 0),
	NUM("physics.hswl", hswl, R_GT, 0, 0),
	NUM("physics.visco", visco, R_GE | R_LE, 0, 1),
	ENUM("physics.viscosity", viscosity, tide_case_viscosity_names),
	NUM("physics.nu", nu, R_GE | R_LE, 0, 1e3),
	NUM("physics.sps_cs", sps_cs, R_GE | R_LE, 0, 1),
	NUM("physics.sps_ci", sps_ci, R_GE | R_LE, 0, 1),
	ENUM("physics.diffusion", diffusion, tide_case_diffusion_names),
	NUM("physics.delta", delta, R_GE | R_LE, 0, 1),
	POINT("physics.gravity", gravity, 0),
	NUM("physics.cfl", cfl, R_GT | R_LE, 0, 1),
	ENUM("physics.integrator", integrator, tide_case_integrator_names),
	INT("physics.verlet_steps", verlet_steps, R_GE, 1, 0),
	SECTION("physics.self_gravity"),
	NUM("physics.self_gravity.G", self_gravity.G, R_GT, 0, 0),
	NUM("physics.self_gravity.theta", self_gravity.theta, R_GT | R_LE, 0, 1.5),
	NUM("physics.self_gravity.softening", self_gravity.softening, R_GT, 0, 0),
	{"physics.self_gravity.quadrupole", K_BOOL, OFF(self_gravity.quadrupole), 0, 0, 0, NULL, 0, NULL},
	NUM("physics.self_gravity.h_factor", self_gravity.h_factor, R_GE | R_LE, 0, 10),  /* gas only */
	SECTION("gas"),
	ENUM("gas.eos", gas.eos, tide_case_gas_eos_names),
	NUM("gas.gamma", gas.gamma, R_GT | R_LE, 1, 10),
	NUM("gas.cs", gas.cs, R_GT, 0, 0),
	NUM("gas.rho_crit", gas.rho_crit, R_GT, 0, 0),
	NUM("gas.eta", gas.eta, R_GE | R_LE, 0.5, 3),
	NUM("gas.h_tolerance", gas.h_tolerance, R_GT | R_LE, 0, 0.1),
	INT("gas.h_iterations", gas.h_iterations, R_GE | R_LE, 1, 1000),
	NUM("gas.h_max", gas.h_max, R_GT, 0, 0),
	NUM("gas.h_min", gas.h_min, R_GE, 0, 0),
	NUM("gas.h_cell", gas.h_cell, R_GT, 0, 0),
	NUM("gas.alpha_visc", gas.alpha_visc, R_GE | R_LE, 0, 5),
	NUM("gas.beta_visc", gas.beta_visc, R_GE | R_LE, 0, 10),
	NUM("gas.alpha_cond", gas.alpha_cond, R_GE | R_LE, 0, 5),
	NUM("gas.u_min", gas.u_min, R_GE, 0, 0),
	NUM("gas.u", gas.u, R_GE, 0, 0),
	SECTION("initial"),      /* gas only: the particles from a file (src/gas_input.h) */
	LIST("initial.file", list_initial_file, 0),
	LIST("initial.nbody_file", list_initial_nbody_file, 0),
	SECTION("turbulence"),   /* gas only: src/turbulence.h */
	NUM("turbulence.mach", turbulence.mach, R_GE | R_LE, 0, 100),
	NUM("turbulence.slope", turbulence.slope, R_GE | R_LE, -10, 2),
	NUM("turbulence.solenoidal", turbulence.solenoidal, R_GE | R_LE, 0, 1),
	INT("turbulence.seed", turbulence.seed, R_GE, 0, 0),
	INT("turbulence.grid", turbulence.grid, R_GE | R_LE, 8, TIDE_TURB_GRID_MAX),
	/* gas only: generated initial conditions (src/gas_generator.c); which keys each type takes
	 * is checked by tide_case_check_generator (case_validate.c) */
	SECTION("generator"),
	ENUM("generator.type", generator.type, tide_gen_type_names),
	ENUM("generator.axis", generator.axis, tide_case_axis_names),
	NUM("generator.x0", generator.x0, 0, 0, 0),
	SECTION("generator.left"),
	NUM("generator.left.rho", generator.rho[0], R_GT | REQ_IN, 0, 0),
	NUM("generator.left.p", generator.p[0], R_GT | REQ_IN, 0, 0),
	NUM("generator.left.v", generator.v[0], 0, 0, 0),
	SECTION("generator.right"),
	NUM("generator.right.rho", generator.rho[1], R_GT | REQ_IN, 0, 0),
	NUM("generator.right.p", generator.p[1], R_GT | REQ_IN, 0, 0),
	NUM("generator.right.v", generator.v[1], 0, 0, 0),
	INT("generator.fixed_layers", generator.fixed_layers, R_GE | R_LE, 0, 16),
	NUM("generator.E", generator.E, R_GT, 0, 0),
	NUM("generator.r_inj", generator.r_inj, R_GE, 0, 0),
	NUM("generator.half", generator.half, R_GT, 0, 0),
	NUM("generator.rho", generator.rho_gas, R_GT, 0, 0),
	NUM("generator.u", generator.u, R_GE, 0, 0),
	NUM("generator.M", generator.M, R_GT, 0, 0),
	NUM("generator.R", generator.R, R_GT, 0, 0),
	POINT("generator.centre", generator.centre, 0),
	NUM("generator.rho_in", generator.rho_in, R_GT, 0, 0),
	NUM("generator.rho_out", generator.rho_out, R_GT, 0, 0),
	NUM("generator.u_out", generator.u_out, R_GE, 0, 0),
	ENUM("generator.positions", generator.positions, tide_gen_positions_names),
	STR("generator.glass", generator.glass),
	SECTION("sinks"),        /* gas with self-gravity only: include/tide/sink.h */
	NUM("sinks.density_threshold", sinks.density_threshold, R_GT | REQ_IN, 0, 0),
	NUM("sinks.accretion_radius", sinks.accretion_radius, R_GT | REQ_IN, 0, 0),
	NUM("sinks.softening", sinks.softening, R_GE, 0, 0),
	INT("sinks.max", sinks.max, R_GE | R_LE, 1, TIDE_SINK_MAX),
	SECTION("bonnor_ebert"), /* gas only: src/bonnor_ebert.h */
	NUM("bonnor_ebert.xi_max", bonnor_ebert.xi_max, R_GT | R_LE, 0, 50),
	STR("decomposition", decomp),
	ENUM("block_owners", block_owners, tide_case_owners_names),
	SECTION("time"),
	NUM("time.end", t_end, R_GT | REQ, 0, 0),
	NUM("time.output", t_out, R_GT, 0, 0),
	SECTION("output"),
	ENUM("output.format", output_format, tide_case_format_names),
	LIST("output.fields", list_output_fields, 0),
	ENUM("output.precision", output_single, tide_case_precision_names),
	SECTION("gauges"),
	NUM("gauges.every", gauge_every, R_GT, 0, 0),
	ENUM("gauges.mode", gauge_mode, tide_case_gauge_mode_names),
	LIST("gauges.height", list_height, 0),
	LIST("gauges.pressure", list_pressure, 0),
	LIST("gauges.velocity", list_velocity, 0),
	{"gauges.forces", K_BOOL, OFF(gauge_forces), 0, 0, 0, NULL, 0, NULL},
	SECTION("gauges.surge_front"),
	NUM("gauges.surge_front.a", surge_a, R_GT | REQ_IN, 0, 0),
	NUM("gauges.surge_front.x0", surge_x0, 0, 0, 0),
};
#define NKEYS (sizeof keys / sizeof keys[0])
_Static_assert(NKEYS <= TIDE_CASE_MAX_KEYS, "struct ctx (case_ctx.h) needs TIDE_CASE_MAX_KEYS >= the keys");

/* ---- messages ------------------------------------------------------------------------------ */

int tide_case_fail(const struct ctx *x, int line, const char *fmt, ...)
{
	va_list ap;
	if (x->set) fprintf(stderr, "tide: --set %s: ", x->set);
	else if (line > 0) fprintf(stderr, "tide: %s:%d: ", x->file, line);
	else fprintf(stderr, "tide: %s: ", x->file);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

static int line_of(const yaml_node_t *n) { return n ? (int)n->start_mark.line + 1 : 0; }
static const char *text(const yaml_node_t *n) { return (const char *)n->data.scalar.value; }

static const char *leaf_name(const char *path)
{
	const char *d = strrchr(path, '.');
	return d ? d + 1 : path;
}

/* "0 <= visco <= 1", "dp > 0", ... from a key's range flags. */
static void range_text(const struct key *k, char *buf, size_t n)
{
	const char *name = leaf_name(k->path);
	int lo = k->flags & (R_GE | R_GT), hi = k->flags & (R_LE | R_LT);
	if (lo && hi)
		snprintf(buf, n, "%g %s %s %s %g", k->lo, k->flags & R_GT ? "<" : "<=", name,
		         k->flags & R_LT ? "<" : "<=", k->hi);
	else if (lo)
		snprintf(buf, n, "%s %s %g", name, k->flags & R_GT ? ">" : ">=", k->lo);
	else if (hi)
		snprintf(buf, n, "%s %s %g", name, k->flags & R_LT ? "<" : "<=", k->hi);
	else
		snprintf(buf, n, "any finite number");
}

static int type_error(const struct ctx *x, const yaml_node_t *v, const char *path, const char *want)
{
	if (v->type == YAML_SCALAR_NODE)
		return tide_case_fail(x, line_of(v), "key '%s' = '%s' is not %s.", path, text(v), want);
	return tide_case_fail(x, line_of(v), "key '%s' is %s, not %s.", path,
	            v->type == YAML_SEQUENCE_NODE ? "a list" : "a mapping", want);
}

/* ---- scalars ------------------------------------------------------------------------------- */

/* Numbers must be plain YAML scalars: a quoted "0.1" is a string, as YAML itself says. */
static int parse_number(const yaml_node_t *v, double *d)
{
	if (v->type != YAML_SCALAR_NODE || v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return -1;
	const char *s = text(v);
	char *e;
	errno = 0;
	*d = strtod(s, &e);
	return (e == s || *e || errno == ERANGE || !isfinite(*d)) ? -1 : 0;
}

static int in_range(const struct key *k, double d)
{
	if ((k->flags & R_GE) && !(d >= k->lo)) return 0;
	if ((k->flags & R_GT) && !(d > k->lo)) return 0;
	if ((k->flags & R_LE) && !(d <= k->hi)) return 0;
	if ((k->flags & R_LT) && !(d < k->hi)) return 0;
	return 1;
}

static int get_number(struct ctx *x, const struct key *k, const yaml_node_t *v, const char *path,
                      int integer, double *d)
{
	char r[96], want[160];
	range_text(k, r, sizeof r);
	snprintf(want, sizeof want, "%s (allowed: %s)", integer ? "an integer" : "a number", r);
	if (parse_number(v, d) || (integer && (*d != floor(*d) || fabs(*d) > 1e9)))
		return type_error(x, v, path, want);
	if (!in_range(k, *d))
		return tide_case_fail(x, line_of(v), "key '%s' = %s is out of range; allowed: %s.", path, text(v), r);
	return 0;
}

static int get_bool(struct ctx *x, const yaml_node_t *v, const char *path, int *b)
{
	if (v->type == YAML_SCALAR_NODE && v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		if (!strcmp(text(v), "true")) { *b = 1; return 0; }
		if (!strcmp(text(v), "false")) { *b = 0; return 0; }
	}
	return type_error(x, v, path, "a boolean (allowed: true, false)");
}

static int get_string(struct ctx *x, const yaml_node_t *v, const char *path, char *dst, size_t size)
{
	if (v->type != YAML_SCALAR_NODE) return type_error(x, v, path, "a string");
	size_t n = strlen(text(v));
	if (n >= size)
		return tide_case_fail(x, line_of(v), "key '%s' is too long (%zu characters); allowed: at most %zu.",
		            path, n, size - 1);
	memcpy(dst, text(v), n + 1);
	return 0;
}

static int get_enum(struct ctx *x, const struct key *k, const yaml_node_t *v, const char *path, int *e)
{
	char allowed[128] = "";
	for (int i = 0; k->names[i]; i++) {
		if (v->type == YAML_SCALAR_NODE && !strcmp(text(v), k->names[i])) { *e = i; return 0; }
		strcat(allowed, i ? ", " : "");
		strcat(allowed, k->names[i]);
	}
	if (v->type != YAML_SCALAR_NODE) return type_error(x, v, path, "a name");
	return tide_case_fail(x, line_of(v), "key '%s' = '%s' is not allowed; allowed: %s.", path, text(v), allowed);
}

/* ---- coordinates ------------------------------------------------------------------------- */

/* A list of m numbers stored into out[axes[j]]; the components not given become 0. */
static int get_coords(struct ctx *x, const yaml_node_t *v, const char *path, int m, const int *axes,
                      const char *shape, double *out)
{
	char want[96], p[160];
	snprintf(want, sizeof want, "a list of %d number%s %s", m, m > 1 ? "s" : "", shape);
	if (v->type != YAML_SEQUENCE_NODE) return type_error(x, v, path, want);
	yaml_node_item_t *it = v->data.sequence.items.start;
	int n = (int)(v->data.sequence.items.top - it);
	if (n != m)
		return tide_case_fail(x, line_of(v), "key '%s' has %d value%s; expected %s (this is a %d-D case).",
		            path, n, n == 1 ? "" : "s", want, x->c->dim);
	double tmp[3] = {0, 0, 0};
	for (int j = 0; j < m; j++) {
		const yaml_node_t *e = yaml_document_get_node(x->doc, it[j]);
		snprintf(p, sizeof p, "%s[%d]", path, j);
		if (parse_number(e, &tmp[axes[j]])) return type_error(x, e, p, "a number");
	}
	memcpy(out, tmp, sizeof tmp);
	return 0;
}

static int get_point(struct ctx *x, const yaml_node_t *v, const char *path, double *out)
{
	int d = x->c->dim;
	return get_coords(x, v, path, d, axes_of(d), d == 2 ? "[x, z]" : "[x, y, z]", out);
}

/* ---- for the other readers of list items (case_motion.c), through case_ctx.h -------------- */

int tide_case_get_num(struct ctx *x, const yaml_node_t *v, const char *path, int flags, double lo,
                      double hi, double *d)
{
	const struct key k = {leaf_name(path), K_NUM, 0, flags, lo, hi, NULL, 0, NULL};
	return get_number(x, &k, v, path, 0, d);
}

int tide_case_get_vec(struct ctx *x, const yaml_node_t *v, const char *path, double out[3])
{
	return get_point(x, v, path, out);
}

int tide_case_get_name(struct ctx *x, const yaml_node_t *v, const char *path,
                       const char *const *names, int *e)
{
	const struct key k = {leaf_name(path), K_ENUM, 0, 0, 0, 0, names, 0, NULL};
	return get_enum(x, &k, v, path, e);
}

int tide_case_line_of(const yaml_node_t *n) { return line_of(n); }

/* ---- key lookup and the mapping walker ----------------------------------------------------- */

int tide_case_find_key(const char *path)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (!strcmp(keys[i].path, path)) return (int)i;
	return -1;
}

const char *tide_case_key_path(int k) { return k >= 0 && (size_t)k < NKEYS ? keys[k].path : NULL; }

/* Is key k a direct child of section prefix ("" = the top level)? */
static int child_of(const struct key *k, const char *prefix)
{
	size_t n = strlen(prefix);
	if (n && (strncmp(k->path, prefix, n) || k->path[n] != '.')) return 0;
	return !strchr(k->path + (n ? n + 1 : 0), '.');
}

static int unknown_key(struct ctx *x, int line, const char *prefix, const char *path)
{
	char allowed[512] = "";
	for (size_t i = 0; i < NKEYS; i++) {
		if (!child_of(&keys[i], prefix)) continue;
		if (*allowed) strcat(allowed, ", ");
		strcat(allowed, leaf_name(keys[i].path));
	}
	if (*prefix)
		return tide_case_fail(x, line, "unknown key '%s'; allowed in '%s': %s.", path, prefix, allowed);
	return tide_case_fail(x, line, "unknown key '%s'; allowed at the top level: %s.", path, allowed);
}

static int walk(struct ctx *x, const yaml_node_t *map, const char *prefix);

static int apply(struct ctx *x, int i, const yaml_node_t *v, const char *path)
{
	const struct key *k = &keys[i];
	void *dst = (char *)x->c + k->off;
	double d;
	switch (k->kind) {
	case K_SECTION:
		/* Being present is meaningful for these sections. */
		if (!strcmp(path, "tank")) x->c->tank.present = 1;
		if (!strcmp(path, "gauges.surge_front")) x->c->surge_front = 1;
		if (!strcmp(path, "turbulence")) x->c->turbulence.on = 1;
		if (!strcmp(path, "sinks")) x->c->sinks.on = 1;
		if (!strcmp(path, "bonnor_ebert")) {
			x->c->bonnor_ebert.on = 1;
			/* "bonnor_ebert:" alone (null) turns it on with the critical xi_max */
			if (v->type == YAML_SCALAR_NODE && (!*text(v) || !strcmp(text(v), "~") ||
			                                    !strcmp(text(v), "null")))
				return 0;
		}
		if (!strcmp(path, "physics.self_gravity")) {
			x->c->self_gravity.on = 1;
			/* "self_gravity:" alone (null) turns it on with the defaults */
			if (v->type == YAML_SCALAR_NODE && v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
			    (!*text(v) || !strcmp(text(v), "~") || !strcmp(text(v), "null")))
				return 0;
		}
		return walk(x, v, path);
	case K_LIST: return k->list(x, v, path);
	case K_NUM:
		if (get_number(x, k, v, path, 0, &d)) return -1;
		*(double *)dst = d;
		return 0;
	case K_INT:
		if (get_number(x, k, v, path, 1, &d)) return -1;
		*(int *)dst = (int)d;
		return 0;
	case K_BOOL: return get_bool(x, v, path, dst);
	case K_STR:
		if (get_string(x, v, path, dst, k->size)) return -1;
		if (!strcmp(path, "decomposition")) {
			char err[200];
			if (tide_decomp_check(dst, err, sizeof err))
				return tide_case_fail(x, line_of(v), "key 'decomposition': %s.", err);
		}
		char why[64];
		if (!strcmp(path, "name") && tide_run_name_check(dst, why, sizeof why))
			return tide_case_fail(x, line_of(v), "key 'name': '%s' %s; allowed: %s.", dst, why,
			            TIDE_RUN_NAME_RULE);
		return 0;
	case K_ENUM: return get_enum(x, k, v, path, dst);
	case K_POINT: return get_point(x, v, path, dst);
	}
	return -1;
}

/* Checks that map is a mapping whose keys are plain, distinct scalars. */
static int check_mapping(struct ctx *x, const yaml_node_t *map, const char *path, const char *what)
{
	if (map->type != YAML_MAPPING_NODE) {
		char want[160];
		snprintf(want, sizeof want, "a mapping of %s", what);
		return *path ? type_error(x, map, path, want)
		             : tide_case_fail(x, line_of(map), "the file must be a mapping of case keys.");
	}
	yaml_node_pair_t *a = map->data.mapping.pairs.start, *top = map->data.mapping.pairs.top;
	for (yaml_node_pair_t *p = a; p < top; p++) {
		const yaml_node_t *k = yaml_document_get_node(x->doc, p->key);
		if (k->type != YAML_SCALAR_NODE)
			return tide_case_fail(x, line_of(k), "a key in '%s' is not a plain word; allowed: key names.",
			            *path ? path : "the top level");
		for (yaml_node_pair_t *q = a; q < p; q++)
			if (!strcmp(text(yaml_document_get_node(x->doc, q->key)), text(k)))
				return tide_case_fail(x, line_of(k), "key '%s%s%s' appears twice; allowed: once.", path,
				            *path ? "." : "", text(k));
	}
	return 0;
}

static int walk(struct ctx *x, const yaml_node_t *map, const char *prefix)
{
	if (check_mapping(x, map, prefix, "keys")) return -1;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(x->doc, p->key);
		const yaml_node_t *v = yaml_document_get_node(x->doc, p->value);
		char path[160];
		snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "." : "", text(k));
		int i = tide_case_find_key(path);
		if (i < 0) return unknown_key(x, line_of(k), prefix, path);
		x->seen[i] = 1;
		x->line[i] = line_of(k);
		if (apply(x, i, v, path)) return -1;
	}
	return 0;
}

/* ---- lists ---------------------------------------------------------------------------------- */

/* An item of a list: a mapping with keys only from names[]; val[j] is NULL when absent. */
static int get_fields(struct ctx *x, const yaml_node_t *item, const char *path,
                      const char *const *names, const yaml_node_t **val)
{
	char allowed[256] = "";
	for (int j = 0; names[j]; j++) {
		val[j] = NULL;
		strcat(allowed, j ? ", " : "");
		strcat(allowed, names[j]);
	}
	if (check_mapping(x, item, path, allowed)) return -1;
	for (yaml_node_pair_t *p = item->data.mapping.pairs.start; p < item->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(x->doc, p->key);
		int j = 0;
		while (names[j] && strcmp(names[j], text(k))) j++;
		if (!names[j])
			return tide_case_fail(x, line_of(k), "unknown key '%s.%s'; allowed: %s.", path, text(k), allowed);
		val[j] = yaml_document_get_node(x->doc, p->value);
	}
	return 0;
}

int tide_case_get_fields(struct ctx *x, const yaml_node_t *item, const char *path,
                         const char *const *names, const yaml_node_t **val)
{
	return get_fields(x, item, path, names, val);
}

static int get_items(struct ctx *x, const yaml_node_t *seq, const char *path, const char *what,
                     yaml_node_item_t **start, int *n)
{
	if (seq->type != YAML_SEQUENCE_NODE) return type_error(x, seq, path, what);
	*start = seq->data.sequence.items.start;
	*n = (int)(seq->data.sequence.items.top - *start);
	if (*n > TIDE_CASE_MAX_ITEMS)
		return tide_case_fail(x, line_of(seq), "key '%s' has %d entries; allowed: at most %d.", path, *n,
		            TIDE_CASE_MAX_ITEMS);
	return 0;
}

/* Item i of a list of mappings: its path p ("fluid[2]"), its fields val[] by names[], of which
 * the first nreq are required. */
static int get_item(struct ctx *x, yaml_node_item_t *it, int i, const char *path,
                    const char *const *names, int nreq, const yaml_node_t **val, int *line,
                    char p[160])
{
	const yaml_node_t *item = yaml_document_get_node(x->doc, it[i]);
	snprintf(p, 160, "%s[%d]", path, i);
	if (get_fields(x, item, p, names, val)) return -1;
	for (int j = 0; j < nreq; j++)
		if (!val[j]) return tide_case_fail(x, line_of(item), "missing required key '%s.%s'.", p, names[j]);
	*line = line_of(item);
	return 0;
}

/* Boxes {lo, hi}; obstacles (box == c->obstacle) may also have a motion (case_motion.c). */
static int get_boxes(struct ctx *x, const yaml_node_t *seq, const char *path, tide_box *box,
                     int *count, int *lines)
{
	static const char *const fixed[] = {"lo", "hi", NULL},
	                         *const moving[] = {"lo", "hi", "motion", "floating", NULL};
	int obstacles = box == x->c->obstacle;
	yaml_node_item_t *it = NULL;
	int n = 0;
	if (get_items(x, seq, path, "a list of boxes {lo: [...], hi: [...]}", &it, &n)) return -1;
	for (int i = 0; i < n; i++) {
		const yaml_node_t *v[4];
		char p[160], q[176];
		if (get_item(x, it, i, path, obstacles ? moving : fixed, 2, v, &lines[i], p)) return -1;
		for (int j = 0; j < 2; j++) {
			snprintf(q, sizeof q, "%s.%s", p, fixed[j]);
			if (get_point(x, v[j], q, j ? box[i].hi : box[i].lo)) return -1;
		}
		snprintf(q, sizeof q, "%s.motion", p);
		if (obstacles && v[2] && tide_case_get_motion(x, v[2], q, 0, i)) return -1;
		snprintf(q, sizeof q, "%s.floating", p);
		if (obstacles && v[3] && tide_case_get_floating(x, v[3], q, 0, i)) return -1;
	}
	*count = n;
	return 0;
}

static int list_fluid(struct ctx *x, const yaml_node_t *v, const char *path)
{
	return get_boxes(x, v, path, x->c->fluid, &x->c->nfluid, x->fluid_line);
}

static int list_obstacles(struct ctx *x, const yaml_node_t *v, const char *path)
{
	return get_boxes(x, v, path, x->c->obstacle, &x->c->nobstacle, x->obstacle_line);
}

/* Probes {name, at} (height probes also {mode}): height probes are vertical lines, so 'at' has
 * one number fewer than a point.  Default names: letter and number (H1, P1, U1, ...). */
static int get_probes(struct ctx *x, const yaml_node_t *seq, const char *path, char letter,
                      tide_probe *pr, int *count, int *lines)
{
	static const char *const names_h[] = {"name", "at", "mode", NULL};
	static const char *const names_p[] = {"name", "at", NULL};
	static const struct key mode = ENUM("mode", gauge_mode, tide_case_gauge_mode_names);
	static const int axes_h3[] = {0, 1}, axes_h2[] = {0};
	int height = letter == 'H';
	int d = x->c->dim, m = height ? d - 1 : d;
	const int *axes = height ? (d == 2 ? axes_h2 : axes_h3) : axes_of(d);
	const char *shape = height ? (d == 2 ? "[x]" : "[x, y]") : (d == 2 ? "[x, z]" : "[x, y, z]");
	yaml_node_item_t *it = NULL;
	int n = 0;
	if (get_items(x, seq, path, "a list of probes {name: ..., at: [...]}", &it, &n)) return -1;
	for (int i = 0; i < n; i++) {
		const yaml_node_t *item = yaml_document_get_node(x->doc, it[i]), *v[3];
		char p[160], q[176];
		snprintf(p, sizeof p, "%s[%d]", path, i);
		if (get_fields(x, item, p, height ? names_h : names_p, v)) return -1;
		snprintf(pr[i].name, sizeof pr[i].name, "%c%d", letter, i + 1);
		snprintf(q, sizeof q, "%s.name", p);
		if (v[0] && get_string(x, v[0], q, pr[i].name, sizeof pr[i].name)) return -1;
		snprintf(q, sizeof q, "%s.at", p);
		if (!v[1]) return tide_case_fail(x, line_of(item), "missing required key '%s'.", q);
		if (get_coords(x, v[1], q, m, axes, shape, pr[i].p)) return -1;
		pr[i].mode = -1;
		snprintf(q, sizeof q, "%s.mode", p);
		if (height && v[2] && get_enum(x, &mode, v[2], q, &pr[i].mode)) return -1;
		lines[i] = line_of(item);
	}
	*count = n;
	return 0;
}

static int list_height(struct ctx *x, const yaml_node_t *v, const char *path)
{
	return get_probes(x, v, path, 'H', x->c->height, &x->c->nheight, x->height_line);
}

static int list_pressure(struct ctx *x, const yaml_node_t *v, const char *path)
{
	return get_probes(x, v, path, 'P', x->c->pressure, &x->c->npressure, x->pressure_line);
}

static int list_velocity(struct ctx *x, const yaml_node_t *v, const char *path)
{
	return get_probes(x, v, path, 'U', x->c->velocity, &x->c->nvelocity, x->velocity_line);
}

/* output.fields: a list of array names; position is required (it places the particles). */
/* periodic: [x] / [x, y] / [] or {x: true, y: false}: the periodic axes. */
static int list_periodic(struct ctx *x, const yaml_node_t *v, const char *path)
{
	static const char *const want = "a list of axes or a mapping of booleans (allowed: [x], "
	                                "[y], [x, y], [] or {x: true|false, y: true|false})";
	x->c->periodic = 0;
	if (v->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
			const yaml_node_t *a = yaml_document_get_node(x->doc, *it);
			int bit = a->type != YAML_SCALAR_NODE ? 0 : !strcmp(text(a), "x") ? 1 : !strcmp(text(a), "y") ? 2 : 0;
			if (!bit) {
				if (a->type != YAML_SCALAR_NODE) return type_error(x, a, path, want);
				return tide_case_fail(x, line_of(a), "key '%s' names axis '%s'; allowed: x, y (z, the "
				            "direction of gravity, cannot be periodic).", path, text(a));
			}
			x->c->periodic |= bit;
		}
		return 0;
	}
	if (v->type != YAML_MAPPING_NODE) return type_error(x, v, path, want);
	if (check_mapping(x, v, path, "x, y")) return -1;
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(x->doc, p->key);
		const yaml_node_t *b = yaml_document_get_node(x->doc, p->value);
		int bit = !strcmp(text(k), "x") ? 1 : !strcmp(text(k), "y") ? 2 : 0, on = 0;
		char q[64];
		if (!bit)
			return tide_case_fail(x, line_of(k), "unknown key '%s.%s'; allowed: x, y.", path, text(k));
		snprintf(q, sizeof q, "%s.%s", path, text(k));
		if (get_bool(x, b, q, &on)) return -1;
		if (on) x->c->periodic |= bit;
	}
	return 0;
}

static int list_output_fields(struct ctx *x, const yaml_node_t *seq, const char *path)
{
	char allowed[128] = "";
	for (int i = 0; tide_output_field_names[i]; i++) {
		strcat(allowed, i ? ", " : "");
		strcat(allowed, tide_output_field_names[i]);
	}
	if (seq->type != YAML_SEQUENCE_NODE)
		return type_error(x, seq, path, "a list of fields (allowed in it: position, velocity, "
		                  "density, pressure, type, id)");
	unsigned mask = 0;
	for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top;
	     it++) {
		const yaml_node_t *v = yaml_document_get_node(x->doc, *it);
		int f = -1;
		for (int i = 0; v && v->type == YAML_SCALAR_NODE && tide_output_field_names[i]; i++)
			if (!strcmp(text(v), tide_output_field_names[i])) f = i;
		if (f < 0)
			return v && v->type == YAML_SCALAR_NODE
			       ? tide_case_fail(x, line_of(v), "key '%s' lists '%s', which is not a field; allowed: "
			              "%s.", path, text(v), allowed)
			       : tide_case_fail(x, line_of(v), "key '%s' holds something other than a field name; "
			              "allowed: %s.", path, allowed);
		mask |= 1u << f;
	}
	if (!(mask & TIDE_OUT_POSITION))
		return tide_case_fail(x, line_of(seq), "key '%s' must list position (every particle file places "
		            "its particles); allowed: %s.", path, allowed);
	x->c->output_fields = mask;
	return 0;
}

/* Fluid balls {centre: [...], radius: R, hydrostatic: bool}. */
static int list_spheres(struct ctx *x, const yaml_node_t *seq, const char *path)
{
	static const char *const names[] = {"centre", "radius", "hydrostatic", NULL};
	static const struct key radius = NUM("radius", sphere[0].r, R_GT, 0, 0);
	yaml_node_item_t *it = NULL;
	int n = 0;
	if (get_items(x, seq, path, "a list of spheres {centre: [...], radius: R}", &it, &n)) return -1;
	for (int i = 0; i < n; i++) {
		const yaml_node_t *v[3];
		tide_sphere *s = &x->c->sphere[i];
		char p[160], q[176];
		if (get_item(x, it, i, path, names, 2, v, &x->sphere_line[i], p)) return -1;
		snprintf(q, sizeof q, "%s.centre", p);
		if (get_point(x, v[0], q, s->c)) return -1;
		snprintf(q, sizeof q, "%s.radius", p);
		if (get_number(x, &radius, v[1], q, 0, &s->r)) return -1;
		s->hydrostatic = 0;
		snprintf(q, sizeof q, "%s.hydrostatic", p);
		if (v[2] && get_bool(x, v[2], q, &s->hydrostatic)) return -1;
	}
	x->c->nsphere = n;
	return 0;
}

/* A file named by key q (node v), relative to the case file's directory, kept as an absolute
 * path in out (size bytes); `what` says what the file is in the message when it cannot be
 * opened. */
static int get_path(struct ctx *x, const yaml_node_t *v, const char *q, const char *what,
                    char *out, size_t size)
{
	char rel[1024], full[2100];
	if (get_string(x, v, q, rel, sizeof rel)) return -1;
	const char *slash = strrchr(x->file, '/');
	if (rel[0] == '/' || !slash) snprintf(full, sizeof full, "%s", rel);
	else snprintf(full, sizeof full, "%.*s/%s", (int)(slash - x->file), x->file, rel);
	char *abs = realpath(full, NULL);   /* realpath into a buffer could write PATH_MAX bytes */
	int fits = abs && strlen(abs) < size;
	if (fits) strcpy(out, abs);
	free(abs);
	if (!fits)
		return tide_case_fail(x, line_of(v), "key '%s' = '%s': cannot open '%s': %s; allowed: %s, "
		            "its path relative to the case file's directory.", q, rel, full,
		            strerror(errno), what);
	return 0;
}

/* initial.file: the gas particles from a SWIFT/GADGET HDF5 or a text file (gas_input.h). */
static int list_initial_file(struct ctx *x, const yaml_node_t *v, const char *path)
{
	return get_path(x, v, path, "a SWIFT/GADGET HDF5 file or a text file of x y z m lines",
	                x->c->initial_file, sizeof x->c->initial_file);
}

/* initial.nbody_file: collisionless particles from a text file (gas_input.h). */
static int list_initial_nbody_file(struct ctx *x, const yaml_node_t *v, const char *path)
{
	return get_path(x, v, path, "a text file of x y z m [vx vy vz] lines",
	                x->c->initial_nbody_file, sizeof x->c->initial_nbody_file);
}

/* STL meshes {stl, scale, rotate, translate} (+ layers, closed for solids); the file is
 * relative to the case file's directory and kept as an absolute path. */
static int get_stl_items(struct ctx *x, const yaml_node_t *seq, const char *path, int solid,
                         tide_stl_item *out, int *count, int *lines)
{
	static const char *const names[] = {"stl", "scale", "rotate", "translate", "layers", "closed",
	                                    "motion", "floating", NULL};
	static const char *const vnames[] = {"stl", "scale", "rotate", "translate", NULL};
	static const struct key scale = NUM("scale", dp, R_GT, 0, 0);
	static const struct key layers = INT("layers", dp, R_GE | R_LE, 1, 64);
	yaml_node_item_t *it = NULL;
	int n = 0;
	if (get_items(x, seq, path, "a list of meshes {stl: FILE.stl, ...}", &it, &n)) return -1;
	if (n && x->c->dim != 3)
		return tide_case_fail(x, line_of(seq), "key '%s' needs a 3-D case (STL meshes are 3-D); allowed: dim: 3.",
		            path);
	for (int i = 0; i < n; i++) {
		const yaml_node_t *v[8];
		tide_stl_item *m = &out[i];
		char p[160], q[176];
		if (get_item(x, it, i, path, solid ? names : vnames, 1, v, &lines[i], p)) return -1;
		*m = (tide_stl_item){.scale = 1, .layers = 3, .closed = 1};
		snprintf(q, sizeof q, "%s.stl", p);
		if (get_path(x, v[0], q, "an STL file", m->file, sizeof m->file)) return -1;
		snprintf(q, sizeof q, "%s.scale", p);
		if (v[1] && get_number(x, &scale, v[1], q, 0, &m->scale)) return -1;
		snprintf(q, sizeof q, "%s.rotate", p);
		if (v[2] && get_coords(x, v[2], q, 3, axes3, "[degrees about x, y, z]", m->rotate)) return -1;
		snprintf(q, sizeof q, "%s.translate", p);
		if (v[3] && get_coords(x, v[3], q, 3, axes3, "[x, y, z]", m->translate)) return -1;
		double d;
		snprintf(q, sizeof q, "%s.layers", p);
		if (solid && v[4]) {
			if (get_number(x, &layers, v[4], q, 1, &d)) return -1;
			m->layers = (int)d;
		}
		snprintf(q, sizeof q, "%s.closed", p);
		if (solid && v[5] && get_bool(x, v[5], q, &m->closed)) return -1;
		snprintf(q, sizeof q, "%s.motion", p);
		if (solid && v[6] && tide_case_get_motion(x, v[6], q, 1, i)) return -1;
		snprintf(q, sizeof q, "%s.floating", p);
		if (solid && v[7] && tide_case_get_floating(x, v[7], q, 1, i)) return -1;
	}
	*count = n;
	return 0;
}

static int list_solids(struct ctx *x, const yaml_node_t *v, const char *path)
{
	return get_stl_items(x, v, path, 1, x->c->solid, &x->c->nsolid, x->solid_line);
}

static int list_volumes(struct ctx *x, const yaml_node_t *v, const char *path)
{
	return get_stl_items(x, v, path, 0, x->c->volume, &x->c->nvolume, x->volume_line);
}

/* Each mesh is built once while loading, so that a bad one is refused before any run starts
 * (solids: 0 only measures them, for a derived domain). */
int tide_case_check_meshes(struct ctx *x, int kinds)
{
	char why[512];
	for (int k = 0; k < kinds; k++) {
		int n = k ? x->c->nvolume : x->c->nsolid;
		for (int i = 0; i < n; i++) {
			tide_stl_item *m = k ? &x->c->volume[i] : &x->c->solid[i];
			if (tide_stl_item_check(kinds == 2 ? x->c : NULL, m, k || m->closed, why, sizeof why))
				return tide_case_fail(x, (k ? x->volume_line : x->solid_line)[i], "key '%s[%d].stl': STL file "
				            "'%s' %s.", k ? "fluid_volumes" : "solids", i, m->file, why);
			/* a solid cut by a periodic face would get a wall on the cut and no image across it */
			for (int a = 0; !k && kinds == 2 && a < 2; a++) {
				const tide_case *c = x->c;
				double tol = 1e-6 * (1 + fabs(c->domain.lo[a]) + fabs(c->domain.hi[a]));
				int lo = m->lo[a] <= c->domain.lo[a] + tol, hi = m->hi[a] >= c->domain.hi[a] - tol;
				if ((c->periodic >> a & 1) && (lo || hi))
					return tide_case_fail(x, x->solid_line[i], "key 'solids[%d].stl': STL file '%s' "
					            "reaches the periodic face %c = %g (its box spans %g..%g along %c): "
					            "a solid cut by a periodic face is not supported (its particles would "
					            "form a wall on the cut, and its other side has no image); allowed: "
					            "solids clear of the periodic faces (walls along a periodic axis: "
					            "the tank, built open along it).", i, m->file, "xy"[a],
					            lo ? c->domain.lo[a] : c->domain.hi[a], m->lo[a], m->hi[a], "xy"[a]);
			}
		}
	}
	return 0;
}

/* No domain and no tank: the box of the STL solids (a tank given as a mesh), grown upward by its
 * height as a tank's, so splashes stay inside.  Its faces are the solids' outer faces, which
 * are then dry (geometry_fill.c): a cup-shaped tank's particles lie on its inner side. */
static int solids_domain(struct ctx *x)
{
	tide_case *c = x->c;
	if (tide_case_check_meshes(x, 1)) return -1;
	for (int a = 0; a < 3; a++) {
		c->domain.lo[a] = INFINITY;
		c->domain.hi[a] = -INFINITY;
		for (int i = 0; i < c->nsolid; i++) {
			c->domain.lo[a] = fmin(c->domain.lo[a], c->solid[i].lo[a]);
			c->domain.hi[a] = fmax(c->domain.hi[a], c->solid[i].hi[a]);
		}
	}
	c->domain.hi[2] += c->domain.hi[2] - c->domain.lo[2];
	return 0;
}

/* Keys required always (REQ), or when their section is present (REQ_IN). */
static int check_required(struct ctx *x, double dp_override)
{
	for (size_t i = 0; i < NKEYS; i++) {
		const struct key *k = &keys[i];
		if (x->seen[i] || !(k->flags & (REQ | REQ_IN))) continue;
		if (!strcmp(k->path, "dp") && dp_override > 0) continue;
		int parent = -1, line = 1;
		if (strchr(k->path, '.')) {
			char pp[64];
			snprintf(pp, sizeof pp, "%.*s", (int)(leaf_name(k->path) - 1 - k->path), k->path);
			parent = tide_case_find_key(pp);
		}
		if ((k->flags & REQ_IN) && (parent < 0 || !x->seen[parent])) continue;
		if (parent >= 0 && x->seen[parent]) line = x->line[parent];
		if (k->kind == K_NUM) {
			char r[96];
			range_text(k, r, sizeof r);
			return tide_case_fail(x, line, "missing required key '%s'; allowed: %s%s.", k->path, r,
			            strcmp(k->path, "dp") ? "" : " (or give --dp)");
		}
		return tide_case_fail(x, line, "missing required key '%s'; allowed: a list of %d numbers.", k->path,
		            x->c->dim);
	}
	if (x->c->generator.type != TIDE_GEN_NONE) return 0; /* the generator makes the particles */
	if (x->c->initial_file[0]) return 0; /* the particles come from the file (gas_input.h) */
	if (!x->seen[tide_case_find_key("fluid")] && !x->seen[tide_case_find_key("fluid_spheres")] &&
	    !x->seen[tide_case_find_key("fluid_volumes")])
		return tide_case_fail(x, 1, "missing required key 'fluid'; allowed: a list of 1 to %d boxes "
		            "{lo: [...], hi: [...]} filled with water (or 'fluid_spheres', 'fluid_volumes').",
		            TIDE_CASE_MAX_ITEMS);
	if (x->c->nfluid < 1 && x->c->nsphere < 1 && x->c->nvolume < 1)
		return tide_case_fail(x, x->line[tide_case_find_key(x->seen[tide_case_find_key("fluid")] ? "fluid" : "fluid_spheres")],
		            "key '%s' is empty; allowed: a list of 1 to %d boxes {lo: [...], hi: [...]} "
		            "(or spheres {centre: [...], radius: R} in 'fluid_spheres').",
		            x->seen[tide_case_find_key("fluid")] ? "fluid" : "fluid_spheres", TIDE_CASE_MAX_ITEMS);
	return 0;
}

/* ---- loading -------------------------------------------------------------------------------- */

static void set_defaults(tide_case *c, const char *path)
{
	memset(c, 0, sizeof *c);
	snprintf(c->path, sizeof c->path, "%s", path);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strcspn(base, ".");
	snprintf(c->name, sizeof c->name, "%.*s", (int)(n < sizeof c->name ? n : sizeof c->name - 1), base);
	tide_run_name_fix(c->name, sizeof c->name); /* the name is a directory: runs/NAME */
	c->dim = 3;
	c->dp = 0;
	c->coefh = 2.0;
	c->tank.open_top = 1;
	c->tank.layers = 3;
	c->kernel = TIDE_KERNEL_CUBIC;
	c->rho0 = 1000;
	c->gamma = 7;
	c->coefsound = 20;
	c->visco = 0.1;
	c->viscosity = TIDE_VISC_ARTIFICIAL;
	c->nu = 1e-6; /* water at 20 C */
	c->sps_cs = 0.12;   /* DualSPHysics' SPS constants (Dalrymple & Rogers 2006) */
	c->sps_ci = 0.0066;
	c->diffusion = TIDE_DIFF_NONE;
	c->delta = 0.1;
	c->gravity[2] = -9.81;
	c->cfl = 0.2;
	c->integrator = TIDE_VERLET;
	c->verlet_steps = 40;
	c->eos = TIDE_EOS_TAIT;
	c->boundary = TIDE_BOUNDARY_DBC;
	c->mdbc_slip = TIDE_SLIP_VEL0; /* DualSPHysics' default SlipMode */
	c->self_gravity.G = 6.674e-11;
	c->self_gravity.theta = 0.5;
	c->self_gravity.quadrupole = 1;
	tide_case_gas_defaults(c);
	strcpy(c->decomp, "slabs");
	c->output_fields = TIDE_OUT_ALL_FIELDS;
}

void tide_case_gas_defaults(tide_case *c)
{
	c->scheme = TIDE_SCHEME_WCSPH;
	c->units = TIDE_UNITS_SI;
	c->gas.eos = TIDE_GAS_IDEAL;
	c->gas.gamma = 5.0 / 3.0;
	c->gas.cs = 1.0;
	c->gas.rho_crit = 1e-13;   /* g/cm^3 of the first core in star formation; in the case's units */
	c->gas.eta = 1.2;          /* about 58 neighbours of the cubic spline in 3-D (Price 2012) */
	c->gas.h_tolerance = 1e-4;
	c->gas.h_iterations = 30;
	c->gas.h_max = 0;          /* 4 eta dp (tide_case_gas_h_max) */
	c->gas.h_min = 0;
	c->gas.h_cell = 0;         /* eta dp, at most h_max (tide_case_gas_h_cell) */
	c->gas.alpha_visc = 1.0;   /* Monaghan 1997 with the Balsara switch */
	c->gas.beta_visc = 2.0;
	c->gas.alpha_cond = 1.0;   /* Price 2008 */
	c->gas.u_min = 0;
	c->gas.u = 1.0;
	c->turbulence.mach = 1.0;
	c->turbulence.slope = -4.0;       /* Burgers: E(k) ~ k^-2 (Bate et al. 2003) */
	c->turbulence.solenoidal = 0.5;   /* the natural mix of an unprojected field */
	c->turbulence.seed = 1;
	c->turbulence.grid = 64;
	c->sinks.softening = 0;          /* the accretion radius */
	c->sinks.max = TIDE_SINK_MAX;
	c->bonnor_ebert.xi_max = 6.451;  /* the critical Bonnor-Ebert sphere */
	c->generator.type = TIDE_GEN_NONE;
	c->generator.axis = 2;
	c->generator.fixed_layers = 3;
	c->generator.u_out = -1;   /* pressure equilibrium */
}

/* dim decides how many numbers every point has, so it is read before anything else. */
static int read_dim(struct ctx *x, const yaml_node_t *root)
{
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(x->doc, p->key);
		if (!strcmp(text(k), "dim"))
			return apply(x, tide_case_find_key("dim"), yaml_document_get_node(x->doc, p->value), "dim");
	}
	return 0;
}

static int finish_load(struct ctx *x, double dp_override)
{
	tide_case *c = x->c;
	if (dp_override > 0) c->dp = dp_override;
	if (check_required(x, dp_override) || tide_case_check_surge(x) || tide_case_check_output(x) ||
	    tide_case_check_initial(x))
		return -1;
	if (!x->seen[tide_case_find_key("domain")]) {
		if (!c->tank.present && !c->nsolid)
			return tide_case_fail(x, 1, "missing required key 'domain'; allowed: a domain {lo, hi}, or a "
			            "tank {lo, hi} or STL solids from which the domain is derived.");
		if (c->tank.present) {
			if (tide_case_check_box(x, x->line[tide_case_find_key("tank")], "tank", &c->tank.box)) return -1;
			c->domain = tide_case_default_domain(c);
		} else if (solids_domain(x)) return -1;
	}
	if (!x->seen[tide_case_find_key("time.output")]) c->t_out = c->t_end / 50;
	if (tide_case_check_geometry(x)) return -1;
	if (!x->seen[tide_case_find_key("physics.hswl")]) c->hswl = tide_case_default_hswl(c);
	if (tide_case_check_physics(x)) return -1;
	return tide_case_derive(x);
}

static int load_root(struct ctx *x, const yaml_node_t *root, double dp_override)
{
	if (!root)
		return tide_case_fail(x, 0, "the file is empty; expected a mapping with at least 'dp', 'fluid' and "
		            "'time'.");
	if (check_mapping(x, root, "", "keys") || read_dim(x, root) || walk(x, root, "")) return -1;
	return finish_load(x, dp_override);
}

static int syntax_error(const struct ctx *x, const yaml_parser_t *p)
{
	if (p->error == YAML_READER_ERROR)
		return tide_case_fail(x, 0, "cannot read the case file: %s.", p->problem ? p->problem : "read error");
	if (p->error == YAML_MEMORY_ERROR) return tide_case_fail(x, 0, "out of memory while parsing.");
	if (p->context)
		return tide_case_fail(x, (int)p->problem_mark.line + 1, "YAML syntax error: %s (%s on line %d).",
		            p->problem, p->context, (int)p->context_mark.line + 1);
	return tide_case_fail(x, (int)p->problem_mark.line + 1, "YAML syntax error: %s.",
	            p->problem ? p->problem : "unknown problem");
}

int tide_case_load(const char *path, double dp_override, tide_case *c)
{
	struct ctx x = {.file = path, .c = c};
	set_defaults(c, path);
	/* fopen opens a directory too (reading it fails later with a vague "input error") */
	struct stat sb;
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		fprintf(stderr, "tide: '%s' is a directory, not a case file; give a YAML case file such "
		        "as cases/dambreak2d.yaml (tide cases lists the shipped cases).\n", path);
		return -1;
	}
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "tide: cannot open case file '%s': %s; check the path (tide cases lists "
		        "the shipped cases).\n", path, strerror(errno));
		return -1;
	}
	yaml_parser_t p;
	yaml_document_t doc;
	int rc;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_file(&p, f);
	if (!yaml_parser_load(&p, &doc)) {
		rc = syntax_error(&x, &p);
	} else {
		x.doc = &doc;
		rc = load_root(&x, yaml_document_get_root_node(&doc), dp_override);
		yaml_document_delete(&doc);
		/* a second document ("---" and more keys) would be ignored silently */
		if (!rc && !yaml_parser_load(&p, &doc)) {
			rc = syntax_error(&x, &p);
		} else if (!rc) {
			const yaml_node_t *r = yaml_document_get_root_node(&doc);
			/* an empty one (a trailing "---") holds nothing to ignore */
			int empty = !r || (r->type == YAML_SCALAR_NODE &&
			                   (!r->data.scalar.length || !strcmp(text(r), "~") || !strcmp(text(r), "null")));
			if (!empty)
				rc = tide_case_fail(&x, (int)doc.start_mark.line + 1, "a second YAML document starts here; "
				          "a case file holds one document (one mapping of keys): remove the '---' "
				          "line and what follows, or move it to a file of its own.");
			yaml_document_delete(&doc);
		}
	}
	yaml_parser_delete(&p);
	fclose(f);
	if (!rc) tide_sim_set_aux(c); /* the blocks' aux fields follow the case's scheme (block.h) */
	return rc;
}

/* ---- --set ---------------------------------------------------------------------------------- */

/* Applies value v of key to x->c (a copy of old); then re-derives what followed from the old
 * parameters and re-runs the whole-case checks. */
static int set_value(struct ctx *x, const tide_case *old, const char *key, const yaml_node_t *v)
{
	tide_case *c = x->c;
	int i = tide_case_find_key(key);
	char parent[64];
	snprintf(parent, sizeof parent, "%.*s", (int)(leaf_name(key) - key - (strchr(key, '.') != NULL)), key);
	if (i < 0) return unknown_key(x, 0, tide_case_find_key(parent) >= 0 ? parent : "", key);
	if (keys[i].kind == K_SECTION || (keys[i].kind == K_LIST && strcmp(key, "output.fields")) ||
	    !strcmp(key, "dim"))
		return tide_case_fail(x, 0, "key '%s' cannot be changed with --set; allowed: scalar and vector keys "
		            "such as dp, coefh, physics.*, time.*, tank.layers (edit the case file for the "
		            "rest).", key);
	if (!strncmp(key, "tank.", 5) && !old->tank.present)
		return tide_case_fail(x, 0, "key '%s' cannot be set: the case has no tank.", key);
	if (apply(x, i, v, key)) return -1;
	if (!strncmp(key, "gauges.surge_front.", 19)) c->surge_front = 1;
	if (!strncmp(key, "physics.self_gravity.", 21)) c->self_gravity.on = 1;
	if (!strncmp(key, "turbulence.", 11)) c->turbulence.on = 1;
	if (!strncmp(key, "sinks.", 6)) c->sinks.on = 1;
	if (!strncmp(key, "bonnor_ebert.", 13)) c->bonnor_ebert.on = 1;
	/* A domain or hswl that was derived (not given) follows the parameters it came from. */
	if (tide_case_derived_domain(old) && strncmp(key, "domain.", 7)) c->domain = tide_case_default_domain(c);
	if (old->hswl == tide_case_default_hswl(old) && strcmp(key, "physics.hswl")) c->hswl = tide_case_default_hswl(c);
	if (tide_case_check_surge(x) || tide_case_check_output(x) || tide_case_check_initial(x) ||
	    tide_case_check_geometry(x) || tide_case_check_physics(x))
		return -1;
	return tide_case_derive(x);
}

static void trim(char *s)
{
	size_t n = strlen(s), a = strspn(s, " \t");
	while (n > a && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
	memmove(s, s + a, n - a);
	s[n - a] = 0;
}

int tide_case_set(tide_case *c, const char *assignment)
{
	struct ctx x = {.set = assignment};
	const char *eq = strchr(assignment, '=');
	char key[128], val[1024];
	if (!eq || (size_t)(eq - assignment) >= sizeof key || strlen(eq + 1) >= sizeof val)
		return tide_case_fail(&x, 0, "expected key=value, e.g. physics.visco=0.05.");
	snprintf(key, sizeof key, "%.*s", (int)(eq - assignment), assignment);
	snprintf(val, sizeof val, "%s", eq + 1);
	trim(key);
	trim(val);
	if (!*key || !*val) return tide_case_fail(&x, 0, "expected key=value, e.g. physics.visco=0.05.");

	/* The value is parsed as YAML, so "[0, -9.81]" is a list exactly as in a file. */
	yaml_parser_t p;
	yaml_document_t doc;
	int rc;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)val, strlen(val));
	if (!yaml_parser_load(&p, &doc)) {
		rc = tide_case_fail(&x, 0, "the value is not valid YAML: %s.", p.problem ? p.problem : "parse error");
	} else {
		tide_case tmp = *c;
		x.doc = &doc;
		x.c = &tmp;
		rc = set_value(&x, c, key, yaml_document_get_root_node(&doc));
		if (!rc) *c = tmp;
		yaml_document_delete(&doc);
	}
	yaml_parser_delete(&p);
	return rc;
}
