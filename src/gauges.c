// SPDX-License-Identifier: LGPL-2.1-or-later
// Gauges measured on a host particle set at output times: water height along vertical lines,
// Shepard-interpolated pressure at points, and the surge front.  Clarity over speed, but a cell
// grid over the fluid keeps every measurement O(N) rather than O(N^2).
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "tide/log.h"
#include "tide/output.h"
#include "tide/sph_kernel.h"

/* ---- a uniform cell grid over the fluid particles ---- */

typedef struct fluid_grid {
	const tide_particle_set *s;
	int dim;
	double lo[3], hi[3];   /* bounding box of the fluid */
	double cs;             /* cell size, >= 2h */
	long nc[3];            /* cells per axis; 1 along y in 2-D */
	size_t nf;             /* fluid particles */
	size_t *start;         /* cell c holds idx[start[c] .. start[c+1]) */
	size_t *idx;           /* fluid particle indices, cell by cell */
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
		if (s->type[i] != TIDE_FLUID) continue;
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

/* Counting sort of the fluid particles by cell.  Returns 0 or -1 (out of memory, printed). */
static int grid_build(fluid_grid *g, const tide_particle_set *s, const tide_case *c)
{
	memset(g, 0, sizeof *g);
	g->s = s;
	g->dim = c->dim;
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
	for (size_t i = 0; i < s->n; i++)
		if (s->type[i] == TIDE_FLUID) g->start[cell_of(g, i) + 1]++;
	for (size_t k = 0; k < ncell; k++) g->start[k + 1] += g->start[k];
	size_t *fill = malloc(ncell * sizeof *fill);
	if (!fill) {
		fprintf(stderr, "tide: out of memory for the gauge grid (%zu cells).\n", ncell);
		free(g->start); free(g->idx);
		return -1;
	}
	memcpy(fill, g->start, ncell * sizeof *fill);
	for (size_t i = 0; i < s->n; i++)
		if (s->type[i] == TIDE_FLUID) g->idx[fill[cell_of(g, i)]++] = i;
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

/* Calls fn for every fluid particle j with |r - r_j| < radius. */
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
	const tide_case *c;
	double h, alpha, mass, tait_b;
	double vw, pvw;        /* sum V_j W, sum p_j V_j W */
	double vvw[3], rvw;    /* sum v_j V_j W, sum rho_j V_j W */
	size_t n;              /* fluid particles visited (within 2h) */
} kernel_sum;

static kernel_sum kernel_sum_init(const tide_particle_set *s, const tide_case *c)
{
	double h = tide_case_h(c);
	kernel_sum k = { s, c, h, tide_kernel_alpha(c->kernel, c->dim, h), tide_case_mass(c),
		         tide_case_tait_b(c), 0.0, 0.0, {0.0, 0.0, 0.0}, 0.0, 0 };
	return k;
}

static double tait_pressure(const kernel_sum *k, float rho)
{
	return tide_case_pressure(k->c, rho);   /* the case's equation of state */
}

static void add_kernel(void *ctx, size_t j, double r2)
{
	kernel_sum *k = ctx;
	double w = k->alpha * tide_kernel_w(k->c->kernel, (float)(sqrt(r2) / k->h));
	double vw = k->mass / k->s->rho[j] * w;
	k->vw += vw;
	k->pvw += tait_pressure(k, k->s->rho[j]) * vw;
	k->vvw[0] += k->s->vx[j] * vw;
	k->vvw[1] += k->s->vy[j] * vw;
	k->vvw[2] += k->s->vz[j] * vw;
	k->rvw += k->s->rho[j] * vw;
	k->n++;
}

static kernel_sum sum_at(const fluid_grid *g, const tide_case *c, const double r[3])
{
	kernel_sum k = kernel_sum_init(g->s, c);
	periodic_visit(g, c, r, 2.0 * k.h, add_kernel, &k);
	return k;
}

/* ---- the three measurements on a built grid ---- */

static double height_on(const fluid_grid *g, const tide_case *c, double x, double y)
{
	if (g->nf == 0) return 0.0;
	/* The free surface is where the kernel sum (a volume fraction) falls through 1/2, the
	 * DualSPHysics MeasureTool convention; above zmax + 2h it is 0 for sure. */
	double step = 0.5 * c->dp, top = g->hi[2] + 2.0 * tide_case_h(c);
	long nstep = (long)floor((top - g->lo[2]) / step);
	double height = 0.0;
	for (long k = 0; k <= nstep; k++) {
		double r[3] = { x, c->dim == 3 ? y : 0.0, g->lo[2] + (double)k * step };
		if (sum_at(g, c, r).vw >= 0.5) height = r[2];
	}
	return height;
}

/* Shepard interpolation: sum f_j V_j W / sum V_j W, exact for a constant field. */
static void sample_on(const fluid_grid *g, const tide_case *c, const double p[3], tide_sample *out)
{
	double r[3] = { p[0], c->dim == 3 ? p[1] : 0.0, p[2] };
	kernel_sum k = sum_at(g, c, r);
	memset(out, 0, sizeof *out);
	out->nfluid = k.n;
	if (!(k.vw > 0.0)) return;
	for (int d = 0; d < 3; d++) out->v[d] = k.vvw[d] / k.vw;
	out->p = k.pvw / k.vw;
	out->rho = k.rvw / k.vw;
}

static double pressure_on(const fluid_grid *g, const tide_case *c, const double p[3])
{
	tide_sample smp;
	sample_on(g, c, p, &smp);
	return smp.p;
}

typedef struct neighbour_count {
	size_t self, n;
} neighbour_count;

static void count_other(void *ctx, size_t j, double r2)
{
	(void)r2;
	neighbour_count *nc = ctx;
	nc->n += j != nc->self;
}

static double front_on(const fluid_grid *g, const tide_case *c)
{
	const tide_particle_set *s = g->s;
	int found = 0;
	double best = 0.0;
	for (size_t a = 0; a < g->nf; a++) {
		size_t i = g->idx[a];
		if (found && s->x[i] <= best) continue;   /* cannot move the front */
		double r[3] = { s->x[i], s->y[i], s->z[i] };
		neighbour_count nc = { i, 0 };
		periodic_visit(g, c, r, 1.5 * c->dp, count_other, &nc);
		if (nc.n >= 2) { best = s->x[i]; found = 1; }
	}
	return found ? best - c->surge_x0 : 0.0;
}

/* ---- single measurements ---- */

double tide_gauge_height(const tide_particle_set *s, const tide_case *c, double x, double y)
{
	fluid_grid g;
	if (grid_build(&g, s, c)) return NAN;
	double v = height_on(&g, c, x, y);
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
	return height_on(&fg->g, fg->c, x, y);
}

/* ---- gauges.csv ---- */

static int gauges_fail(tide_gauges *g)
{
	fprintf(stderr, "tide: cannot write %s: %s.\n", g->path, tide_io_reason(errno));
	return -1;
}

/* A column title: the probe's name (or a default) with its unit, quoted if it needs to be. */
static void csv_title(FILE *f, const char *name, const char *deflt, int k, const char *unit)
{
	char title[64];
	if (name[0]) snprintf(title, sizeof title, "%s[%s]", name, unit);
	else snprintf(title, sizeof title, "%s%d[%s]", deflt, k + 1, unit);
	if (!strpbrk(title, ",\"\n")) { fprintf(f, ",%s", title); return; }
	fputs(",\"", f);
	for (const char *p = title; *p; p++) {
		if (*p == '"') fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

int tide_gauges_open(tide_gauges *g, const char *dir, const tide_case *c)
{
	memset(g, 0, sizeof *g);
	snprintf(g->path, sizeof g->path, "%s/gauges.csv", dir);
	g->f = fopen(g->path, "w");
	if (!g->f) return gauges_fail(g);
	fputs("time[s]", g->f);
	for (int k = 0; k < c->nheight; k++) csv_title(g->f, c->height[k].name, "H", k, "m");
	for (int k = 0; k < c->npressure; k++) csv_title(g->f, c->pressure[k].name, "P", k, "Pa");
	if (c->surge_front) fputs(",front[m],Z[-],T[-]", g->f);
	if (fputc('\n', g->f) == EOF || fflush(g->f) != 0) {
		fclose(g->f);
		g->f = NULL;
		return gauges_fail(g);
	}
	return 0;
}

int tide_gauges_write(tide_gauges *g, const tide_particle_set *s, const tide_case *c, double t)
{
	fluid_grid grid;
	if (grid_build(&grid, s, c)) return -1;
	fprintf(g->f, "%.9g", t);
	for (int k = 0; k < c->nheight; k++)
		fprintf(g->f, ",%.9g", height_on(&grid, c, c->height[k].p[0], c->height[k].p[1]));
	for (int k = 0; k < c->npressure; k++)
		fprintf(g->f, ",%.9g", pressure_on(&grid, c, c->pressure[k].p));
	if (c->surge_front) {
		double front = front_on(&grid, c);
		double gnorm = sqrt(c->gravity[0] * c->gravity[0] + c->gravity[1] * c->gravity[1] +
		                    c->gravity[2] * c->gravity[2]);
		double a = c->surge_a > 0.0 ? c->surge_a : NAN;   /* the case loader requires a > 0 */
		fprintf(g->f, ",%.9g,%.9g,%.9g", front, front / a, t * sqrt(2.0 * gnorm / a));
	}
	grid_free(&grid);
	/* Flushed every row so an interrupted run keeps every measurement taken so far. */
	if (fputc('\n', g->f) == EOF || fflush(g->f) != 0 || ferror(g->f)) return gauges_fail(g);
	return 0;
}

int tide_gauges_close(tide_gauges *g)
{
	if (!g->f) return 0;
	int rc = fclose(g->f);
	g->f = NULL;
	return rc == 0 ? 0 : gauges_fail(g);
}
