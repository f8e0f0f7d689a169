// SPDX-License-Identifier: LGPL-2.1-or-later
// StarPU and StarPU-MPI start-up.  MPI is always initialised through StarPU-MPI so that the same
// binary runs alone or under mpirun.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "tide/log.h"
#include "tide/runtime.h"

static int with_mpi;

/* Launched by mpirun (or srun) with more than one rank?  A lone process skips MPI, so StarPU
 * keeps the core its MPI progress thread would take. */
static int launched_in_parallel(void)
{
	const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_NTASKS",
	                      "MPI_LOCALNRANKS"};
	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
		const char *v = getenv(vars[i]);
		if (v && atoi(v) > 1) return 1;
	}
	const char *force = getenv("TIDE_MPI");
	return force && atoi(force) > 0;
}

int tide_runtime_init(int *argc, char ***argv, tide_runtime *rt)
{
	struct starpu_conf conf;
	starpu_conf_init(&conf);
	with_mpi = launched_in_parallel();
	int ret = with_mpi ? starpu_mpi_init_conf(argc, argv, 1, MPI_COMM_WORLD, &conf)
	                   : starpu_init(&conf);
	if (ret == -ENODEV) {
		fprintf(stderr, "tide: StarPU found no worker to run on (STARPU_NCPU=0 and no GPU?).\n");
		return -1;
	}
	if (ret != 0) {
		fprintf(stderr, "tide: StarPU-MPI failed to start (error %d). Several ranks on one small "
		        "machine need STARPU_NCPU=1 STARPU_WORKERS_NOBIND=1 and mpirun --oversubscribe "
		        "--bind-to none.\n", ret);
		return -1;
	}
	rt->rank = with_mpi ? starpu_mpi_world_rank() : 0;
	rt->size = with_mpi ? starpu_mpi_world_size() : 1;
	rt->ncpu = (int)starpu_cpu_worker_get_count();
	rt->ncuda = (int)starpu_cuda_worker_get_count();
	const char *s = getenv("STARPU_SCHED");
	snprintf(rt->sched, sizeof rt->sched, "%s", s && *s ? s : "lws");
	tide_log_rank = rt->rank;
	return 0;
}

void tide_runtime_shutdown(void)
{
	if (with_mpi) starpu_mpi_shutdown();
	else starpu_shutdown();
}

int tide_runtime_uses_mpi(void) { return with_mpi; }

void tide_runtime_barrier(void)
{
	if (with_mpi) starpu_mpi_barrier(MPI_COMM_WORLD);
}

unsigned long long tide_device_bytes_used(void)
{
	unsigned long long b = 0;
	unsigned nodes = starpu_memory_nodes_get_count();
	for (unsigned n = 0; n < nodes; n++)
		if (starpu_node_get_kind(n) == STARPU_CUDA_RAM) b += starpu_memory_get_used(n);
	return b;
}
