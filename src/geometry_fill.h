/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Particles from the STL meshes of a case: boundary particles of solids (the lattice points
 * inside the material within layers*dp of its surface, as box walls are the lattice points
 * within layers*dp outside the inner box) with their surface normals, and fluid particles of
 * closed fluid volumes.  The lattice is the global one, points (i + 1/2) dp on every axis. */
#ifndef TIDE_GEOMETRY_FILL_H
#define TIDE_GEOMETRY_FILL_H
#include "tide/case.h"
#include "mesh_geometry.h"
#include "particle_set.h"

/* Signed distances at the centres of coarse cells over a mesh's box, computed when first asked:
 * a cell whose centre lies farther from the surface than the cell's half diagonal is crossed by
 * no surface, so every point in it has the centre's side, and lies at least (|sd| - half
 * diagonal) from the surface.  This spares the full query to most lattice points. */
typedef struct tide_sd_cache {
	double lo[3], cell, half_diag;
	long n[3];
	double *sd;              /* NAN: not computed yet */
} tide_sd_cache;

typedef struct tide_geometry {
	int nsolid, nvolume;
	tide_mesh solid[TIDE_CASE_MAX_ITEMS], volume[TIDE_CASE_MAX_ITEMS];
	unsigned char *wet[TIDE_CASE_MAX_ITEMS];   /* per solid triangle: faces fluid space (NULL:
	                                            * none does, every triangle counts) */
	tide_sd_cache cache[2][TIDE_CASE_MAX_ITEMS];   /* solids, volumes */
} tide_geometry;

/* A test of a point against the box geometry of case_build.c (walls, obstacles, fluid boxes). */
typedef int (*tide_point_test)(const tide_case *c, const double *p);

/* Reads and builds the mesh of item it.  Returns 0, or -1 with why[] filled in. */
int tide_stl_item_mesh(const tide_stl_item *it, int need_closed, tide_mesh *m, char *why, size_t wn);
/* Case loading: builds the mesh once to check it and fills it->lo, hi, area, volume; refuses a
 * mesh outside the domain of c (c NULL: no domain yet, the mesh is only measured).  0 or -1
 * with why[]. */
int tide_stl_item_check(const tide_case *c, tide_stl_item *it, int need_closed, char *why, size_t wn);

/* Builds every mesh of the case; box_wall(p): p is a tank-wall or obstacle point (a surface
 * facing it is dry).  0, or -2 after printing one sentence (bad input). */
int tide_geometry_load(const tide_case *c, tide_point_test box_wall, tide_geometry *g);
void tide_geometry_free(tide_geometry *g);

/* Boundary particles of every solid, skipping lattice points that box_wall() already holds;
 * the earlier solid owns an overlap.  Normals per the shared convention (particle_set.h). */
int tide_geometry_solids(const tide_case *c, const tide_geometry *g, tide_point_test box_wall,
                         tide_particle_set *s);
/* 1 if p is inside a solid's material or closer than dp/2 to its surface (fluid is not made). */
int tide_geometry_near_solid(const tide_case *c, const tide_geometry *g, const double *p);
/* Fluid particles of every fluid volume, skipping points taken(p) (near obstacles, inside fluid
 * boxes or spheres) and those near solids or inside earlier volumes (grown by dp/2). */
int tide_geometry_volumes(const tide_case *c, const tide_geometry *g, tide_point_test taken,
                          tide_particle_set *s);
/* Particle count estimates of the meshes, from their volumes, areas and boxes as loading found
 * them (no particle is made): fluid volumes and solids. */
void tide_geometry_estimate(const tide_case *c, double *fluid, double *bound);

#endif
