// SPDX-License-Identifier: LGPL-2.1-or-later
// Block owners along a Hilbert curve (case key block_owners: hilbert; tasks/decomposition.c).
// 1. tide_hilbert3 on cubes of side 2, 4, 8, 16, 32: a bijection onto 0 .. side^3 - 1 whose
//    consecutive positions are cells sharing a face (the property that makes a run of positions a
//    compact set of blocks), starting at the origin.
// 2. tide_decomp_owners_curve on grids that are not powers of two, random costs: every rank owns
//    a run of consecutive curve positions and at least one block, the busiest rank's cost is the
//    least any cut of the curve into runs achieves (a brute-force dynamic programme over every
//    cut) and within the largest block's cost of the mean; the same costs give the same owners.
// 3. The case it is for: the fluid in one corner of a 4x4x4 grid of blocks (a dam break's water
//    column), 8 ranks: boxes of blocks (tide_decomp_owner) leave one rank most of the cost, the
//    curve's runs stay within the largest block's cost of the mean.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tide/decomposition.h"

static int failures;
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static void curve(void)
{
	for (unsigned bits = 1; bits <= 5; bits++) {
		uint32_t side = 1u << bits;
		size_t n = (size_t)side * side * side;
		int32_t *at = malloc(sizeof *at * n * 3);
		unsigned char *seen = calloc(n, 1);
		if (!at || !seen) abort();
		int dup = 0, out = 0;
		for (uint32_t x = 0; x < side; x++)
			for (uint32_t y = 0; y < side; y++)
				for (uint32_t z = 0; z < side; z++) {
					uint64_t h = tide_hilbert3(bits, x, y, z);
					if (h >= n) { out++; continue; }
					dup += seen[h]++ > 0;
					at[3 * h] = (int32_t)x;
					at[3 * h + 1] = (int32_t)y;
					at[3 * h + 2] = (int32_t)z;
				}
		EXPECT(!dup && !out, "side %u: %d positions repeated, %d out of range", side, dup, out);
		int jumps = 0;
		for (size_t h = 1; h < n && !dup && !out; h++) {
			int d = abs(at[3 * h] - at[3 * h - 3]) + abs(at[3 * h + 1] - at[3 * h - 2]) +
			        abs(at[3 * h + 2] - at[3 * h - 1]);
			jumps += d != 1;
		}
		EXPECT(jumps == 0, "side %u: %d consecutive positions are not face neighbours", side, jumps);
		EXPECT(tide_hilbert3(bits, 0, 0, 0) == 0, "side %u: the curve does not start at the origin", side);
		free(at);
		free(seen);
	}
}

/* Curve position of every block of the grid p, in the function's own cube. */
static uint64_t pos_of(const int p[3], int b)
{
	unsigned bits = 0;
	while ((1 << bits) < p[0] || (1 << bits) < p[1] || (1 << bits) < p[2]) bits++;
	return tide_hilbert3(bits, (uint32_t)(b / (p[1] * p[2])), (uint32_t)(b / p[2] % p[1]),
	                     (uint32_t)(b % p[2]));
}

/* The least largest run any cut of c[0..n) into k runs achieves (every run one block or more):
 * best[k][i] over the first i blocks, by brute force. */
static double optimum(const double *c, int n, int k)
{
	double *best = malloc(sizeof *best * (size_t)(k + 1) * (size_t)(n + 1));
	if (!best) abort();
#define BEST(a, i) best[(size_t)(a) * (size_t)(n + 1) + (size_t)(i)]
	for (int i = 0; i <= n; i++) BEST(0, i) = i ? INFINITY : 0;
	for (int a = 1; a <= k; a++)
		for (int i = 0; i <= n; i++) {
			BEST(a, i) = INFINITY;
			double run = 0;
			for (int j = i - 1; j >= 0; j--) {
				run += c[j];
				double m = fmax(BEST(a - 1, j), run);
				if (m < BEST(a, i)) BEST(a, i) = m;
			}
		}
	double r = BEST(k, n);
#undef BEST
	free(best);
	return r;
}

/* The busiest rank's cost over the optimum and max(cost - mean) / the largest block cost; checks
 * runs and counts. */
static double check_runs(const int p[3], const double *cost, int size, const int *own, const char *what,
                         double *over_optimum)
{
	int nb = p[0] * p[1] * p[2];
	double *load = calloc((size_t)size, sizeof *load), total = 0, cmax = 0;
	int *count = calloc((size_t)size, sizeof *count);
	if (!load || !count) abort();
	for (int b = 0; b < nb; b++) {
		EXPECT(own[b] >= 0 && own[b] < size, "%s: block %d given to rank %d", what, b, own[b]);
		if (own[b] < 0 || own[b] >= size) continue;
		load[own[b]] += cost[b];
		count[own[b]]++;
		total += cost[b];
		if (cost[b] > cmax) cmax = cost[b];
	}
	/* runs: along the curve the owner never goes down */
	int back = 0;
	for (int a = 0; a < nb; a++)
		for (int b = 0; b < nb; b++)
			back += pos_of(p, a) < pos_of(p, b) && own[a] > own[b];
	EXPECT(back == 0, "%s: %d pairs of blocks out of curve order", what, back);
	double worst = 0, busiest = 0;
	for (int r = 0; r < size; r++) {
		EXPECT(count[r] >= 1, "%s: rank %d owns no block", what, r);
		double d = (load[r] - total / size) / cmax;
		if (d > worst) worst = d;
		if (load[r] > busiest) busiest = load[r];
	}
	/* the blocks' costs in curve order */
	double *c = malloc(sizeof *c * (size_t)nb);
	int *order = malloc(sizeof *order * (size_t)nb);
	if (!c || !order) abort();
	for (int b = 0; b < nb; b++) order[b] = b;
	for (int a = 1; a < nb; a++)
		for (int b = a; b > 0 && pos_of(p, order[b - 1]) > pos_of(p, order[b]); b--) {
			int t = order[b]; order[b] = order[b - 1]; order[b - 1] = t;
		}
	for (int i = 0; i < nb; i++) c[i] = cost[order[i]];
	*over_optimum = busiest / optimum(c, nb, size);
	free(c);
	free(order);
	free(load);
	free(count);
	return worst;
}

static void runs(void)
{
	const int grids[][3] = {{5, 3, 7}, {6, 6, 1}, {16, 1, 1}, {3, 9, 4}};
	const int sizes[] = {2, 3, 8, 16};
	srand(12345);
	for (int gi = 0; gi < 4; gi++) {
		const int *p = grids[gi];
		int nb = p[0] * p[1] * p[2];
		double *cost = malloc(sizeof *cost * (size_t)nb);
		int *own = malloc(sizeof *own * (size_t)nb), *again = malloc(sizeof *own * (size_t)nb);
		if (!cost || !own || !again) abort();
		for (int b = 0; b < nb; b++) cost[b] = 0.2 + (double)rand() / RAND_MAX;
		for (int si = 0; si < 4; si++) {
			int size = sizes[si];
			if (size > nb) continue;
			char what[64];
			snprintf(what, sizeof what, "%dx%dx%d blocks on %d ranks", p[0], p[1], p[2], size);
			tide_decomp_owners_curve(p, cost, size, own);
			double opt;
			double worst = check_runs(p, cost, size, own, what, &opt);
			EXPECT(worst <= 1.0, "%s: a rank is %.2f block costs above the mean (at most 1)", what, worst);
			EXPECT(opt <= 1 + 1e-9, "%s: the busiest rank carries %.12f of the optimum", what, opt);
			tide_decomp_owners_curve(p, cost, size, again);
			EXPECT(!memcmp(own, again, sizeof *own * (size_t)nb), "%s: the same costs gave other owners", what);
			printf("ok: %s: runs along the curve, busiest rank %.2f block costs above the mean, "
			       "%.12f of the best cut\n", what, worst, opt);
		}
		free(cost);
		free(own);
		free(again);
	}
}

static void corner(void)
{
	const int p[3] = {4, 4, 4};
	int nb = 64, size = 8, own[64];
	double cost[64], total = 0;
	for (int b = 0; b < nb; b++) {
		int i0 = b / 16, i1 = b / 4 % 4, i2 = b % 4;
		/* water in the blocks of the corner, a little boundary cost elsewhere */
		cost[b] = i0 + i1 + i2 <= 3 ? 1.0 : 0.05;
		total += cost[b];
	}
	double box_load[8] = {0}, curve_load[8] = {0}, bmax = 0, cmax = 0;
	tide_decomp_owners_curve(p, cost, size, own);
	for (int b = 0; b < nb; b++) {
		box_load[tide_decomp_owner(p, b, size)] += cost[b];
		curve_load[own[b]] += cost[b];
	}
	for (int r = 0; r < size; r++) {
		if (box_load[r] > bmax) bmax = box_load[r];
		if (curve_load[r] > cmax) cmax = curve_load[r];
	}
	double mean = total / size;
	printf("ok: corner fluid, 64 blocks on 8 ranks: max/mean - 1 = %.0f %% (boxes), %.0f %% (hilbert)\n",
	       100 * (bmax / mean - 1), 100 * (cmax / mean - 1));
	EXPECT(cmax - mean <= 1.0, "hilbert: the busiest rank is %.2f above the mean, more than a block",
	       cmax - mean);
	EXPECT(bmax / mean - 1 > 1.5, "boxes: max/mean - 1 = %.2f: the corner case no longer shows "
	       "what the curve is for", bmax / mean - 1);
}

int main(void)
{
	curve();
	runs();
	corner();
	if (failures) fprintf(stderr, "%d failure(s)\n", failures);
	else printf("test_owners: all passed\n");
	return failures ? 1 : 0;
}
