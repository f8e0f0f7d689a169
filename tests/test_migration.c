// SPDX-License-Identifier: LGPL-2.1-or-later
// Migration between boxes of a 3-D grid (3 x 3 x 3 blocks, 2 cells each), through the tide_sim
// API: every particle of the centre block is moved into a random one of its 26 neighbours
// (crossing one, two or three faces at once), so the centre block is emptied completely; some
// particles of the corner block jump to the opposite corner, several blocks away, in one go.
// After the migration tasks: no id is lost or duplicated, every particle that moved to a
// neighbour is in the block whose box holds it, the far jumpers are in transit in the centre
// block (each migration carries a particle on by one block), and after one more migration they
// have arrived and the centre block is empty.  Then the force
// tasks run on the grid with an empty block and count every particle.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/case.h"
#include "particle_set.h"
#include "tide/sph_sim.h"
#include "runtime.h"
#include "test_case_block.h"

static int failures;
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

/* Gathers the blocks: every id once, and how many particles sit outside their block's box. */
static int check(tide_sim *sim, uint32_t n0, const char *what, uint32_t *misplaced, uint32_t *counts)
{
	void *mem = NULL;
	tide_block_view all;
	if (tide_sim_gather_blocks(sim, 0, &mem, &all, counts)) return -1;
	unsigned char *seen = calloc(n0, 1);
	uint32_t dup = 0, bad = 0, i = 0;
	*misplaced = 0;
	for (int b = 0; b < sim->nblocks; b++)
		for (uint32_t k = 0; k < counts[b]; k++, i++) {
			uint32_t id = all.id[i];
			if (id >= n0) { bad++; continue; }
			if (seen[id]++) dup++;
			*misplaced += tide_sim_block_of(sim, all.x[i], all.y[i], all.z[i]) != b;
		}
	uint32_t missing = 0;
	for (uint32_t k = 0; k < n0; k++) missing += !seen[k];
	EXPECT(all.count == n0 && !dup && !bad && !missing, "%s: %u particles, %u duplicated, %u bad "
	       "ids, %u missing (expected %u)", what, all.count, dup, bad, missing, n0);
	free(seen);
	free(mem);
	return 0;
}

int main(void)
{
	char path[] = "/tmp/tide_test_migration_XXXXXX.yaml";
	int fd = mkstemps(path, 5);
	if (fd < 0) return 1;
	FILE *f = fdopen(fd, "w");
	fputs("name: migration\ndim: 3\ndp: 0.025\ncoefh: 2\n"
	      "domain: {lo: [0, 0, 0], hi: [0.6, 0.6, 0.6]}\n"
	      "fluid: [{lo: [0.0125, 0.0125, 0.0125], hi: [0.5875, 0.5875, 0.5875]}]\n"
	      "physics: {gravity: [0, 0, -9.81], hswl: 0.6}\n"
	      "decomposition: 3x3x3\ntime: {end: 1}\n", f);
	fclose(f);
	tide_case c;
	void *mem;
	tide_block_view all0;
	int ret = test_case_block(path, 0, &c, &mem, &all0, NULL);
	unlink(path);
	if (ret) return 1;
	uint32_t n0 = all0.count;
	if (starpu_init(NULL) != 0) return 77;

	tide_sim sim;
	if (tide_sim_setup(&sim, &c, &all0, 27, tide_runtime_uses_mpi())) return 1;
	EXPECT(sim.nblocks == 27 && sim.p[0] == 3 && sim.p[1] == 3 && sim.p[2] == 3,
	       "3x3x3: got %d blocks (%d x %d x %d)", sim.nblocks, sim.p[0], sim.p[1], sim.p[2]);
	const int centre = 13, corner = 0, far = 26;
	EXPECT(sim.blk[centre].nnb == 26 && sim.blk[corner].nnb == 7, "neighbours: centre %d "
	       "(expected 26), corner %d (expected 7)", sim.blk[centre].nnb, sim.blk[corner].nnb);
	printf("migration test: %u particles in 27 blocks\n", n0);

	/* move the particles: the whole centre block into its neighbours, a tenth of the corner
	 * block to the far corner */
	srand(7);
	uint32_t moved = 0, jumped = 0;
	for (int b = 0; b < sim.nblocks; b++) {
		if (b != centre && b != corner) continue;
		starpu_data_acquire(sim.blk[b].B, STARPU_RW);
		tide_block_view v = tide_block_view_of(
		        starpu_data_get_interface_on_node(sim.blk[b].B, STARPU_MAIN_RAM));
		for (uint32_t i = 0; i < v.count; i++) {
			double p[3];
			if (b == centre) {
				test_point_in_block(&sim, sim.blk[centre].nb[rand() % 26], p);
				moved++;
			} else if (i % 10 == 0) {
				test_point_in_block(&sim, far, p);
				jumped++;
			} else {
				continue;
			}
			v.x[i] = p[0]; v.y[i] = p[1]; v.z[i] = p[2];
		}
		starpu_data_release(sim.blk[b].B);
	}
	uint32_t *counts = calloc(27, sizeof *counts), misplaced;
	tide_sim_submit_migration(&sim);
	starpu_task_wait_for_all();
	if (check(&sim, n0, "after one migration", &misplaced, counts)) return 1;
	printf("moved %u particles out of the centre block, %u corner particles to the far corner; "
	       "after one migration: centre block %u, %u particles not yet in their block\n", moved,
	       jumped, counts[centre], misplaced);
	/* the far jumpers go one block per migration along the diagonal: they are in transit in
	 * the centre block, and nothing else is */
	EXPECT(moved > 0 && counts[centre] == jumped, "the centre block holds %u particles after "
	       "one migration, expected only the %u far jumpers in transit", counts[centre], jumped);
	EXPECT(misplaced == jumped, "%u particles outside their block after one migration, expected "
	       "the %u far jumpers", misplaced, jumped);
	int rounds = 1;
	while (misplaced && rounds < 4) {
		tide_sim_submit_migration(&sim);
		starpu_task_wait_for_all();
		if (check(&sim, n0, "after more migrations", &misplaced, counts)) return 1;
		rounds++;
	}
	printf("all particles in their blocks after %d migrations\n", rounds);
	EXPECT(!misplaced, "%u particles still outside their block after %d migrations", misplaced,
	       rounds);
	EXPECT(counts[centre] == 0, "the centre block holds %u particles at the end, expected none",
	       counts[centre]);

	/* forces on the grid with an empty block: every particle is counted once */
	tide_sim_submit_forces_with(&sim, NULL, NULL, NULL);
	starpu_data_acquire(sim.red, STARPU_R);
	tide_step_reduce r = *(tide_step_reduce *)starpu_variable_get_local_ptr(sim.red);
	starpu_data_release(sim.red);
	EXPECT(r.count == n0, "the force tasks counted %u particles, expected %u", r.count, n0);
	printf("forces with an empty block: %u particles counted\n", r.count);

	free(counts);
	tide_sim_free(&sim);
	free(mem);
	starpu_shutdown();
	if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
	printf("migration: all checks pass\n");
	return 0;
}
