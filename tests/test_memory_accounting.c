// SPDX-License-Identifier: LGPL-2.1-or-later
// The expected memory of a run (tide_sim_node_bytes, tasks/sph_memory.c: what tide run's log and
// run summary report as the GPU's bytes) against what StarPU really allocated: its count of the
// bytes in use on the memory node where the tasks ran (starpu_memory_get_used), before the
// blocks are registered and after a few steps, for one block, four slabs (halo and migrant
// buffers) and a 2 x 2 split (the scratch's index lists).  On the CPU node (memory_accounting:
// one CPU worker) the blocks' main-memory replicas count too, with the 64-byte header each
// (interfaces/block_host.c); on a GPU (memory_accounting_cuda: the GPU alone, as tide run; SKIP
// without one) everything is StarPU's allocation, the small ones inside its suballocator's
// chunks (as many as first fit can need: tide_node_bytes.chunks_max).  A buffer the formulas
// forgot, or a size they get wrong, shows as a difference.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/case.h"
#include "tide/sph_sim.h"
#include "runtime.h"
#include "test_case_block.h"
#include "test_cuda_mode.h"

static int failures;
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

#define NSTEPS 3

/* The memory node the tasks run on: the first CUDA node, or main memory. */
static unsigned task_node(int cuda)
{
	for (unsigned n = 0; cuda && n < starpu_memory_nodes_get_count(); n++)
		if (starpu_node_get_kind(n) == STARPU_CUDA_RAM) return n;
	return STARPU_MAIN_RAM;
}

static void one_case(const tide_case *c, const tide_block_view *all, int nblocks, int cuda,
                     const char *what)
{
	unsigned node = task_node(cuda);
	double u0 = (double)starpu_memory_get_used(node);
	tide_sim sim;
	if (tide_sim_setup(&sim, c, all, nblocks, 0)) {
		EXPECT(0, "%s: tide_sim_setup failed", what);
		return;
	}
	for (int k = 0; k < NSTEPS; k++)
		if (tide_sim_step(&sim)) {
			EXPECT(0, "%s: step %d went unphysical", what, k);
			break;
		}
	starpu_task_wait_for_all();
	double used = (double)starpu_memory_get_used(node) - u0;
	tide_node_bytes e;
	/* one worker runs everything: one scratch; the suballocator works on GPUs only here (main
	 * memory is not pinned without one) */
	tide_sim_node_bytes(&sim, 1, cuda && tide_suballocator_on(), &e);
	double expected = e.total, slack = 1024;
	if (!cuda) {
		/* the main-memory replicas of the blocks, each with its header (block_host.c) */
		expected += 64.0 * sim.nblocks;
	}
	printf("%-10s %d blocks, %u particles: StarPU %.0f B in use, expected %.0f B (blocks %.0f, "
	       "cells %.0f, halos %.0f, scratch %.0f, records %.0f, suballocator chunks %.0f): "
	       "%+.0f B\n", what, sim.nblocks, all->count, used, expected, e.blocks, e.cells, e.halos,
	       e.scratch, e.records, e.chunks, used - expected);
	/* the chunks: as few as hold the small allocations, or up to chunks_max when StarPU's
	 * first fit packed them worse (whole chunks more; everything else to the byte) */
	const double chunk = 32.0 * 1024 * 1024;
	double more = e.chunks > 0 ? round((used - expected) / chunk) : 0;
	if (more < 0 || e.chunks + more * chunk > e.chunks_max) more = 0;
	if (more > 0) printf("%-10s %.0f suballocator chunk(s) more than the fewest (at most %.0f)\n",
	                     what, more, (e.chunks_max - e.chunks) / chunk);
	EXPECT(fabs(used - expected - more * chunk) <= slack, "%s: StarPU has %.0f B in use on node "
	       "%u, the formulas expect %.0f B (%+.0f B, more than %.0f; chunks %.0f to %.0f B)",
	       what, used, node, expected, used - expected, slack, e.chunks, e.chunks_max);
	/* the parts are what they should be: the blocks' bytes per particle of capacity, and the
	 * halos exist with faces only */
	double cap = 0;
	int faces = 0;
	for (int b = 0; b < sim.nblocks; b++) {
		cap += sim.blk[b].cap;
		faces += sim.blk[b].nface;
	}
	EXPECT(e.blocks == cap * (double)tide_block_bpp() && tide_block_bpp() == 77,
	       "%s: blocks %.0f B for a capacity of %.0f particles (%zu B each)", what, e.blocks, cap,
	       tide_block_bpp());
	EXPECT((e.halos > 0) == (faces > 0), "%s: halo bytes %.0f with %d faces", what, e.halos, faces);
	/* one block alone has no index list: its scratch is CUB's storage, not bytes per particle */
	if (nblocks == 1)
		EXPECT(e.scratch < 0.5 * all->count + 65536, "%s: scratch %.0f B for %u particles",
		       what, e.scratch, all->count);
	tide_sim_free(&sim);
}

int main(int argc, char **argv)
{
	const char *root = argc > 1 && strcmp(argv[1], "--cuda") ? argv[1] : ".";
	int cuda = test_cuda_requested(argc, argv);
	/* one worker where the tasks run: the CPU's alone, or the GPU's alone (tide run's default) */
	setenv("STARPU_NCPU", cuda ? "0" : "1", 1);
	if (!cuda) setenv("STARPU_NCUDA", "0", 1);
	tide_case c;
	void *mem;
	tide_block_view all;
	/* on a GPU, blocks above the suballocator's 4 MiB (about 50 000 particles): allocated
	 * directly, beside the chunk that holds the rest */
	if (test_shipped_case_block(root, "dambreak2d", cuda ? 0.001 : 0.005, &c, &mem, &all, NULL))
		return 1;
	tide_case slabs = c, boxes = c;
	snprintf(boxes.decomp, sizeof boxes.decomp, "2x1x2");
	struct { const tide_case *c; int nblocks; const char *what; } cases[] = {
		{&c, 1, "one block"}, {&slabs, 4, "slabs"}, {&boxes, 4, "2x2 boxes"}};
	/* a fresh StarPU for each: freed buffers stay in its allocation cache, counted, and a
	 * later registration would reuse them */
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (starpu_init(NULL) != 0) {
			/* --cuda without a GPU: no worker at all (STARPU_NCPU=0) */
			printf("memory_accounting%s: SKIP, StarPU found no worker\n", cuda ? "_cuda" : "");
			return TEST_SKIP;
		}
		if (cuda && test_cuda_missing("memory_accounting_cuda")) {
			starpu_shutdown();
			return TEST_SKIP;
		}
		one_case(cases[i].c, &all, cases[i].nblocks, cuda, cases[i].what);
		starpu_shutdown();
	}
	free(mem);
	if (failures) {
		fprintf(stderr, "memory_accounting: %d failure(s)\n", failures);
		return 1;
	}
	printf("memory_accounting: OK\n");
	return 0;
}
