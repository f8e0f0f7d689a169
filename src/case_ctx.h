/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the case reader (src/case_load.c: the YAML document into the case, key by key) and the
 * case validation (src/case_validate.c: whole-case checks and derived values, after loading and
 * after --set) share: the loading context, its messages and key lookup.  Private to those two. */
#ifndef TIDE_CASE_CTX_H
#define TIDE_CASE_CTX_H
#include <stdio.h>
#include <yaml.h>
#include "tide/case.h"

/* Range flags of numeric keys, and presence rules. */
enum {
	R_GE = 1, R_GT = 2, R_LE = 4, R_LT = 8,
	REQ = 16,     /* always required (dp, fluid, time.end) */
	REQ_IN = 32,  /* required when its parent section is present (tank.lo, ...) */
};

/* At least the number of keys in the table of src/case_load.c (checked there). */
#define TIDE_CASE_MAX_KEYS 128

struct ctx {
	const char *file;             /* loading: the case file */
	const char *set;              /* --set: the assignment (lines are then meaningless) */
	yaml_document_t *doc;
	tide_case *c;
	unsigned char seen[TIDE_CASE_MAX_KEYS];
	int line[TIDE_CASE_MAX_KEYS];              /* line of each key seen, for later whole-case checks */
	int fluid_line[TIDE_CASE_MAX_ITEMS], obstacle_line[TIDE_CASE_MAX_ITEMS];
	int height_line[TIDE_CASE_MAX_ITEMS], pressure_line[TIDE_CASE_MAX_ITEMS];
	int velocity_line[TIDE_CASE_MAX_ITEMS];
	int sphere_line[TIDE_CASE_MAX_ITEMS];
	int solid_line[TIDE_CASE_MAX_ITEMS], volume_line[TIDE_CASE_MAX_ITEMS];
};

/* Axes given in a file: 2-D cases are in the x-z plane, so [x, z] fills components 0 and 2. */
static const int axes2[] = {0, 2}, axes3[] = {0, 1, 2};
static inline const int *axes_of(int dim) { return dim == 2 ? axes2 : axes3; }

/* The names of output.format, in enum order (NULL-terminated). */
extern const char *const tide_case_format_names[];
/* The names of the enum-valued keys, in enum order (NULL-terminated; case_load.c). */
extern const char *const tide_case_kernel_names[];
extern const char *const tide_case_integrator_names[];
extern const char *const tide_case_diffusion_names[];
extern const char *const tide_case_eos_names[];
extern const char *const tide_case_boundary_names[];
extern const char *const tide_case_mdbc_slip_names[];
extern const char *const tide_case_viscosity_names[];
extern const char *const tide_case_scheme_names[];
extern const char *const tide_case_gas_eos_names[];
extern const char *const tide_case_units_names[];
extern const char *const tide_case_precision_names[];
extern const char *const tide_case_owners_names[];
extern const char *const tide_case_gauge_mode_names[];

/* One sentence on stderr: where (file:line, or the --set text), then the message.  Returns -1. */
int tide_case_fail(const struct ctx *x, int line, const char *fmt, ...);
/* The index of key path in the key table, or -1. */
int tide_case_find_key(const char *path);
/* The path of key k of the table ("physics.rho0"), or NULL past its end. */
const char *tide_case_key_path(int k);
/* Builds every STL mesh of the case once (kinds 1: the solids only, to measure them for a
 * derived domain; 2: solids and fluid volumes, checked against the domain), so that a bad one is
 * refused while loading (case_load.c).  0, or -1 after the message. */
int tide_case_check_meshes(struct ctx *x, int kinds);

/* Readers of values for list items outside case_load.c (case_motion.c), with case_load.c's
 * messages: a number in the range of flags (R_*, lo, hi); a point or vector of the case's dim; a
 * name of names[] (its index into *e); the fields of a mapping by names[] (val[j] NULL when
 * absent).  0, or -1 after the message. */
int tide_case_get_num(struct ctx *x, const yaml_node_t *v, const char *path, int flags, double lo,
                      double hi, double *d);
int tide_case_get_vec(struct ctx *x, const yaml_node_t *v, const char *path, double out[3]);
int tide_case_get_name(struct ctx *x, const yaml_node_t *v, const char *path,
                       const char *const *names, int *e);
int tide_case_get_fields(struct ctx *x, const yaml_node_t *item, const char *path,
                         const char *const *names, const yaml_node_t **val);
int tide_case_line_of(const yaml_node_t *n);

/* ---- src/case_motion.c: the motion key of obstacles and solids (0, or -1 after the message) */

/* Reads v, the motion of body item (obstacles[i]: kind 0, solids[i]: kind 1) at path. */
int tide_case_get_motion(struct ctx *x, const yaml_node_t *v, const char *path, int kind, int item);
/* Derives the case's motion table (c->motion) from its motion inputs: segments, and the bodies'
 * particle id ranges (a counting pass of the builder).  After loading and after every --set. */
int tide_case_derive_motion(struct ctx *x);

/* ---- src/case_floating.c: the floating key of obstacles and solids (0, or -1 after the message) */

/* Reads v, the floating key of body item (kind as tide_case_get_motion) at path (after its
 * motion, if any: a body cannot have both). */
int tide_case_get_floating(struct ctx *x, const yaml_node_t *v, const char *path, int kind, int item);
/* Appends the floating bodies to c->motion (after the moving ones) and derives c->rigid, from
 * the bodies' id ranges (tide_case_body_ids). */
int tide_case_derive_floating(struct ctx *x, uint32_t first[2][TIDE_CASE_MAX_ITEMS],
                              uint32_t end[2][TIDE_CASE_MAX_ITEMS]);
/* Writes ", floating: {...}" of floating body k (used_parameters.yaml). */
void tide_case_put_floating(FILE *f, const tide_case *c, int k);

/* Writes ", motion: [{...}, ...]" for the segments [first, first + n) (used_parameters.yaml). */
void tide_case_put_motion(FILE *f, const tide_case *c, int first, int n);
/* The shortest decimal of v that reads back to the same double (case_print.c). */
const char *tide_case_num(double v, char *buf);

/* ---- src/case_validate.c: whole-case checks (0, or -1 after the message) and derived values */

int tide_case_check_box(struct ctx *x, int line, const char *path, const tide_box *b);
int tide_case_check_geometry(struct ctx *x);
int tide_case_check_physics(struct ctx *x);
int tide_case_check_surge(struct ctx *x);
int tide_case_check_output(struct ctx *x);
/* initial.file: a 3-D gas case, without geometry particles or turbulence. */
int tide_case_check_initial(struct ctx *x);
/* c0 from the physics keys (after loading and after every --set). */
int tide_case_derive(struct ctx *x);
/* A bound on how far tank.motion moves a point of the tank's outer box by time.end [m]
 * (src/case_motion.c; 0 for a fixed tank). */
double tide_case_tank_sweep(const tide_case *c, const tide_box *outer);
/* The domain derived from the tank, and the still water level derived from the fluid. */
tide_box tide_case_default_domain(const tide_case *c);
double tide_case_default_hswl(const tide_case *c);
/* Whether the case's domain is the one derived from its tank. */
int tide_case_derived_domain(const tide_case *c);

#endif
