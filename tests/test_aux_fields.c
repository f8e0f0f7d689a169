// SPDX-License-Identifier: LGPL-2.1-or-later
// The blocks' optional aux fields (block.h): a run with naux = 3 (halos carrying aux1) on a
// 3 x 3 x 3 grid of blocks, on 1 or 2 ranks.  Each particle's aux values are set from its id
// (aux_k = 4 id + k + 0.25, exact in float) and aux1 also from its position for the halo check.
// The centre block's particles are thrown into its 26 neighbours (migration, across the rank
// boundary on 2 ranks), the blocks are cell-sorted and their halos packed, and the gathered
// particles (moved by MPI to rank 0) must all keep their aux values; every halo particle must
// carry aux1; a checkpoint written of them holds the aux arrays after the base fields.  With
// naux = 0 the block is the WCSPH one: 77 bytes per particle, 45 in a halo.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "tide/block_interface.h"
#include "tide/case.h"
#include "tide/sph_sim.h"
#include "checkpoint.h"
#include "runtime.h"
#include "test_case_block.h"

static int failures;
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static float aux_of(uint32_t id, int k) { return 4.f * (float)id + (float)k + 0.25f; }

/* aux0 and aux2 from the id; aux1 from x (what the halo check can see: halos carry no id). */
static void set_aux(tide_block_view *v)
{
	for (uint32_t i = 0; i < v->count; i++) {
		v->aux0[i] = aux_of(v->id[i], 0);
		v->aux1[i] = (float)v->x[i];
		v->aux2[i] = aux_of(v->id[i], 2);
	}
}

static uint32_t bad_aux(const tide_block_view *v)
{
	uint32_t bad = 0;
	for (uint32_t i = 0; i < v->count; i++)
		bad += v->aux0[i] != aux_of(v->id[i], 0) || v->aux1[i] != (float)v->x[i] ||
		       v->aux2[i] != aux_of(v->id[i], 2);
	return bad;
}

/* The block's layout for every naux and capacities of every residue mod 8: each active field's
 * array aligned to its element size (the one-byte type last, so odd capacities leave the aux
 * floats aligned), inside the allocation of cap * tide_block_bpp() bytes, and no two arrays
 * overlapping (each filled with its own byte, all read back).  Returns the failures. */
static int check_layout(void)
{
	int bad = 0;
	for (unsigned naux = 0; naux <= TIDE_BLOCK_MAX_AUX; naux++) {
		tide_block_set_aux(naux, 0);
		for (uint32_t cap = 1; cap <= 9; cap++) {
			size_t bytes = cap * tide_block_bpp();
			unsigned char *mem = malloc(bytes);
			tide_block_view v = tide_block_view_make(mem, cap, 0);
			char *ptr[TIDE_BLOCK_MAX_FIELDS];
			int f = 0;
#define TIDE_X_PTR(name, T) ptr[f++] = (char *)v.name;
			TIDE_BLOCK_FIELDS(TIDE_X_PTR)
			TIDE_BLOCK_AUX_FIELDS(TIDE_X_PTR)
#undef TIDE_X_PTR
			size_t used = 0;
			for (f = 0; f < tide_block_nfields(); f++) {
				size_t elem, off;
				tide_block_field(f, &elem, &off);
				size_t at = (size_t)(ptr[f] - (char *)mem);
				bad += at != off * cap || at % elem || at + elem * cap > bytes;
				if (at + elem * cap <= bytes) memset(ptr[f], f + 1, elem * cap);
				used += elem * cap;
			}
			for (f = 0; f < tide_block_nfields(); f++) {
				size_t elem, off;
				tide_block_field(f, &elem, &off);
				for (size_t k = 0; k < elem * cap && off * cap + k < bytes; k++)
					bad += ptr[f][k] != (char)(f + 1);
			}
			bad += used != bytes;
			free(mem);
		}
	}
	return bad;
}

/* The checkpoint's particles.bin: the 20 base arrays (the type as uint32_t values), then aux0,
 * aux1, aux2 (n each). */
static void check_checkpoint(const char *dir, const tide_block_view *all)
{
	char p[700];
	snprintf(p, sizeof p, "%s/particles.bin", dir);
	FILE *f = fopen(p, "rb");
	EXPECT(f != NULL, "no %s", p);
	if (!f) return;
	size_t n = all->count, want = n * (84 + 3 * sizeof(float));
	char *buf = malloc(want + 1);
	size_t got = fread(buf, 1, want + 1, f);
	fclose(f);
	EXPECT(got == want, "particles.bin holds %zu bytes, expected %zu (84 + 12 per particle)", got,
	       want);
	if (got == want) {
		const uint32_t *id = (const uint32_t *)(buf + n * 72), *type = id + n;
		const float *a0 = (const float *)(buf + n * 84), *a2 = a0 + 2 * n;
		uint32_t bad = 0;
		for (size_t i = 0; i < n; i++)
			bad += id[i] != all->id[i] || type[i] != all->type[i] || a0[i] != aux_of(id[i], 0) ||
			       a2[i] != aux_of(id[i], 2);
		EXPECT(bad == 0, "%u particles of the checkpoint with wrong aux values", bad);
	}
	free(buf);
}

int main(int argc, char **argv)
{
	tide_runtime rt;
	if (tide_runtime_init(&argc, &argv, NULL, &rt)) return 77;
	char path[] = "/tmp/tide_test_aux_XXXXXX.yaml";
	int fd = mkstemps(path, 5);
	if (fd < 0) return 1;
	FILE *f = fdopen(fd, "w");
	fputs("name: aux\ndim: 3\ndp: 0.05\ncoefh: 2\n"
	      "domain: {lo: [0, 0, 0], hi: [1.2, 1.2, 1.2]}\n"
	      "fluid: [{lo: [0.025, 0.025, 0.025], hi: [1.175, 1.175, 1.175]}]\n"
	      "physics: {gravity: [0, 0, -9.81], hswl: 1.2}\n"
	      "decomposition: 3x3x3\ntime: {end: 1}\n", f);
	fclose(f);
	tide_case c;
	int ret = tide_case_load(path, 0, &c);
	if (rt.rank == 0) unlink(path);
	if (ret) return 1;
	/* WCSPH: the base block, unchanged */
	EXPECT(tide_block_naux() == 0 && tide_block_bpp() == 77 && tide_fields_bpp(TIDE_ALL_FIELDS) == 77 &&
	       tide_fields_bpp(TIDE_HALO_FIELDS) == 45, "WCSPH block: %zu bytes per particle, %zu in a "
	       "halo (expected 77 and 45)", tide_block_bpp(), tide_fields_bpp(TIDE_HALO_FIELDS));
	int layout_bad = check_layout();
	EXPECT(layout_bad == 0, "%d misplaced, misaligned or overlapping field arrays", layout_bad);
	tide_block_set_aux(3, TIDE_FIELD_BIT(aux1));
	EXPECT(tide_block_bpp() == 89 && tide_fields_bpp(TIDE_ALL_FIELDS) == 89 &&
	       tide_fields_bpp(TIDE_HALO_FIELDS) == 49 && tide_block_nfields() == 20,
	       "naux 3: %zu bytes per particle, %zu in a halo (expected 89 and 49)", tide_block_bpp(),
	       tide_fields_bpp(TIDE_HALO_FIELDS));
	void *mem;
	tide_block_view all;
	if (test_case_build_block(&c, &mem, &all, NULL)) return 1;
	uint32_t n0 = all.count;
	EXPECT(all.naux == 3, "host block view with naux %u", all.naux);
	set_aux(&all);

	tide_sim sim;
	if (tide_sim_setup(&sim, &c, &all, 27, tide_runtime_uses_mpi())) return 1;
	const int centre = 13;
	srand(3);
	/* the centre block's particles into its 26 neighbours (aux1 follows x) */
	if (sim.blk[centre].owner == rt.rank) {
		starpu_data_acquire(sim.blk[centre].B, STARPU_RW);
		tide_block_view v = tide_block_view_of(
		        starpu_data_get_interface_on_node(sim.blk[centre].B, STARPU_MAIN_RAM));
		for (uint32_t i = 0; i < v.count; i++) {
			double p[3];
			test_point_in_block(&sim, sim.blk[centre].nb[rand() % 26], p);
			v.x[i] = p[0]; v.y[i] = p[1]; v.z[i] = p[2];
			v.aux1[i] = (float)p[0];
		}
		starpu_data_release(sim.blk[centre].B);
	}
	tide_sim_submit_migration(&sim);
	tide_sim_submit_sort_halos(&sim);
	starpu_task_wait_for_all();

	/* every halo (on the rank that packed it) carries aux1 = x of its particles */
	uint32_t halo_n = 0, halo_bad = 0;
	for (int b = 0; b < sim.nblocks; b++) {
		if (sim.blk[b].owner != rt.rank) continue;
		for (int h = 0; h < sim.blk[b].cut.n; h++) {
			if (!sim.blk[b].H[h]) continue;
			starpu_data_acquire(sim.blk[b].H[h], STARPU_R);
			tide_block_view v = tide_block_view_of(
			        starpu_data_get_interface_on_node(sim.blk[b].H[h], STARPU_MAIN_RAM));
			for (uint32_t i = 0; i < v.count; i++) halo_bad += v.aux1[i] != (float)v.x[i];
			halo_n += v.count;
			starpu_data_release(sim.blk[b].H[h]);
		}
	}
	EXPECT(halo_n > 0 && halo_bad == 0, "rank %d: %u of %u halo particles without their aux1",
	       rt.rank, halo_bad, halo_n);

	void *gmem = NULL;
	tide_block_view g;
	uint32_t counts[27];
	if (tide_sim_gather_blocks(&sim, 0, &gmem, &g, counts)) return 1;
	if (rt.rank == 0) {
		EXPECT(g.count == n0 && g.naux == 3, "gathered %u particles (naux %u), expected %u (3)",
		       g.count, g.naux, n0);
		EXPECT(counts[centre] == 0, "the centre block kept %u particles", counts[centre]);
		uint32_t bad = bad_aux(&g);
		EXPECT(bad == 0, "%u of %u particles lost their aux values in migration, sorting or "
		       "gathering", bad, g.count);
		char dir[] = "/tmp/tide_test_aux_ckpt_XXXXXX";
		if (mkdtemp(dir)) {
			char ck[600];
			snprintf(ck, sizeof ck, "%s/ckpt", dir);
			uint32_t cap[27];
			int owner[27];
			tide_block_arg range[27];
			for (int b = 0; b < 27; b++) {
				cap[b] = sim.blk[b].cap;
				range[b] = sim.blk[b].range;
				owner[b] = sim.blk[b].owner;
			}
			tide_ckpt_state cs = {.nblocks = 27, .halo_cap = sim.halo_cap, .range = range,
			                      .count = counts, .cap = cap, .owner = owner, .nranks = rt.size};
			EXPECT(tide_checkpoint_write(ck, &cs, &g, &c) == 0, "checkpoint not written");
			check_checkpoint(ck, &g);
			char cmd[700];
			snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
			if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
		}
		printf("aux fields: %u particles, %u halo particles on rank 0, %d ranks\n", g.count,
		       halo_n, rt.size);
	}
	free(gmem);
	tide_sim_free(&sim);
	free(mem);
	tide_runtime_shutdown();
	if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
	if (rt.rank == 0) printf("aux fields: all checks pass\n");
	return 0;
}
