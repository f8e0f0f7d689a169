// SPDX-License-Identifier: LGPL-2.1-or-later
// tide info: what StarPU found on this machine (and, under mpirun, on every rank).
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <starpu.h>
#include "cmd_agree.h"
#include "commands.h"
#include "runtime.h"

static void print_workers(const tide_runtime *rt)
{
	printf("rank %d/%d: %d CPU workers, %d CUDA workers, scheduler %s\n", rt->rank, rt->size,
	       rt->ncpu, rt->ncuda, rt->sched);
	/* StarPU sizes the main memory from hwloc, which a virtual machine may misreport */
	double ram = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
	printf("  main memory: %.1f GiB, %.1f GiB for StarPU\n", ram / (1024.0 * 1024.0 * 1024.0),
	       (double)starpu_memory_get_total(STARPU_MAIN_RAM) / (1024.0 * 1024.0 * 1024.0));
	unsigned nw = starpu_worker_get_count();
	for (unsigned w = 0; w < nw; w++) {
		if (starpu_worker_get_type((int)w) != STARPU_CUDA_WORKER) continue;
		char name[128];
		starpu_worker_get_name((int)w, name, sizeof name);
		unsigned node = starpu_worker_get_memory_node(w);
		long long total = (long long)starpu_memory_get_total(node);
		printf("  CUDA device %d: %s, %.1f GiB for StarPU\n", starpu_worker_get_devid((int)w),
		       name, total / (1024.0 * 1024.0 * 1024.0));
	}
	fflush(stdout);
}

int tide_cmd_info(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: tide info\n\nPrints the StarPU version, the workers StarPU found "
			       "(CPU count, each CUDA device with its memory), the scheduler, and the MPI "
			       "world size.\n");
			return 0;
		}
		fprintf(stderr, "tide info: unknown option '%s'; usage: tide info\n", argv[i]);
		return 2;
	}
	tide_cmd_key key;
	tide_cmd_key_init(&key, "info", argc, argv);
	tide_runtime rt;
	int started = tide_runtime_init(&argc, &argv, &key, &rt);
	if (started) return started;
	if (rt.rank == 0) {
		int maj, min, rev;
		starpu_get_version(&maj, &min, &rev);
		printf("tide %s, StarPU %d.%d.%d, MPI world size %d\n", TIDE_VERSION, maj, min, rev,
		       rt.size);
#ifdef TIDE_USE_CUDA
		printf("CUDA codelets: compiled\n");
#else
		printf("CUDA codelets: not compiled (no nvcc at build time)\n");
#endif
	}
	/* ranks print in turn */
	for (int r = 0; r < rt.size; r++) {
		tide_runtime_barrier();
		if (r == rt.rank) print_workers(&rt);
	}
	tide_runtime_barrier();
	tide_runtime_shutdown();
	return 0;
}
