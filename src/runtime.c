// SPDX-License-Identifier: LGPL-2.1-or-later
// StarPU and StarPU-MPI start-up.  A lone process runs without MPI, so that the same binary runs
// alone or under mpirun.  Under mpirun tide initialises MPI itself, asking for
// MPI_THREAD_MULTIPLE: besides StarPU-MPI's progress thread, the main thread (MPI_Abort,
// reductions) and the snapshot writer thread (collective parallel-HDF5 writes,
// src/snapshot_writer.c) call MPI, which StarPU's own MPI_THREAD_SERIALIZED does not allow.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "cmd_agree.h"
#include "log.h"
#include "runtime.h"
#include "starpu_env.h"

static int with_mpi, mpi_ours, mpi_multiple;
#ifdef TIDE_SIMGRID
#define TIDE_SIMULATED 1
#else
#define TIDE_SIMULATED 0
#endif

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

static int env_int(const char *name)
{
	const char *v = getenv(name);
	return v ? atoi(v) : -1;
}

/* GPUs of this node: /dev/nvidia0, 1, ... (counted without initialising CUDA, which StarPU does
 * later); TIDE_TEST_NGPUS overrides the count, for the tests of a machine without GPUs. */
static int node_gpus(void)
{
	int forced = env_int("TIDE_TEST_NGPUS");
	if (forced >= 0) return forced;
	int n = 0;
	char path[32];
	for (; n < 64; n++) {
		snprintf(path, sizeof path, "/dev/nvidia%d", n);
		if (access(path, F_OK) != 0) break;
	}
	return n;
}

/* Several ranks on a node with several GPUs: unless the user chose (STARPU_NCUDA,
 * STARPU_WORKERS_CUDAID, CUDA_VISIBLE_DEVICES), each rank drives its own share of the GPUs (as
 * many ranks as GPUs: one each; fewer ranks: several each; more ranks: ranks share a GPU, rank r
 * taking GPU r mod G), instead of every rank using every GPU. */
static void place_local_gpus(int lrank, int lsize)
{
	if (getenv("STARPU_NCUDA") || getenv("STARPU_WORKERS_CUDAID") ||
	    getenv("CUDA_VISIBLE_DEVICES") || getenv("TIDE_NO_PLACEMENT"))
		return;
	int ngpu = node_gpus();
	if (ngpu <= 1) return;
	int first = lsize <= ngpu ? lrank * ngpu / lsize : lrank % ngpu;
	int last = lsize <= ngpu ? (lrank + 1) * ngpu / lsize : first + 1;
	char ids[256], num[16];
	size_t k = 0;
	for (int g = first; g < last && k + 8 < sizeof ids; g++)
		k += (size_t)snprintf(ids + k, sizeof ids - k, "%s%d", k ? " " : "", g);
	snprintf(num, sizeof num, "%d", last - first);
	setenv("STARPU_NCUDA", num, 1);
	setenv("STARPU_WORKERS_CUDAID", ids, 1);
	if (getenv("TIDE_PLACEMENT_VERBOSE"))
		fprintf(stderr, "tide: local rank %d of %d drives GPU(s) %s of %d\n", lrank, lsize, ids,
		        ngpu);
}

/* Several ranks on one node: unless the user placed the workers himself, give each rank its own
 * range of cores (StarPU would otherwise bind every rank's workers to the same first cores, and
 * their spinning workers fight over them), with the MPI thread on the range's last core.  With
 * fewer than two cores per rank no placement works: workers float (STARPU_WORKERS_NOBIND) and
 * each rank gets one CPU worker. */
static void place_local_ranks(void)
{
	int lrank = env_int("OMPI_COMM_WORLD_LOCAL_RANK"), lsize = env_int("OMPI_COMM_WORLD_LOCAL_SIZE");
	if (lrank < 0) { lrank = env_int("MPI_LOCALRANKID"); lsize = env_int("MPI_LOCALNRANKS"); }
	if (lrank < 0 || lsize <= 1) return;
	place_local_gpus(lrank, lsize);
	if (sysconf(_SC_NPROCESSORS_ONLN) / lsize < 2) {
		/* StarPU-MPI's progression thread polls MPI_Test without pause; sharing a core with
		 * a worker, it took half of the worker's time (2 ranks on 2 cores: sph_forces 2.2x
		 * slower than alone).  Open MPI then gives the core up when a poll finds nothing
		 * (read at MPI_Init, after this; a user's own setting wins): 0.25-0.28 -> 0.13-0.17
		 * s/step for 2 ranks of 200 k particles on 2 cores. */
		setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
		/* A poller that gives its core up but never sleeps is never woken either: the kernel
		 * ran it only at its scheduler tick (4 ms) while the worker computed, and each message
		 * took several of those.  StarPU-MPI, patched by tools/bootstrap.sh, sleeps this long
		 * [us] after a poll that found nothing, and a thread that wakes up gets the core
		 * within a time slice.  SPHERIC 2 copies, 2 ranks x 214 k on 2 cores: 72-97 ms per
		 * step polling, 70-95 at 20 us (the wake-ups cost the worker), 72-77 at 50, 72-72.5
		 * at 200, 72-74.6 at 500 and 1000. */
		setenv("TIDE_MPI_POLL_SLEEP_US", "200", 0);
	}
	if (getenv("STARPU_WORKERS_CPUID") || getenv("STARPU_WORKERS_COREID") ||
	    getenv("STARPU_WORKERS_NOBIND") || getenv("TIDE_NO_PLACEMENT"))
		return;
	long ncores = sysconf(_SC_NPROCESSORS_ONLN);
	long per = ncores / lsize;
	char buf[4096];
	if (per < 2) {
		/* one worker per rank; with a core for each rank's worker it stays on that core (2
		 * ranks of 200 k particles on 2 cores: 116 -> 100 ms per step against floating
		 * workers, which the kernel kept moving onto the core of the other rank's busy
		 * threads), the MPI and main threads float.  More ranks than cores: all float. */
		if (lsize <= ncores) {
			snprintf(buf, sizeof buf, "%d", lrank);
			setenv("STARPU_WORKERS_CPUID", buf, 1);
		} else {
			setenv("STARPU_WORKERS_NOBIND", "1", 1);
		}
		setenv("STARPU_MPI_NOBIND", "1", 1);
		if (!getenv("STARPU_NCPU")) setenv("STARPU_NCPU", "1", 1);
		return;
	}
	long first = lrank * per;
	size_t k = 0;
	for (long c = first; c < first + per && k + 16 < sizeof buf; c++)
		k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%ld", k ? " " : "", c);
	setenv("STARPU_WORKERS_CPUID", buf, 1);
	snprintf(buf, sizeof buf, "%ld", first + per - 1);
	setenv("STARPU_MPI_THREAD_CPUID", buf, 1);
	if (!getenv("STARPU_NCPU")) {
		/* one core for the MPI thread, one for the CUDA worker if this node has a GPU */
		int gpu = access("/dev/nvidia0", F_OK) == 0 && env_int("STARPU_NCUDA") != 0;
		snprintf(buf, sizeof buf, "%ld", per - 1 - gpu > 0 ? per - 1 - gpu : 1);
		setenv("STARPU_NCPU", buf, 1);
	}
}

/* MPI's rank and size before StarPU-MPI starts (0 and 1 without MPI). */
static void mpi_world(int *rank, int *size)
{
	*rank = 0;
	*size = 1;
	if (!with_mpi) return;
	MPI_Comm_rank(MPI_COMM_WORLD, rank);
	MPI_Comm_size(MPI_COMM_WORLD, size);
}

/* tide run on a GPU node runs its tasks on the GPUs alone (cmd_run.c): CPU workers would only
 * spin, and 15 of them on the H200 node cost 12-17 % of a 1 M-particle step (issue 20: 3.04 ->
 * 2.62 ms with STARPU_NCPU=0).  Unless the user set STARPU_NCPU, such a run of one process
 * starts none, and an MPI rank one (for the time step's records, dt_where.h). */
static int gpu_alone;

void tide_runtime_prefer_gpu_alone(void) { gpu_alone = 1; }

/* A GPU StarPU will use: a device node and no variable hiding every GPU. */
static int gpu_visible(void)
{
	const char *vis = getenv("CUDA_VISIBLE_DEVICES");
	return access("/dev/nvidia0", F_OK) == 0 && env_int("STARPU_NCUDA") != 0 &&
	       !(vis && (!vis[0] || !strcmp(vis, "-1")));
}

int tide_runtime_init(int *argc, char ***argv, const tide_cmd_key *cmd, tide_runtime *rt)
{
	with_mpi = launched_in_parallel();
	int user_ncpu = getenv("STARPU_NCPU") || getenv("STARPU_NCPUS");
	/* the user's StarPU variables, before tide sets its own defaults below */
	tide_cmd_key key;
	if (cmd) key = *cmd;
	else tide_cmd_key_init(&key, "", 0, NULL);
	tide_starpu_env_check(key.env_error, sizeof key.env_error);
	char known[512];
	const char *unknown_sched = tide_starpu_sched_unknown(known, sizeof known);
	/* an MPI rank with its GPU alone: one CPU worker, which runs the time step's combination
	 * across ranks (include/tide/dt_where.h: a round on it costs its message, on the GPU a
	 * kernel and two copies of the record), and no more: idle workers cost time (issue 20) */
	if (with_mpi && gpu_alone && !user_ncpu && gpu_visible()) setenv("STARPU_NCPU", "1", 1);
	if (with_mpi) place_local_ranks(); /* before starpu_conf_init, which reads the environment */
	struct starpu_conf conf;
	int ret;
#ifdef TIDE_SIMGRID
	/* a simulation build under starpu_smpirun: StarPU's own main (starpu_simgrid_wrap.h in
	 * main.c) has started SMPI's MPI in its communication actor, and this actor may not call MPI
	 * itself (no agreement of the ranks' commands before StarPU: the script gives them all one); StarPU-MPI gives the rank once it is up */
	with_mpi = 1;
#endif
	if (with_mpi && !TIDE_SIMULATED) {
		int inited = 0, provided = 0;
		MPI_Initialized(&inited);
		if (!inited) {
			if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
				fprintf(stderr, "tide: MPI failed to start (MPI_Init_thread).\n");
				return 1;
			}
			mpi_ours = 1;
		} else {
			MPI_Query_thread(&provided);
		}
		mpi_multiple = provided == MPI_THREAD_MULTIPLE;
	}
	/* every rank runs the same command and has a usable environment, or none starts StarPU */
	int rank = 0, size = 1;
	if (!TIDE_SIMULATED) mpi_world(&rank, &size);
	int agreed = tide_cmd_agree(&key, rank, size);
	if (agreed) {
		if (mpi_ours) MPI_Finalize();
		mpi_ours = 0;
		return agreed;
	}
	starpu_conf_init(&conf);
	/* one process only: ranks sharing a node keep the cores place_local_ranks gives them (not
	 * measured without CPU workers) */
	int no_cpus = gpu_alone && !with_mpi && !user_ncpu && gpu_visible();
	if (no_cpus) conf.ncpus = 0;
	/* tide run in one process registers its data once, so StarPU's suballocator (32 MiB chunks
	 * for the allocations of at most 4 MiB, made for many short-lived ones) only holds a chunk
	 * of GPU memory that stays nearly empty: 2.5 bytes per particle at 13.5 M particles, 30 at
	 * 1.1 M (issue 20, bench/results/h100-2026-12-06-s12).  The user's STARPU_SUBALLOCATOR
	 * wins; MPI runs keep StarPU's default (their exchanges were not measured without it). */
	if (gpu_alone && !with_mpi && !getenv("STARPU_SUBALLOCATOR")) setenv("STARPU_SUBALLOCATOR", "0", 1);
	if (with_mpi) ret = starpu_mpi_init_conf(argc, argv, 0, MPI_COMM_WORLD, &conf);
	else ret = starpu_init(&conf);
	if (ret == -ENODEV && no_cpus) {
		/* the device node is there but StarPU found no usable GPU: the CPUs, then */
		conf.ncpus = -1;
		ret = starpu_init(&conf);
	}
	if (ret != 0 && mpi_ours) {
		MPI_Finalize();
		mpi_ours = 0;
	}
	if (ret == -ENODEV) {
		fprintf(stderr, "tide: StarPU found no worker to run on (STARPU_NCPU=0 and no GPU?).\n");
		return 1;
	}
	if (ret != 0) {
		fprintf(stderr, "tide: StarPU-MPI failed to start (error %d). Several ranks on one small "
		        "machine need STARPU_NCPU=1 STARPU_WORKERS_NOBIND=1 and mpirun --oversubscribe "
		        "--bind-to none.\n", ret);
		return 1;
	}
	rt->rank = with_mpi ? starpu_mpi_world_rank() : 0;
	rt->size = with_mpi ? starpu_mpi_world_size() : 1;
	rt->ncpu = (int)starpu_cpu_worker_get_count();
	rt->ncuda = (int)starpu_cuda_worker_get_count();
	/* the policy StarPU actually uses (an unknown STARPU_SCHED falls back to its default) */
	struct starpu_sched_policy *pol = starpu_sched_get_sched_policy();
	snprintf(rt->sched, sizeof rt->sched, "%s", pol && pol->policy_name ? pol->policy_name : "?");
	if (unknown_sched && rank == 0)
		fprintf(stderr, "tide: STARPU_SCHED=%s is not a StarPU scheduling policy, so StarPU uses "
		        "%s; known policies: %s.\n", unknown_sched, rt->sched, known);
	tide_log_rank = rt->rank;
	return 0;
}

void tide_runtime_shutdown(void)
{
	if (with_mpi) starpu_mpi_shutdown();
	else starpu_shutdown();
	if (mpi_ours) MPI_Finalize();
	mpi_ours = 0;
}

int tide_runtime_uses_mpi(void) { return with_mpi; }

int tide_runtime_mpi_multiple(void) { return with_mpi && mpi_multiple; }

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
