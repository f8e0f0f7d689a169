// SPDX-License-Identifier: LGPL-2.1-or-later
// Does the run fit in memory?  StarPU allocates data lazily, when a task first needs it on a
// memory node: a block's copy on a GPU, and in main memory the cell tables, halos, migrants and
// sort scratch.  When such an allocation fails StarPU frees what it can and tries again later,
// for ever if nothing can be freed: a run too big for a GPU (or for STARPU_LIMIT_CPU_MEM) would
// hang in its first step.  So before the first step the data of this rank's largest task is
// compared with each GPU's memory, and everything main memory will have to hold with what is
// left there.  (The particle-block interface also gives up on a failing allocation after a
// while: interfaces/block_interface.c.)  The same formulas give the bytes a memory node should
// hold (tide_sim_node_bytes: tide run's log and run summary, bench/sph_ladder.sh; the test
// memory_accounting compares them with StarPU's count).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "tide/codelets.h"
#include "tide/sph_sim.h"

#define MIB (1024.0 * 1024.0)

/* What StarPU allocates for one block (the formulas of the allocations: block_interface.c's
 * block_bytes, the vectors registered in sph_setup.c).  An edge (halo) or migrant buffer holds
 * every field, whatever its mask: halo_cap particles of the run's bytes per particle (a halo
 * cut for an edge or corner neighbour: its own capacity, hcap). */
static double block_bytes(const tide_sim_block *k) { return (double)k->cap * tide_block_bpp(); }
static double halo_bytes(const tide_sim *sim) { return (double)sim->halo_cap * tide_block_bpp(); }
/* halo r of block k (cut to what its reader reads, halo_cut.h: its own capacity) */
static double cut_bytes(const tide_sim_block *k, int r) { return (double)k->hcap[r] * tide_block_bpp(); }
/* the halo of neighbour j of block k that k reads */
static double read_bytes(const tide_sim *sim, const tide_sim_block *k, int j)
{
	return cut_bytes(&sim->blk[k->nb[j]], k->nb_halo[j]);
}
/* the cell table, and the gas scheme's reach map (a float per cell, gas_forces) */
static double cell_table_bytes(const tide_sim_block *k) { return 4.0 * ((double)tide_box_ncell(&k->range) + 1); }
static double reach_bytes(const tide_sim_block *k) { return k->R ? 4.0 * (double)tide_box_ncell(&k->range) : 0; }

/* StarPU 1.4's suballocator (src/datawizard/malloc.c): on a GPU (and for pinned main memory)
 * every allocation of at most 4 MiB is a run of 16 KiB blocks inside chunks of 32 MiB, which
 * count whole in starpu_memory_get_used; STARPU_SUBALLOCATOR=0 turns it off. */
#define SUB_CHUNK (32.0 * MIB)
#define SUB_MAX (4.0 * MIB)
#define SUB_BLOCK (16.0 * 1024.0)

typedef struct alloc_sum {
	int suballoc;
	double direct, small; /* allocations above SUB_MAX, and the others in whole blocks */
	double small_max;     /* the largest of the others, in whole blocks */
} alloc_sum;

static void add_alloc(alloc_sum *a, double bytes, double times, double *into)
{
	if (bytes <= 0 || times <= 0) return;
	*into += bytes * times;
	if (a->suballoc && bytes <= SUB_MAX) {
		double run = ceil(bytes / SUB_BLOCK) * SUB_BLOCK;
		a->small += run * times;
		if (run > a->small_max) a->small_max = run;
	} else
		a->direct += bytes * times;
}

int tide_suballocator_on(void)
{
	const char *e = getenv("STARPU_SUBALLOCATOR");
	return !(e && *e && atoi(e) == 0);
}

void tide_sim_node_bytes(const tide_sim *sim, int copies, int suballoc, tide_node_bytes *nb)
{
	memset(nb, 0, sizeof *nb);
	alloc_sum a = {.suballoc = suballoc};
	double halo = halo_bytes(sim);
	for (int b = 0; b < sim->nblocks; b++) {
		const tide_sim_block *k = &sim->blk[b];
		if (k->owner != sim->rank) continue;
		add_alloc(&a, block_bytes(k), 1, &nb->blocks);
		add_alloc(&a, cell_table_bytes(k), 1, &nb->cells);
		add_alloc(&a, reach_bytes(k), 1, &nb->cells);
		/* its edge and migrant buffers, and those its neighbours on other ranks send it */
		add_alloc(&a, halo, k->nface, &nb->halos);
		for (int r = 0; r < k->cut.n; r++) add_alloc(&a, cut_bytes(k, r), 1, &nb->halos);
		for (int j = 0; j < k->nnb; j++)
			if (sim->blk[k->nb[j]].owner != sim->rank) {
				add_alloc(&a, halo, 1, &nb->halos);
				add_alloc(&a, read_bytes(sim, k, j), 1, &nb->halos);
			}
	}
	add_alloc(&a, (double)sim->scratch_bytes, copies, &nb->scratch);
	/* the step records (reductions: a copy per stage, and one a worker reduces into) */
	add_alloc(&a, sizeof(tide_step_reduce), 4, &nb->records);
	nb->chunks = a.small > 0 ? ceil(a.small / SUB_CHUNK) * SUB_CHUNK : 0;
	/* StarPU places each small allocation, in the order tasks first need them, in the first
	 * chunk with a free run long enough, and opens a chunk only when none has one (and none of
	 * a run's buffers is freed before its end, so a chunk's free blocks are one run): so every
	 * chunk but the last lost a request of at most small_max, i.e. holds more than SUB_CHUNK -
	 * small_max, and k chunks hold more than (k - 1) (SUB_CHUNK - small_max).  The order (and
	 * which runs are free) is StarPU's, so the count lies between the two (a 2 x 2 split of
	 * 62.9 MiB took 3 chunks on an H100, 2026-12-06). */
	nb->chunks_max = a.small > 0 ? (floor(a.small / (SUB_CHUNK - a.small_max)) + 1) * SUB_CHUNK : 0;
	if (nb->chunks_max < nb->chunks) nb->chunks_max = nb->chunks;
	nb->total = a.direct + nb->chunks;
}

int tide_sim_check_memory(const tide_sim *sim)
{
	if (getenv("TIDE_TEST_SKIP_MEMORY_CHECK")) return 0; /* lets a test reach the allocator */
	double halo = halo_bytes(sim);
	double scratch = (double)sim->scratch_bytes;
	double task_max = 0, lazy_ram = 0;
	int worst = -1, owned = 0;
	for (int b = 0; b < sim->nblocks; b++) {
		const tide_sim_block *k = &sim->blk[b];
		if (k->owner != sim->rank) continue;
		owned++;
		double cells = cell_table_bytes(k) + reach_bytes(k);
		/* a task reads or writes at most the block, its cell table, the edge (halo) buffers of
		 * its neighbours or its own migrant buffers, and the sort scratch */
		double own = 0, read = 0;
		for (int r = 0; r < k->cut.n; r++) own += cut_bytes(k, r);
		for (int j = 0; j < k->nnb; j++) read += read_bytes(sim, k, j);
		double bufs = read > k->nface * halo ? read : k->nface * halo;
		if (own > bufs) bufs = own;
		/* the gas scheme's halo_pack: its edge buffers and the neighbours' migrant buffers,
		 * whose records it reads (gas_halo.h) */
		if (sim->P.grid.halo_block && own + k->nnb * halo > bufs) bufs = own + k->nnb * halo;
		double task = block_bytes(k) + cells + bufs + scratch;
		if (task > task_max) { task_max = task; worst = b; }
		/* the block itself is in main memory already; its edge and migrant buffers are not,
		 * nor those its neighbours on other ranks send it */
		lazy_ram += cells + k->nface * halo + own;
		for (int j = 0; j < k->nnb; j++)
			if (sim->blk[k->nb[j]].owner != sim->rank) lazy_ram += halo + read_bytes(sim, k, j);
	}
	if (!owned) return 0;
	lazy_ram += scratch * starpu_cpu_worker_get_count(); /* one scratch per worker */

	enum tide_where where = tide_codelet_where(&tide_sph_forces_cl);
	int on_cpu = where != TIDE_WHERE_CUDA, on_cuda = where != TIDE_WHERE_CPU;
	unsigned nodes = starpu_memory_nodes_get_count();
	for (unsigned n = 0; n < nodes; n++) {
		enum starpu_node_kind kind = starpu_node_get_kind(n);
		if (kind == STARPU_CUDA_RAM && on_cuda) {
			starpu_ssize_t total = starpu_memory_get_total(n);
			if (total > 0 && task_max > (double)total) {
				int more = (int)(sim->nblocks * (task_max / (0.5 * (double)total)) + 1);
				fprintf(stderr, "tide: block %d (capacity %u particles) needs %.0f MiB on CUDA "
				        "device %d for one task (particles, cell table, halos, sort scratch), "
				        "more than the %.0f MiB StarPU can use there; split the particles into "
				        "more blocks (--blocks %d), add GPUs (mpirun on more nodes) or use a "
				        "larger --dp.\n", worst, sim->blk[worst].cap, task_max / MIB,
				        starpu_memory_node_get_devid(n), (double)total / MIB, more);
				return -1;
			}
		} else if (kind == STARPU_CPU_RAM && on_cpu && n == STARPU_MAIN_RAM) {
			starpu_ssize_t avail = starpu_memory_get_available(n);
			if (avail >= 0 && lazy_ram > (double)avail) {
				const char *lim = getenv("STARPU_LIMIT_CPU_MEM");
				char why[96];
				if (lim) snprintf(why, sizeof why, "STARPU_LIMIT_CPU_MEM=%s MiB", lim);
				else snprintf(why, sizeof why, "the machine's memory");
				fprintf(stderr, "tide: the %d blocks of this process need %.1f MiB more main "
				        "memory (cell tables, halos, sort scratch) but only %.1f MiB are left "
				        "(%s); use a larger --dp, or more MPI ranks on more nodes.\n", owned,
				        lazy_ram / MIB, (double)avail / MIB, why);
				return -1;
			}
		}
	}
	return 0;
}
