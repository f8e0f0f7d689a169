/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tide run's start-up agreement of the MPI ranks (src/run_agree.c): the input loaded on every
 * rank and compared with rank 0's, the block count, the memory check, rank 0's verdicts. */
#ifndef TIDE_RUN_AGREE_H
#define TIDE_RUN_AGREE_H
#include "tide/block.h"
#include "tide/case.h"
#include "checkpoint.h"
#include "run_opts.h"
#include "log.h"        /* tide_quiet_stderr */
#include "runtime.h"


/* The case (or the checkpoint and its case) with the --set overrides.  0, or 1 after a
 * message. */
int tide_run_load_input(const run_opts *o, tide_case *c, tide_ckpt_state *cs, void **mem,
                        tide_block_view *all);

/* Collective: every rank runs the same input (bad: this rank's load failed); *nb: the block
 * count.  0, or -1 after the message (said once). */
int tide_run_agree_with_ranks(const run_opts *o, const tide_runtime *rt, const tide_case *c,
                              const tide_ckpt_state *cs, int bad, int *nb);

/* Collective: does the fresh run fit in memory on every rank's node?  1 yes, 0 no (said). */
int tide_run_build_fits_everywhere(const run_opts *o, const tide_case *c, int nb,
                                   const tide_runtime *rt);

/* Collective: rank 0's verdict (an exit code), learnt by every rank. */
int tide_rank0_says(int verdict);

#endif
