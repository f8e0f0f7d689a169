/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the case reader (src/case_load.c: the YAML document into the case, key by key) and the
 * case validation (src/case_validate.c: whole-case checks and derived values, after loading and
 * after --set) share: the loading context, its messages and key lookup.  Private to those two. */
#ifndef TIDE_CASE_CTX_H
#define TIDE_CASE_CTX_H
#include <yaml.h>
#include "tide/case.h"

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
extern const char *const tide_case_gauge_mode_names[];

/* One sentence on stderr: where (file:line, or the --set text), then the message.  Returns -1. */
int tide_case_fail(const struct ctx *x, int line, const char *fmt, ...);
/* The index of key path in the key table, or -1. */
int tide_case_find_key(const char *path);
/* Builds every STL mesh of the case once (kinds 1: the solids only, to measure them for a
 * derived domain; 2: solids and fluid volumes, checked against the domain), so that a bad one is
 * refused while loading (case_load.c).  0, or -1 after the message. */
int tide_case_check_meshes(struct ctx *x, int kinds);

/* ---- src/case_validate.c: whole-case checks (0, or -1 after the message) and derived values */

int tide_case_check_box(struct ctx *x, int line, const char *path, const tide_box *b);
int tide_case_check_geometry(struct ctx *x);
int tide_case_check_physics(struct ctx *x);
int tide_case_check_surge(struct ctx *x);
int tide_case_check_output(struct ctx *x);
/* c0 from the physics keys (after loading and after every --set). */
int tide_case_derive(struct ctx *x);
/* The domain derived from the tank, and the still water level derived from the fluid. */
tide_box tide_case_default_domain(const tide_case *c);
double tide_case_default_hswl(const tide_case *c);
/* Whether the case's domain is the one derived from its tank. */
int tide_case_derived_domain(const tide_case *c);

#endif
