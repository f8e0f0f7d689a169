/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Stall watchdog of tide run (--stall-timeout).  A rank whose neighbour is stopped (SIGSTOP, a
 * frozen node) or whose tasks hang waits in StarPU for ever, its workers spinning at 100 % CPU.
 * A thread per rank watches a counter that the step loop bumps after every step (one relaxed
 * atomic store: no cost per step) and, when it has not moved for the timeout, says which rank
 * and step stalled and stops every rank (MPI_Abort; alone, exit) with TIDE_EXIT_STALLED.  No
 * checkpoint can be written then: the main thread is blocked, and a checkpoint needs every
 * rank's blocks; the message names the last one written. */
#ifndef TIDE_STALL_WATCHDOG_H
#define TIDE_STALL_WATCHDOG_H

#define TIDE_EXIT_STALLED 3

/* Called by the watchdog thread just before it stops the run (the main thread is blocked):
 * the step and simulated time reached and a status sentence ("stalled after step ..."). */
typedef void (*tide_stall_fn)(void *arg, long step, double t, const char *status);

/* Starts the watchdog thread (timeout_s <= 0: none).  ckpt_dir: where the run's checkpoints go
 * (named in the message); on_stall (may be NULL) e.g. writes the run summary.  0, or -1 when
 * the thread could not start (a warning; the run goes on without it). */
int tide_watchdog_start(double timeout_s, int rank, int size, const char *ckpt_dir,
                        tide_stall_fn on_stall, void *arg);
/* The step loop made progress: `step` done, simulated time t. */
void tide_watchdog_beat(long step, double t);
/* A checkpoint of `step` is complete in ckpt_dir. */
void tide_watchdog_checkpointed(long step);
/* Stops and joins the thread (nothing when none runs). */
void tide_watchdog_stop(void);

#endif
