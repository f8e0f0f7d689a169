// SPDX-License-Identifier: LGPL-2.1-or-later
// The halos each block packs, one per reader (include/tide/halo_cut.h): which neighbour entry
// reads which, the regions, and their capacities.  After the neighbour lists (sph_setup.c).
#include <math.h>
#include <stdio.h>
#include "tide/sph_sim.h"

int tide_sim_halo_cuts(tide_sim *sim)
{
	const tide_grid *g = &sim->P.grid;
	for (int b = 0; b < sim->nblocks; b++) {
		tide_sim_block *k = &sim->blk[b];
		k->cut.n = 0;
		for (int j = 0; j < k->nnb; j++) k->nb_halo[j] = -1;
	}
	for (int b = 0; b < sim->nblocks; b++) {
		tide_sim_block *k = &sim->blk[b];
		int blo[3], bhi[3];
		tide_box_bounds(&k->range, blo, bhi);
		for (int j = 0; j < k->nnb; j++) {
			int o = k->nb[j], seen = 0;
			for (int i = 0; i < j; i++) seen |= k->nb[i] == o;
			if (seen) continue; /* o twice (periodic): its entries were served at its first */
			tide_sim_block *q = &sim->blk[o];
			int olo[3], ohi[3];
			tide_box_bounds(&q->range, olo, ohi);
			/* every entry of o's list that names b reads a halo of b's */
			for (int i = 0; i < q->nnb; i++) {
				if (q->nb[i] != b) continue;
				if (k->cut.n == TIDE_MAX_NEIGHBOURS) {
					fprintf(stderr, "tide: internal error: block %d has more than %d readers.\n",
					        b, TIDE_MAX_NEIGHBOURS);
					return -1;
				}
				int r = k->cut.n++, f = q->nb_face[i];
				/* across a periodic face, or with the corner images of copy_layer_rows: the
				 * whole face (halo_cut.h) */
				int cut = !tide_face_periodic(g, &k->range, f) &&
				          !(f < 2 && tide_ghost(g, g->axis[1]));
				k->cut.face[r] = (signed char)f;
				k->cut.rec[r] = (signed char)j;
				for (int a = 0; a < 3; a++) {
					int s = a == f / 2 ? (f % 2 ? 1 : -1) : 0;
					if (cut && a != f / 2) s = olo[a] >= bhi[a] ? 1 : ohi[a] <= blo[a] ? -1 : 0;
					k->cut.side[r][a] = (signed char)s;
				}
				q->nb_halo[i] = r;
			}
		}
	}
	for (int b = 0; b < sim->nblocks; b++)
		for (int j = 0; j < sim->blk[b].nnb; j++)
			if (sim->blk[b].nb_halo[j] < 0) {
				fprintf(stderr, "tide: internal error: block %d lists block %d as a neighbour, "
				        "which does not list it.\n", b, sim->blk[b].nb[j]);
				return -1;
			}
	for (int b = 0; b < sim->nblocks; b++)
		for (int r = 0; r < sim->blk[b].cut.n; r++) sim->blk[b].hcap[r] = tide_sim_halo_cap(sim, b, r);
	return 0;
}

/* The cells of halo r of block b at the depth the halos are made for (tide_halo_max), and of
 * the whole face it is cut from: the region's share of that face. */
static double region_share(const tide_sim *sim, int b, int r)
{
	const tide_sim_block *k = &sim->blk[b];
	int L[6], lo[3], hi[3], m = tide_halo_max(&sim->P.grid), f = k->cut.face[r];
	for (int i = 0; i < 6; i++) L[i] = m;
	tide_halo_region(&k->range, &k->cut, r, L, m, lo, hi);
	double cells = 1, face = 1;
	for (int a = 0; a < 3; a++) cells *= hi[a] > lo[a] ? hi[a] - lo[a] : 0;
	tide_box_bounds(&k->range, lo, hi);
	int first, n;
	tide_face_layers_n(&k->range, f, m, &first, &n);
	lo[f / 2] = first;
	hi[f / 2] = first + n;
	for (int a = 0; a < 3; a++) face *= hi[a] - lo[a];
	return face > 0 ? cells / face : 1;
}

/* A face halo's capacity is the run's halo_cap (twice the fullest face of any block, sph_setup.c);
 * a cut halo's its share of its face's cells of that, doubled (a strip or a column may be
 * denser than the face on average: a corner of water under air) plus 256, at most halo_cap.
 * From the geometry and halo_cap alone, so a restart gets the same. */
uint32_t tide_sim_halo_cap(const tide_sim *sim, int b, int r)
{
	double share = region_share(sim, b, r);
	if (share >= 1) return sim->halo_cap;
	double c = ceil(2.0 * share * (double)sim->halo_cap) + 256;
	return c < (double)sim->halo_cap ? (uint32_t)c : sim->halo_cap;
}

/* The particles of halo r of block b when its face holds `face` of the block's `count`
 * particles and the particles are a product of three lines (the synthetic lattice,
 * tasks/sph_lattice.c): the face's count times, for each cut axis, that axis's layer's share of
 * the block (face[f] / count of the face f of that layer).  For a simulation build's halos. */
uint32_t tide_sim_halo_model_count(const tide_sim *sim, int b, int r, const uint32_t *face6,
                                   uint32_t count)
{
	const tide_sim_block *k = &sim->blk[b];
	int f = k->cut.face[r];
	double n = face6[f];
	for (int a = 0; a < 3 && count; a++) {
		int s = k->cut.side[r][a];
		if (a == f / 2 || !s) continue;
		n *= (double)face6[2 * a + (s > 0)] / (double)count;
	}
	return (uint32_t)llround(n);
}
