// SPDX-License-Identifier: LGPL-2.1-or-later
// Lattice -> particles for STL solids and fluid volumes.  Tolerances: a lattice point closer to a
// surface than EPS*dp is on it (neither inside nor outside), which absorbs the float precision
// of STL coordinates against the double lattice.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "geometry_fill.h"

#define EPS 1e-6

static tide_xform xform_of(const tide_stl_item *it)
{
	tide_xform x = {it->scale, {it->rotate[0], it->rotate[1], it->rotate[2]},
	                {it->translate[0], it->translate[1], it->translate[2]}};
	return x;
}

int tide_stl_item_mesh(const tide_stl_item *it, int need_closed, tide_mesh *m, char *why, size_t wn)
{
	tide_stl s;
	if (tide_stl_read(it->file, &s, why, wn)) return -1;
	tide_xform x = xform_of(it);
	int rc = tide_mesh_make(&s, &x, need_closed, m, why, wn);
	tide_stl_free(&s);
	return rc;
}

static int in_domain(const tide_case *c, const double *p)
{
	for (int a = 0; a < 3; a++) {
		double eps = 1e-9 * (1 + fabs(c->domain.lo[a]) + fabs(c->domain.hi[a]));
		if (!(p[a] > c->domain.lo[a] + eps && p[a] < c->domain.hi[a] - eps)) return 0;
	}
	return 1;
}

int tide_stl_item_check(const tide_case *c, tide_stl_item *it, int need_closed, char *why, size_t wn)
{
	tide_mesh m;
	if (tide_stl_item_mesh(it, need_closed, &m, why, wn)) return -1;
	memcpy(it->lo, m.lo, sizeof it->lo);
	memcpy(it->hi, m.hi, sizeof it->hi);
	it->area = m.area;
	it->volume = m.volume;
	tide_mesh_free(&m);
	for (int a = 0; a < 3; a++) {
		double tol = 1e-6 * (1 + fabs(c->domain.lo[a]) + fabs(c->domain.hi[a]));
		if (it->lo[a] < c->domain.lo[a] - tol || it->hi[a] > c->domain.hi[a] + tol)
			return snprintf(why, wn, "lies outside the domain once placed: its box [%g, %g, %g]..[%g, "
			                "%g, %g] is not inside [%g, %g, %g]..[%g, %g, %g] (check scale, rotate, "
			                "translate and the STL units)", it->lo[0], it->lo[1], it->lo[2], it->hi[0],
			                it->hi[1], it->hi[2], c->domain.lo[0], c->domain.lo[1], c->domain.lo[2],
			                c->domain.hi[0], c->domain.hi[1], c->domain.hi[2]), -1;
	}
	return 0;
}

/* Signed distance to solid m's surface, or +INFINITY when p is outside its box grown by r. */
static double solid_sd(const tide_geometry *g, int m, const double *p, double r)
{
	const tide_mesh *M = &g->solid[m];
	for (int a = 0; a < 3; a++)
		if (p[a] < M->lo[a] - r || p[a] > M->hi[a] + r) return INFINITY;
	return tide_mesh_signed_distance(M, p);
}

/* A triangle is wet when the point just outside its centroid lies in the domain and in no other
 * solid or box wall: the normals of boundary particles point to wet surfaces only, so the outer
 * layers of a thin tank wall point into the tank, not out of the domain. */
static int wet_masks(const tide_case *c, tide_point_test box_wall, tide_geometry *g)
{
	for (int m = 0; m < g->nsolid; m++) {
		const tide_mesh *M = &g->solid[m];
		g->wet[m] = malloc(M->nt ? M->nt : 1);
		if (!g->wet[m]) return -1;
		for (size_t t = 0; t < M->nt; t++) {
			double q[3];
			for (int a = 0; a < 3; a++)
				q[a] = (M->v[3 * (size_t)M->t[3 * t] + a] + M->v[3 * (size_t)M->t[3 * t + 1] + a] +
				        M->v[3 * (size_t)M->t[3 * t + 2] + a]) / 3 + 0.01 * c->dp * M->fn[3 * t + a];
			int wet = in_domain(c, q) && !(box_wall && box_wall(c, q));
			for (int e = 0; e < g->nsolid && wet; e++)
				if (e != m && solid_sd(g, e, q, 0) < 0) wet = 0;
			g->wet[m][t] = (unsigned char)wet;
		}
	}
	return 0;
}

int tide_geometry_load(const tide_case *c, tide_point_test box_wall, tide_geometry *g)
{
	memset(g, 0, sizeof *g);
	char why[512];
	for (int m = 0; m < c->nsolid; m++, g->nsolid++)
		if (tide_stl_item_mesh(&c->solid[m], c->solid[m].closed, &g->solid[m], why, sizeof why)) {
			fprintf(stderr, "tide: %s: solids[%d]: STL file '%s' %s.\n", c->path, m, c->solid[m].file, why);
			tide_geometry_free(g);
			return -2;
		}
	for (int v = 0; v < c->nvolume; v++, g->nvolume++)
		if (tide_stl_item_mesh(&c->volume[v], 1, &g->volume[v], why, sizeof why)) {
			fprintf(stderr, "tide: %s: fluid_volumes[%d]: STL file '%s' %s.\n", c->path, v,
			        c->volume[v].file, why);
			tide_geometry_free(g);
			return -2;
		}
	if (wet_masks(c, box_wall, g)) {
		fprintf(stderr, "tide: out of host memory while placing the STL solids.\n");
		tide_geometry_free(g);
		return -1;
	}
	return 0;
}

void tide_geometry_free(tide_geometry *g)
{
	for (int m = 0; m < g->nsolid; m++) { tide_mesh_free(&g->solid[m]); free(g->wet[m]); }
	for (int v = 0; v < g->nvolume; v++) tide_mesh_free(&g->volume[v]);
	memset(g, 0, sizeof *g);
}

/* The lattice indices i with (i + 1/2) dp in [lo, hi]. */
static void lattice_range(double lo, double hi, double dp, long *i0, long *i1)
{
	*i0 = (long)ceil(lo / dp - 0.5);
	*i1 = (long)floor(hi / dp - 0.5);
}

/* Is p a boundary particle of solid m: inside the material, less than layers*dp deep? */
static int solid_point(const tide_case *c, const tide_geometry *g, int m, const double *p,
                       tide_mesh_hit *h)
{
	double L = c->solid[m].layers * c->dp, eps = EPS * c->dp;
	const tide_mesh *M = &g->solid[m];
	for (int a = 0; a < 3; a++)
		if (p[a] < M->lo[a] || p[a] > M->hi[a]) return 0;
	return tide_mesh_nearest(M, p, L, NULL, h) && h->sd < -eps && -h->sd < L - eps;
}

int tide_geometry_solids(const tide_case *c, const tide_geometry *g, tide_point_test box_wall,
                         tide_particle_set *s)
{
	double dp = c->dp;
	for (int m = 0; m < g->nsolid; m++) {
		const tide_mesh *M = &g->solid[m];
		long i0[3], i1[3];
		for (int a = 0; a < 3; a++) lattice_range(M->lo[a], M->hi[a], dp, &i0[a], &i1[a]);
		for (long k = i0[2]; k <= i1[2]; k++)
			for (long j = i0[1]; j <= i1[1]; j++)
				for (long i = i0[0]; i <= i1[0]; i++) {
					double p[3] = {(i + 0.5) * dp, (j + 0.5) * dp, (k + 0.5) * dp};
					tide_mesh_hit h, w;
					if (!in_domain(c, p) || !solid_point(c, g, m, p, &h)) continue;
					if (box_wall && box_wall(c, p)) continue;
					int dup = 0;   /* overlapping solids: the earlier one owns the overlap */
					for (int e = 0; e < m && !dup; e++) dup = solid_point(c, g, e, p, &w);
					if (dup) continue;
					/* normal: to the nearest wet surface (else the nearest one) */
					if (!tide_mesh_nearest(M, p, INFINITY, g->wet[m], &w)) w = h;
					if (tide_pset_push(s, p[0], p[1], p[2], (float)c->rho0, TIDE_BOUND)) return -1;
					tide_pset_set_normal(s, w.c[0] - p[0], w.c[1] - p[1], w.c[2] - p[2]);
				}
	}
	return 0;
}

int tide_geometry_near_solid(const tide_case *c, const tide_geometry *g, const double *p)
{
	double r = 0.5 * c->dp, eps = EPS * c->dp;
	for (int m = 0; m < g->nsolid; m++)
		if (solid_sd(g, m, p, r) < r - eps) return 1;
	return 0;
}

int tide_geometry_volumes(const tide_case *c, const tide_geometry *g, tide_point_test taken,
                          tide_particle_set *s)
{
	double dp = c->dp, eps = EPS * dp, gn = sqrt(c->gravity[0] * c->gravity[0] +
	                                              c->gravity[1] * c->gravity[1] + c->gravity[2] * c->gravity[2]);
	for (int v = 0; v < g->nvolume; v++) {
		const tide_mesh *V = &g->volume[v];
		long i0[3], i1[3];
		for (int a = 0; a < 3; a++) lattice_range(V->lo[a], V->hi[a], dp, &i0[a], &i1[a]);
		for (long k = i0[2]; k <= i1[2]; k++)
			for (long j = i0[1]; j <= i1[1]; j++)
				for (long i = i0[0]; i <= i1[0]; i++) {
					double p[3] = {(i + 0.5) * dp, (j + 0.5) * dp, (k + 0.5) * dp};
					if (!in_domain(c, p) || !(tide_mesh_signed_distance(V, p) < -eps)) continue;
					if ((taken && taken(c, p)) || tide_geometry_near_solid(c, g, p)) continue;
					int dup = 0;   /* the earlier volume owns the overlap, grown by dp/2 */
					for (int e = 0; e < v && !dup; e++)
						dup = tide_mesh_signed_distance(&g->volume[e], p) < 0.5 * dp - eps;
					if (dup) continue;
					/* hydrostatic start below the volume's top, as in fluid boxes */
					double rho = tide_case_density(c, c->rho0 * gn * (V->hi[2] - p[2]));
					if (tide_pset_push(s, p[0], p[1], p[2], (float)rho, TIDE_FLUID)) return -1;
				}
	}
	return 0;
}

static double box_points(const tide_stl_item *it, double dp)
{
	double n = 1;
	for (int a = 0; a < 3; a++) n *= floor((it->hi[a] - it->lo[a]) / dp) + 2;
	return n;
}

void tide_geometry_estimate(const tide_case *c, double *fluid, double *bound)
{
	double dp = c->dp, dp3 = dp * dp * dp;
	*fluid = *bound = 0;
	for (int m = 0; m < c->nsolid; m++) {
		/* the lattice points in the material (closed meshes), at most a shell of layers + 1
		 * lattice planes under the surface, at most the box */
		const tide_stl_item *it = &c->solid[m];
		double n = fmin(box_points(it, dp), 2 * it->area * (it->layers + 1) / (dp * dp));
		if (it->volume > 0) n = fmin(n, 1.05 * it->volume / dp3 + 1000);
		*bound += n;
	}
	for (int v = 0; v < c->nvolume; v++)
		*fluid += fmin(box_points(&c->volume[v], dp), 1.05 * c->volume[v].volume / dp3 + 1000);
}
