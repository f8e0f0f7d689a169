// SPDX-License-Identifier: LGPL-2.1-or-later
// tide run --pair-stats' counting (tasks/pair_stats.c) against a brute force over all pairs:
// candidates are the points whose cell differs from the sampled point's by at most one along
// each axis (no cell index, no sort), neighbours the other points within 2h; on random points
// (2-D and 3-D, a grid with the slab axis not x) and on an interior lattice point, where the
// neighbours are the lattice offsets inside the sphere (counted directly) and the candidates
// the 27 full cells.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "tide/pair_stats.h"

static int failures;
#define EXPECT(c, ...) do { if (!(c)) { failures++; fprintf(stderr, "FAIL: " __VA_ARGS__); fputc('\n', stderr); } } while (0)

static tide_grid grid(double cell, const int n[3], const int axis[3])
{
	tide_grid g = {0};
	g.cell = (float)cell;
	g.inv_cell = 1.0 / cell;
	for (int d = 0; d < 3; d++) { g.n[d] = n[d]; g.axis[d] = axis[d]; }
	g.plane = (uint32_t)n[axis[1]] * (uint32_t)n[axis[2]];
	return g;
}

/* The brute force over every point for the sampled ones. */
static void brute(const tide_grid *g, float h2x4, const double *x, const double *y,
                  const double *z, uint64_t n, uint64_t stride, double *cand, double *nbr)
{
	double c = 0, b = 0, s = 0;
	for (uint64_t i = 0; i < n; i += stride, s++) {
		int ci[3];
		tide_cell_of(g, x[i], y[i], z[i], ci);
		for (uint64_t j = 0; j < n; j++) {
			int cj[3];
			tide_cell_of(g, x[j], y[j], z[j], cj);
			if (abs(ci[0] - cj[0]) <= 1 && abs(ci[1] - cj[1]) <= 1 && abs(ci[2] - cj[2]) <= 1) c++;
			double dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
			if (j != i && dx * dx + dy * dy + dz * dz < (double)h2x4) b++;
		}
	}
	*cand = c / s;
	*nbr = b / s;
}

static void random_case(int dim, uint64_t n, uint64_t stride, unsigned seed)
{
	const double h = 0.05, cell = 2 * h, L[3] = {1.0, dim == 3 ? 0.7 : 0.0, 0.45};
	int nc[3], axis[3] = {1, 0, 2};
	for (int d = 0; d < 3; d++) nc[d] = L[d] > 0 ? (int)ceil(L[d] / cell) : 1;
	if (dim == 2) { axis[0] = 0; axis[1] = 1; axis[2] = 2; }
	tide_grid g = grid(cell, nc, axis);
	double *x = malloc(3 * n * sizeof(double)), *y = x + n, *z = y + n;
	srand(seed);
	for (uint64_t i = 0; i < n; i++) {
		x[i] = L[0] * rand() / (RAND_MAX + 1.0);
		y[i] = L[1] * rand() / (RAND_MAX + 1.0);
		z[i] = L[2] * rand() / (RAND_MAX + 1.0);
	}
	float h2x4 = (float)(4 * h * h);
	tide_pair_stats s;
	EXPECT(tide_pair_stats_points(&g, h2x4, x, y, z, n, stride, &s) == 0, "pair stats failed");
	double c, b;
	brute(&g, h2x4, x, y, z, n, stride, &c, &b);
	printf("%d-D, %llu random points, every %llu-th: candidates %.4f (brute force %.4f), "
	       "neighbours %.4f (%.4f), %llu sampled\n", dim, (unsigned long long)n,
	       (unsigned long long)stride, s.candidates, c, s.neighbours, b,
	       (unsigned long long)s.sampled);
	EXPECT(s.sampled == (n + stride - 1) / stride, "sampled %llu", (unsigned long long)s.sampled);
	EXPECT(s.candidates == c && s.neighbours == b, "%d-D counts differ from the brute force", dim);
	EXPECT(b > 5 && c > 2 * b, "%d-D: too few pairs to test anything (%g, %g)", dim, c, b);
	free(x);
}

/* A 12^3 lattice of spacing dp in cells of side 2h = 4 dp (3^3 cells of 64 points): the centre
 * cell's points all have the 27 cells' 1728 candidates; a point at the lattice's centre has the
 * offsets within 4 dp as neighbours. */
static void lattice_case(void)
{
	const double dp = 0.01, h = 2 * dp;
	const int m = 12, nc[3] = {3, 3, 3}, axis[3] = {0, 1, 2};
	tide_grid g = grid(2 * h, nc, axis);
	uint64_t n = (uint64_t)m * m * m;
	double *x = malloc(3 * n * sizeof(double)), *y = x + n, *z = y + n;
	for (int i = 0; i < m; i++)
		for (int j = 0; j < m; j++)
			for (int k = 0; k < m; k++) {
				uint64_t p = ((uint64_t)i * m + j) * m + k;
				x[p] = (i + 0.5) * dp; y[p] = (j + 0.5) * dp; z[p] = (k + 0.5) * dp;
			}
	/* the point (6, 6, 6), in the centre cell */
	uint64_t c0 = (6 * (uint64_t)m + 6) * m + 6;
	double *xs = malloc(3 * n * sizeof(double)), *ys = xs + n, *zs = ys + n;
	/* first, so that a stride of n samples it alone */
	for (uint64_t p = 0; p < n; p++) {
		uint64_t q = p == 0 ? c0 : p == c0 ? 0 : p;
		xs[p] = x[q]; ys[p] = y[q]; zs[p] = z[q];
	}
	tide_pair_stats s;
	float h2x4 = (float)(4 * h * h * (1 - 1e-6)); /* the sphere's own lattice points excluded */
	tide_pair_stats_points(&g, h2x4, xs, ys, zs, n, n, &s);
	int inside = 0;
	for (int a = -4; a <= 4; a++)
		for (int b = -4; b <= 4; b++)
			for (int c = -4; c <= 4; c++)
				if ((a || b || c) && a * a + b * b + c * c < 16) inside++;
	printf("lattice centre point: candidates %.0f (27 x 64 = 1728), neighbours %.0f (lattice "
	       "offsets within 4 dp: %d)\n", s.candidates, s.neighbours, inside);
	EXPECT(s.sampled == 1 && s.candidates == 1728 && s.neighbours == inside,
	       "lattice: %g candidates, %g neighbours", s.candidates, s.neighbours);
	free(x);
	free(xs);
}

int main(void)
{
	random_case(3, 3000, 7, 1);
	random_case(3, 2000, 1, 2);
	random_case(2, 2500, 3, 3);
	lattice_case();
	if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
	printf("pair_stats: all checks passed\n");
	return 0;
}
