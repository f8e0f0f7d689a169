// SPDX-License-Identifier: LGPL-2.1-or-later
// Dynamic load balancing by measured task time (include/tide/load_balance.h).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "tide/load_balance.h"
#include "tide/step_profile.h"
#include "rank_exchange.h"

int tide_balance_init(tide_balance *lb, const tide_sim *sim, long every, double threshold)
{
	memset(lb, 0, sizeof *lb);
	lb->every = every;
	lb->threshold = threshold;
	lb->bar = threshold;
	lb->before = -1;
	if (every <= 0) return 0;
	lb->nb = sim->nblocks;
	lb->mpi = sim->mpi;
	lb->rank = sim->rank;
	lb->size = sim->size;
	lb->since = sim->step;
	lb->t = calloc((size_t)lb->nb, sizeof *lb->t);
	if (!lb->t) return -1;
	tide_profile_enable_blocks(lb->nb);
	return 0;
}

/* Every block's time on every rank: each owner puts the bits of its blocks' times in an array
 * of zeros and the ranks add the arrays (tide_rank_allsum: recursive doubling, log2 N rounds,
 * not a message per block to every rank); with one nonzero term per block the sum is the
 * owner's double exactly, so every rank decides on the same bits.  sim: the owners now (a
 * rebalance changes them). */
static int share_times(tide_balance *lb, const tide_sim *sim)
{
	tide_profile_block_times(lb->t, lb->nb, 1);
	if (!lb->mpi) return 0;
	int64_t *bits = calloc((size_t)lb->nb, sizeof *bits);
	if (!bits) return -1;
	for (int b = 0; b < lb->nb; b++)
		if (sim->blk[b].owner == lb->rank) memcpy(&bits[b], &lb->t[b], sizeof bits[b]);
	int ret = tide_rank_allsum(bits, (size_t)lb->nb, lb->rank, lb->size);
	for (int b = 0; b < lb->nb && !ret; b++) memcpy(&lb->t[b], &bits[b], sizeof lb->t[b]);
	free(bits);
	return ret;
}

int tide_balance_decide(tide_balance *lb, int *raised)
{
	*raised = 0;
	if (lb->before >= 0) {
		/* the last check moved the cuts: a move that did not cut the excess by a quarter
		 * cannot do better at this granularity (or chased noise); ask more of the next one */
		if (lb->imbalance > 0.75 * lb->before) {
			double b = 1.25 * fmax(lb->imbalance, lb->before);
			if (b > lb->bar) lb->bar = b;
			*raised = 1;
		}
		lb->before = -1;
	}
	if (lb->size < 2 || !(lb->imbalance > lb->bar)) return 0;
	lb->before = lb->imbalance;
	return 1;
}

int tide_balance_check(tide_balance *lb, tide_sim *sim)
{
	lb->msg[0] = '\0';
	if (lb->every <= 0 || sim->step - lb->since < lb->every) return 0;
	long steps = sim->step - lb->since;
	lb->since = sim->step;
	if (share_times(lb, sim)) return -1;
	double *load = calloc((size_t)lb->size, sizeof *load), sum = 0, max = 0;
	if (!load) return -1;
	for (int b = 0; b < lb->nb; b++) load[sim->blk[b].owner] += lb->t[b];
	for (int r = 0; r < lb->size; r++) {
		sum += load[r];
		if (load[r] > max) max = load[r];
	}
	double mean = sum / lb->size;
	lb->imbalance = mean > 0 ? max / mean - 1 : 0;
	char *msg = lb->msg;
	int at = snprintf(msg, sizeof lb->msg, "balance at step %ld: rank loads", sim->step);
	for (int r = 0; r < lb->size && at < (int)sizeof lb->msg - 32; r++)
		at += snprintf(msg + at, sizeof lb->msg - (size_t)at, "%s %.3g", r ? " /" : "",
		               1e3 * load[r] / (double)steps);
	at += snprintf(msg + at, sizeof lb->msg - (size_t)at, " ms per step (max/mean - 1 = %.0f %%)",
	               100 * lb->imbalance);
	free(load);
	int raised = 0, moved = 0;
	if (tide_balance_decide(lb, &raised)) {
		uint32_t *fl = calloc(2 * (size_t)lb->size, sizeof *fl);
		int res = fl ? tide_sim_rebalance_measured(sim, lb->t, fl, fl + lb->size) : -1;
		if (res < 0) {
			free(fl);
			return -1;
		}
		moved = res == 0;
		lb->moves += moved;
		at += snprintf(msg + at, sizeof lb->msg - (size_t)at, moved ? "; cuts moved, fluid particles "
		               "per rank" : "; the measured costs give the same cuts, fluid particles per rank");
		for (int r = 0; r < lb->size && at < (int)sizeof lb->msg - 32; r++)
			at += snprintf(msg + at, sizeof lb->msg - (size_t)at, "%s %u", r ? " /" : "", fl[r]);
		at += snprintf(msg + at, sizeof lb->msg - (size_t)at, " ->");
		for (int r = 0; r < lb->size && at < (int)sizeof lb->msg - 32; r++)
			at += snprintf(msg + at, sizeof lb->msg - (size_t)at, "%s %u", r ? " /" : "",
			               fl[lb->size + r]);
		free(fl);
	}
	if (raised)
		at += snprintf(msg + at, sizeof lb->msg - (size_t)at, "; the last move did not help, next "
		               "moves above %.1f %%", 100 * lb->bar);
	return moved;
}

void tide_balance_free(tide_balance *lb)
{
	free(lb->t);
	memset(lb, 0, sizeof *lb);
}
