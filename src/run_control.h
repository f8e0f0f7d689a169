/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* When a running simulation checkpoints and stops: --checkpoint-every (wall time or steps),
 * SIGTERM / SIGINT / SIGUSR1, and a stop file.  Under MPI rank 0 decides and its decision
 * reaches every rank through one tiny StarPU-MPI task on a variable owned by rank 0 (the one extra
 * communication of the run loop), at most about once per second of rank 0's wall time: the
 * decision also carries the step of the next agreement, so every rank knows when to take part.
 * A signal that reaches another rank only is noted there and otherwise ignored (a second one
 * kills that rank); mpirun forwards SIGTERM, SIGINT and SIGUSR1 to every rank, so rank 0 sees
 * it too (Open MPI 4.1 kills the ranks 1 s after a SIGTERM or SIGINT and exits 1, but lets them
 * end after a SIGUSR1 and returns their exit code).  Alone, the checks run after every step (no
 * communication). */
#ifndef TIDE_RUN_CONTROL_H
#define TIDE_RUN_CONTROL_H
#include <stdint.h>
#include <starpu.h>

enum {
	TIDE_RC_CHECKPOINT = 1,   /* write a checkpoint (wall-time or step interval) */
	TIDE_RC_STOP_FILE = 2,    /* the stop file appeared: checkpoint and stop */
	TIDE_RC_SIGNAL = 4,       /* SIGTERM/SIGINT/SIGUSR1: checkpoint and stop */
};

typedef struct tide_run_control {
	int mpi, rank;
	char stop_file[1100];
	double every_s;           /* wall seconds between checkpoints (0: none) */
	long every_steps;         /* steps between checkpoints (0: none) */
	double last_ckpt_wall, last_check_wall;
	long last_check_step, next_check;
} tide_run_control;

/* Installs the SIGTERM/SIGINT/SIGUSR1 handlers (a second signal kills the process as usual).  step0: the step the run starts from. */
void tide_rc_init(tide_run_control *rc, const char *stop_file, double every_s, long every_steps,
                  long step0);
/* After each step: what to do now (TIDE_RC_* bits; *signo the signal for TIDE_RC_SIGNAL).
 * Collective under MPI at the agreed steps (every rank calls it after every step). */
int tide_rc_poll(tide_run_control *rc, long step, int *signo);
/* A checkpoint was written: the wall-time interval starts again. */
void tide_rc_checkpointed(tide_run_control *rc);
/* Unregisters the variable; the signal handlers of before tide_rc_init come back. */
void tide_rc_free(tide_run_control *rc);

/* Parses "30min", "100s", "2h", "500steps" (also "1.5h", "10 s"): *seconds or *steps set, the
 * other 0.  0, or -1 for anything else. */
int tide_rc_parse_interval(const char *s, double *seconds, long *steps);

#endif
