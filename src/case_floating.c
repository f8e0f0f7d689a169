// SPDX-License-Identifier: LGPL-2.1-or-later
// The `floating` key of obstacles and STL solids (docs/case-format.md): reading and checking it,
// writing it into used_parameters.yaml, and deriving each floating body's rigid state at t = 0
// (include/tide/rigid.h) and its entry in the bodies' table (motion.h: id range, rigid index).
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>
#include "tide/case.h"
#include "case_ctx.h"
#include "case_load.h"

/* A floating body's density (or mass / volume) at most this many times the fluid's rho0. */
#define TIDE_FLOAT_DENSITY_MAX 25.0

enum { G_DENSITY, G_MASS, G_CENTRE, G_INERTIA, G_VELOCITY, G_CONSTRAINTS, G_N };
static const char *const names[] = {"density", "mass", "centre", "inertia", "velocity",
                                    "constraints", NULL};
static const char *const fix_names[] = {"x", "y", "z", "rot_x", "rot_y", "rot_z", NULL};

int tide_case_get_floating(struct ctx *x, const yaml_node_t *v, const char *path, int kind, int item)
{
	tide_case *c = x->c;
	const yaml_node_t *f[G_N];
	char q[320];
	int line = tide_case_line_of(v);
	const char *list = kind ? "solids" : "obstacles";
	int moving = (kind ? c->solid_motion : c->obstacle_motion)[item][1] > 0;
	if (moving)
		return tide_case_fail(x, line, "key '%s' is given, but %s[%d] also has a motion; allowed: a "
		            "body is either moving (motion) or floating, not both.", path, list, item);
	if (c->nfloating + 1 > TIDE_MAX_FLOAT)
		return tide_case_fail(x, line, "key '%s' makes more than %d floating bodies; allowed: at "
		            "most %d.", path, TIDE_MAX_FLOAT, TIDE_MAX_FLOAT);
	if (tide_case_get_fields(x, v, path, names, f)) return -1;
	tide_floating_input *m = &c->floating_in[c->nfloating];
	*m = (tide_floating_input){0};
#define Q(k) (snprintf(q, sizeof q, "%s.%s", path, names[k]), q)
	if (!f[G_DENSITY] == !f[G_MASS])
		return tide_case_fail(x, line, "key '%s' needs exactly one of density and mass; allowed: "
		            "density: RHO [kg/m^3] or mass: M [kg; 2-D: kg per metre of width].", path);
	if (f[G_DENSITY] && tide_case_get_num(x, f[G_DENSITY], Q(G_DENSITY), R_GT, 0, 0, &m->density)) return -1;
	if (f[G_MASS] && tide_case_get_num(x, f[G_MASS], Q(G_MASS), R_GT, 0, 0, &m->mass)) return -1;
	if (f[G_CENTRE] && tide_case_get_vec(x, f[G_CENTRE], Q(G_CENTRE), m->centre)) return -1;
	m->has_centre = f[G_CENTRE] != NULL;
	if (f[G_INERTIA]) {
		/* 2-D: the one moment I_yy, a number; 3-D: the principal moments [Ixx, Iyy, Izz] */
		if (c->dim == 2) {
			if (tide_case_get_num(x, f[G_INERTIA], Q(G_INERTIA), R_GT, 0, 0, &m->inertia[1])) return -1;
		} else {
			if (f[G_INERTIA]->type != YAML_SEQUENCE_NODE ||
			    f[G_INERTIA]->data.sequence.items.top - f[G_INERTIA]->data.sequence.items.start != 3)
				return tide_case_fail(x, tide_case_line_of(f[G_INERTIA]), "key '%s' is not a list of "
				            "3 numbers; allowed: [Ixx, Iyy, Izz] > 0 [kg m^2], the principal moments "
				            "about the centre along x, y, z.", Q(G_INERTIA));
			if (tide_case_get_vec(x, f[G_INERTIA], Q(G_INERTIA), m->inertia)) return -1;
			for (int a = 0; a < 3; a++)
				if (!(m->inertia[a] > 0))
					return tide_case_fail(x, tide_case_line_of(f[G_INERTIA]), "key '%s' has the "
					            "moment %g; allowed: [Ixx, Iyy, Izz], each > 0 [kg m^2].",
					            Q(G_INERTIA), m->inertia[a]);
		}
		m->has_inertia = 1;
	}
	if (f[G_VELOCITY] && tide_case_get_vec(x, f[G_VELOCITY], Q(G_VELOCITY), m->velocity)) return -1;
	if (f[G_CONSTRAINTS]) {
		const yaml_node_t *s = f[G_CONSTRAINTS];
		if (s->type != YAML_SEQUENCE_NODE)
			return tide_case_fail(x, tide_case_line_of(s), "key '%s' is not a list; allowed: a list "
			            "of x, y, z, rot_x, rot_y, rot_z.", Q(G_CONSTRAINTS));
		for (yaml_node_item_t *it = s->data.sequence.items.start; it < s->data.sequence.items.top; it++) {
			int e;
			char qi[340];
			snprintf(qi, sizeof qi, "%s[%d]", Q(G_CONSTRAINTS), (int)(it - s->data.sequence.items.start));
			if (tide_case_get_name(x, yaml_document_get_node(x->doc, *it), qi, fix_names, &e)) return -1;
			m->fix[e] = 1;
		}
	}
	/* an open surface (closed: false) encloses no volume: nothing to integrate */
	if (kind == 1 && !c->solid[item].closed && !(m->mass > 0 && m->has_centre && m->has_inertia))
		return tide_case_fail(x, line, "key '%s' of an open STL solid (closed: false) needs mass, "
		            "centre and inertia (an open mesh encloses no volume, so they cannot be computed "
		            "from it); allowed: mass: M, centre: [x, y, z] and inertia: [Ixx, Iyy, Izz], or a "
		            "closed mesh.", path);
#undef Q
	(kind ? c->solid_floating : c->obstacle_floating)[item] = ++c->nfloating;
	return 0;
}

/* Floating body k of item (kind, i) into the table T and its rigid state c->rigid[k]. */
static int derive_one(struct ctx *x, int kind, int i, int k, uint32_t id0, uint32_t id1,
                      tide_motion_table *T)
{
	tide_case *c = x->c;
	const tide_floating_input *m = &c->floating_in[k];
	const double *lo = kind ? c->solid[i].lo : c->obstacle[i].lo;
	const double *hi = kind ? c->solid[i].hi : c->obstacle[i].hi;
	double L[3], vol = 1.0, ctr[3], Ib[9] = {0};
	for (int a = 0; a < 3; a++) {
		L[a] = hi[a] - lo[a];
		ctr[a] = c->dim == 2 && a == 1 ? 0.0 : 0.5 * (lo[a] + hi[a]);
		if (c->dim == 3 || a != 1) vol *= L[a];
	}
	const tide_stl_item *S = kind ? &c->solid[i] : NULL;
	if (S && !S->has_mass && !(m->mass > 0 && m->has_centre && m->has_inertia))
		return tide_case_fail(x, 0, "solids[%d].floating needs the mesh's volume, centre or inertia, "
		            "but STL file '%s' is not a closed mesh; allowed: a closed mesh, or mass, centre "
		            "and inertia given.", i, S->file);
	if (S) { /* the mesh's volume integrals (src/mesh_mass.c), at uniform density */
		vol = S->volume;
		memcpy(ctr, S->centroid, sizeof ctr);
	}
	double M = m->mass > 0 ? m->mass : m->density * vol;
	/* Upper bound: TIDE_FLOAT_DENSITY_MAX rho0, above the densest solids (osmium, 22.6 rho0 of
	 * water): a body far denser than anything real is a units slip (g/cm^3 for kg/m^3) */
	const char *list = kind ? "solids" : "obstacles";
	if (vol > 0 && M / vol > TIDE_FLOAT_DENSITY_MAX * c->rho0) {
		if (m->mass > 0)
			return tide_case_fail(x, 0, "key '%s[%d].floating.mass' = %g gives a density of %g "
			            "kg/m^3 (volume %g), above %g rho0 = %g kg/m^3; allowed: mass / volume <= "
			            "%g rho0.", list, i, m->mass, M / vol, vol, TIDE_FLOAT_DENSITY_MAX,
			            TIDE_FLOAT_DENSITY_MAX * c->rho0, TIDE_FLOAT_DENSITY_MAX);
		return tide_case_fail(x, 0, "key '%s[%d].floating.density' = %g is above %g rho0 = %g "
		            "kg/m^3; allowed: 0 < density <= %g rho0 (physics.rho0 = %g).", list, i,
		            m->density, TIDE_FLOAT_DENSITY_MAX, TIDE_FLOAT_DENSITY_MAX * c->rho0,
		            TIDE_FLOAT_DENSITY_MAX, c->rho0);
	}
	if (m->has_centre) memcpy(ctr, m->centre, sizeof ctr);
	if (m->has_inertia) {
		for (int a = 0; a < 3; a++) Ib[4 * a] = m->inertia[a];
	} else if (S) {
		/* M / V J about the centroid, moved to a given centre d away by the parallel axis
		 * theorem: + M (|d|^2 E - d d^T) */
		double d[3], d2 = 0;
		for (int a = 0; a < 3; a++) {
			d[a] = ctr[a] - S->centroid[a];
			d2 += d[a] * d[a];
		}
		for (int a = 0; a < 3; a++)
			for (int b = 0; b < 3; b++)
				Ib[3 * a + b] = M / vol * S->inertia[3 * a + b] + M * ((a == b ? d2 : 0.0) - d[a] * d[b]);
	} else {
		tide_rigid_box_inertia(c->dim, M, L, Ib);
	}
	if (!tide_rigid_init(&c->rigid[k], c->dim, M, ctr, Ib, m->fix))
		return tide_case_fail(x, 0, "%s[%d].floating has a singular inertia tensor; allowed: "
		            "positive moments.", kind ? "solids" : "obstacles", i);
	for (int a = 0; a < 3; a++)
		c->rigid[k].v[a] = c->rigid[k].fix[a] ? 0.0 : m->velocity[a];
	if (T->nbody + 1 > TIDE_MOTION_MAX_BODIES)
		return tide_case_fail(x, 0, "%s[%d].floating makes more than %d moving and floating bodies; "
		            "allowed: at most %d.", kind ? "solids" : "obstacles", i,
		            TIDE_MOTION_MAX_BODIES, TIDE_MOTION_MAX_BODIES);
	tide_motion_body *B = &T->body[T->nbody++];
	*B = (tide_motion_body){id0, id1, T->nseg, 0, {ctr[0], ctr[1], ctr[2]}, k + 1};
	return 0;
}

int tide_case_derive_floating(struct ctx *x, uint32_t first[2][TIDE_CASE_MAX_ITEMS],
                              uint32_t end[2][TIDE_CASE_MAX_ITEMS])
{
	tide_case *c = x->c;
	for (int kind = 0; kind < 2; kind++) {
		int n = kind ? c->nsolid : c->nobstacle;
		for (int i = 0; i < n; i++) {
			int k = (kind ? c->solid_floating : c->obstacle_floating)[i];
			if (k && derive_one(x, kind, i, k - 1, first[kind][i], end[kind][i], &c->motion)) return -1;
		}
	}
	return 0;
}

void tide_case_put_floating(FILE *f, const tide_case *c, int k)
{
	char b[32];
	const tide_floating_input *m = &c->floating_in[k];
	const int *ax = axes_of(c->dim);
	fputs(", floating: {", f);
	if (m->mass > 0) fprintf(f, "mass: %s", tide_case_num(m->mass, b));
	else fprintf(f, "density: %s", tide_case_num(m->density, b));
	if (m->has_centre) {
		fputs(", centre: [", f);
		for (int j = 0; j < c->dim; j++) fprintf(f, "%s%s", j ? ", " : "", tide_case_num(m->centre[ax[j]], b));
		fputc(']', f);
	}
	if (m->has_inertia && c->dim == 2) fprintf(f, ", inertia: %s", tide_case_num(m->inertia[1], b));
	if (m->has_inertia && c->dim == 3)
		fprintf(f, ", inertia: [%s, ", tide_case_num(m->inertia[0], b)),
		fprintf(f, "%s, ", tide_case_num(m->inertia[1], b)),
		fprintf(f, "%s]", tide_case_num(m->inertia[2], b));
	fputs(", velocity: [", f);
	for (int j = 0; j < c->dim; j++) fprintf(f, "%s%s", j ? ", " : "", tide_case_num(m->velocity[ax[j]], b));
	fputs("], constraints: [", f);
	for (int e = 0, n = 0; e < 6; e++)
		if (m->fix[e]) fprintf(f, "%s%s", n++ ? ", " : "", fix_names[e]);
	fputs("]}", f);
}
