// SPDX-License-Identifier: LGPL-2.1-or-later
// Checkpoint and stop decisions of the run loop (src/run_control.h).
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "run_control.h"
#include "runtime.h"

static volatile sig_atomic_t got_signal;
static struct sigaction old_term, old_int, old_usr1; /* StarPU's or the defaults, put back at the end */

static void on_signal(int sig)
{
	if (got_signal) {
		/* asked twice: stop now, the usual way (SIG_DFL, not StarPU's handler: it would only
		 * print a trace) */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	got_signal = sig;
}

void tide_rc_init(tide_run_control *rc, const char *stop_file, double every_s, long every_steps,
                  long step0)
{
	memset(rc, 0, sizeof *rc);
	snprintf(rc->stop_file, sizeof rc->stop_file, "%s", stop_file);
	rc->every_s = every_s;
	rc->every_steps = every_steps;
	rc->mpi = tide_runtime_uses_mpi();
	rc->rank = rc->mpi ? starpu_mpi_world_rank() : 0;
#ifdef TIDE_SIMGRID
	/* a simulation build: the ranks' main threads are not SMPI's MPI processes (StarPU-MPI's
	 * thread is), so their MPI_Bcast fails ("MPI_Init was not called") and agrees nothing;
	 * each simulated rank decides alone, on the simulated clock (every rank steps the same
	 * replayed or modelled steps, so every-N-steps checkpoints still agree) */
	rc->mpi = 0;
#endif
	rc->last_ckpt_wall = rc->last_check_wall = starpu_timing_now() * 1e-6;
	rc->last_check_step = step0;
	rc->next_check = step0 + 1;
	got_signal = 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGINT, &sa, &old_int);
	/* mpirun forwards SIGUSR1 to the ranks and lets them end (on SIGTERM/SIGINT it kills them
	 * after odls_base_sigkill_timeout, 1 s, and exits 1 whatever they return) */
	sigaction(SIGUSR1, &sa, &old_usr1);
}

/* What this process would decide now. */
static int32_t local_decision(tide_run_control *rc, double now)
{
	int32_t a = 0;
	if (got_signal) a |= TIDE_RC_SIGNAL | (int32_t)(got_signal << 8);
	if (rc->stop_file[0] && access(rc->stop_file, F_OK) == 0) a |= TIDE_RC_STOP_FILE;
	if (rc->every_s > 0 && now - rc->last_ckpt_wall >= rc->every_s) a |= TIDE_RC_CHECKPOINT;
	return a;
}

int tide_rc_poll(tide_run_control *rc, long step, int *signo)
{
	int32_t a = 0;
	if (rc->every_steps > 0 && step % rc->every_steps == 0) a |= TIDE_RC_CHECKPOINT;
	if (!rc->mpi) {
		a |= local_decision(rc, starpu_timing_now() * 1e-6);
	} else if (step >= rc->next_check) {
		int32_t v[2] = {0, 0};
		if (rc->rank == 0) {
			double now = starpu_timing_now() * 1e-6, el = now - rc->last_check_wall;
			/* next agreement about one second from now, at the step rate seen so far */
			double rate = el > 0 ? (double)(step - rc->last_check_step) / el : 1.0;
			long ahead = (long)fmin(fmax(rate, 1.0), 1000.0);
			v[0] = local_decision(rc, now);
			v[1] = (int32_t)(step + ahead);
			rc->last_check_wall = now;
			rc->last_check_step = step;
		}
		/* rank 0's decision to every rank: one broadcast of two integers, no task (a task
		 * needed a CPU worker, which a GPU run of STARPU_NCPU=0 has not) */
		MPI_Bcast(v, 2, MPI_INT32_T, 0, MPI_COMM_WORLD);
		a |= v[0];
		rc->next_check = v[1] > step ? v[1] : step + 1;
	}
	if (signo) *signo = (a >> 8) & 0xff;
	return a & 0xff;
}

void tide_rc_checkpointed(tide_run_control *rc)
{
	rc->last_ckpt_wall = starpu_timing_now() * 1e-6;
}

void tide_rc_free(tide_run_control *rc)
{
	(void)rc; /* nothing of its own to free: the signal handlers go back */
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGUSR1, &old_usr1, NULL);
}

int tide_rc_parse_interval(const char *s, double *seconds, long *steps)
{
	*seconds = 0;
	*steps = 0;
	if (!s) return -1;
	char *end;
	double v = strtod(s, &end);
	if (end == s || !(v > 0) || !isfinite(v)) return -1;
	while (*end == ' ') end++;
	static const struct { const char *unit; double f; } units[] = {
		{"s", 1}, {"sec", 1}, {"min", 60}, {"h", 3600},
	};
	for (size_t i = 0; i < sizeof units / sizeof *units; i++)
		if (!strcmp(end, units[i].unit)) {
			*seconds = v * units[i].f;
			return 0;
		}
	if (!strcmp(end, "steps") || !strcmp(end, "step")) {
		if (v != floor(v) || v > 1e15) return -1;
		*steps = (long)v;
		return 0;
	}
	return -1;
}
