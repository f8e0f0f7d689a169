/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where a time step's time goes (tide run --profile): execution time of every task family and
 * the time its tasks spent getting their data (transfers between memories and ranks), from
 * StarPU's per-task profiling, summed by a task callback. */
#ifndef TIDE_STEP_PROFILE_H
#define TIDE_STEP_PROFILE_H
#include <stdio.h>

enum tide_task_kind { TIDE_K_SORT, TIDE_K_HALO, TIDE_K_FORCES, TIDE_K_DT, TIDE_K_INTEGRATE,
                      TIDE_K_MIG_PACK, TIDE_K_MIG_UNPACK, TIDE_K_COUNT };

void tide_profile_enable(void);
int tide_profile_enabled(void);
/* Task callback; arg is the enum tide_task_kind cast to a pointer. */
void tide_profile_cb(void *arg);
/* Prints the breakdown per step (steps > 0) and writes it as CSV to csv_path (may be NULL). */
void tide_profile_report(FILE *f, const char *csv_path, long steps, double step_wall_s);

#endif
