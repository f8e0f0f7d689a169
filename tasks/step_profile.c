// SPDX-License-Identifier: LGPL-2.1-or-later
// Per-task-family time breakdown of the SPH step (see step_profile.h).
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <starpu.h>
#include <starpu_profiling.h>
#include "tide/step_profile.h"

static int enabled, blocks_enabled, nblk;
static double *blk_s;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static double exec_s[TIDE_K_COUNT], data_s[TIDE_K_COUNT];
static long ntasks[TIDE_K_COUNT];
static const char *names[TIDE_K_COUNT] = {"cell_sort", "halo_pack", "sph_forces", "dt_reduce",
                                          "integrate", "migrate_pack", "migrate_unpack",
                                          "self_gravity", "gauges", "mdbc_ghost", "sps_tau",
                                          "gas_density", "gravity_tree", "sinks"};

void tide_profile_enable(void)
{
	enabled = 1;
	starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
}

int tide_profile_enabled(void) { return enabled; }

void tide_profile_enable_blocks(int nblocks)
{
	pthread_mutex_lock(&lock);
	free(blk_s);
	blk_s = calloc((size_t)(nblocks > 0 ? nblocks : 1), sizeof *blk_s);
	nblk = blk_s ? nblocks : 0;
	blocks_enabled = 1;
	pthread_mutex_unlock(&lock);
	starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
}

int tide_profile_blocks_enabled(void) { return blocks_enabled; }

void tide_profile_block_times(double *out, int nblocks, int reset)
{
	pthread_mutex_lock(&lock);
	for (int b = 0; b < nblocks; b++) {
		out[b] = b < nblk ? blk_s[b] : 0;
		if (reset && b < nblk) blk_s[b] = 0;
	}
	pthread_mutex_unlock(&lock);
}

static double span(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + 1e-9 * (double)(b->tv_nsec - a->tv_nsec);
}

/* Every profiled task of the run, for a rank's timeline (tide_profile_timeline_write): in a
 * simulation its times are the simulated clock's, which says where a step's time goes (waiting
 * for halos, for the time step's reduction) better than sums per family. */
typedef struct tl_row {
	const char *name;
	int kind, block, worker;
	double ready, dstart, dend, start, end;
} tl_row;
static tl_row *tl;
static size_t ntl, captl;

static double secs(const struct timespec *a)
{
	return (double)a->tv_sec + 1e-9 * (double)a->tv_nsec;
}

/* with the lock held */
static void timeline_add(const struct starpu_task *t, int k, int b)
{
	if (ntl == captl) {
		size_t cap = captl ? 2 * captl : 1024;
		tl_row *n = realloc(tl, cap * sizeof *n);
		if (!n) return; /* the timeline misses a task; the sums above do not */
		tl = n;
		captl = cap;
	}
	const struct starpu_profiling_task_info *p = t->profiling_info;
	tl[ntl++] = (tl_row){.name = t->name ? t->name : "?", .kind = k, .block = b,
	                     .worker = p->workerid, .ready = secs(&p->push_start_time),
	                     .dstart = secs(&p->acquire_data_start_time),
	                     .dend = secs(&p->acquire_data_end_time), .start = secs(&p->start_time),
	                     .end = secs(&p->end_time)};
}

void tide_profile_cb(void *arg)
{
	struct starpu_task *t = starpu_task_get_current();
	intptr_t a = (intptr_t)arg;
	int k = (int)(a % TIDE_K_COUNT), b = (int)(a / TIDE_K_COUNT) - 1;
	if (!t || !t->profiling_info || k < 0) return;
	const struct starpu_profiling_task_info *p = t->profiling_info;
	double e = span(&p->start_time, &p->end_time);
	double d = span(&p->acquire_data_start_time, &p->acquire_data_end_time);
	pthread_mutex_lock(&lock);
	if (enabled) {
		exec_s[k] += e > 0 ? e : 0;
		data_s[k] += d > 0 ? d : 0;
		ntasks[k]++;
		timeline_add(t, k, b);
	}
	if (blocks_enabled && b >= 0 && b < nblk) blk_s[b] += e > 0 ? e : 0;
	pthread_mutex_unlock(&lock);
}

void tide_profile_report(FILE *f, const char *csv_path, long steps, double step_wall_s)
{
	if (!enabled || steps <= 0) return;
	/* The host goes on once a step's time step is known, while the last step's integrate and
	 * migrate tasks may still run: their callbacks would be missed (3.8 of 4 per step counted
	 * over 20 steps of 4 blocks).  Count every task first. */
	starpu_task_wait_for_all();
	FILE *csv = csv_path ? fopen(csv_path, "w") : NULL;
	if (csv) fprintf(csv, "task,tasks_per_step[-],exec_per_step[ms],data_wait_per_step[ms]\n");
	double tot = 0;
	fprintf(f, "time per step by task family (execution summed over workers; data = waiting for "
	        "transfers):\n  %-15s %8s %12s %12s\n", "task", "tasks", "exec ms", "data ms");
	for (int k = 0; k < TIDE_K_COUNT; k++) {
		if ((k == TIDE_K_SELF_GRAVITY || k == TIDE_K_GAUGES || k == TIDE_K_MDBC ||
		     k == TIDE_K_SPS || k == TIDE_K_GAS_DENSITY) && !ntasks[k])
			continue; /* a case without it */
		double e = 1e3 * exec_s[k] / steps, d = 1e3 * data_s[k] / steps;
		tot += e;
		fprintf(f, "  %-15s %8.1f %12.3f %12.3f\n", names[k], (double)ntasks[k] / steps, e, d);
		if (csv) fprintf(csv, "%s,%.3f,%.6f,%.6f\n", names[k], (double)ntasks[k] / steps, e, d);
	}
	fprintf(f, "  %-15s %8s %12.3f   (wall per step %.3f ms)\n", "total", "", tot,
	        1e3 * step_wall_s);
	if (csv) fclose(csv);
}

static const char *arch_name(int worker)
{
	if (worker < 0) return "?";
	switch (starpu_worker_get_type(worker)) {
	case STARPU_CPU_WORKER: return "cpu";
	case STARPU_CUDA_WORKER: return "cuda";
	default: return "other";
	}
}

void tide_profile_timeline_write(const char *path)
{
	if (!enabled) return;
	starpu_task_wait_for_all(); /* every task's callback has run */
	FILE *f = fopen(path, "w");
	pthread_mutex_lock(&lock);
	if (f) {
		/* arch: the worker's kind (a GPU rank's CPU worker runs the time step's combination,
		 * include/tide/dt_where.h; bench/sim_timeline.py tells the GPU's tasks by it) */
		fprintf(f, "task,family,block,worker,ready[s],data_start[s],data_end[s],start[s],end[s],arch\n");
		for (size_t i = 0; i < ntl; i++)
			fprintf(f, "%s,%s,%d,%d,%.9f,%.9f,%.9f,%.9f,%.9f,%s\n", tl[i].name, names[tl[i].kind],
			        tl[i].block, tl[i].worker, tl[i].ready, tl[i].dstart, tl[i].dend,
			        tl[i].start, tl[i].end, arch_name(tl[i].worker));
		fclose(f);
	}
	free(tl);
	tl = NULL;
	ntl = captl = 0;
	pthread_mutex_unlock(&lock);
	if (!f) fprintf(stderr, "tide: cannot write %s\n", path);
}
