// SPDX-License-Identifier: LGPL-2.1-or-later
// Particle builder: tank walls and obstacles (boundary particles), then fluid boxes, all on
// lattices of spacing dp with particles at cell centres.  A face of a box therefore lies half a
// spacing from the particles on either side of it, so fluid and wall particles that meet at a face
// are exactly dp apart and no pair is ever closer than dp.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tide/case.h"
#include "case_load.h"
#include "gas_generator.h"
#include "geometry_fill.h"
#include "log.h"

/* The STL meshes of the case being built (tide_case_build), so that the fluid builders below
 * can keep their signatures while avoiding STL solids too; NULL outside a build. */
static const tide_geometry *stl_geom;

/* Cells of spacing dp that fit entirely in a length (the tolerance absorbs decimal round-off,
 * e.g. 0.4/0.005 = 79.99999999999999). */
static long cells(double len, double dp) { return (long)floor(len / dp + 1e-6); }

/* The coordinates of one axis of a lattice. */
typedef struct axis {
	long n;
	double *v;
	unsigned char *wall;   /* 1: this coordinate is in a wall layer (outside the inner box) */
} axis;

static void axis_free(axis *a) { free(a->v); free(a->wall); }

/* Interior points of [lo, hi]: n = cells(hi-lo) points at spacing s = (hi-lo)/n >= dp (so the
 * faces stay exact even when the length is not a multiple of dp), at least one point. */
static long span(double lo, double hi, double dp, double *s)
{
	long n = cells(hi - lo, dp);
	if (n < 1) n = 1;
	*s = (hi - lo) / (double)n;
	return n;
}

/* One axis of the tank wall lattice: `layers` coordinates below lo (if walled), the interior
 * span, `layers` above hi (if walled).  Returns -1 on allocation failure. */
static int wall_axis(axis *a, double lo, double hi, double dp, int layers, int wall_lo, int wall_hi)
{
	double s;
	long nin = span(lo, hi, dp, &s), nlo = wall_lo ? layers : 0, nhi = wall_hi ? layers : 0;
	a->n = nlo + nin + nhi;
	a->v = malloc((size_t)a->n * sizeof *a->v);
	a->wall = malloc((size_t)a->n);
	if (!a->v || !a->wall) return -1;
	long k = 0;
	for (long i = nlo - 1; i >= 0; i--, k++) { a->v[k] = lo - (i + 0.5) * dp; a->wall[k] = 1; }
	for (long i = 0; i < nin; i++, k++) { a->v[k] = lo + (i + 0.5) * s; a->wall[k] = 0; }
	for (long i = 0; i < nhi; i++, k++) { a->v[k] = hi + (i + 0.5) * dp; a->wall[k] = 1; }
	return 0;
}

/* A single coordinate 0: the y axis of 2-D cases. */
static int flat_axis(axis *a)
{
	a->n = 1;
	a->v = calloc(1, sizeof *a->v);
	a->wall = calloc(1, 1);
	return a->v && a->wall ? 0 : -1;
}

/* ---- boundary normals of tank walls and box obstacles (block.h's convention: from the particle
 * into the fluid, of length its distance to the boundary surface; mDBC's ghost is x + 2 n) ---- */

/* A tank wall particle at p: the vector to the nearest point of the tank's inner box (the fluid
 * side of the walls), p clamped into the box.  Along a wall that is the wall's normal; at the
 * tank's edges and corners it points diagonally to the edge or corner, as DualSPHysics 5 does
 * for corners (English et al. 2021: the corner particles' ghosts are mirrored through the corner
 * point, so they lie in the fluid).  No clamp at an open top. */
static void tank_normal(const tide_case *c, const double *p, double n[3])
{
	const tide_box *b = &c->tank.box;
	for (int a = 0; a < 3; a++) {
		double q = p[a];
		if (!(c->dim == 2 && a == 1)) {
			if (q < b->lo[a]) q = b->lo[a];
			if (q > b->hi[a] && !(a == 2 && c->tank.open_top)) q = b->hi[a];
		}
		n[a] = q - p[a];
	}
}

/* Is face (axis a, side 1 = hi) of obstacle o in contact with fluid?  Not where it lies on or
 * beyond a tank wall (an obstacle standing on the floor has no fluid under it). */
static int face_exposed(const tide_case *c, const tide_box *o, int a, int side)
{
	if (c->dim == 2 && a == 1) return 0;
	if (!c->tank.present || (side && a == 2 && c->tank.open_top)) return 1;
	double f = side ? o->hi[a] : o->lo[a], w = side ? c->tank.box.hi[a] : c->tank.box.lo[a];
	double eps = 1e-9 * (1 + fabs(w));
	return side ? f < w - eps : f > w + eps;
}

/* A particle at p of obstacle o (a solid box filled on lattice spacings sp): the vector to the
 * nearest point of its fluid-side surface.  A particle in the outer layer of several exposed faces
 * (an edge or corner of the box) points to the edge or corner point, diagonally out, like the
 * tank's corners; deeper particles to the nearest exposed face.  No exposed face: 0 (mdbc_ghost
 * then leaves its density as it is). */
static void obstacle_normal(const tide_case *c, const tide_box *o, const double *sp, const double *p,
                            double n[3])
{
	double outer[3] = {0, 0, 0}, best = INFINITY;
	int nouter = 0;
	for (int a = 0; a < 3; a++) {
		n[a] = 0;
		for (int side = 0; side < 2; side++) {
			if (!face_exposed(c, o, a, side)) continue;
			double d = side ? o->hi[a] - p[a] : p[a] - o->lo[a];
			if (d < sp[a] * (1 - 1e-6)) { /* the face's outer layer */
				outer[a] = side ? d : -d;
				nouter++;
			}
			if (d < best) { best = d; n[0] = n[1] = n[2] = 0; n[a] = side ? d : -d; }
		}
	}
	if (nouter > 0)
		for (int a = 0; a < 3; a++) n[a] = outer[a];
}

static int build_tank(const tide_case *c, tide_particle_set *s)
{
	const tide_tank *t = &c->tank;
	axis ax[3] = {{0}};
	int rc = -1;
	/* no wall across a periodic axis: the tank is open there (the fluid flows on through) */
	int wx = !(c->periodic & 1), wy = !(c->periodic & 2);
	if (wall_axis(&ax[0], t->box.lo[0], t->box.hi[0], c->dp, t->layers, wx, wx) ||
	    (c->dim == 3 ? wall_axis(&ax[1], t->box.lo[1], t->box.hi[1], c->dp, t->layers, wy, wy)
	                 : flat_axis(&ax[1])) ||
	    wall_axis(&ax[2], t->box.lo[2], t->box.hi[2], c->dp, t->layers, 1, !t->open_top)) {
		fprintf(stderr, "tide: out of host memory while building the tank walls%s.\n", TIDE_OOM_ADVICE);
		goto out;
	}
	/* Every lattice point with at least one coordinate in a wall layer: closed walls, edges and
	 * corners included. */
	for (long k = 0; k < ax[2].n; k++)
		for (long j = 0; j < ax[1].n; j++)
			for (long i = 0; i < ax[0].n; i++)
				if (ax[0].wall[i] || ax[1].wall[j] || ax[2].wall[k]) {
					double p[3] = {ax[0].v[i], ax[1].v[j], ax[2].v[k]}, nb[3];
					if (tide_pset_push(s, p[0], p[1], p[2], (float)c->rho0, TIDE_BOUND)) goto out;
					tank_normal(c, p, nb);
					tide_pset_set_normal(s, nb[0], nb[1], nb[2]);
				}
	rc = 0;
out:
	for (int a = 0; a < 3; a++) axis_free(&ax[a]);
	return rc;
}

static int strictly_inside(const double *p, const double *lo, const double *hi, const double *margin,
                           int dim)
{
	for (int a = 0; a < 3; a++) {
		if (dim == 2 && a == 1) continue;
		double eps = 1e-9 * (1 + fabs(lo[a]) + fabs(hi[a]));
		if (!(p[a] > lo[a] - margin[a] + eps && p[a] < hi[a] + margin[a] - eps)) return 0;
	}
	return 1;
}

/* Obstacle o filled with the span lattice of each axis; s[] receives the spacings. */
static void obstacle_spacing(const tide_case *c, const tide_box *o, long *n, double *sp)
{
	for (int a = 0; a < 3; a++) {
		n[a] = 1;
		sp[a] = 0;
		if (c->dim == 3 || a != 1) n[a] = span(o->lo[a], o->hi[a], c->dp, &sp[a]);
	}
}

static int build_obstacle(const tide_case *c, int m, tide_particle_set *s)
{
	const tide_box *o = &c->obstacle[m];
	static const double zero[3] = {0, 0, 0};
	long n[3];
	double sp[3];
	obstacle_spacing(c, o, n, sp);
	for (long k = 0; k < n[2]; k++)
		for (long j = 0; j < n[1]; j++)
			for (long i = 0; i < n[0]; i++) {
				double p[3] = {o->lo[0] + (i + 0.5) * sp[0], c->dim == 3 ? o->lo[1] + (j + 0.5) * sp[1] : 0,
				               o->lo[2] + (k + 0.5) * sp[2]};
				int dup = 0;   /* overlapping obstacles: the earlier one owns the overlap */
				for (int e = 0; e < m && !dup; e++)
					dup = strictly_inside(p, c->obstacle[e].lo, c->obstacle[e].hi, zero, c->dim);
				if (dup) continue;
				if (tide_pset_push(s, p[0], p[1], p[2], (float)c->rho0, TIDE_BOUND)) return -1;
				double nb[3];
				obstacle_normal(c, o, sp, p, nb);
				tide_pset_set_normal(s, nb[0], nb[1], nb[2]);
			}
	return 0;
}

/* A fluid point is dropped if it is closer to an obstacle face than dp minus the obstacle's own
 * half spacing, i.e. if it would come closer than dp to an obstacle particle. */
static int near_obstacle(const tide_case *c, const double *p)
{
	for (int m = 0; m < c->nobstacle; m++) {
		long n[3];
		double sp[3], margin[3];
		obstacle_spacing(c, &c->obstacle[m], n, sp);
		for (int a = 0; a < 3; a++) margin[a] = c->dp - 0.5 * sp[a];
		if (strictly_inside(p, c->obstacle[m].lo, c->obstacle[m].hi, margin, c->dim)) return 1;
	}
	return stl_geom && tide_geometry_near_solid(c, stl_geom, p);
}

/* Overlapping fluid boxes: the earlier box owns the overlap (plus half a spacing, so that the
 * two lattices never come closer than dp). */
static int in_earlier_fluid(const tide_case *c, int b, const double *p)
{
	const double half[3] = {0.5 * c->dp, 0.5 * c->dp, 0.5 * c->dp};
	for (int e = 0; e < b; e++)
		if (strictly_inside(p, c->fluid[e].lo, c->fluid[e].hi, half, c->dim)) return 1;
	return 0;
}

static int build_fluid(const tide_case *c, int b, tide_particle_set *s)
{
	const tide_box *f = &c->fluid[b];
	/* the weight of the water above: the downward (-z) part of gravity only, so a body force
	 * along x (a channel driven along a periodic axis) starts at uniform density */
	double g = fmax(0.0, -c->gravity[2]);
	double top = f->hi[2];
	long nx = cells(f->hi[0] - f->lo[0], c->dp), nz = cells(f->hi[2] - f->lo[2], c->dp);
	long ny = c->dim == 3 ? cells(f->hi[1] - f->lo[1], c->dp) : 1;
	for (long k = 0; k < nz; k++)
		for (long j = 0; j < ny; j++)
			for (long i = 0; i < nx; i++) {
				double p[3] = {f->lo[0] + (i + 0.5) * c->dp, c->dim == 3 ? f->lo[1] + (j + 0.5) * c->dp : 0,
				               f->lo[2] + (k + 0.5) * c->dp};
				if (near_obstacle(c, p) || in_earlier_fluid(c, b, p)) continue;
				/* Hydrostatic start: the pressure of the depth below this box's top. */
				double rho = tide_case_density(c, c->rho0 * g * (top - p[2]));
				if (tide_pset_push(s, p[0], p[1], p[2], (float)rho, TIDE_FLUID)) return -1;
			}
	return 0;
}

/* Is p inside a fluid box (with half a spacing around it, as between boxes) or an earlier ball? */
static int in_other_fluid(const tide_case *c, int b, const double *p)
{
	if (in_earlier_fluid(c, c->nfluid, p)) return 1;
	for (int e = 0; e < b; e++) {
		const tide_sphere *o = &c->sphere[e];
		double d2 = 0, R = o->r + 0.5 * c->dp;
		for (int a = 0; a < 3; a++) d2 += (p[a] - o->c[a]) * (p[a] - o->c[a]);
		if (d2 < R * R) return 1;
	}
	return 0;
}

/* Ball b: lattice points centre + (i + 1/2) dp inside the radius (symmetric about the centre).
 * Density rho0, or with 'hydrostatic' that of a uniform self-gravitating sphere at rest,
 * p(r) = (2 pi / 3) G rho0^2 (R^2 - r^2), through the equation of state. */
static int build_sphere(const tide_case *c, int b, tide_particle_set *s)
{
	const tide_sphere *o = &c->sphere[b];
	long n = (long)ceil(o->r / c->dp);
	double R2 = o->r * o->r * (1 + 1e-12);
	double k = 2.0 * M_PI / 3.0 * c->self_gravity.G * c->rho0 * c->rho0;
	for (long kz = -n; kz < n; kz++)
		for (long ky = c->dim == 3 ? -n : 0; ky < (c->dim == 3 ? n : 1); ky++)
			for (long kx = -n; kx < n; kx++) {
				double d[3] = {(kx + 0.5) * c->dp, c->dim == 3 ? (ky + 0.5) * c->dp : 0,
				               (kz + 0.5) * c->dp};
				double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
				if (r2 > R2) continue;
				double p[3] = {o->c[0] + d[0], o->c[1] + d[1], o->c[2] + d[2]};
				if (c->dim == 2) p[1] = 0;
				if (near_obstacle(c, p) || in_other_fluid(c, b, p)) continue;
				double rho = o->hydrostatic ? tide_case_density(c, k * fmax(o->r * o->r - r2, 0))
				                            : c->rho0;
				if (tide_pset_push(s, p[0], p[1], p[2], (float)rho, TIDE_FLUID)) return -1;
			}
	return 0;
}

/* Is p a point of the tank walls or inside a box obstacle (STL solids leave it to them)? */
static int box_wall(const tide_case *c, const double *p)
{
	static const double zero[3] = {0, 0, 0};
	for (int m = 0; m < c->nobstacle; m++)
		if (strictly_inside(p, c->obstacle[m].lo, c->obstacle[m].hi, zero, c->dim)) return 1;
	if (!c->tank.present) return 0;
	const tide_box *t = &c->tank.box;
	double L = c->tank.layers * c->dp;
	int outer = 1, inner = 1;
	for (int a = 0; a < 3; a++) {
		if (c->dim == 2 && a == 1) continue;
		double top = a == 2 && c->tank.open_top ? INFINITY : 0;   /* the open top has no wall */
		outer &= p[a] > t->lo[a] - L && p[a] < t->hi[a] + L + top;
		inner &= p[a] > t->lo[a] && p[a] < t->hi[a] + top;
	}
	return outer && !inner;
}

/* Fluid volumes leave out what box fluid, balls and obstacles hold. */
static int fluid_taken(const tide_case *c, const double *p)
{
	return near_obstacle(c, p) || in_other_fluid(c, c->nsphere, p);
}

/* Upper bound of the particle count, from the lattice sizes alone. */
static double estimate(const tide_case *c)
{
	if (c->generator.type != TIDE_GEN_NONE) return (double)tide_gen_build(c, NULL); /* exact */
	double total = 0, L = c->tank.layers;
	int y = c->dim == 3;
	for (int b = 0; b < c->nfluid; b++) {
		const tide_box *f = &c->fluid[b];
		total += (floor((f->hi[0] - f->lo[0]) / c->dp) + 1) * (floor((f->hi[2] - f->lo[2]) / c->dp) + 1) *
		         (y ? floor((f->hi[1] - f->lo[1]) / c->dp) + 1 : 1);
	}
	for (int b = 0; b < c->nsphere; b++)
		total += pow(2 * ceil(c->sphere[b].r / c->dp), y ? 3 : 2);
	for (int m = 0; m < c->nobstacle; m++) {
		const tide_box *o = &c->obstacle[m];
		total += (floor((o->hi[0] - o->lo[0]) / c->dp) + 1) * (floor((o->hi[2] - o->lo[2]) / c->dp) + 1) *
		         (y ? floor((o->hi[1] - o->lo[1]) / c->dp) + 1 : 1);
	}
	if (c->tank.present) {
		const tide_box *t = &c->tank.box;
		double nx = floor((t->hi[0] - t->lo[0]) / c->dp) + 1, nz = floor((t->hi[2] - t->lo[2]) / c->dp) + 1;
		double ny = y ? floor((t->hi[1] - t->lo[1]) / c->dp) + 1 : 1;
		/* no walls across a periodic axis (build_tank) */
		double wx = c->periodic & 1 ? 0 : 2 * L, wy = y && !(c->periodic & 2) ? 2 * L : 0;
		total += (nx + wx) * (ny + wy) * (nz + 2 * L) - nx * ny * nz;
	}
	double stl_fluid, stl_bound;
	tide_geometry_estimate(c, &stl_fluid, &stl_bound);
	return total + stl_fluid + stl_bound;
}

/* Fluid lattice points of box b before obstacles and other boxes take theirs. */
static double fluid_cells(const tide_case *c, const tide_box *f)
{
	return (double)cells(f->hi[0] - f->lo[0], c->dp) * (double)cells(f->hi[2] - f->lo[2], c->dp) *
	       (c->dim == 3 ? (double)cells(f->hi[1] - f->lo[1], c->dp) : 1.0);
}

/* Why there are no fluid particles: dp too large for every box, or obstacles over the boxes. */
static void say_no_fluid(const tide_case *c)
{
	for (int b = 0; b < c->nfluid; b++) {
		if (fluid_cells(c, &c->fluid[b]) < 1 || !c->nobstacle) continue;
		/* the box had lattice points: the obstacles over it took them all */
		char fb[128], list[600] = "";
		tide_case_box_text(c, &c->fluid[b], fb, sizeof fb);
		for (int k = 0; k < c->nobstacle; k++) {
			const tide_box *o = &c->obstacle[k];
			int meets = 1;
			for (int a = 0; a < 3; a++)
				if (c->dim == 3 || a != 1)
					meets &= o->lo[a] < c->fluid[b].hi[a] + c->dp && o->hi[a] > c->fluid[b].lo[a] - c->dp;
			if (!meets) continue;
			char ob[128];
			size_t len = strlen(list);
			tide_case_box_text(c, o, ob, sizeof ob);
			snprintf(list + len, sizeof list - len, "%sobstacles[%d] = %s", len ? ", " : "", k, ob);
		}
		fprintf(stderr, "tide: %s: fluid[%d] = %s is covered by %s (every lattice point of the "
		        "box lies inside an obstacle or within dp of one), so there are no fluid "
		        "particles; move the fluid box out of the obstacles.\n", c->path, b, fb, list);
		return;
	}
	if (c->nsolid || c->nvolume) {   /* STL geometry: the meshes may have taken every point */
		fprintf(stderr, "tide: %s: no fluid particle is left: every fluid lattice point lies inside an "
		        "STL solid or within dp/2 of one, or outside the fluid volumes, or dp = %g m is larger "
		        "than the fluid boxes, spheres and volumes; check the placement of solids and "
		        "fluid_volumes, or use a smaller dp.\n", c->path, c->dp);
		return;
	}
	fprintf(stderr, "tide: case '%s': dp = %g m is larger than every fluid box and sphere, so "
	        "there are no fluid particles; use a smaller dp.\n", c->name, c->dp);
}

/* The particle ids are 32-bit. */
static int too_many(const tide_case *c, double est)
{
	if (est <= 4e9) return 0;
	fprintf(stderr, "tide: case '%s': dp = %g m gives about %.3g particles, more than the 4e9 "
	        "that particle ids allow; use a larger dp.\n", c->name, c->dp, est);
	return -1;
}

int tide_case_check_size(const tide_case *c)
{
	double est = estimate(c);
	if (too_many(c, est)) return -1;
	if (c->generator.type != TIDE_GEN_NONE) return 0; /* it makes gas: counted at loading */
	double fluid = 0;
	for (int b = 0; b < c->nfluid; b++) fluid += fluid_cells(c, &c->fluid[b]);
	if (fluid < 1 && c->nsphere == 0 && c->nvolume == 0) {
		say_no_fluid(c);
		return -1;
	}
	return 0;
}

double tide_case_particle_estimate(const tide_case *c) { return estimate(c); }

int tide_case_body_ids(const tide_case *c, uint32_t first[2][TIDE_CASE_MAX_ITEMS],
                       uint32_t end[2][TIDE_CASE_MAX_ITEMS])
{
	size_t mark[1 + 2 * TIDE_CASE_MAX_ITEMS];
	tide_particle_set s = {.mode = TIDE_PSET_COUNT, .mark = mark, .bound_only = 1};
	int rc = tide_case_build(c, &s);
	if (rc) return rc;
	for (int m = 0; m < c->nobstacle; m++) {
		first[0][m] = (uint32_t)mark[m];
		end[0][m] = (uint32_t)mark[m + 1];
	}
	for (int k = 0; k < c->nsolid; k++) {
		first[1][k] = (uint32_t)mark[c->nobstacle + k];
		end[1][k] = (uint32_t)mark[c->nobstacle + k + 1];
	}
	return 0;
}

int tide_case_build(const tide_case *c, tide_particle_set *s)
{
	double est = estimate(c);
	if (too_many(c, est)) return -1;
	if (tide_pset_reserve(s, s->n + (size_t)est)) return -1;
	tide_geometry g;
	int rc = tide_geometry_load(c, box_wall, &g);
	if (rc) return rc;
	stl_geom = &g;
	rc = -1;
	if (c->tank.present && build_tank(c, s)) goto out;
	tide_pset_mark(s);
	for (int m = 0; m < c->nobstacle; m++) {
		if (build_obstacle(c, m, s)) goto out;
		tide_pset_mark(s);
	}
	if (tide_geometry_solids(c, &g, box_wall, s)) goto out;
	size_t nbound = s->n;
	if (s->bound_only) {
		rc = 0;
		goto out;
	}
	for (int b = 0; b < c->nfluid; b++)
		if (build_fluid(c, b, s)) goto out;
	for (int b = 0; b < c->nsphere; b++)
		if (build_sphere(c, b, s)) goto out;
	if (tide_geometry_volumes(c, &g, fluid_taken, s)) goto out;
	rc = 0;
	if (s->n == nbound) { /* bad input, not a failed run (the caller's exit code 2) */
		say_no_fluid(c);
		rc = -2;
	}
out:
	stl_geom = NULL;
	tide_geometry_free(&g);
	return rc;
}
