/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* DIR/run.log of tide run: its first lines, the StarPU configuration the run had, so that a
 * batch job leaves a record of where and how it ran (the rest is the copy of what the run
 * printed, src/log.c). */
#ifndef TIDE_RUN_LOG_H
#define TIDE_RUN_LOG_H
#include "runtime.h"

/* Opens path (appending for a restart) with its header: tide's and StarPU's versions, the MPI
 * world size, the scheduler, this rank's workers and memory, the command line, the STARPU_*
 * (and TIDE_*, CUDA_VISIBLE_DEVICES) variables set.  0, or -1 after a warning. */
int tide_run_log_open(const char *path, int append, const tide_runtime *rt, int argc,
                      char **argv);

#endif
