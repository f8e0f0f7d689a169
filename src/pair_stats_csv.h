// SPDX-License-Identifier: LGPL-2.1-or-later
#ifndef TIDE_PAIR_STATS_CSV_H
#define TIDE_PAIR_STATS_CSV_H
#include "tide/case.h"
#include "tide/sph_sim.h"

/* tide run --pair-stats: the last state's candidates and neighbours per particle
 * (include/tide/pair_stats.h) in DIR/pair_stats.csv and the log.  Collective (a gather to rank
 * 0).  0, or -1 after a sentence saying what failed. */
int tide_run_pair_stats(tide_sim *sim, const tide_case *c, const char *dir);
#endif
