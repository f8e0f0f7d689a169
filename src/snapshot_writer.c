// SPDX-License-Identifier: LGPL-2.1-or-later
// The snapshot writer thread (src/snapshot.h): writes the particle files, the series
// and the statistics row of one staged snapshot while the main thread goes on stepping.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "case_units.h"
#include "h5_output.h"
#include "host_blocks.h"
#include "log.h"
#include "snapshot.h"
#include "swift_output.h"

/* The fields the staging copies: what the files and the statistics computed from the staged
 * copy read (positions, velocity, density, type), and the id when it is written.  (The gauges
 * are measured by codelets of their own, tasks/gauge_tasks.c, at their own times.) */
static uint32_t staged_fields(const tide_case *c)
{
	uint32_t f = TIDE_FIELD_BIT(x) | TIDE_FIELD_BIT(y) | TIDE_FIELD_BIT(z) | TIDE_FIELD_BIT(vx) |
	             TIDE_FIELD_BIT(vy) | TIDE_FIELD_BIT(vz) | TIDE_FIELD_BIT(rho) |
	             TIDE_FIELD_BIT(type);
	/* the Body array comes from the ids */
	if (tide_case_written_fields(c) & (TIDE_OUT_ID | TIDE_OUT_BODY)) f |= TIDE_FIELD_BIT(id);
	/* gas runs: u (pressure, sound speed), h and m, gas_math.h's aux0, aux1 and aux5 */
	if (c->scheme == TIDE_SCHEME_GAS) /* TIDE_GAS_H, TIDE_GAS_U, TIDE_GAS_MASS */
		f |= TIDE_FIELD_BIT(aux0) | TIDE_FIELD_BIT(aux1) | TIDE_FIELD_BIT(aux5);
	/* SWIFT snapshots: the ids, and the leapfrog's half-step v and u and last kick
	 * (TIDE_GAS_UHALF, TIDE_GAS_DTK) and dh/dt (TIDE_GAS_HDOT) for a run that goes on from the
	 * file (swift_output.h) */
	if (c->output_format == TIDE_OUT_SWIFT)
		f |= TIDE_FIELD_BIT(id) | TIDE_FIELD_BIT(vx1) | TIDE_FIELD_BIT(vy1) | TIDE_FIELD_BIT(vz1) |
		     TIDE_FIELD_BIT(rho1) | TIDE_FIELD_BIT(aux4) | TIDE_FIELD_BIT(aux6);
	return f;
}

/* Test hook: TIDE_TEST_SNAPSHOT_DELAY_MS=N makes the writer sleep N ms before writing each
 * snapshot, so that a test can stop a run while a snapshot is pending. */
static void test_delay(void)
{
	const char *v = getenv("TIDE_TEST_SNAPSHOT_DELAY_MS");
	int ms = v ? atoi(v) : 0;
	if (ms > 0) {
		struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
		nanosleep(&ts, NULL);
	}
}

/* One snapshot.  1 if everything was written, 0 (message printed) otherwise. */
static int write_job(tide_snapshots *w, const tide_snap_job *job)
{
	const tide_case *c = w->c;
	int root = w->rank == 0, par = w->comm != MPI_COMM_NULL;
	if (!root && !par) return 1;   /* rank 0 writes everything */
	int nv = tide_stage_acquire(&w->stage, root, w->views);
	test_delay();
	/* the blocks this rank writes into a shared .h5: its own */
	int nown = 0;
	if (root && w->mpi)
		for (int b = 0; b < w->stage.nblocks; b++)
			if (w->stage.owner[b] == w->rank) w->own[nown++] = w->views[b];
	const tide_block_view *own = root && w->mpi ? w->own : w->views;
	if (!root || !w->mpi) nown = nv;
	int ok = 1;
	if (w->h5) {
		tide_h5_snap snap = {par ? own : w->views, par ? nown : nv, job->t, job->step, w->comm};
		ok = tide_h5_output(w->out.xmf, w->dir, job->index, &snap, c) == 0;
	}
	if (w->swift) /* the ranks together (par), or rank 0 from the gathered blocks */
		ok = tide_swift_output(w->dir, job->index, par ? own : w->views, par ? nown : nv, c, job->t,
		                       job->sink, root ? job->nsink : 0, w->comm) == 0 && ok;
	if (root) {
		for (int b = 0; b < nv; b++) tide_set_view_of_block(&w->views[b], &w->sets[b]);
		char path[1100];
		snprintf(path, sizeof path, "%s/particles_%04d.vtp", w->dir, job->index);
		tide_unit_system U = tide_case_output_units(c); /* the .pvd's times: the case's units */
		if (ok && w->vtp)
			ok = !tide_vtp_write_sets(path, w->sets, nv, c, c->output_fields, c->output_single) &&
			     !tide_pvd_add(w->out.pvd, path, tide_units_to_case(&U, job->t, TIDE_DIM_TIME));
		if (ok && w->out.bodies && job->nbody) {
			snprintf(path, sizeof path, "%s/bodies_%04d.vtp", w->dir, job->index);
			ok = !tide_bodies_vtp_write(path, job->body, job->nbody) &&
			     !tide_pvd_add(w->out.bodies, path, job->t);
		}
		if (w->out.stats) w->out.stats->e_self = job->e_self;
		if (ok && w->out.stats)
			ok = !tide_stats_write_views(w->out.stats, w->views, nv, c, job->t, job->step, job->dt,
			                             job->wall);
	}
	tide_stage_release(&w->stage, root);
	return ok;
}

static void *writer_main(void *arg)
{
	tide_snapshots *w = arg;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->busy && !w->quit) pthread_cond_wait(&w->cv, &w->mu);
		if (!w->busy) break;
		tide_snap_job job = w->job;
		pthread_mutex_unlock(&w->mu);
		int ok = write_job(w, &job);
		pthread_mutex_lock(&w->mu);
		if (!ok) w->failed = 1;
		w->busy = 0;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

int tide_snap_init(tide_snapshots *w, const tide_sim *sim, const tide_case *c, const char *dir,
                   const tide_snap_outputs *out)
{
	memset(w, 0, sizeof *w);
	w->comm = MPI_COMM_NULL;
	w->c = c;
	snprintf(w->dir, sizeof w->dir, "%s", dir);
	w->rank = sim->rank;
	w->size = sim->size;
	w->mpi = sim->mpi;
	w->vtp = tide_case_writes_vtp(c);
	w->h5 = tide_case_writes_h5(c);
	w->swift = c->output_format == TIDE_OUT_SWIFT;
	if (out) w->out = *out;
	/* Collective HDF5 writes from this thread need MPI_THREAD_MULTIPLE (StarPU-MPI's thread
	 * and the main thread call MPI meanwhile): the level MPI gives now, asked again here, and
	 * every rank must choose alike (or the ranks would wait in different calls).  Then the
	 * writers get a communicator of their own, so that their collectives never meet the main
	 * threads' on MPI_COMM_WORLD. */
	if (w->mpi && (w->h5 || w->swift)) {
		int level = MPI_THREAD_SINGLE, par, all;
		MPI_Query_thread(&level);
		par = level == MPI_THREAD_MULTIPLE && tide_h5_ranks_write_together(w->mpi);
		MPI_Allreduce(&par, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
		if (all) MPI_Comm_dup(MPI_COMM_WORLD, &w->comm);
	}
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	/* signals (SIGTERM, SIGINT: a stop) go to the main thread, which polls for them; the
	 * writer never has a write interrupted by them */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int err = pthread_create(&w->thread, NULL, writer_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		fprintf(stderr, "tide: cannot start the snapshot writer thread.\n");
		return -1;
	}
	w->started = 1;
	return 0;
}

int tide_snap_wait(tide_snapshots *w)
{
	if (!w->started) return 0;
	pthread_mutex_lock(&w->mu);
	while (w->busy) pthread_cond_wait(&w->cv, &w->mu);
	int failed = w->failed;
	pthread_mutex_unlock(&w->mu);
	return failed ? -1 : 0;
}

int tide_snap_submit(tide_snapshots *w, tide_sim *sim, const tide_snap_job *job)
{
	if (!w->started || tide_snap_wait(w)) return -1;   /* no writer: nobody would write it */
	int n = sim->nblocks;
	if (n > w->vcap) {
		free(w->views);
		free(w->own);
		free(w->sets);
		w->views = malloc(sizeof *w->views * (size_t)n);
		w->own = malloc(sizeof *w->own * (size_t)n);
		w->sets = malloc(sizeof *w->sets * (size_t)n);
		if (!w->views || !w->own || !w->sets) {
			fprintf(stderr, "tide: out of host memory for a snapshot.\n");
			return -1;
		}
		w->vcap = n;
	}
	int made = w->stage.made;
	if (tide_stage_submit(&w->stage, sim, staged_fields(w->c))) return -1;
	if (w->stage.made != made)
		tide_debug("%ssnapshot staging: %d blocks, %.1f MiB of main memory on this rank\n",
		           isatty(1) ? "\n" : "", w->stage.nblocks, w->stage.bytes / 1048576.0);
	pthread_mutex_lock(&w->mu);
	w->job = *job;
	w->busy = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return 0;
}

void tide_snap_fini(tide_snapshots *w)
{
	int started = w->started;
	if (started) {
		tide_snap_wait(w);
		pthread_mutex_lock(&w->mu);
		w->quit = 1;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->thread, NULL);
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->cv);
	}
	tide_stage_free(&w->stage);
	/* a zeroed w (never started) holds no communicator: 0 is not MPI_COMM_NULL everywhere */
	if (started && w->comm != MPI_COMM_NULL) MPI_Comm_free(&w->comm);
	free(w->views);
	free(w->own);
	free(w->sets);
	memset(w, 0, sizeof *w);
	w->comm = MPI_COMM_NULL;
}
