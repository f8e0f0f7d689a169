/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where the time step's combination across MPI ranks runs (dt_combine, tasks/sph_step.c): a
 * record of a few dozen bytes combined with another, log2 N rounds a step under the recursive
 * doubling.  On a GPU rank each round on the GPU was a kernel launch plus the record's copy down
 * for the next round's message and the received one's copy up; on a CPU worker a round costs its
 * message and a few microseconds, and only the final record goes up (integrate reads it).
 *
 * TIDE_DT_WHERE: "auto" (the default, also when unset or empty): on the CPU workers whenever the
 * rank has one (a GPU rank started by mpirun gets one for it, src/runtime.c), else where the
 * other SPH codelets run; "cpu" or "cuda": there only (the run stops with exit code 2 if it has
 * no worker of that kind); any other value: a warning, and "auto".  The combination is the same
 * min, max and integer sums on either side (tide_step_reduce_combine): the same bits. */
#ifndef TIDE_DT_WHERE_H
#define TIDE_DT_WHERE_H
#include <stddef.h>
#include "tide/codelet_decl.h"

typedef enum tide_dt_where_mode { TIDE_DT_AUTO, TIDE_DT_CPU, TIDE_DT_CUDA } tide_dt_where_mode;

/* The mode of TIDE_DT_WHERE's value v (NULL or "": auto); *unknown set to 1 for a value that is
 * none of auto, cpu, cuda (which gives auto). */
tide_dt_where_mode tide_dt_where_mode_of(const char *v, int *unknown);

/* The choice for a rank of ncpu CPU and ncuda CUDA workers: *where for dt_combine, or
 * *keep = 1 to leave it as the other SPH codelets were restricted.  Returns 0, or -1 (err: one
 * sentence) when the mode names a kind of worker the rank has none of. */
int tide_dt_where_choose(tide_dt_where_mode mode, int ncpu, int ncuda, enum tide_where *where,
                         int *keep, char *err, size_t errsize);

/* Applying it to tide run (reading TIDE_DT_WHERE, the messages): src/dt_where_env.h. */
#endif
