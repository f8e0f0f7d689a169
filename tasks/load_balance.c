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

/* Writes the block time the owner measured (a value argument) into the block's handle. */
static void publish_cpu(void *buffers[], void *cl_arg)
{
	double v;
	starpu_codelet_unpack_args(cl_arg, &v);
	*(double *)STARPU_VARIABLE_GET_PTR(buffers[0]) = v;
}

/* a model, as every codelet has: a simulation build (SimGrid) times tasks by their models */
static struct starpu_perfmodel publish_model = {.type = STARPU_HISTORY_BASED, .symbol = "tide_balance_publish"};

static struct starpu_codelet publish_cl = {
	.name = "balance_publish",
	.cpu_funcs = {publish_cpu},
	.nbuffers = 1,
	.modes = {STARPU_W},
	.model = &publish_model,
};

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
	lb->h = calloc((size_t)lb->nb, sizeof *lb->h);
	if (!lb->t || !lb->h) return -1;
	if (lb->mpi) {
		lb->tag = starpu_mpi_tags_allocate(lb->nb);
		for (int b = 0; b < lb->nb; b++) {
			starpu_variable_data_register(&lb->h[b], -1, 0, sizeof(double));
			starpu_mpi_data_register(lb->h[b], lb->tag + b, sim->blk[b].owner);
		}
	}
	tide_profile_enable_blocks(lb->nb);
	return 0;
}

/* Every block's time on every rank: each owner publishes its own, StarPU-MPI sends them. */
static void share_times(tide_balance *lb)
{
	tide_profile_block_times(lb->t, lb->nb, 1);
	if (!lb->mpi) return;
	for (int b = 0; b < lb->nb; b++) {
		STARPU_CHECK_RETURN_VALUE(starpu_mpi_task_insert(MPI_COMM_WORLD, &publish_cl, STARPU_W,
		                          lb->h[b], STARPU_VALUE, &lb->t[b], sizeof lb->t[b], 0),
		                          "task insert");
		starpu_mpi_get_data_on_all_nodes_detached(MPI_COMM_WORLD, lb->h[b]);
	}
	for (int b = 0; b < lb->nb; b++) {
		starpu_data_acquire(lb->h[b], STARPU_R);
		lb->t[b] = *(double *)starpu_variable_get_local_ptr(lb->h[b]);
		starpu_data_release(lb->h[b]);
	}
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
	share_times(lb);
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
	if (lb->mpi && lb->h) {
		for (int b = 0; b < lb->nb; b++) starpu_data_unregister(lb->h[b]);
		starpu_mpi_tags_free(lb->tag);
	}
	free(lb->h);
	free(lb->t);
	memset(lb, 0, sizeof *lb);
}
