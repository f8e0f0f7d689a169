/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A host-side set of particles (structure of arrays): what case builders produce, what output
 * writers and gauges consume.  The StarPU particle blocks (block.h) hold the same fields plus the
 * integrator's history and the force results. */
#ifndef TIDE_PARTICLE_SET_H
#define TIDE_PARTICLE_SET_H
#include <stddef.h>
#include <stdint.h>
#include "tide/block.h"   /* enum tide_ptype */

typedef struct tide_particle_set {
	size_t n, cap;
	double *x, *y, *z;      /* position [m]; 2-D cases use x (horizontal) and z (up), y = 0 */
	float *vx, *vy, *vz;    /* velocity [m/s] */
	float *rho;             /* density [kg/m^3] */
	uint32_t *id;           /* unique particle id, 0..n-1 at creation */
	uint8_t *type;          /* enum tide_ptype (a block's type array, block.h) */
	/* Boundary normal (block.h, TIDE_BN_X: into the fluid, length = distance to the boundary
	 * surface), 0 for fluid; NULL in a set that does not carry them (readers of output files). */
	float *nx, *ny, *nz;
	/* A host block's first two aux fields (block.h), which the gas scheme calls h and u
	 * (gas_math.h: TIDE_GAS_H, TIDE_GAS_U): read only in gas runs; NULL in sets without them. */
	float *gas_h, *gas_u;
	/* 0: the set owns growable arrays.  TIDE_PSET_COUNT: nothing is stored, pushes only count
	 * (a builder's first pass).  TIDE_PSET_FIXED: the arrays are someone else's (the fields of
	 * a host block) with room for cap particles; pushes beyond it fail, free leaves them. */
	int mode;
	/* Optional (NULL: none): tide_pset_mark records the count so far into mark[nmark++] (the
	 * builder marks the end of the tank and of every obstacle and solid: the moving bodies' id
	 * ranges, tide_case_body_ids); bound_only: the builder stops after the boundaries. */
	size_t *mark;
	int nmark, bound_only;
} tide_particle_set;

enum { TIDE_PSET_COUNT = 1, TIDE_PSET_FIXED = 2 };

/* All return 0 on success, -1 on allocation failure (message printed). */
int  tide_pset_reserve(tide_particle_set *s, size_t cap);
int  tide_pset_push(tide_particle_set *s, double x, double y, double z, float rho, uint32_t type);
/* The normal of the particle pushed last (a no-op in a set without normals or counting). */
void tide_pset_set_normal(tide_particle_set *s, double nx, double ny, double nz);
void tide_pset_free(tide_particle_set *s);
void tide_pset_mark(tide_particle_set *s);
size_t tide_pset_count_type(const tide_particle_set *s, uint32_t type);

#endif
