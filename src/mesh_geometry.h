/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A triangle mesh made from an STL soup (vertices welded, placed by scale, rotation and
 * translation), checked (no zero-area triangle, every edge of two consistently oriented
 * triangles where closure is needed), with a bounding volume hierarchy for nearest-point and
 * signed-distance queries in O(log T).
 *
 * The inside test is the sign of the angle-weighted pseudonormal at the nearest point (Baerentzen
 * & Aanaes, IEEE TVCG 11(3), 2005): for a closed, consistently oriented mesh, (p - c) . n(c) > 0
 * exactly when p is outside, for the nearest point c on a face, an edge (n: sum of the two face
 * normals) or a vertex (n: face normals weighted by their angles there).  No ray is cast, so
 * grazing rays and lattice points on vertices or edges do not arise; a point on the surface has
 * distance 0. */
#ifndef TIDE_MESH_GEOMETRY_H
#define TIDE_MESH_GEOMETRY_H
#include <stddef.h>
#include <stdint.h>
#include "stl_read.h"

/* Placement: p' = R (scale p) + translate, R = Rz Ry Rx (rotate[] in degrees, about x first). */
typedef struct tide_xform { double scale, rotate[3], translate[3]; } tide_xform;

typedef struct tide_bvh_node {
	double lo[3], hi[3];
	uint32_t first, count;   /* leaf: triangles order[first .. first+count); inner (count 0):
	                          * children first and first + 1 */
} tide_bvh_node;

typedef struct tide_mesh {
	size_t nv, nt;
	double *v;               /* 3 per vertex, placed */
	uint32_t *t;             /* 3 vertex indices per triangle, outward (counter-clockwise) */
	double *fn;              /* unit face normals, 3 per triangle */
	double *en;              /* edge pseudonormals, 9 per triangle: edge k = (t[k], t[k+1 mod 3]) */
	double *vn;              /* vertex pseudonormals, 3 per vertex */
	size_t open_edges;       /* edges of one triangle only (0: closed) */
	double lo[3], hi[3];     /* bounding box */
	double area;
	double volume;           /* enclosed (closed meshes; 0 for open ones) */
	tide_bvh_node *node;
	uint32_t *order;
} tide_mesh;

/* Builds m from s.  need_closed: refuse open edges.  Always refused: NaN, zero-area triangles,
 * edges of more than two triangles, neighbours of opposite orientation.  A closed mesh whose
 * triangles all face inward is turned outward.  Returns 0, or -1 with why[] filled in. */
int tide_mesh_make(const tide_stl *s, const tide_xform *x, int need_closed, tide_mesh *m,
                   char *why, size_t whylen);
void tide_mesh_free(tide_mesh *m);

typedef struct tide_mesh_hit {
	double d;                /* distance to the nearest point */
	double sd;               /* signed: negative inside (the pseudonormal's side) */
	double c[3];             /* the nearest point */
	uint32_t tri;
} tide_mesh_hit;

/* The nearest point of the mesh closer than rmax (INFINITY: anywhere), counting only triangles
 * t with mask[t] != 0 (mask NULL: all).  Returns 1 and fills h, or 0 if none is that close. */
int tide_mesh_nearest(const tide_mesh *m, const double *p, double rmax, const unsigned char *mask,
                      tide_mesh_hit *h);
/* Does a triangle t with mask[t] != 0 (mask NULL: any) meet the cube [p - h, p + h]?  (The
 * max-norm distance from p to those triangles is at most h: the rule of box walls, whose
 * particles are the lattice points within layers*dp of the inner box in every coordinate.) */
int tide_mesh_cube_meets(const tide_mesh *m, const double *p, double h, const unsigned char *mask);
/* Signed distance to the whole mesh (negative inside). */
double tide_mesh_signed_distance(const tide_mesh *m, const double *p);

/* Mass properties of the solid a closed mesh encloses, at unit density (src/mesh_mass.c): its
 * volume V, centroid c and inertia tensor J about c (row-major, J = int (|r|^2 E - r r^T) dV with
 * r = x - c; multiply by the density).  0, or -1 for an open mesh (no volume to integrate). */
int tide_mesh_mass(const tide_mesh *m, double *V, double c[3], double J[9]);

#endif
