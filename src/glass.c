// SPDX-License-Identifier: LGPL-2.1-or-later
// Periodic glasses (glass.h): reading, writing, the density spread, the relaxation.  A few
// thousand particles: host code with a cell list, run once to make the shipped file (the
// gas scheme's codelets cannot: its periodic axes are x and y only).
#define _DEFAULT_SOURCE /* erand48 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "glass.h"
#include "tide/sph_kernel.h"

void tide_glass_default_path(char *buf, size_t n)
{
	snprintf(buf, n, "%s/cases/glass/glass_4096.txt", TIDE_SOURCE_DIR);
	FILE *f = fopen(buf, "r");
	if (f) fclose(f);
	else snprintf(buf, n, "%s/cases/glass/glass_4096.txt", TIDE_DATA_DIR);
}

void tide_glass_free(tide_glass *g)
{
	free(g->p);
	g->p = NULL;
	g->n = 0;
}

#define GLASS_MAX 10000000u

int tide_glass_read(const char *path, tide_glass *g, char *why, size_t nwhy)
{
	memset(g, 0, sizeof *g);
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(why, nwhy, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	char line[256];
	uint32_t cap = 0;
	int ln = 0, rc = 0;
	while (!rc && fgets(line, sizeof line, f)) {
		ln++;
		char *s = line + strspn(line, " \t");
		if (*s == '#' || *s == '\n' || !*s) continue;
		double x[3];
		char tail;
		if (sscanf(s, "%lf %lf %lf %c", &x[0], &x[1], &x[2], &tail) != 3) {
			snprintf(why, nwhy, "'%s' line %d is not three numbers x y z", path, ln);
			rc = -1;
			break;
		}
		for (int d = 0; d < 3; d++)
			if (!(x[d] >= 0 && x[d] < 1)) {
				snprintf(why, nwhy, "'%s' line %d has a coordinate %g outside the unit cube "
				         "[0, 1)", path, ln, x[d]);
				rc = -1;
			}
		if (!rc && g->n == cap) {
			cap = cap ? 2 * cap : 4096;
			float *p = cap <= GLASS_MAX ? realloc(g->p, sizeof(float) * 3 * cap) : NULL;
			if (!p) {
				snprintf(why, nwhy, "'%s' has too many particles (at most %u)", path, GLASS_MAX);
				rc = -1;
				break;
			}
			g->p = p;
		}
		for (int d = 0; !rc && d < 3; d++) g->p[3 * g->n + d] = (float)x[d];
		g->n += !rc;
	}
	fclose(f);
	if (!rc && g->n == 0) {
		snprintf(why, nwhy, "'%s' holds no particle", path);
		rc = -1;
	}
	if (rc) tide_glass_free(g);
	return rc;
}

int tide_glass_write(const char *path, const tide_glass *g, const char *comment)
{
	FILE *f = fopen(path, "w");
	if (!f) return -1;
	fprintf(f, "%s", comment);
	for (uint32_t i = 0; i < g->n; i++)
		fprintf(f, "%.7f %.7f %.7f\n", g->p[3 * i], g->p[3 * i + 1], g->p[3 * i + 2]);
	return fclose(f) ? -1 : 0;
}

int tide_glass_random(uint32_t n, unsigned seed, tide_glass *g)
{
	g->n = n;
	g->p = malloc(sizeof(float) * 3 * (n ? n : 1));
	if (!g->p) return -1;
	unsigned short st[3] = {(unsigned short)seed, (unsigned short)(seed >> 16), 0x330e};
	for (uint32_t i = 0; i < 3 * n; i++) {
		float x = (float)erand48(st);
		g->p[i] = x < 1.f ? x : 0.f;
	}
	return 0;
}

/* ---- pairs in the periodic cube, through a cell list of cells at least 2h wide ---- */

typedef struct cells {
	int nc;                 /* cells per side */
	uint32_t *start, *idx;  /* particles of cell c: idx[start[c] .. start[c + 1]) */
} cells;

static int cells_make(const tide_glass *g, double h, cells *c)
{
	c->nc = (int)floor(1.0 / (2 * h));
	if (c->nc < 1) c->nc = 1;
	size_t nc3 = (size_t)c->nc * c->nc * c->nc;
	c->start = calloc(nc3 + 1, sizeof *c->start);
	c->idx = malloc(sizeof *c->idx * (g->n ? g->n : 1));
	uint32_t *cell = malloc(sizeof *cell * (g->n ? g->n : 1));
	if (!c->start || !c->idx || !cell) {
		free(c->start); free(c->idx); free(cell);
		return -1;
	}
	for (uint32_t i = 0; i < g->n; i++) {
		int k[3];
		for (int d = 0; d < 3; d++) {
			k[d] = (int)(g->p[3 * i + d] * c->nc);
			if (k[d] >= c->nc) k[d] = c->nc - 1;
		}
		cell[i] = (uint32_t)((k[0] * c->nc + k[1]) * c->nc + k[2]);
		c->start[cell[i] + 1]++;
	}
	for (size_t k = 0; k < nc3; k++) c->start[k + 1] += c->start[k];
	uint32_t *fill = malloc(sizeof *fill * (nc3 + 1));
	if (!fill) {
		free(c->start); free(c->idx); free(cell);
		return -1;
	}
	memcpy(fill, c->start, sizeof *fill * (nc3 + 1));
	for (uint32_t i = 0; i < g->n; i++) c->idx[fill[cell[i]]++] = i;
	free(fill);
	free(cell);
	return 0;
}

static void cells_free(cells *c) { free(c->start); free(c->idx); }

/* The nearest image of x_j - x_i in the unit cube. */
static double wrap(double d) { return d - floor(d + 0.5); }

/* For each pair (i, j) within 2h (j != i; each pair seen from both sides), fn(i, j, dx). With
 * fewer than 3 cells per side every cell is visited once (no double counting of images). */
typedef void (*pair_fn)(void *ctx, uint32_t i, uint32_t j, const double dx[3], double r);

static void pairs(const tide_glass *g, const cells *c, double h, pair_fn fn, void *ctx)
{
	int nc = c->nc, span = nc >= 3 ? 1 : 0, all = nc < 3;
	for (uint32_t i = 0; i < g->n; i++) {
		int k[3];
		for (int d = 0; d < 3; d++) {
			k[d] = (int)(g->p[3 * i + d] * nc);
			if (k[d] >= nc) k[d] = nc - 1;
		}
		for (int a = all ? 0 : -span; a <= (all ? nc - 1 : span); a++)
			for (int b = all ? 0 : -span; b <= (all ? nc - 1 : span); b++)
				for (int e = all ? 0 : -span; e <= (all ? nc - 1 : span); e++) {
					int q[3] = {all ? a : (k[0] + a + nc) % nc, all ? b : (k[1] + b + nc) % nc,
					            all ? e : (k[2] + e + nc) % nc};
					size_t cc = (size_t)(q[0] * nc + q[1]) * nc + q[2];
					for (uint32_t s = c->start[cc]; s < c->start[cc + 1]; s++) {
						uint32_t j = c->idx[s];
						if (j == i) continue;
						double dx[3], r2 = 0;
						for (int d = 0; d < 3; d++) {
							dx[d] = wrap((double)g->p[3 * i + d] - g->p[3 * j + d]);
							r2 += dx[d] * dx[d];
						}
						if (r2 < 4 * h * h) fn(ctx, i, j, dx, sqrt(r2));
					}
				}
	}
}

typedef struct sums {
	double h, m, alpha, *rho, (*f)[3];
} sums;

static void add_density(void *ctx, uint32_t i, uint32_t j, const double dx[3], double r)
{
	sums *s = ctx;
	(void)j; (void)dx;
	s->rho[i] += s->m * s->alpha * tide_kernel_w(TIDE_KERNEL_CUBIC, (float)(r / s->h));
}

static void add_force(void *ctx, uint32_t i, uint32_t j, const double dx[3], double r)
{
	sums *s = ctx;
	double F = s->alpha / (s->h * s->h) * tide_kernel_f(TIDE_KERNEL_CUBIC, (float)(r / s->h));
	double k = -s->m * (1 / s->rho[i] + 1 / s->rho[j]) * F; /* grad_i W = F dx */
	for (int d = 0; d < 3; d++) s->f[i][d] += k * dx[d];
}

/* The densities of every particle (self term included) into s->rho. */
static int densities(const tide_glass *g, sums *s, cells *c)
{
	if (cells_make(g, s->h, c)) return -1;
	for (uint32_t i = 0; i < g->n; i++) s->rho[i] = s->m * s->alpha * tide_kernel_w(TIDE_KERNEL_CUBIC, 0.f);
	pairs(g, c, s->h, add_density, s);
	return 0;
}

static double spread_of(const double *rho, uint32_t n)
{
	double m = 0, v = 0;
	for (uint32_t i = 0; i < n; i++) m += rho[i];
	m /= n;
	for (uint32_t i = 0; i < n; i++) v += (rho[i] - m) * (rho[i] - m);
	return sqrt(v / n) / m;
}

static sums sums_of(const tide_glass *g, double eta)
{
	double h = eta * cbrt(1.0 / g->n);
	return (sums){.h = h, .m = 1.0 / g->n, .alpha = tide_kernel_alpha(TIDE_KERNEL_CUBIC, 3, h)};
}

double tide_glass_spread(const tide_glass *g, double eta)
{
	sums s = sums_of(g, eta);
	cells c;
	s.rho = malloc(sizeof(double) * g->n);
	if (!s.rho || densities(g, &s, &c)) {
		free(s.rho);
		return NAN;
	}
	cells_free(&c);
	double sp = spread_of(s.rho, g->n);
	free(s.rho);
	return sp;
}

int tide_glass_relax(tide_glass *g, int iterations, double eta, FILE *log, int every)
{
	sums s = sums_of(g, eta);
	double a = cbrt(1.0 / g->n), step_max = 0.1 * a;
	s.rho = malloc(sizeof(double) * g->n);
	s.f = malloc(sizeof(double[3]) * g->n);
	if (!s.rho || !s.f) {
		free(s.rho); free(s.f);
		return -1;
	}
	int rc = 0;
	for (int it = 0; it < iterations && !rc; it++) {
		cells c;
		if (densities(g, &s, &c)) { rc = -1; break; }
		memset(s.f, 0, sizeof(double[3]) * g->n);
		pairs(g, &c, s.h, add_force, &s);
		cells_free(&c);
		if (log && every > 0 && it % every == 0)
			fprintf(log, "  step %5d: density spread %.5f\n", it, spread_of(s.rho, g->n));
		/* a displacement k a^2 F (F ~ the density contrast over a spacing), capped; k falls
		 * from 0.5 to 0.05 so that the last steps settle rather than jitter */
		double kf = 0.05 + 0.45 * (1 - (double)it / iterations);
		for (uint32_t i = 0; i < g->n; i++) {
			double d[3], len = 0;
			for (int k = 0; k < 3; k++) {
				d[k] = kf * a * a * s.f[i][k];
				len += d[k] * d[k];
			}
			len = sqrt(len);
			double sc = len > step_max ? step_max / len : 1;
			for (int k = 0; k < 3; k++) {
				double x = g->p[3 * i + k] + sc * d[k];
				x -= floor(x);
				g->p[3 * i + k] = x < 1 ? (float)x : 0.f;
				if (g->p[3 * i + k] >= 1.f) g->p[3 * i + k] = 0.f;
			}
		}
	}
	free(s.rho);
	free(s.f);
	return rc;
}
