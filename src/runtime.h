/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Start and stop of StarPU and StarPU-MPI, and what they found. */
#ifndef TIDE_RUNTIME_H
#define TIDE_RUNTIME_H

typedef struct tide_runtime {
	int rank, size;        /* MPI world */
	int ncpu, ncuda;       /* StarPU workers of this rank */
	char sched[64];        /* scheduling policy in use */
} tide_runtime;

struct tide_cmd_key;
/* Starts MPI (under mpirun), checks StarPU's environment variables, makes every rank agree on
 * `cmd` (cmd_agree.h; NULL: a test program, nothing to agree on but the environment) and starts
 * StarPU(-MPI).  Returns 0; 1 after a message saying what failed and what to try; 2 after one
 * sentence when the ranks run different commands or options or a StarPU variable is invalid.
 * The caller exits with that code (nothing to shut down when it is not 0). */
int tide_runtime_init(int *argc, char ***argv, const struct tide_cmd_key *cmd, tide_runtime *rt);
void tide_runtime_shutdown(void);
/* Before tide_runtime_init: this command's tasks run on the GPUs alone when there are any, so
 * on a node with a GPU no CPU worker is started unless STARPU_NCPU (or STARPU_NCPUS) says how
 * many. */
void tide_runtime_prefer_gpu_alone(void);
/* 1 when StarPU-MPI was started (launched by mpirun with several ranks, or TIDE_MPI=1). */
int tide_runtime_uses_mpi(void);
/* 1 when MPI is in use at MPI_THREAD_MULTIPLE, so that the main thread may call MPI itself
 * while StarPU-MPI's thread runs (parallel HDF5 output). */
int tide_runtime_mpi_multiple(void);
/* MPI barrier across ranks (nothing without MPI). */
void tide_runtime_barrier(void);

/* Bytes StarPU has allocated on all CUDA memory nodes now. */
unsigned long long tide_device_bytes_used(void);

#endif
