// SPDX-License-Identifier: LGPL-2.1-or-later
// Halos cut to what each neighbour reads (include/tide/halo_cut.h, issue 25).  A fluid box on a
// 3 x 3 x 3 grid of blocks (the centre block has 6 face, 12 edge and 8 corner neighbours) is
// cell-sorted and its halos packed; then for every block b and every neighbour o that reads it,
// the halo b packed for o must hold exactly, in b's (key) order, the particles of b whose cell
// lies in o's box grown by the halo's layers (what o's support reaches: a brute force over b's
// particles), compared field by field bit for bit; and the cut halos together must hold fewer
// particles than the whole faces every reader used to receive.  With --cuda (halo_cuts_cuda):
// cell_sort and halo_pack run on the CUDA worker, held to the same brute force (SKIP without one).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/case.h"
#include "tide/sph_sim.h"
#include "case_load.h"
#include "test_case_block.h"
#include "test_cuda_mode.h"

static int failures;
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

/* Is cell c (key coordinates) within L cells of box O along every axis? */
static int reached(const tide_block_arg *O, const int c[3], int L)
{
	int lo[3], hi[3];
	tide_box_bounds(O, lo, hi);
	for (int a = 0; a < 3; a++)
		if (c[a] < lo[a] - L || c[a] >= hi[a] + L) return 0;
	return 1;
}

/* Checks the halo block b packed for its reader o; counts it by kind (axes along which o lies
 * outside b: 1 face, 2 edge, 3 corner) and adds the particles of the whole face to *face_n. */
static void check_halo(tide_sim *sim, int b, int o, starpu_data_handle_t h, int kinds[4],
                       uint64_t *cut_n, uint64_t *face_n)
{
	const tide_grid *g = &sim->P.grid;
	tide_sim_block *k = &sim->blk[b], *q = &sim->blk[o];
	int L = tide_halo_layers(g), blo[3], bhi[3], olo[3], ohi[3], out = 0, first = -1;
	tide_box_bounds(&k->range, blo, bhi);
	tide_box_bounds(&q->range, olo, ohi);
	for (int a = 0; a < 3; a++) {
		int outside = olo[a] >= bhi[a] || ohi[a] <= blo[a];
		out += outside;
		if (outside && first < 0) first = a;
	}
	starpu_data_acquire(k->B, STARPU_R);
	starpu_data_acquire(k->C, STARPU_R);
	starpu_data_acquire(h, STARPU_R);
	tide_block_view v = tide_block_view_of(starpu_data_get_interface_on_node(k->B, STARPU_MAIN_RAM));
	tide_block_view w = tide_block_view_of(starpu_data_get_interface_on_node(h, STARPU_MAIN_RAM));
	const uint32_t *start = (const uint32_t *)starpu_data_get_local_ptr(k->C);
	uint32_t ncell = tide_box_ncell(&k->range), n = 0, bad = 0, face = 0;
	for (uint32_t i = 0; i < v.count; i++) {
		int c[3];
		uint32_t key = tide_box_key(g, &k->range, tide_sorted_cell(start, ncell, i));
		tide_key_cell(g, key, c);
		/* the whole face of the first axis along which o lies outside b */
		face += olo[first] >= bhi[first] ? c[first] >= bhi[first] - L : c[first] < blo[first] + L;
		if (!reached(&q->range, c, L)) continue;
		if (n < w.count)
			bad += tide_halo_keys(&w)[n] != key || w.x[n] != v.x[i] || w.y[n] != v.y[i] ||
			       w.z[n] != v.z[i] || w.vx[n] != v.vx[i] || w.rho[n] != v.rho[i] ||
			       w.vy[n] != v.vy[i] || w.vz[n] != v.vz[i] || w.type[n] != v.type[i];
		n++;
	}
	EXPECT(n == w.count && bad == 0, "block %d's halo for block %d (%d axes outside): %u "
	       "particles, %u by brute force, %u differ", b, o, out, w.count, n, bad);
	if (out >= 1 && out <= 3) kinds[out] += n > 0;
	*cut_n += w.count;
	*face_n += face;
	starpu_data_release(h);
	starpu_data_release(k->C);
	starpu_data_release(k->B);
}

int main(int argc, char **argv)
{
	int cuda = test_cuda_requested(argc, argv);
	setenv("STARPU_NCPU", "1", 0);
	char path[] = "/tmp/tide_test_halo_cuts_XXXXXX.yaml";
	int fd = mkstemps(path, 5);
	if (fd < 0) return 1;
	FILE *f = fdopen(fd, "w");
	fputs("name: halo_cuts\ndim: 3\ndp: 0.05\ncoefh: 2\n"
	      "domain: {lo: [0, 0, 0], hi: [1.2, 1.2, 1.2]}\n"
	      "fluid: [{lo: [0.025, 0.025, 0.025], hi: [1.175, 1.175, 0.9]}]\n"
	      "physics: {gravity: [0, 0, -9.81], hswl: 0.9}\n"
	      "decomposition: 3x3x3\ntime: {end: 1}\n", f);
	fclose(f);
	tide_case c;
	int ret = tide_case_load(path, 0, &c);
	unlink(path);
	if (ret) return 1;
	if (starpu_init(NULL) != 0) { fprintf(stderr, "StarPU init failed\n"); return 77; }
	if (cuda && test_cuda_missing("halo_cuts_cuda")) { starpu_shutdown(); return TEST_SKIP; }
	tide_sph_codelets_where(cuda ? TIDE_WHERE_CUDA : TIDE_WHERE_CPU);
	void *mem;
	tide_block_view all;
	if (test_case_build_block(&c, &mem, &all, NULL)) return 1;
	tide_sim sim;
	if (tide_sim_setup(&sim, &c, &all, 27, 0)) return 1;
	EXPECT(sim.nblocks == 27, "%d blocks, not 27", sim.nblocks);
	tide_sim_submit_sort_halos(&sim);
	starpu_task_wait_for_all();
	int kinds[4] = {0, 0, 0, 0}, nread = 0;
	uint64_t cut_n = 0, face_n = 0;
	for (int o = 0; o < sim.nblocks; o++) {
		tide_sim_block *q = &sim.blk[o];
		for (int j = 0; j < q->nnb; j++, nread++)
			check_halo(&sim, q->nb[j], o, sim.blk[q->nb[j]].H[q->nb_halo[j]], kinds, &cut_n, &face_n);
	}
	EXPECT(sim.blk[13].nnb == 26 && sim.blk[13].cut.n == 26, "the centre block has %d neighbours "
	       "and %d halos, not 26", sim.blk[13].nnb, sim.blk[13].cut.n);
	EXPECT(kinds[1] > 0 && kinds[2] > 0 && kinds[3] > 0, "non-empty halos checked: %d face, %d "
	       "edge, %d corner (each kind expected)", kinds[1], kinds[2], kinds[3]);
	EXPECT(cut_n < face_n, "the cut halos hold %llu particles, the whole faces %llu",
	       (unsigned long long)cut_n, (unsigned long long)face_n);
	printf("halo_cuts%s: %d halos read (%d face, %d edge, %d corner non-empty): %llu particles, "
	       "%llu as whole faces (%.2fx)\n", cuda ? "_cuda" : "", nread, kinds[1], kinds[2], kinds[3],
	       (unsigned long long)cut_n, (unsigned long long)face_n,
	       cut_n ? (double)face_n / (double)cut_n : 0.0);
	tide_sim_free(&sim);
	free(mem);
	starpu_shutdown();
	if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
	printf("halo_cuts%s: all checks passed\n", cuda ? "_cuda" : "");
	return 0;
}
