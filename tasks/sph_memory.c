// SPDX-License-Identifier: LGPL-2.1-or-later
// Does the run fit in memory?  StarPU allocates data lazily, when a task first needs it on a
// memory node: a block's copy on a GPU, and in main memory the cell tables, halos, migrants and
// sort scratch.  When such an allocation fails StarPU frees what it can and tries again later,
// for ever if nothing can be freed: a run too big for a GPU (or for STARPU_LIMIT_CPU_MEM) would
// hang in its first step.  So before the first step the data of this rank's largest task is
// compared with each GPU's memory, and everything main memory will have to hold with what is
// left there.  (The particle-block interface also gives up on a failing allocation after a
// while: interfaces/block_interface.c.)
#include <stdio.h>
#include <stdlib.h>
#include <starpu.h>
#include "tide/codelets.h"
#include "tide/sph_sim.h"

#define MIB (1024.0 * 1024.0)

int tide_sim_check_memory(const tide_sim *sim)
{
	if (getenv("TIDE_TEST_SKIP_MEMORY_CHECK")) return 0; /* lets a test reach the allocator */
	uint32_t maxcap = 1;
	for (int b = 0; b < sim->nblocks; b++)
		if (sim->blk[b].cap > maxcap) maxcap = sim->blk[b].cap;
	double halo = (double)sim->halo_cap * tide_block_bpp();
	double scratch = (double)tide_sort_scratch_bytes(maxcap);
	double task_max = 0, lazy_ram = 0;
	int worst = -1, owned = 0;
	for (int b = 0; b < sim->nblocks; b++) {
		const tide_sim_block *k = &sim->blk[b];
		if (k->owner != sim->rank) continue;
		owned++;
		/* the cell table, and the gas scheme's reach map (a float per cell, gas_forces) */
		double cells = 4.0 * ((double)tide_box_ncell(&k->range) + 1) * (k->R ? 2 : 1);
		/* a task reads or writes at most the block, its cell table, the edge (halo) buffers of
		 * its neighbours or its own migrant buffers, and the sort scratch */
		int nbuf = k->nnb > k->nface ? k->nnb : k->nface;
		/* the gas scheme's halo_pack: its edge buffers and the neighbours' migrant buffers,
		 * whose records it reads (gas_halo.h) */
		if (sim->P.grid.halo_block) nbuf = k->nnb + k->nface;
		double task = (double)k->cap * tide_block_bpp() + cells + nbuf * halo + scratch;
		if (task > task_max) { task_max = task; worst = b; }
		/* the block itself is in main memory already; its edge and migrant buffers are not,
		 * nor those its neighbours on other ranks send it */
		lazy_ram += cells + 2.0 * k->nface * halo;
		for (int j = 0; j < k->nnb; j++)
			if (sim->blk[k->nb[j]].owner != sim->rank) lazy_ram += 2 * halo;
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
