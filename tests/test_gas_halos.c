// SPDX-License-Identifier: LGPL-2.1-or-later
// The gas scheme's halos per block (include/tide/gas_halo.h, issue 23): every halo carries the
// cell layers the largest h of the two blocks it joins needs (tide_gas_halo_depth: 25 % room),
// not those of the step's global largest h.
//
// Case 1, two regions of different h: a slab of gas at rest, density 8 for x < 0 (lattice
// spacing a / 2, h about 0.6 a) and 1 for x > 0 (spacing a, h about 1.2 a), at equal pressure,
// cut into 8 slabs along x.  Asserted after 3 steps, with the halos packed again:
//  - each block's record (block_interface.h hmax) is the largest h of its particles;
//  - every face halo (that of a face neighbour, include/tide/halo_cut.h) of every block holds exactly the block's particles in the cell layers
//    tide_gas_halo_depth gives for the largest record among the block and the neighbours that
//    read that face (a brute-force count over the block's cell-sorted particles);
//  - the dense blocks' halos are narrower than the global width (the records differ): the
//    halos hold fewer particles than one global width would.
// Both cases, 10 steps with halos per block and with TIDE_GAS_HALOS=global (one width for all,
// from the step's largest h: the scheme before): every particle's position, velocity, density,
// h and u are the same bits (the narrower halos drop only particles that no pair reaches), and
// the halo particles and bytes per step are printed for both.
// With --cuda (the test gas_halos_cuda): case 1 with every SPH codelet on the GPU (halo_pack's
// and migrate_pack's CUDA halves: the records and the layers); SKIP without a CUDA worker.
// Case 2, a top hat: a uniform sphere of density 8 in a background of density 1 (equal
// pressure) on 4 x 4 x 4 blocks: what the halos hold per step, per block and global (the
// measurement of the issue: only the halos between two of the 8 blocks inside the sphere can
// narrow, a block's record being its sparsest particle's h).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/case.h"
#include "tide/gas_halo.h"
#include "tide/sph_sim.h"
#include "case_load.h"
#include "gas_ic.h"
#include "test_cuda_mode.h"
#include "test_gas_case.h"

static int failures;
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

#define A_SP 0.1      /* the sparse lattice's spacing a */
#define ETA 1.2
#define GAMMA (5.0 / 3.0)

/* The two regions of test_gas_case.h. */
static int make_contact(tide_case *c, void **mem, tide_block_view *all)
{
	return test_gas_two_regions(c, A_SP, mem, all);
}

/* The top hat: a sphere of radius 1 (24 lattice points across), density 8, in a background of
 * density 1 out to 1.15 at equal pressure, on 4 x 4 x 4 blocks: the 8 central blocks lie inside
 * the sphere (their far corners at 0.99), the other 56 hold background too. */
static int make_tophat(tide_case *c, void **mem, tide_block_view *all)
{
	tide_gas_sphere s = {.evrard = 0, .n = 24, .R = 1, .M = 1, .u = 0.1, .eta = ETA,
	                     .half = 1.15, .u_out = 0.8, .glass = NULL};
	double m = tide_gas_ic_sphere_mass(&s), rho_in = 3.0 / (4.0 * M_PI);
	s.rho_out = rho_in / 8;
	double dp = cbrt(m / rho_in), h_in = ETA * dp;
	test_gas_case(c, "gas_halos_tophat", dp, 2.5 * h_in, 1.15);
	c->rho0 = rho_in;
	c->gas.eos = TIDE_GAS_IDEAL;
	c->gas.gamma = GAMMA;
	c->gas.eta = ETA;
	c->gas.h_cell = 0.5 * h_in;
	strcpy(c->decomp, "4x4x4");
	tide_sim_set_aux(c);
	if (tide_gas_ic_alloc(tide_gas_ic_sphere(&s, NULL), 0, mem, all)) return -1;
	tide_gas_ic_sphere(&s, all);
	return 0;
}

typedef int (*make_fn)(tide_case *c, void **mem, tide_block_view *all);

/* The layers of face slot s of block b by the formula, from the records. */
static int expected_layers(const tide_sim *sim, int b, int s, const float *rec)
{
	const tide_sim_block *k = &sim->blk[b];
	float h = rec[b];
	for (int j = 0; j < k->nnb; j++) {
		const tide_sim_block *o = &sim->blk[k->nb[j]];
		for (int i = 0; i < o->nnb; i++)
			if (o->nb[i] == b && o->nb_slot[i] == s) h = fmaxf(h, rec[k->nb[j]]);
	}
	return tide_gas_halo_depth(&sim->P.grid, h);
}

/* Case 1's checks on the halos packed now (see the head of the file). */
static void check_widths(tide_sim *sim)
{
	int nb = sim->nblocks;
	float *rec = malloc(sizeof(float) * (size_t)nb);
	uint64_t got = 0, global = 0;
	int narrower = 0, faces = 0;
	const tide_grid *g = &sim->P.grid;
	for (int b = 0; b < nb; b++) {
		starpu_data_acquire(sim->blk[b].B, STARPU_R);
		const struct tide_block_iface *bi = starpu_data_get_interface_on_node(sim->blk[b].B, STARPU_MAIN_RAM);
		tide_block_view v = tide_block_view_of((void *)bi);
		float hm = 0.f;
		for (uint32_t i = 0; i < v.count; i++) hm = fmaxf(hm, v.TIDE_GAS_H[i]);
		rec[b] = bi->hmax;
		EXPECT(rec[b] == hm, "block %d: record %g, its particles' largest h %g", b, (double)rec[b],
		       (double)hm);
		starpu_data_release(sim->blk[b].B);
	}
	for (int b = 0; b < nb; b++) {
		tide_sim_block *k = &sim->blk[b];
		int slot[6];
		tide_face_slots(g, &k->range, slot);
		starpu_data_acquire(k->B, STARPU_R);
		starpu_data_acquire(k->C, STARPU_R);
		tide_block_view v = tide_block_view_of(starpu_data_get_interface_on_node(k->B, STARPU_MAIN_RAM));
		const uint32_t *start = (const uint32_t *)starpu_data_get_local_ptr(k->C);
		/* the halos of face neighbours: the whole face (halo_cut.h; slabs have no other) */
		for (int r = 0; r < k->cut.n; r++) {
			int f = k->cut.face[r], whole = 1;
			for (int a = 0; a < 3; a++) whole &= a == f / 2 || !k->cut.side[r][a];
			if (!whole) continue;
			int L = expected_layers(sim, b, slot[f], rec), Lg = tide_halo_layers(g), first, nl, fg, ng;
			tide_face_layers_n(&k->range, f, L, &first, &nl);
			tide_face_layers_n(&k->range, f, Lg, &fg, &ng);
			uint32_t want = 0, wide = 0;
			for (uint32_t i = 0; i < v.count; i++) {
				int c[3];
				tide_key_cell(g, tide_box_key(g, &k->range, tide_sorted_cell(start, tide_box_ncell(&k->range), i)), c);
				want += c[f / 2] >= first && c[f / 2] < first + nl;
				wide += c[f / 2] >= fg && c[f / 2] < fg + ng;
			}
			starpu_data_acquire(k->H[r], STARPU_R);
			uint32_t have = tide_block_count(k->H[r]);
			float hrec = ((struct tide_block_iface *)starpu_data_get_interface_on_node(k->H[r], STARPU_MAIN_RAM))->hmax;
			starpu_data_release(k->H[r]);
			printf("  block %d face %d: record h %.4f, %d layers (global %d): %u particles (%u "
			       "with the global width)\n", b, f, (double)rec[b], L, Lg, have, wide);
			EXPECT(have == want, "block %d face %d: the halo holds %u particles, %d layers hold %u",
			       b, f, have, L, want);
			EXPECT(hrec == rec[b], "block %d face %d: the halo carries record %g, the block's is %g",
			       b, f, (double)hrec, (double)rec[b]);
			got += have;
			global += wide;
			narrower += L < Lg;
			faces++;
		}
		starpu_data_release(k->C);
		starpu_data_release(k->B);
	}
	printf("two regions: %d of %d faces narrower than the global %d layers; halos %llu particles, "
	       "%llu with the global width\n", narrower, faces, tide_halo_layers(g),
	       (unsigned long long)got, (unsigned long long)global);
	EXPECT(narrower > 0 && got < global, "no halo narrower than the global width (%d faces, "
	       "%llu particles against %llu)", narrower, (unsigned long long)got,
	       (unsigned long long)global);
	free(rec);
}

/* A run of `steps` steps with halos per block (TIDE_GAS_HALOS unset) or global; the particles
 * gathered at the end (by id) into *out, the halo particles and bytes per step averaged. */
static int run(make_fn make, int nblocks, int steps, int global, int check, tide_block_view *out,
               void **out_mem, double *halo_n, double *halo_b)
{
	if (global) setenv("TIDE_GAS_HALOS", "global", 1);
	else unsetenv("TIDE_GAS_HALOS");
	tide_case c;
	void *mem = NULL;
	tide_block_view all;
	if (make(&c, &mem, &all)) return -1;
	tide_sim sim;
	if (tide_sim_setup(&sim, &c, &all, nblocks, 0)) return -1;
	EXPECT(sim.P.grid.halo_block == !global, "halo_block %d with TIDE_GAS_HALOS %s",
	       sim.P.grid.halo_block, global ? "global" : "unset");
	double n = 0, b = 0;
	int bad = 0;
	for (int s = 0; s < steps && !bad; s++) {
		bad = tide_sim_step(&sim);
		uint64_t hn, hb;
		tide_sim_halo_stats(&sim, &hn, &hb);
		n += (double)hn;
		b += (double)hb;
		if (check && s == 2) {
			tide_sim_submit_sort_halos(&sim);
			starpu_task_wait_for_all();
			check_widths(&sim);
		}
	}
	EXPECT(!bad, "%s run went unphysical", c.name);
	*halo_n = n / steps;
	*halo_b = b / steps;
	printf("%s, %d blocks, halos %s: %.0f halo particles, %.0f bytes per step (%d steps, %d "
	       "layers at most)\n", c.name, sim.nblocks, global ? "global" : "per block", *halo_n,
	       *halo_b, steps, tide_halo_max(&sim.P.grid));
	int ret = tide_sim_gather(&sim, 0, out_mem, out);
	tide_sim_free(&sim);
	tide_block_free_host(mem, all.cap);
	unsetenv("TIDE_GAS_HALOS");
	return ret || bad ? -1 : 0;
}

/* The particles of two runs, by id, the same bits. */
static void compare(const char *what, const tide_block_view *p, const tide_block_view *q)
{
	EXPECT(p->count == q->count, "%s: %u and %u particles", what, p->count, q->count);
	if (p->count != q->count) return;
	uint32_t *at = malloc(sizeof(uint32_t) * (q->count ? q->count : 1)), differ = 0;
	for (uint32_t i = 0; i < q->count; i++) at[q->id[i] % q->count] = i;
	for (uint32_t i = 0; i < p->count; i++) {
		uint32_t j = at[p->id[i] % p->count];
		int same = q->id[j] == p->id[i] && p->x[i] == q->x[j] && p->y[i] == q->y[j] &&
		           p->z[i] == q->z[j] && p->vx[i] == q->vx[j] && p->vy[i] == q->vy[j] &&
		           p->vz[i] == q->vz[j] && p->rho[i] == q->rho[j] &&
		           p->TIDE_GAS_H[i] == q->TIDE_GAS_H[j] && p->TIDE_GAS_U[i] == q->TIDE_GAS_U[j];
		differ += !same;
	}
	printf("%s: halos per block = global width, %u of %u particles differ\n", what, differ, p->count);
	EXPECT(differ == 0, "%s: %u particles differ between halos per block and global", what, differ);
	free(at);
}

static void both(const char *what, make_fn make, int nblocks, int steps, int check)
{
	tide_block_view p, q;
	void *pm = NULL, *qm = NULL;
	double n1, b1, n0, b0;
	int r1 = run(make, nblocks, steps, 0, check, &p, &pm, &n1, &b1);
	int r0 = run(make, nblocks, steps, 1, 0, &q, &qm, &n0, &b0);
	EXPECT(r1 == 0 && r0 == 0, "%s: a run failed", what);
	if (r1 == 0 && r0 == 0) {
		compare(what, &p, &q);
		printf("%s: halo particles per step %.0f per block, %.0f global (%.1f %%); bytes %.0f, %.0f\n",
		       what, n1, n0, 100.0 * n1 / n0, b1, b0);
		EXPECT(n1 <= n0, "%s: the halos per block hold more (%.0f) than the global width (%.0f)",
		       what, n1, n0);
	}
	free(pm);
	free(qm);
}

int main(int argc, char **argv)
{
	int cuda = test_cuda_requested(argc, argv);
	if (starpu_init(NULL) != 0) { fprintf(stderr, "StarPU init failed\n"); return 77; }
	if (cuda && test_cuda_missing("gas_halos_cuda")) { starpu_shutdown(); return TEST_SKIP; }
	tide_sph_codelets_where(cuda ? TIDE_WHERE_CUDA : TIDE_WHERE_CPU);
	both("two regions", make_contact, 8, 10, 1);
	if (!cuda) both("top hat", make_tophat, 64, 10, 0);
	starpu_shutdown();
	if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
	printf("gas_halos%s: all checks passed\n", cuda ? "_cuda" : "");
	return 0;
}
