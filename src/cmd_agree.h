/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Agreement of the MPI ranks on the command they run, before StarPU starts.  Under mpirun every
 * rank must run the same tide command with the same options: an MPMD launch such as
 * `mpirun -np 1 tide run A : -np 1 tide gravity` would otherwise reach different collectives
 * (StarPU-MPI start-up, data exchanges) and wait for ever.  Each command describes itself (its
 * name and the value of every option that must be equal on all ranks); tide_runtime_init
 * compares the descriptions with plain MPI collectives right after MPI_Init, before
 * StarPU-MPI's progress thread exists, and all ranks stop with exit code 2 and one sentence from
 * rank 0 when they differ.  The same exchange carries each rank's verdict on its StarPU
 * environment variables (starpu_env.h), so a bad variable on one rank stops all of them. */
#ifndef TIDE_CMD_AGREE_H
#define TIDE_CMD_AGREE_H
#include <stdint.h>

#define TIDE_AGREE_MAX_OPTS 32

typedef struct tide_cmd_key {
	char command[16];                 /* "run", "gravity", "nbody", "info" */
	char line[160];                   /* the command line as given (for the message) */
	int32_t nopts;
	char name[TIDE_AGREE_MAX_OPTS][24];   /* option, e.g. "--out" */
	char text[TIDE_AGREE_MAX_OPTS][48];   /* its value as text, cut to fit (for the message) */
	uint64_t hash[TIDE_AGREE_MAX_OPTS];   /* FNV-1a of the whole value text */
	char env_error[256];              /* this rank's bad StarPU variable; "" when all are valid */
} tide_cmd_key;

/* Starts a description of command `command` run as argv[0..argc) (argv[0] = the command). */
void tide_cmd_key_init(tide_cmd_key *k, const char *command, int argc, char **argv);
/* Adds an option that must be equal on every rank, its value formatted like printf. */
void tide_cmd_key_add(tide_cmd_key *k, const char *option, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Collective over MPI_COMM_WORLD (MPI started, StarPU-MPI not yet): compares every rank's
 * description with rank 0's.  0 when all agree and no rank has an environment error; otherwise
 * 2, after rank 0 printed one sentence naming the first rank that differs and how.  Without MPI
 * (size 1) only the environment error counts, printed by this process. */
int tide_cmd_agree(const tide_cmd_key *mine, int rank, int size);

#endif
