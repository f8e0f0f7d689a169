// SPDX-License-Identifier: LGPL-2.1-or-later
// tide run --pair-stats (include/tide/pair_stats.h): the candidates and neighbours per particle
// of a run's last state.  A cell-sorted index of all points, then for each sampled point the
// cells of its 3^dim block (ranges by binary search in the sorted keys) and the distances.
#include <stdlib.h>
#include "tide/pair_stats.h"

typedef struct { uint32_t key; uint32_t i; } keyed;

static int by_key(const void *a, const void *b)
{
	const keyed *p = a, *q = b;
	return p->key < q->key ? -1 : p->key > q->key ? 1 : (p->i > q->i) - (p->i < q->i);
}

/* First entry of k[0..n) whose key is >= key. */
static uint64_t lower(const keyed *k, uint64_t n, uint32_t key)
{
	uint64_t lo = 0, hi = n;
	while (lo < hi) {
		uint64_t m = lo + (hi - lo) / 2;
		if (k[m].key < key) lo = m + 1; else hi = m;
	}
	return lo;
}

int tide_pair_stats_points(const tide_grid *g, float h2x4, const double *x, const double *y,
                           const double *z, uint64_t n, uint64_t stride, tide_pair_stats *s)
{
	*s = (tide_pair_stats){.particles = n};
	if (n == 0) return 0;
	if (stride < 1) stride = 1;
	keyed *k = malloc(sizeof *k * n);
	if (!k) return -1;
	for (uint64_t i = 0; i < n; i++) {
		int c[3];
		tide_cell_of(g, x[i], y[i], z[i], c);
		k[i] = (keyed){tide_cell_key(g, c), (uint32_t)i};
	}
	qsort(k, n, sizeof *k, by_key);
	double cand = 0, nbr = 0;
	for (uint64_t i = 0; i < n; i += stride) {
		int c[3], d[3];
		tide_cell_of(g, x[i], y[i], z[i], c);
		for (d[0] = c[0] - 1; d[0] <= c[0] + 1; d[0]++)
			for (d[1] = c[1] - 1; d[1] <= c[1] + 1; d[1]++)
				for (d[2] = c[2] - 1; d[2] <= c[2] + 1; d[2]++) {
					if (d[0] < 0 || d[1] < 0 || d[2] < 0 || d[0] >= g->n[0] ||
					    d[1] >= g->n[1] || d[2] >= g->n[2])
						continue;
					uint32_t key = tide_cell_key(g, d);
					uint64_t a = lower(k, n, key), b = lower(k, n, key + 1);
					cand += (double)(b - a);
					for (uint64_t m = a; m < b; m++) {
						uint32_t j = k[m].i;
						double dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
						if (j != i && dx * dx + dy * dy + dz * dz < (double)h2x4) nbr += 1;
					}
				}
		s->sampled++;
	}
	free(k);
	s->candidates = cand / (double)s->sampled;
	s->neighbours = nbr / (double)s->sampled;
	return 0;
}
