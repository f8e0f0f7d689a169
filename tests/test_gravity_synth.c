// SPDX-License-Identifier: LGPL-2.1-or-later
// The synthetic gravity domain's model (tasks/gravity_synth.c): its Morton pieces tile the cube,
// every piece's virtual root holds its box, the results the simulation shares between ranks by
// the sender's offset (the cache) are those computed for each pair on its own (the pieces'
// congruence, which the cache assumes), far ranks get less than face neighbours, and the walk's
// interactions per particle grow with the particles as a Barnes-Hut walk's do (slowly); with the
// far field's local expansions, far nodes move from the interactions to the far count (each
// for BH_GROUP interactions), all of a far corner's.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "tide/gravity_synth.h"

static int fails;
#define CHECK(c, ...) do { if (!(c)) { fails++; printf("FAIL: " __VA_ARGS__); printf("\n"); } } while (0)

int main(void)
{
	bh_params P = {.theta = 0.6f, .quadrupole = 1};
	tide_gravity_synth s;
	CHECK(tide_gravity_synth_init(&s, 12, 1000, P, 2048, 16) == -1, "12 ranks accepted");
	for (int R = 1; R <= 256; R *= 2) {
		CHECK(tide_gravity_synth_init(&s, R, 1e6, P, 2048, 16) == 0, "%d ranks refused", R);
		double vol = 0, b[6], c[6];
		for (int q = 0; q < R; q++) {
			tide_gravity_synth_piece(&s, q, b);
			vol += (b[3] - b[0]) * (b[4] - b[1]) * (b[5] - b[2]);
			for (int r = 0; r < q; r++) { /* disjoint: no overlap of positive volume */
				tide_gravity_synth_piece(&s, r, c);
				double o = 1;
				for (int d = 0; d < 3; d++) o *= fmax(0, fmin(b[3 + d], c[3 + d]) - fmax(b[d], c[d]));
				CHECK(o < 1e-12, "%d ranks: pieces %d and %d overlap", R, q, r);
			}
			bh_vroot v;
			tide_gravity_synth_vroot(&s, q, &v);
			CHECK(v.nbox >= 1 && v.nbox <= 16, "%d ranks: rank %d has %u boxes", R, q, v.nbox);
			double cov = 0;
			for (uint32_t i = 0; i < v.nbox; i++)
				cov += (double)(v.box[i][3] - v.box[i][0]) * (v.box[i][4] - v.box[i][1]) * (v.box[i][5] - v.box[i][2]);
			double pv = (double)(v.hi[0] - v.lo[0]) * (v.hi[1] - v.lo[1]) * (v.hi[2] - v.lo[2]);
			CHECK(fabs(cov - pv) < 1e-4 * pv, "%d ranks: rank %d's cover %.6g != its box %.6g", R, q, cov, pv);
		}
		CHECK(fabs(vol - 8) < 1e-9, "%d ranks: the pieces' volume %.12g, not 8", R, vol);
	}
	/* 64 ranks (a 4 x 4 x 4 grid of cubes): pairs of one offset alike, computed each alone */
	setenv("TIDE_GRAVITY_SYNTH_CACHE", "off", 1);
	tide_gravity_synth_init(&s, 64, 2e5, P, 2048, 16);
	bh_vroot v[64];
	for (int q = 0; q < 64; q++) tide_gravity_synth_vroot(&s, q, &v[q]);
	/* rank 0 = cube (0,0,0); 1 = (0,0,1) (z), 2 = (0,1,0), 4 = (1,0,0); 8 = (0,0,2) ... Morton */
	double c1, p1, c2, p2, cf, pf;
	tide_gravity_synth_let(&s, 1, 0, &v[0], -1.f, &c1, &p1);   /* z neighbour of 0 */
	tide_gravity_synth_let(&s, 3, 2, &v[2], -1.f, &c2, &p2);   /* z neighbour of 2 */
	/* alike up to the float rounding of cells at other places (2e-4 seen) */
	CHECK(fabs(c1 - c2) <= 1e-3 * c1 && fabs(p1 - p2) <= 1e-3 * p1,
	      "congruent pairs differ: %.1f + %.1f against %.1f + %.1f", c1, p1, c2, p2);
	double w1 = tide_gravity_synth_walk(&s, 0, 1, &v[0], -1.f), w2 = tide_gravity_synth_walk(&s, 2, 3, &v[2], -1.f);
	CHECK(fabs(w1 - w2) <= 1e-3 * w1, "congruent walks differ: %.3f against %.3f", w1, w2);
	tide_gravity_synth_let(&s, 63, 0, &v[0], -1.f, &cf, &pf); /* the far corner */
	CHECK(cf + pf < 0.01 * (c1 + p1) && pf == 0, "far corner sends %.0f + %.0f (face: %.0f + %.0f)", cf, pf, c1, p1);
	printf("64 ranks of 2e5: face neighbour sends %.0f cells + %.0f particles, the far corner %.0f + %.0f\n",
	       c1, p1, cf, pf);
	/* the far field (TIDE_GRAVITY_FAR_FIELD): direct counts no far node; local moves nodes of
	 * the far corner (all its coarse nodes are far from a group) and of the face neighbour
	 * from the interactions to the far nodes, and the walk's work is their weighted sum */
	double d1[2], l1[2], dc[2], lc[2];
	s.far = 0.f;
	tide_gravity_synth_walk_parts(&s, 0, 1, &v[0], -1.f, d1);
	tide_gravity_synth_walk_parts(&s, 0, 63, &v[0], -1.f, dc);
	s.far = 0.2f;
	tide_gravity_synth_walk_parts(&s, 0, 1, &v[0], -1.f, l1);
	tide_gravity_synth_walk_parts(&s, 0, 63, &v[0], -1.f, lc);
	printf("64 ranks of 2e5, far field direct / local: face neighbour %.2f / %.2f + %.3f far, far "
	       "corner %.3f / %.3f + %.4f far (interactions + far nodes per particle)\n", d1[0], l1[0],
	       l1[1], dc[0], lc[0], lc[1]);
	CHECK(d1[1] == 0 && dc[1] == 0, "far nodes without the far field: %g %g", d1[1], dc[1]);
	CHECK(l1[0] < d1[0] && l1[1] > 0 && lc[0] < 0.01 * dc[0] && lc[1] > 0,
	      "far field: face %.2f -> %.2f + %.3f, corner %.3f -> %.3f + %.4f", d1[0], l1[0], l1[1],
	      dc[0], lc[0], lc[1]);
	/* each far node stood for BH_GROUP interactions, one per particle of its group */
	CHECK(fabs(l1[0] + BH_GROUP * l1[1] - d1[0]) <= 1e-9 * d1[0], "face: %.6f + 32 x %.6f != %.6f",
	      l1[0], l1[1], d1[0]);
	CHECK(fabs(tide_gravity_synth_walk(&s, 0, 1, &v[0], -1.f) - (l1[0] + s.w_m2l * l1[1])) <= 1e-9 * l1[0],
	      "the walk's work is not its interactions + w_m2l x its far nodes");
	/* TIDE_GRAVITY_SYNTH_WEIGHTS (rank 1: no warning printed) */
	tide_gravity_synth_weights(&s, "2.5,0.5", 1);
	CHECK(s.w_m2l == 2.5 && s.w_l2p == 0.5, "weights '2.5,0.5' read as %g,%g", s.w_m2l, s.w_l2p);
	const char *bad[] = {"2.5", "2.5,x", "-1,1", "1,2,3", "1,2x"};
	for (int k = 0; k < 5; k++) {
		tide_gravity_synth_weights(&s, bad[k], 1);
		CHECK(s.w_m2l == TIDE_SYNTH_W_M2L && s.w_l2p == TIDE_SYNTH_W_L2P, "weights '%s' accepted",
		      bad[k]);
	}
	/* the own walk: a few thousand interactions per particle at theta 0.6, slowly growing */
	double prev = 0;
	for (double n = 1e4; n <= 1.1e6; n *= 10) {
		tide_gravity_synth_init(&s, 1, n, P, 2048, 16);
		double w = tide_gravity_synth_walk(&s, 0, 0, NULL, -1.f);
		printf("1 rank of %.0f: %.0f interactions per particle\n", n, w);
		CHECK(w > 300 && w < 20000, "%.0f interactions per particle at %.0f", w, n);
		CHECK(w > prev && (prev == 0 || w < 2 * prev), "%.0f after %.0f: not slowly growing", w, prev);
		prev = w;
	}
	if (fails) printf("%d failure(s)\n", fails);
	return fails ? 1 : 0;
}
