/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Gauges measured where the particles are (tasks/gauge_tasks.c): per block a gauge_sample task
 * over the freshly cell-sorted block and its neighbours' halos, then one gauge_combine task on
 * rank 0 that adds the blocks' results in block order.  Only the sums (a few kB) come back to
 * the host; src/gauges.c turns them into heights, pressures, velocities, forces and the front. */
#ifndef TIDE_GAUGE_TASKS_H
#define TIDE_GAUGE_TASKS_H
#include <starpu.h>
#include "tide/gauge_math.h"
#include "tide/sph_sim.h"

typedef struct tide_gauge_tasks {
	tide_gauge_arg G;
	size_t len, blen;              /* tide_gauge_len, tide_gauge_block_len */
	int nblocks;                   /* the blocks the handles below were made for ... */
	int *owner;                    /* ... and their owners (a rebalance may change both) */
	starpu_data_handle_t *part;    /* each block's result (W by its gauge_sample) */
	starpu_data_handle_t sum;      /* the combined sums, owned by rank 0 */
	double *sum_host;              /* its main-memory copy (rank 0) */
	double *result;                /* the last measurement, read on rank 0 */
	int mpi;                       /* the handles are StarPU-MPI's */
	int64_t tag0;                  /* MPI tags of part[] and sum (-1: none) */
} tide_gauge_tasks;

/* Prepares the measurement of G (copied).  0, or -1 (out of memory, message printed). */
int tide_gauge_tasks_init(tide_gauge_tasks *t, const tide_gauge_arg *G);
/* Collective: every rank calls it after the same step.  Submits the measurement of the
 * particles as they are now and, on rank 0, waits for it: returns the sums (tide_gauge_len
 * doubles, valid until the next call) on rank 0, NULL on the other ranks (they do not wait). */
const double *tide_gauge_tasks_measure(tide_gauge_tasks *t, tide_sim *sim);
void tide_gauge_tasks_free(tide_gauge_tasks *t);

#endif
