/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Start and stop of StarPU and StarPU-MPI, and what they found. */
#ifndef TIDE_RUNTIME_H
#define TIDE_RUNTIME_H

typedef struct tide_runtime {
	int rank, size;        /* MPI world */
	int ncpu, ncuda;       /* StarPU workers of this rank */
	char sched[64];        /* scheduling policy in use */
} tide_runtime;

/* Returns 0, or -1 with a message saying what failed and what to try. */
int tide_runtime_init(int *argc, char ***argv, tide_runtime *rt);
void tide_runtime_shutdown(void);
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
