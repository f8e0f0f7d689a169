// SPDX-License-Identifier: LGPL-2.1-or-later
// The synthetic box of tide run --synthetic (issue 25): the blocks a simulation build sets up
// from the lattice's formula (tide_sim_setup_lattice, no particle made) must be those a real
// set-up of the same box's made particles gives (tide_host_block_lattice + tide_sim_setup): the
// same cuts (within one cell layer), and for the same boxes exactly the same particle count per
// block and the same halo capacity (the fullest face), on the 2-D dam break's physics (slabs,
// 4 blocks) and on a 3-D case cut in 3-D (8 and 12 blocks).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/case.h"
#include "tide/lattice.h"
#include "case_load.h"
#include "host_blocks.h"
#include "runtime.h"
#include "synthetic.h"
#include "tide/sph_sim.h"

static int failures;
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static uint32_t block_count(const tide_sim *sim, int b)
{
	return tide_block_view_of(starpu_data_get_interface_on_node(sim->blk[b].B, STARPU_MAIN_RAM)).count;
}

static void check(const char *path, const char *decomp, double per_rank, int nblocks)
{
	tide_case c;
	if (tide_case_load(path, 0, &c)) { failures++; return; }
	if (decomp) snprintf(c.decomp, sizeof c.decomp, "%s", decomp);
	tide_lattice L;
	EXPECT(!tide_synthetic_case(&c, per_rank, 1, &L), "%s: no synthetic box", path);
	size_t n = tide_lattice_count(&L);
	EXPECT(n > 0.9 * per_rank && n < 1.1 * per_rank, "%s: %zu particles for %g asked", path, n, per_rank);
	void *mem = NULL;
	tide_block_view all;
	if (tide_host_block_lattice(&c, &L, nblocks, &mem, &all)) { failures++; return; }
	EXPECT(all.count == n, "%s: %u particles made, the lattice has %zu", path, all.count, n);
	tide_sim real, model;
	if (tide_sim_setup(&real, &c, &all, nblocks, 0) || tide_sim_setup_lattice(&model, &c, &L, nblocks, 0)) {
		failures++;
		return;
	}
	EXPECT(real.nblocks == model.nblocks, "%s: %d blocks real, %d modelled", path, real.nblocks, model.nblocks);
	int same = 1;
	for (int k = 0; k < 3; k++)
		for (int j = 0; j <= real.p[k]; j++) {
			int d = real.cut[k][j] - model.cut[k][j];
			EXPECT(d >= -1 && d <= 1, "%s: cut %d of axis %d at cell %d real, %d modelled", path, j, k,
			       real.cut[k][j], model.cut[k][j]);
			same &= d == 0;
		}
	/* the formula on the real boxes: exactly the made particles' counts */
	int nb = real.nblocks;
	tide_block_arg *box = malloc(sizeof *box * (size_t)nb);
	uint32_t *cnt = malloc(sizeof *cnt * (size_t)nb), *face = malloc(6 * sizeof *face * (size_t)nb);
	for (int b = 0; b < nb; b++) box[b] = real.blk[b].range;
	size_t total = tide_lattice_block_counts(&real.P.grid, &L, box, nb, cnt, face);
	EXPECT(total == n, "%s: the formula counts %zu particles of %zu", path, total, n);
	for (int b = 0; b < nb; b++) {
		EXPECT(cnt[b] == block_count(&real, b), "%s: block %d holds %u particles, the formula says %u",
		       path, b, block_count(&real, b), cnt[b]);
		EXPECT(!model.blk[b].host, "%s: modelled block %d has host memory", path, b);
		if (same)
			EXPECT(block_count(&model, b) == block_count(&real, b) && model.blk[b].cap == real.blk[b].cap,
			       "%s: block %d: %u particles (capacity %u) modelled, %u (%u) real", path, b,
			       block_count(&model, b), model.blk[b].cap, block_count(&real, b), real.blk[b].cap);
	}
	if (same) EXPECT(model.halo_cap == real.halo_cap, "%s: halo capacity %u modelled, %u real", path,
	                 model.halo_cap, real.halo_cap);
	printf("%s (%s, %d blocks): %zu particles, lattice %u x %u x %u, cuts %s, halo capacity %u / %u\n",
	       path, decomp ? decomp : c.decomp, nb, n, L.n[0], L.n[1], L.n[2], same ? "equal" : "within a cell",
	       model.halo_cap, real.halo_cap);
	free(box); free(cnt); free(face);
	tide_sim_free(&real);
	tide_sim_free(&model);
	tide_block_free_host(mem, all.cap);
}

int main(int argc, char **argv)
{
	const char *root = argc > 1 ? argv[1] : ".";
	tide_runtime rt;
	if (tide_runtime_init(&argc, &argv, NULL, &rt)) return 77;
	char p2[1024], p3[1024];
	snprintf(p2, sizeof p2, "%s/cases/dambreak2d.yaml", root);
	snprintf(p3, sizeof p3, "%s/cases/dambreak3obs.yaml", root);
	check(p2, NULL, 5000, 4);
	check(p3, "3d", 20000, 8);
	check(p3, "3d", 30000, 12);
	tide_runtime_shutdown();
	if (failures) fprintf(stderr, "%d failures\n", failures);
	return failures ? 1 : 0;
}
