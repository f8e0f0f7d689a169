// SPDX-License-Identifier: LGPL-2.1-or-later
// Stall watchdog of the run loop (src/stall_watchdog.h).
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#include "runtime.h"
#include "stall_watchdog.h"

static struct {
	atomic_long beats, step, ckpt_step;
	_Atomic double t;
	double timeout;
	int rank, size, running, stop;
	char ckpt[1100];
	tide_stall_fn on_stall;
	void *arg;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
} wd = {.mu = PTHREAD_MUTEX_INITIALIZER};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* What the on_stall callback gets, and whether it has returned. */
static struct {
	char status[200];
	long step;
	double t;
	atomic_int done;
} note;

static void *write_note(void *arg)
{
	(void)arg;
	wd.on_stall(wd.arg, note.step, note.t, note.status);
	atomic_store(&note.done, 1);
	return NULL;
}

static void stalled(double idle)
{
	long step = atomic_load(&wd.step), ck = atomic_load(&wd.ckpt_step);
	char who[32] = "", last[2 * sizeof wd.ckpt + 100];
	if (wd.size > 1) snprintf(who, sizeof who, "MPI rank %d: ", wd.rank);
	if (ck >= 0)
		snprintf(last, sizeof last, "the last checkpoint is %s (step %ld): continue from it with "
		         "tide run --restart %s", wd.ckpt, ck, wd.ckpt);
	else
		snprintf(last, sizeof last, "no checkpoint was written before (--checkpoint-every "
		         "writes them)");
	fprintf(stderr, "\ntide: %sthe run made no progress for %.0f s (--stall-timeout %g s) after "
	        "step %ld (t = %.6g s): %s; no checkpoint can be written now (the step loop is "
	        "blocked%s); %s; stopping %s with exit code %d.\n", who, idle, wd.timeout, step,
	        atomic_load(&wd.t), wd.size > 1 ? "another rank is stopped or stuck, or a task hangs"
	        : "a task hangs", wd.size > 1 ? " and a checkpoint needs every rank" : "", last,
	        wd.size > 1 ? "all ranks" : "the run", TIDE_EXIT_STALLED);
	fflush(stderr);
	if (wd.on_stall) {
		snprintf(note.status, sizeof note.status, "stalled after step %ld, t = %g s: no progress "
		         "for %.0f s (--stall-timeout)", step, atomic_load(&wd.t), idle);
		note.step = step;
		note.t = atomic_load(&wd.t);
		/* in a thread of its own, waited for 10 s at most: the stall may be a file system that
		 * hangs, and the ranks must be stopped whatever happens to the note */
		pthread_t th;
		if (pthread_create(&th, NULL, write_note, NULL) == 0) {
			pthread_detach(th);
			struct timespec tick = {0, 50000000};
			for (int i = 0; i < 200 && !atomic_load(&note.done); i++) nanosleep(&tick, NULL);
		}
	}
	if (tide_runtime_uses_mpi()) MPI_Abort(MPI_COMM_WORLD, TIDE_EXIT_STALLED);
	_exit(TIDE_EXIT_STALLED);
}

static void *watch(void *arg)
{
	(void)arg;
	/* checks ~10 times per timeout, at most every 5 s: a few wake-ups per second at most */
	double period = wd.timeout / 10;
	if (period < 0.05) period = 0.05;
	if (period > 5) period = 5;
	long seen = atomic_load(&wd.beats);
	double since = now_s();
	pthread_mutex_lock(&wd.mu);
	while (!wd.stop) {
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		double s = (double)until.tv_sec + 1e-9 * (double)until.tv_nsec + period;
		until.tv_sec = (time_t)s;
		until.tv_nsec = (long)((s - (double)until.tv_sec) * 1e9);
		pthread_cond_timedwait(&wd.cv, &wd.mu, &until);
		if (wd.stop) break;
		long b = atomic_load(&wd.beats);
		double now = now_s();
		if (b != seen) {
			seen = b;
			since = now;
		} else if (now - since >= wd.timeout) {
			stalled(now - since);
		}
	}
	pthread_mutex_unlock(&wd.mu);
	return NULL;
}

int tide_watchdog_start(double timeout_s, int rank, int size, const char *ckpt_dir,
                        tide_stall_fn on_stall, void *arg)
{
#ifdef TIDE_SIMGRID
	/* a simulation build: SimGrid runs every thread it knows as one simulated process; a
	 * thread of ours reading the (intercepted) clock crashes it, and a wall-time watchdog has
	 * nothing to watch in simulated time */
	timeout_s = 0;
#endif
	if (timeout_s <= 0 || wd.running) return 0;
	wd.on_stall = on_stall;
	wd.arg = arg;
	wd.timeout = timeout_s;
	wd.rank = rank;
	wd.size = size;
	wd.stop = 0;
	snprintf(wd.ckpt, sizeof wd.ckpt, "%s", ckpt_dir);
	atomic_store(&wd.ckpt_step, -1);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&wd.cv, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&wd.thread, NULL, watch, NULL)) {
		fprintf(stderr, "tide: warning: the stall watchdog could not start; the run goes on "
		        "without it.\n");
		pthread_cond_destroy(&wd.cv);
		return -1;
	}
	wd.running = 1;
	return 0;
}

void tide_watchdog_beat(long step, double t)
{
	atomic_store_explicit(&wd.step, step, memory_order_relaxed);
	atomic_store_explicit(&wd.t, t, memory_order_relaxed);
	atomic_fetch_add_explicit(&wd.beats, 1, memory_order_relaxed);
}

void tide_watchdog_checkpointed(long step) { atomic_store(&wd.ckpt_step, step); }

void tide_watchdog_stop(void)
{
	if (!wd.running) return;
	pthread_mutex_lock(&wd.mu);
	wd.stop = 1;
	pthread_cond_signal(&wd.cv);
	pthread_mutex_unlock(&wd.mu);
	pthread_join(wd.thread, NULL);
	pthread_cond_destroy(&wd.cv);
	wd.running = 0;
}
