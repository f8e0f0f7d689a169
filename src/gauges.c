// SPDX-License-Identifier: LGPL-2.1-or-later
// Gauges on the host: the sums of include/tide/gauge_math.h over a particle set in host memory
// (tide probe, tests, tide_gauges_write): a cell grid over the particles keeps every measurement
// O(N) rather than O(N^2).  The formulas are those of include/tide/gauge_math.h, shared with the
// codelets.  gauges.csv itself is written by src/gauges_csv.c.
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "log.h"
#include "output.h"
#include "tide/gauge_math.h"
#include "tide/sph_kernel.h"
#include "tide/sph_sim.h"

/* ---- a uniform cell grid over the particles ---- */

typedef struct fluid_grid {
	const tide_particle_set *s;
	int dim;
	double lo[3], hi[3];   /* bounding box of the particles */
	double cs;             /* cell size, >= 2h */
	long nc[3];            /* cells per axis; 1 along y in 2-D */
	size_t nf;             /* particles */
	size_t *start;         /* cell c holds idx[start[c] .. start[c+1]) */
	size_t *idx;           /* particle indices, cell by cell */
	tide_sph_params P;     /* the codelets' parameters: the same sums as theirs (gauge_math.h) */
} fluid_grid;

/* 2-D cases live in the x-z plane: y takes no part in distances or cells. */
static int axis_used(int dim, int k) { return dim == 3 || k != 1; }

static double coord(const tide_particle_set *s, size_t i, int k)
{
	return k == 0 ? s->x[i] : k == 1 ? s->y[i] : s->z[i];
}

static long clampl(long v, long lo, long hi) { return v < lo ? lo : v > hi ? hi : v; }

static long cell_coord(const fluid_grid *g, double v, int k)
{
	if (!axis_used(g->dim, k)) return 0;
	return clampl((long)floor((v - g->lo[k]) / g->cs), 0, g->nc[k] - 1);
}

static size_t cell_of(const fluid_grid *g, size_t i)
{
	long cx = cell_coord(g, g->s->x[i], 0), cy = cell_coord(g, g->s->y[i], 1);
	long cz = cell_coord(g, g->s->z[i], 2);
	return (size_t)((cz * g->nc[1] + cy) * g->nc[0] + cx);
}

static void fluid_bounds(fluid_grid *g)
{
	const tide_particle_set *s = g->s;
	for (int k = 0; k < 3; k++) { g->lo[k] = INFINITY; g->hi[k] = -INFINITY; }
	for (size_t i = 0; i < s->n; i++) {
		g->nf++;
		for (int k = 0; k < 3; k++) {
			double v = coord(s, i, k);
			if (v < g->lo[k]) g->lo[k] = v;
			if (v > g->hi[k]) g->hi[k] = v;
		}
	}
}

/* Scattered droplets could stretch the box far beyond the fluid; larger cells stay correct (they
 * only hold more particles), so grow them until the grid is at most a few cells per particle. */
static size_t size_cells(fluid_grid *g, double h)
{
	double limit = 4.0 * (double)g->nf + 4096.0;
	g->cs = 2.0 * h;
	for (;;) {
		double ncell = 1.0;
		for (int k = 0; k < 3; k++) {
			g->nc[k] = axis_used(g->dim, k) ? (long)floor((g->hi[k] - g->lo[k]) / g->cs) + 1 : 1;
			ncell *= (double)g->nc[k];
		}
		if (ncell <= limit) return (size_t)ncell;
		g->cs *= 2.0;
	}
}

/* Counting sort of the particles by cell.  Returns 0 or -1 (out of memory, printed). */
static int grid_build(fluid_grid *g, const tide_particle_set *s, const tide_case *c)
{
	memset(g, 0, sizeof *g);
	g->s = s;
	g->dim = c->dim;
	tide_sim_params(c, &g->P);
	fluid_bounds(g);
	if (g->nf == 0) return 0;
	size_t ncell = size_cells(g, tide_case_h(c));
	g->start = calloc(ncell + 1, sizeof *g->start);
	g->idx = malloc(g->nf * sizeof *g->idx);
	if (!g->start || !g->idx) {
		fprintf(stderr, "tide: out of memory for the gauge grid (%zu cells).\n", ncell);
		free(g->start); free(g->idx);
		return -1;
	}
	for (size_t i = 0; i < s->n; i++) g->start[cell_of(g, i) + 1]++;
	for (size_t k = 0; k < ncell; k++) g->start[k + 1] += g->start[k];
	size_t *fill = malloc(ncell * sizeof *fill);
	if (!fill) {
		fprintf(stderr, "tide: out of memory for the gauge grid (%zu cells).\n", ncell);
		free(g->start); free(g->idx);
		return -1;
	}
	memcpy(fill, g->start, ncell * sizeof *fill);
	for (size_t i = 0; i < s->n; i++) g->idx[fill[cell_of(g, i)]++] = i;
	free(fill);
	return 0;
}

static void grid_free(fluid_grid *g)
{
	free(g->start);
	free(g->idx);
	memset(g, 0, sizeof *g);
}

typedef void (*visit_fn)(void *ctx, size_t j, double r2);

/* Calls fn for every particle j with |r - r_j| < radius. */
static void grid_visit(const fluid_grid *g, const double r[3], double radius, visit_fn fn, void *ctx)
{
	if (g->nf == 0) return;
	long lo[3], hi[3];
	for (int k = 0; k < 3; k++) {
		if (!axis_used(g->dim, k)) { lo[k] = hi[k] = 0; continue; }
		lo[k] = (long)floor((r[k] - radius - g->lo[k]) / g->cs);
		hi[k] = (long)floor((r[k] + radius - g->lo[k]) / g->cs);
		if (hi[k] < 0 || lo[k] > g->nc[k] - 1) return;   /* nothing that close */
		lo[k] = clampl(lo[k], 0, g->nc[k] - 1);
		hi[k] = clampl(hi[k], 0, g->nc[k] - 1);
	}
	for (long cz = lo[2]; cz <= hi[2]; cz++)
		for (long cy = lo[1]; cy <= hi[1]; cy++)
			for (long cx = lo[0]; cx <= hi[0]; cx++) {
				size_t cell = (size_t)((cz * g->nc[1] + cy) * g->nc[0] + cx);
				for (size_t a = g->start[cell]; a < g->start[cell + 1]; a++) {
					size_t j = g->idx[a];
					double r2 = 0.0;
					for (int k = 0; k < 3; k++)
						if (axis_used(g->dim, k)) {
							double d = r[k] - coord(g->s, j, k);
							r2 += d * d;
						}
					if (r2 < radius * radius) fn(ctx, j, r2);
				}
			}
}

/* The same over the periodic images too (case key periodic): the point shifted by -L, 0, +L
 * along each periodic axis, so the particles across a periodic face count at their minimum-image
 * distance (the period is at least 4h, so no particle comes twice within 2h). */
static void periodic_visit(const fluid_grid *g, const tide_case *c, const double r[3],
                           double radius, visit_fn fn, void *ctx)
{
	double L[2] = {c->domain.hi[0] - c->domain.lo[0], c->domain.hi[1] - c->domain.lo[1]};
	for (int sy = -1; sy <= 1; sy++)
		for (int sx = -1; sx <= 1; sx++) {
			if ((sx && !(c->periodic & 1)) || (sy && !(c->periodic & 2))) continue;
			double q[3] = {r[0] + sx * L[0], r[1] + sy * L[1], r[2]};
			grid_visit(g, q, radius, fn, ctx);
		}
}

/* ---- kernel sums ---- */

typedef struct kernel_sum {
	const tide_particle_set *s;
	const tide_sph_params *P;
	tide_gauge_sums sum;   /* fluid: vw_f, pvw, vvw, n; boundary: vw_b */
	double rvw;            /* fluid sum rho_j V_j W (tide probe's density) */
} kernel_sum;

static void add_kernel(void *ctx, size_t j, double r2)
{
	kernel_sum *k = ctx;
	const tide_sph_params *P = k->P;
	int fluid = k->s->type[j] == TIDE_FLUID;
	double vw = tide_gauge_vw(P->kernel, (double)P->aw, (double)P->h, r2,
	                          (double)P->mass[fluid ? TIDE_FLUID : TIDE_BOUND], k->s->rho[j]);
	if (!fluid) { k->sum.vw_b += vw; return; }
	k->sum.vw_f += vw;
	k->sum.pvw += tide_gauge_eos(P, k->s->rho[j]) * vw;
	k->sum.vvw[0] += k->s->vx[j] * vw;
	k->sum.vvw[1] += k->s->vy[j] * vw;
	k->sum.vvw[2] += k->s->vz[j] * vw;
	k->sum.n += 1.0;
	k->rvw += k->s->rho[j] * vw;
}

static kernel_sum sum_at(const fluid_grid *g, const tide_case *c, const double p[3])
{
	kernel_sum k = { g->s, &g->P, {0, 0, 0, {0, 0, 0}, 0}, 0 };
	double r[3] = { p[0], c->dim == 3 ? p[1] : 0.0, p[2] };
	periodic_visit(g, c, r, 2.0 * (double)g->P.h, add_kernel, &k);
	return k;
}

/* ---- the gauges as sums (gauge_math.h's layout) on a built grid ---- */

/* Lines from zlo to zhi, sampled every dp/2. */
static int lines_of_case(const tide_case *c, double zlo, double zhi, tide_gauge_arg *G)
{
	G->nline = c->nheight;
	for (int k = 0; k < c->nheight; k++) {
		G->line[k][0] = c->height[k].p[0];
		G->line[k][1] = c->dim == 3 ? c->height[k].p[1] : 0.0;
	}
	G->dz = 0.5 * c->dp;
	G->z0 = zlo;
	double n = floor((zhi - zlo) / G->dz) + 2;   /* up to zhi and a sample past it */
	if (!(n >= 2)) n = 2;
	if (c->nheight && n * c->nheight > TIDE_GAUGE_MAX_SAMPLES) {
		fprintf(stderr, "tide: %s: the height gauges would need %.0f samples each (the domain's "
		        "height %g m every dp/2); allowed: at most %d in all: a lower domain, fewer "
		        "gauges.height or a larger dp.\n", c->path, n, zhi - zlo,
		        TIDE_GAUGE_MAX_SAMPLES);
		return -1;
	}
	G->nz = c->nheight ? (int)n : 0;
	return 0;
}

int tide_gauge_arg_of_case(const tide_case *c, tide_gauge_arg *G)
{
	memset(G, 0, sizeof *G);
	G->dim = c->dim;
	if (lines_of_case(c, c->domain.lo[2], c->domain.hi[2], G)) return -1;
	G->npoint = c->npressure + c->nvelocity;
	for (int k = 0; k < G->npoint; k++) {
		const double *p = k < c->npressure ? c->pressure[k].p : c->velocity[k - c->npressure].p;
		G->point[k][0] = p[0];
		G->point[k][1] = c->dim == 3 ? p[1] : 0.0;
		G->point[k][2] = p[2];
	}
	G->nobst = c->gauge_forces ? c->nobstacle : 0;
	for (int m = 0, k = 0; m < G->nobst; m++) {
		memcpy(G->obst_lo[m], c->obstacle[m].lo, sizeof G->obst_lo[m]);
		memcpy(G->obst_hi[m], c->obstacle[m].hi, sizeof G->obst_hi[m]);
		/* moving obstacles are the first bodies of the motion table, in case order */
		int moving = c->obstacle_motion[m][1] > 0;
		G->obst_id[m][0] = moving ? c->motion.body[k].id0 : 0;
		G->obst_id[m][1] = moving ? c->motion.body[k].id1 : 0;
		k += moving;
	}
	G->front = c->surge_front;
	G->front_r = 1.5 * c->dp;
	return 0;
}

typedef struct neighbour_count {
	const tide_particle_set *s;
	size_t self, n;
} neighbour_count;

static void count_other(void *ctx, size_t j, double r2)
{
	(void)r2;
	neighbour_count *nc = ctx;
	nc->n += j != nc->self && nc->s->type[j] == TIDE_FLUID;
}

/* Largest x of a fluid particle with >= 2 other fluid particles within r; TIDE_GAUGE_NONE. */
static double front_max(const fluid_grid *g, double r)
{
	const tide_particle_set *s = g->s;
	double best = TIDE_GAUGE_NONE;
	for (size_t a = 0; a < g->nf; a++) {
		size_t i = g->idx[a];
		if (s->type[i] != TIDE_FLUID || s->x[i] <= best) continue;   /* cannot move the front */
		double p[3] = { s->x[i], s->y[i], s->z[i] };
		neighbour_count nc = { s, i, 0 };
		grid_visit(g, p, r, count_other, &nc);
		if (nc.n >= 2) best = s->x[i];
	}
	return best;
}

typedef struct force_sum {
	const tide_particle_set *s;
	const tide_sph_params *P;
	size_t b;
	double F[3];
} force_sum;

static void add_force(void *ctx, size_t j, double r2)
{
	force_sum *f = ctx;
	const tide_particle_set *s = f->s;
	(void)r2;
	if (s->type[j] != TIDE_FLUID) return;
	float dx = (float)(s->x[j] - s->x[f->b]), dz = (float)(s->z[j] - s->z[f->b]);
	float dy = f->P->dim == 3 ? (float)(s->y[j] - s->y[f->b]) : 0.f;
	float q2 = dx * dx + dy * dy + dz * dz;
	if (q2 >= f->P->h2x4) return;
	tide_gauge_pair_force(f->P, s->vx[j], s->vy[j], s->vz[j], s->rho[j], dx, dy, dz, q2,
	                      s->vx[f->b], s->vy[f->b], s->vz[f->b], s->rho[f->b], f->F);
}

static void sums_on(const fluid_grid *g, const tide_case *c, const tide_gauge_arg *G, double *out)
{
	memset(out, 0, sizeof *out * tide_gauge_len(G));
	out[0] = G->front && g->nf ? front_max(g, G->front_r) : TIDE_GAUGE_NONE;
	for (int l = 0; l < G->nline; l++)
		for (int k = 0; k < G->nz; k++) {
			double r[3];
			tide_gauge_sample_pos(G, l, k, r);
			tide_gauge_sums s = sum_at(g, c, r).sum;
			size_t at = tide_gauge_sample_at(G, l, k);
			out[at] = s.vw_f;
			out[at + 1] = s.vw_b;
		}
	for (int p = 0; p < G->npoint; p++) {
		tide_gauge_sums s = sum_at(g, c, G->point[p]).sum;
		tide_gauge_point_out(G, p, &s, out);
	}
	if (!G->nobst) return;
	for (size_t b = 0; b < g->s->n; b++) {
		const tide_particle_set *s = g->s;
		if (s->type[b] != TIDE_BOUND) continue;
		int m = tide_gauge_obstacle_of(G, s->id[b], s->x[b], s->y[b], s->z[b]);
		if (m < 0) continue;
		force_sum f = { s, &g->P, b, {0, 0, 0} };
		double r[3] = { s->x[b], s->y[b], s->z[b] };
		grid_visit(g, r, 2.0 * tide_case_h(c), add_force, &f);
		for (int d = 0; d < 3; d++) out[tide_gauge_obst_at(G, m) + d] += f.F[d];
	}
}

/* Lines over the domain's height, or over the particles' when the case has no domain (a case
 * made in memory). */
static int host_arg(const fluid_grid *g, const tide_case *c, tide_gauge_arg *G)
{
	if (tide_gauge_arg_of_case(c, G)) return -1;
	if (c->domain.hi[2] > c->domain.lo[2] || !g->nf) return 0;
	double h2 = 2.0 * tide_case_h(c);
	return lines_of_case(c, g->lo[2] - h2, g->hi[2] + h2, G);
}

int tide_gauge_sums_host(const tide_particle_set *s, const tide_case *c, tide_gauge_arg *G,
                         double **out)
{
	fluid_grid g;
	*out = NULL;
	if (grid_build(&g, s, c)) return -1;
	if (host_arg(&g, c, G)) {   /* too many samples: said */
		grid_free(&g);
		return -1;
	}
	*out = malloc(sizeof **out * tide_gauge_len(G));
	if (!*out) {
		fprintf(stderr, "tide: out of memory for the gauges (%zu values).\n", tide_gauge_len(G));
		grid_free(&g);
		return -1;
	}
	sums_on(&g, c, G, *out);
	grid_free(&g);
	return 0;
}

/* Height of line l of summed gauges (gauge_math.h's profile formula). */
double tide_gauge_line_height(const tide_gauge_arg *G, const double *sums, int l, int mode)
{
	double *f = malloc(sizeof *f * 2 * (size_t)(G->nz > 0 ? G->nz : 1));
	if (!f) return NAN;
	double *b = f + G->nz;
	for (int k = 0; k < G->nz; k++) {
		f[k] = sums[tide_gauge_sample_at(G, l, k)];
		b[k] = sums[tide_gauge_sample_at(G, l, k) + 1];
	}
	double v = tide_gauge_profile_height(f, b, G->nz, G->z0, G->dz, mode);
	free(f);
	return v;
}

static double height_on(const fluid_grid *g, const tide_case *c, double x, double y, int mode)
{
	tide_case one = *c;
	one.nheight = 1;
	one.height[0].p[0] = x;
	one.height[0].p[1] = y;
	one.npressure = one.nvelocity = 0;
	one.gauge_forces = 0;
	one.surge_front = 0;
	tide_gauge_arg G;
	if (host_arg(g, &one, &G)) return NAN;
	double *out = malloc(sizeof *out * tide_gauge_len(&G));
	if (!out) return NAN;
	sums_on(g, &one, &G, out);
	double v = tide_gauge_line_height(&G, out, 0, mode);
	free(out);
	return v;
}

/* Shepard interpolation: sum f_j V_j W / sum V_j W, exact for a constant field. */
static void sample_on(const fluid_grid *g, const tide_case *c, const double p[3], tide_sample *out)
{
	kernel_sum ks = sum_at(g, c, p);
	const tide_gauge_sums *k = &ks.sum;
	memset(out, 0, sizeof *out);
	out->nfluid = (size_t)k->n;
	if (!(k->vw_f > 0.0)) return;
	for (int d = 0; d < 3; d++) out->v[d] = k->vvw[d] / k->vw_f;
	out->p = k->pvw / k->vw_f;
	out->rho = ks.rvw / k->vw_f;
}

static double pressure_on(const fluid_grid *g, const tide_case *c, const double p[3])
{
	tide_sample smp;
	sample_on(g, c, p, &smp);
	return smp.p;
}

static double front_on(const fluid_grid *g, const tide_case *c)
{
	double best = g->nf ? front_max(g, 1.5 * c->dp) : TIDE_GAUGE_NONE;
	return best > TIDE_GAUGE_NONE ? best - c->surge_x0 : 0.0;
}

/* ---- single measurements ---- */

double tide_gauge_height(const tide_particle_set *s, const tide_case *c, double x, double y)
{
	fluid_grid g;
	if (grid_build(&g, s, c)) return NAN;
	double v = height_on(&g, c, x, y, c->gauge_mode);
	grid_free(&g);
	return v;
}

double tide_gauge_pressure(const tide_particle_set *s, const tide_case *c, const double p[3])
{
	fluid_grid g;
	if (grid_build(&g, s, c)) return NAN;
	double v = pressure_on(&g, c, p);
	grid_free(&g);
	return v;
}

double tide_gauge_front(const tide_particle_set *s, const tide_case *c)
{
	fluid_grid g;
	if (grid_build(&g, s, c)) return NAN;
	double v = front_on(&g, c);
	grid_free(&g);
	return v;
}

/* ---- many measurements on one snapshot (tide probe) ---- */

struct tide_fluid_grid {
	fluid_grid g;
	const tide_case *c;
};

tide_fluid_grid *tide_fluid_grid_new(const tide_particle_set *s, const tide_case *c)
{
	tide_fluid_grid *fg = malloc(sizeof *fg);
	if (!fg) {
		fprintf(stderr, "tide: out of memory for the gauge grid.\n");
		return NULL;
	}
	if (grid_build(&fg->g, s, c)) {
		free(fg);
		return NULL;
	}
	fg->c = c;
	return fg;
}

void tide_fluid_grid_free(tide_fluid_grid *fg)
{
	if (!fg) return;
	grid_free(&fg->g);
	free(fg);
}

void tide_fluid_grid_sample(const tide_fluid_grid *fg, const double p[3], tide_sample *out)
{
	sample_on(&fg->g, fg->c, p, out);
}

double tide_fluid_grid_height(const tide_fluid_grid *fg, double x, double y)
{
	return height_on(&fg->g, fg->c, x, y, fg->c->gauge_mode);
}
