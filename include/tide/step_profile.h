/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where a time step's time goes (tide run --profile): execution time of every task family and
 * the time its tasks spent getting their data (transfers between memories and ranks), from
 * StarPU's per-task profiling, summed by a task callback. */
#ifndef TIDE_STEP_PROFILE_H
#define TIDE_STEP_PROFILE_H
#include <stdint.h>
#include <stdio.h>

enum tide_task_kind { TIDE_K_SORT, TIDE_K_HALO, TIDE_K_FORCES, TIDE_K_DT, TIDE_K_INTEGRATE,
                      TIDE_K_MIG_PACK, TIDE_K_MIG_UNPACK, TIDE_K_SELF_GRAVITY,
                      TIDE_K_GAUGES, TIDE_K_MDBC, TIDE_K_SPS, TIDE_K_GAS_DENSITY,
                      TIDE_K_TREE, TIDE_K_SINKS, TIDE_K_COUNT };

void tide_profile_enable(void);
int tide_profile_enabled(void);
/* Per-block execution times too (the load balancer's measurement), for nblocks blocks. */
void tide_profile_enable_blocks(int nblocks);
int tide_profile_blocks_enabled(void);
/* Task callback; arg is tide_profile_arg(kind, block). */
void tide_profile_cb(void *arg);
/* The callback argument of a task of family `kind` working on block b (-1: none). */
static inline void *tide_profile_arg(int kind, int b)
{
	return (void *)(intptr_t)(kind + TIDE_K_COUNT * (b + 1));
}
/* Execution seconds of every block's tasks on this process since the last reset (blocks of
 * other ranks read 0); out[nblocks].  reset != 0 starts a new window. */
void tide_profile_block_times(double *out, int nblocks, int reset);
/* Prints the breakdown per step (steps > 0) and writes it as CSV to csv_path (may be NULL). */
void tide_profile_report(FILE *f, const char *csv_path, long steps, double step_wall_s);
/* Writes every profiled task of the run (name, family, block, worker, and the clock's times at
 * which it was ready, fetched its data, ran) as CSV to path: a rank's timeline (in a simulation
 * build the simulated clock). */
void tide_profile_timeline_write(const char *path);

#endif
