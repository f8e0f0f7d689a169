/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Dynamic load balancing by measured time (tasks/load_balance.c), the multi-GPU paper's future
 * work: every `every` steps the ranks share how long each block's tasks took (summed over the
 * ranks by recursive doubling, each owner contributing its blocks), add them up per rank, and when the slowest
 * rank's load exceeds the mean by more than `threshold` the cuts are moved so that every block
 * carries the same measured cost (tide_sim_rebalance_measured).  Particles move from their old
 * owner straight to the new one (tasks/sph_setup.c, rebalance_direct), none lost or duplicated.
 *
 * Hysteresis: cuts move by whole cell planes, so a case whose balance point lies between two
 * planes flips from one side to the other at every check (SPHERIC 2 on 2 ranks: 10 % off either
 * way) and pays a full redistribution each time.  When the check after a move finds the
 * imbalance not reduced by a quarter, the move did not help, and later moves need an imbalance
 * 1.25 times the larger of the two (the bar only rises, so a flow that really drifts out of
 * balance still gets moved once it is worse than what the cuts could not fix). */
#ifndef TIDE_LOAD_BALANCE_H
#define TIDE_LOAD_BALANCE_H
#include <starpu.h>
#include "tide/sph_sim.h"

typedef struct tide_balance {
	long every;                  /* steps between checks */
	double threshold;            /* rebalance when max / mean - 1 exceeds it */
	int nb, mpi, rank, size;
	double *t;                   /* this rank's block times, then everyone's */
	long since;                  /* step of the last check */
	double imbalance;            /* max / mean - 1 at the last check */
	double bar;                  /* imbalance needed to move: threshold, raised by moves that
	                              * did not help */
	double before;               /* imbalance that made the last check move, -1 if it did not */
	int moves;                   /* rebalances it did */
	char msg[512];               /* what the last tide_balance_check measured and did, one line
	                              * without newline ("" if it did not check): the caller
	                              * prints it (tasks know nothing of the program's log) */
} tide_balance;

/* Starts measuring (enables StarPU's task profiling).  every <= 0: off.  0 or -1. */
int tide_balance_init(tide_balance *lb, const tide_sim *sim, long every, double threshold);
/* At a step: checks every `every` steps and rebalances if needed.  Collective (every rank calls
 * it at the same steps).  Returns 1 if it moved the cuts, 0 if not, -1 on failure; lb->msg
 * says what a check found. */
int tide_balance_check(tide_balance *lb, tide_sim *sim);
/* The decision alone, from lb->imbalance just measured: 1 to move the cuts now.  Updates the bar
 * (*raised = 1 when the last move did not help).  Local: every rank decides alike on the same
 * shared times. */
int tide_balance_decide(tide_balance *lb, int *raised);
void tide_balance_free(tide_balance *lb);

#endif
