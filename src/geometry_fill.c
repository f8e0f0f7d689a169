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
	/* a floating solid's mass, centre and inertia when the case does not give them */
	it->has_mass = tide_mesh_mass(&m, &it->volume, it->centroid, it->inertia) == 0;
	tide_mesh_free(&m);
	for (int a = 0; c && a < 3; a++) {
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

static int cache_make(const tide_case *c, const tide_mesh *M, tide_sd_cache *k)
{
	double V = 1;
	for (int a = 0; a < 3; a++) V *= M->hi[a] - M->lo[a] + 2 * c->dp;
	k->cell = fmax(4 * c->dp, cbrt(V / 4e6));   /* at most about 4 million cells */
	size_t n = 1;
	for (int a = 0; a < 3; a++) {
		k->lo[a] = M->lo[a] - c->dp;
		k->n[a] = (long)ceil((M->hi[a] - M->lo[a] + 2 * c->dp) / k->cell) + 1;
		n *= (size_t)k->n[a];
	}
	k->half_diag = 0.5 * sqrt(3.0) * k->cell;
	k->sd = malloc(n * sizeof *k->sd);
	if (!k->sd) return -1;
	for (size_t i = 0; i < n; i++) k->sd[i] = NAN;
	return 0;
}

/* Signed distance at the centre of p's cell, with its half diagonal; 0 when p is off the grid. */
static int cache_sd(const tide_mesh *M, const tide_sd_cache *k, const double *p, double *sd)
{
	long i[3];
	double q[3];
	for (int a = 0; a < 3; a++) {
		i[a] = (long)floor((p[a] - k->lo[a]) / k->cell);
		if (i[a] < 0 || i[a] >= k->n[a]) return 0;
		q[a] = k->lo[a] + (i[a] + 0.5) * k->cell;
	}
	double *v = &k->sd[((size_t)i[2] * (size_t)k->n[1] + (size_t)i[1]) * (size_t)k->n[0] + (size_t)i[0]];
	if (isnan(*v)) *v = tide_mesh_signed_distance(M, q);
	*sd = *v;
	return 1;
}

/* Signed distance to solid m's surface, or +INFINITY when p is outside its box grown by r. */
static double solid_sd(const tide_geometry *g, int m, const double *p, double r)
{
	const tide_mesh *M = &g->solid[m];
	for (int a = 0; a < 3; a++)
		if (p[a] < M->lo[a] - r || p[a] > M->hi[a] + r) return INFINITY;
	return tide_mesh_signed_distance(M, p);
}

/* Is the signed distance of p below r (r >= 0)?  From the cell cache when the cell is crossed by
 * no surface (then all its points are on the centre's side, farther than r if the centre is). */
static int sd_below(const tide_mesh *M, const tide_sd_cache *k, const double *p, double r)
{
	for (int a = 0; a < 3; a++)
		if (p[a] < M->lo[a] - r || p[a] > M->hi[a] + r) return 0;
	double sd;
	if (k->sd && cache_sd(M, k, p, &sd)) {
		if (sd < -k->half_diag) return 1;          /* the whole cell is inside */
		if (sd - k->half_diag >= r) return 0;     /* outside, and at least r away */
	}
	return tide_mesh_signed_distance(M, p) < r;
}

/* A triangle is wet when the point just outside its centroid lies in the domain and in no other
 * solid or box wall: the normals of boundary particles point to wet surfaces only, so the outer
 * layers of a thin tank wall point into the tank, not out of the domain. */
static int wet_masks(const tide_case *c, tide_point_test box_wall, tide_geometry *g)
{
	for (int m = 0; m < g->nsolid; m++) {
		const tide_mesh *M = &g->solid[m];
		int any = 0;
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
			any |= wet;
		}
		if (!any) { free(g->wet[m]); g->wet[m] = NULL; }
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
	int oom = wet_masks(c, box_wall, g);
	/* not for open surfaces: their side flips across the continuation of a free edge, where
	 * no surface is, so a cell far from the surface can hold both sides */
	for (int m = 0; m < g->nsolid && !oom; m++)
		if (!g->solid[m].open_edges) oom = cache_make(c, &g->solid[m], &g->cache[0][m]);
	for (int v = 0; v < g->nvolume && !oom; v++) oom = cache_make(c, &g->volume[v], &g->cache[1][v]);
	if (oom) {
		fprintf(stderr, "tide: out of host memory while placing the STL solids.\n");
		tide_geometry_free(g);
		return -1;
	}
	return 0;
}

void tide_geometry_free(tide_geometry *g)
{
	for (int m = 0; m < g->nsolid; m++) { tide_mesh_free(&g->solid[m]); free(g->wet[m]); free(g->cache[0][m].sd); }
	for (int v = 0; v < g->nvolume; v++) { tide_mesh_free(&g->volume[v]); free(g->cache[1][v].sd); }
	memset(g, 0, sizeof *g);
}

/* The lattice indices i with (i + 1/2) dp in [lo, hi]. */
static void lattice_range(double lo, double hi, double dp, long *i0, long *i1)
{
	*i0 = (long)ceil(lo / dp - 0.5);
	*i1 = (long)floor(hi / dp - 0.5);
}

/* Is p a boundary particle of solid m: inside the material, within layers*dp of its wet surface
 * in every coordinate (the cube of half side layers*dp about p meets it: box walls' rule, edges
 * and corners included)?  h: the nearest point of the wet surface (the particle's normal). */
static int solid_point(const tide_case *c, const tide_geometry *g, int m, const double *p,
                       tide_mesh_hit *h)
{
	double L = c->solid[m].layers * c->dp, eps = EPS * c->dp, R = sqrt(3.0) * L, sd;
	const tide_mesh *M = &g->solid[m];
	const tide_sd_cache *k = &g->cache[0][m];
	double grow = M->open_edges ? L : 0;   /* an open sheet's material lies beyond its box */
	for (int a = 0; a < 3; a++)
		if (p[a] < M->lo[a] - grow || p[a] > M->hi[a] + grow) return 0;
	/* a cell outside the material, or deeper than the cube's reach below every surface */
	if (k->sd && cache_sd(M, k, p, &sd) && (sd > k->half_diag || -sd - k->half_diag > R)) return 0;
	tide_mesh_hit any;
	if (!tide_mesh_nearest(M, p, R, NULL, &any) || !(any.sd < -eps)) return 0;
	if (!tide_mesh_cube_meets(M, p, L - eps, g->wet[m])) return 0;
	if (!g->wet[m]) *h = any;
	else if (!tide_mesh_nearest(M, p, R, g->wet[m], h)) *h = any;
	return 1;
}

int tide_geometry_solids(const tide_case *c, const tide_geometry *g, tide_point_test box_wall,
                         tide_particle_set *s)
{
	double dp = c->dp;
	for (int m = 0; m < g->nsolid; m++) {
		const tide_mesh *M = &g->solid[m];
		long i0[3], i1[3];
		double grow = M->open_edges ? c->solid[m].layers * dp : 0;
		for (int a = 0; a < 3; a++) lattice_range(M->lo[a] - grow, M->hi[a] + grow, dp, &i0[a], &i1[a]);
		for (long k = i0[2]; k <= i1[2]; k++)
			for (long j = i0[1]; j <= i1[1]; j++)
				for (long i = i0[0]; i <= i1[0]; i++) {
					double p[3] = {(i + 0.5) * dp, (j + 0.5) * dp, (k + 0.5) * dp};
					tide_mesh_hit h, w;
					if (!solid_point(c, g, m, p, &h) || !in_domain(c, p)) continue;
					if (box_wall && box_wall(c, p)) continue;
					int dup = 0;   /* overlapping solids: the earlier one owns the overlap */
					for (int e = 0; e < m && !dup; e++) dup = solid_point(c, g, e, p, &w);
					if (dup) continue;
					/* normal: to the nearest point of the wet surface */
					if (tide_pset_push(s, p[0], p[1], p[2], (float)c->rho0, TIDE_BOUND)) return -1;
					tide_pset_set_normal(s, h.c[0] - p[0], h.c[1] - p[1], h.c[2] - p[2]);
				}
		tide_pset_mark(s);
	}
	return 0;
}

int tide_geometry_near_solid(const tide_case *c, const tide_geometry *g, const double *p)
{
	double r = 0.5 * c->dp - EPS * c->dp;
	for (int m = 0; m < g->nsolid; m++) {
		/* an open sheet: only its boundary particles' side is material, up to layers*dp away */
		double reach = g->solid[m].open_edges ? c->solid[m].layers * c->dp : 0;
		if (sd_below(&g->solid[m], &g->cache[0][m], p, r + reach) &&
		    (!reach || tide_mesh_signed_distance(&g->solid[m], p) < r)) return 1;
	}
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
					if (!in_domain(c, p) || !sd_below(V, &g->cache[1][v], p, 0) ||
					    !(tide_mesh_signed_distance(V, p) < -eps)) continue;
					if ((taken && taken(c, p)) || tide_geometry_near_solid(c, g, p)) continue;
					int dup = 0;   /* the earlier volume owns the overlap, grown by dp/2 */
					for (int e = 0; e < v && !dup; e++)
						dup = sd_below(&g->volume[e], &g->cache[1][e], p, 0.5 * dp - eps);
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
