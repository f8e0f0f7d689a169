/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tide run's command line (src/run_opts.c): the options, their parsing, and the key of those that
 * every MPI rank must be given equally. */
#ifndef TIDE_RUN_OPTS_H
#define TIDE_RUN_OPTS_H
#include "cmd_agree.h"

#define MAX_SETS 64

typedef struct run_opts {
	const char *case_path, *out_dir, *restart;
	const char *record_steps, *replay_steps; /* the step trace (src/step_trace.h) */
	double dp, ckpt_every_s, stall_timeout_s;
	long ckpt_every_steps;
	int blocks, no_output, with_cpus, profile, overwrite;
	int pair_stats;   /* --pair-stats: pair_stats.csv at the end (include/tide/pair_stats.h) */
	int argc;                     /* the command line, for run.log */
	char **argv;
	long max_steps, rebalance_every, balance_every;
	double synthetic;             /* --synthetic N: particles per rank of a fluid box (0: off) */
	double balance_threshold;
	const char *sets[MAX_SETS];
	int nsets;
} run_opts;

/* Parses tide run's arguments into o (prints the usage and exits 0 for --help).  0, or -1 after
 * one sentence on stderr. */
int tide_run_parse_opts(int argc, char **argv, run_opts *o);

/* What every rank of an mpirun must be given equally, compared before StarPU starts. */
void tide_run_key(const run_opts *o, int argc, char **argv, tide_cmd_key *k);

#endif
