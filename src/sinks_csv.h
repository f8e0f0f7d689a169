/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sinks.csv of a run with sinks (src/sinks_csv.c). */
#ifndef TIDE_SINKS_CSV_H
#define TIDE_SINKS_CSV_H
#include "tide/case.h"
struct tide_sinks;
/* Appends the sinks at time t (T may be NULL: none yet) to dir/sinks.csv and logs their count
 * and mass; nothing for a case without sinks.  0 or -1 (message printed). */
int tide_sinks_csv_write(const char *dir, const tide_case *c, double t, const struct tide_sinks *T);
/* A restart at time t: drops the rows of outputs after t (written after the checkpoint by the
 * run that stopped), so that the restarted run's rows follow.  0 or -1 (message printed). */
int tide_sinks_csv_reopen(const char *dir, const tide_case *c, double t);
#endif
