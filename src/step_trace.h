/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The step trace (src/step_trace.c): what the host reads from the data each step — the step's
 * reduction (time step, health, particle count, fill, largest h) — written by a run with
 * --record-steps FILE and read back by a run with --replay-steps FILE in its place.  A SimGrid
 * build's tasks compute nothing (StarPU times them from performance models), so its decisions
 * must come from such a record: the same task graphs, step after step, as the recorded run. */
#ifndef TIDE_STEP_TRACE_H
#define TIDE_STEP_TRACE_H
#include <stdio.h>
#include "tide/sph_params.h"

typedef struct tide_step_trace {
	FILE *f;
	int replay;           /* 0: record, 1: replay */
	int write;            /* record: this rank writes (rank 0) */
	char path[1024];
	long line;            /* lines read (replay) */
	unsigned long count0; /* particles the run starts with, checked against the record */
} tide_step_trace;

/* Opens path to record (replay = 0; only the rank with write = 1 creates the file) or to replay
 * (every rank reads it), for a run of count0 particles.  0, or -1 after one sentence naming the
 * file. */
int tide_step_trace_open(tide_step_trace *t, const char *path, int replay, int write,
                         unsigned long count0);
/* Whether path is a step trace to replay (before the run starts: a bad one is bad input).  0, or
 * -1 after one sentence. */
int tide_step_trace_check(const char *path);
/* Whether path can be written as a step trace (before the run starts; it is opened to append, so
 * nothing in it is lost here).  0, or -1 after one sentence. */
int tide_step_trace_check_write(const char *path);
/* tide_sim's on_reduce: records *r, or replaces it by the record of this step. */
int tide_step_trace_reduce(void *arg, long step, tide_step_reduce *r);
/* Closes the file: 0, or -1 after one sentence when a record could not be written. */
int tide_step_trace_close(tide_step_trace *t);

#endif
