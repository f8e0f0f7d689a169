// SPDX-License-Identifier: LGPL-2.1-or-later
// tide run's outputs: snapshots (particle files) and failed_state, gauges.csv rows, checkpoints,
// what a failed run saves, and the series reopened for a restart.  Rank 0 writes; a write that
// fails there stops every MPI rank (the others would wait for it).
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "checkpoint.h"
#include "h5_output.h"
#include "log.h"
#include "output.h"
#include "host_blocks.h"
#include "run_log.h"
#include "stall_watchdog.h"
#include "run_output.h"
#include "tide/jeans.h"
#include "case_units.h"
#include "sinks_csv.h"

/* Rank 0 could not write: the other ranks would wait for it forever, so stop them all. */
void tide_run_abort_ranks(void)
{
	fprintf(stderr, "tide: stopping all MPI ranks.\n");
	tide_log_end("failed: stopping all MPI ranks (the messages above say why)");
	MPI_Abort(MPI_COMM_WORLD, 1);
}

int tide_run_note_time(run_out *o, double t)
{
	if (o->n >= o->ntimes_cap) {
		int cap = o->ntimes_cap ? 2 * o->ntimes_cap : 256;
		double *p = realloc(o->times, sizeof *p * (size_t)cap);
		if (!p) { fprintf(stderr, "tide: out of host memory.\n"); return -1; }
		o->times = p;
		o->ntimes_cap = cap;
	}
	o->times[o->n] = t;
	return 0;
}

/* Collective.  An output (tag NULL) is a snapshot: its staging copy is submitted to the task
 * graph and the writer thread writes it while the next steps run (src/snapshot_writer.c).  A
 * tagged file (failed_state) is gathered to rank 0 and written at once. */
/* The Jeans check at an output (jeans.h, Bate & Burkert 1997): each particle's Jeans mass
 * against N_ngb m_i with its own mass; the log gives the least Jeans mass and the least
 * M_J / (N_ngb m_i), and once, when it stops being resolved, when and at what density. */
static void check_jeans(run_out *o, tide_sim *sim, const tide_case *c)
{
	if (c->scheme != TIDE_SCHEME_GAS || !c->self_gravity.on) return;
	double G = c->self_gravity.G, k = tide_jeans_q_res(c->gas.eta, 1.0, G);
	tide_jeans_min r;
	if (tide_sim_jeans(sim, k, &r) || sim->rank != 0) return;
	/* in the case's units (a gas case in cgs or SI runs in internal ones, case_units.h) */
	tide_unit_system U = tide_case_output_units(c);
	double mj = tide_units_to_case(&U, tide_jeans_mass_of_q(r.q, G), TIDE_DIM_MASS), ratio = r.qm / k;
	double rho = tide_units_to_case(&U, r.rho, TIDE_DIM_DENSITY), t = tide_units_to_case(&U, sim->t, TIDE_DIM_TIME);
	if (o->jeans_mj == 0 || mj < o->jeans_mj) {
		o->jeans_mj = mj;
		o->jeans_rho = rho;
	}
	tide_info("Jeans check at t = %g: least Jeans mass %.4g at rho = %.4g, least M_J / (N_ngb m_i) "
	          "%.4g (%.1f neighbours): %s\n", t, mj, rho, ratio, tide_jeans_ngb(c->gas.eta),
	          r.n_below ? "NOT resolved" : "resolved");
	if (r.n_below && !o->jeans_lost) {
		o->jeans_lost = 1;
		o->jeans_lost_t = t;
		fprintf(stderr, "tide: warning: the Jeans mass is no longer resolved at t = %g: %u "
		        "particles have M_J < N_ngb m_i, down to M_J / (N_ngb m_i) = %.4g; least M_J %.4g "
		        "at rho = %.4g (Bate & Burkert 1997); later densities are not to be trusted (finer "
		        "particles or sinks)\n", t, r.n_below, ratio, mj, rho);
	}
}

int tide_run_write_output(run_out *o, tide_sim *sim, const tide_case *c, const char *tag)
{
	if (!tag) {
		check_jeans(o, sim, c);
		if (sim->rank == 0 && tide_sinks_csv_write(o->dir, c, sim->t, sim->sinks)) {
			if (sim->size > 1) tide_run_abort_ranks();
			return -1;
		}
		tide_snap_job job = {.index = o->n, .t = sim->t, .dt = sim->last.dt, .step = sim->step,
		                     .wall = tide_wtime(), .e_self = tide_sim_self_gravity_energy(sim)};
		job.nbody = tide_body_rows(c, sim->t, sim->rigid_set ? sim->rigid : NULL, job.body);
		if (sim->sinks) { /* the table as it is now: the writer writes while the run goes on */
			job.nsink = sim->sinks->n;
			memcpy(job.sink, sim->sinks->s, sizeof job.sink[0] * (size_t)job.nsink);
		}
		int ret = tide_snap_submit(&o->snap, sim, &job);
		if (!ret && sim->rank == 0) ret = tide_run_note_time(o, sim->t);
		o->n++;
		/* rank 0 could not write: the others would go on without it */
		if (ret && sim->size > 1) tide_run_abort_ranks();
		return ret ? -1 : 0;
	}
	if (tide_sim_gather(sim, 0, &o->mem, &o->all)) return -1;
	if (sim->rank != 0) return 0;
	tide_particle_set s;
	tide_set_view_of_block(&o->all, &s);
	char path[1100];
	snprintf(path, sizeof path, "%s/%s.vtp", o->dir, tag);
	int ret = tide_vtp_write(path, &s, c);
	if (ret && sim->size > 1) tide_run_abort_ranks();
	return ret ? -1 : 0;
}

/* Waits for the pending snapshot: 0, or -1 when a snapshot could not be written (then, under
 * MPI, rank 0 stops every rank, as a failed synchronous write did). */
int tide_run_wait_outputs(run_out *o, const tide_sim *sim)
{
	if (!tide_snap_wait(&o->snap)) return 0;
	if (sim->size > 1 && !tide_h5_ranks_write_together(sim->mpi)) tide_run_abort_ranks();
	return -1;
}

/* Collective: the gauges measured on the particles now (gauge tasks; only the sums come to rank
 * 0), a row of gauges.csv on rank 0, and the time of the next row: the first step at or after
 * each multiple of gauges.every writes one, with its own time. */
int tide_run_write_gauges(run_out *o, tide_sim *sim, const tide_case *c)
{
	double every = tide_case_gauge_every(c);
	const double none = TIDE_GAUGE_NONE;
	const double *sums = o->gauges_on ? tide_gauge_tasks_measure(&o->gt, sim) : &none;
	int ret = 0;
	if (sim->rank == 0) {
		const tide_rigid *rigid = sim->rigid_set ? sim->rigid : NULL;
		ret = tide_gauges_write_sums(&o->gauges, c, &o->gt.G, sums, sim->t, rigid);
		if (!ret) ret = tide_bodies_csv_write(&o->bodies, c, sim->t, rigid);
	}
	while (o->gauge_k * every <= sim->t + 1e-12) o->gauge_k++;
	if (ret && sim->size > 1) tide_run_abort_ranks();
	return ret;
}

int tide_run_gauges_due(const run_out *o, const tide_sim *sim, const tide_case *c)
{
	return sim->t >= o->gauge_k * tide_case_gauge_every(c) - 1e-12;
}

/* Collective: gathers the blocks to rank 0, which writes the checkpoint directory dir.  0 or -1.
 * stop_all: a failure stops every rank (the run would go on elsewhere, waiting for rank 0). */
static int write_checkpoint_to(run_out *o, tide_sim *sim, const tide_case *c, const char *dir,
                               int stop_all)
{
	/* the checkpoint lists the outputs written so far: they are complete first (a failed one
	 * is reported by the run loop) */
	tide_snap_wait(&o->snap);
	uint32_t *counts = calloc((size_t)sim->nblocks, sizeof *counts);
	tide_block_arg *range = malloc(sizeof *range * (size_t)sim->nblocks);
	uint32_t *cap = malloc(sizeof *cap * (size_t)sim->nblocks);
	int *owner = malloc(sizeof *owner * (size_t)sim->nblocks);
	if (!counts || !range || !cap || !owner) { fprintf(stderr, "tide: out of host memory.\n"); return -1; }
	int ret = tide_sim_gather_blocks(sim, 0, &o->mem, &o->all, counts);
	if (!ret && sim->rank == 0) {
		double w = tide_wtime();
		for (int b = 0; b < sim->nblocks; b++) {
			range[b] = sim->blk[b].range;
			cap[b] = sim->blk[b].cap;
			owner[b] = sim->blk[b].owner;
		}
		tide_ckpt_state cs = {
			.step = sim->step, .t = sim->t, .verlet_count = sim->verlet_count,
			.integrator = sim->integrator, .last = sim->last, .rebalances = sim->rebalances,
			.nblocks = sim->nblocks, .halo_cap = sim->halo_cap, .range = range, .count = counts,
			.cap = cap, .owner = owner, .nranks = sim->size, .n_fluid0 = o->n_fluid0, .n_bound0 = o->n_bound0,
			.n_outputs = o->n, .next_out = o->next_out, .out_time = o->times,
			.nrigid = sim->rigid_set ? sim->nrigid : 0,
		};
		memcpy(cs.rigid, sim->rigid, sizeof cs.rigid);
		memcpy(cs.rigid_pose, sim->rigid_pose, sizeof cs.rigid_pose);
		tide_sinks_save(sim->sinks, &cs.sinks);
		ret = tide_checkpoint_write(dir, &cs, &o->all, c);
		tide_unit_system U = tide_case_output_units(c); /* the log's t: the case's units */
		if (!ret)
			tide_debug("%scheckpoint of step %ld (t = %.6g s) in %s (%.2f s)\n", isatty(1) ? "\n" : "",
			           sim->step, tide_units_to_case(&U, sim->t, TIDE_DIM_TIME), dir, tide_wtime() - w);
		if (ret && stop_all && sim->size > 1) tide_run_abort_ranks();
	}
	free(counts);
	free(range);
	free(cap);
	free(owner);
	if (!ret && dir == o->ckpt) {
		o->ckpt_step = sim->step;
		tide_watchdog_checkpointed(sim->step);
	}
	return ret;
}

int tide_run_write_checkpoint(run_out *o, tide_sim *sim, const tide_case *c)
{
	return write_checkpoint_to(o, sim, c, o->ckpt, 1);
}

/* After a failed run loop: the last checkpoint, and one sentence saying where it is.  Under MPI
 * every rank gets here for an unphysical run (the step reduction is global); rank 0's I/O
 * failures stopped all ranks already. */
void tide_run_save_after_failure(run_out *o, tide_sim *sim, const tide_case *c, int why)
{
	char failed[1100];
	snprintf(failed, sizeof failed, "%s/failed_state", o->dir);
	if (why == RUN_UNPHYSICAL) {
		int bad = write_checkpoint_to(o, sim, c, failed, 0);
		tide_run_write_output(o, sim, c, "failed_state");
		if (sim->rank != 0) return;
		if (!bad)
			fprintf(stderr, "tide: the state after step %ld is saved in %s (a checkpoint, for "
			        "inspection; ParaView: %s.vtp).\n", sim->step, failed, failed);
		if (o->ckpt_step >= 0)
			fprintf(stderr, "tide: the last checkpoint before the failure is %s (step %ld): "
			        "continue from it with other parameters, e.g. tide run --restart %s --set "
			        "physics.cfl=0.1.\n", o->ckpt, o->ckpt_step, o->ckpt);
		else
			fprintf(stderr, "tide: no checkpoint was written before the failure (--checkpoint-every "
			        "N writes them).\n");
		return;
	}
	if (why == RUN_IO && !write_checkpoint_to(o, sim, c, o->ckpt, 0)) {
		if (sim->rank == 0)
			fprintf(stderr, "tide: the state of step %ld is saved in %s: once the output can be "
			        "written, continue with tide run --restart %s.\n", sim->step, o->ckpt, o->ckpt);
		return;
	}
	if (sim->rank == 0 && o->ckpt_step >= 0)
		fprintf(stderr, "tide: the last checkpoint, %s (step %ld), is intact: continue from it "
		        "with tide run --restart %s.\n", o->ckpt, o->ckpt_step, o->ckpt);
}

/* Restart: the series, gauges and statistics of the run so far, cut back to the outputs the
 * checkpoint had written (a run that went on past its checkpoint wrote more). */
int tide_run_reopen_outputs(run_out *out, const tide_case *c, long step)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/particles.pvd", out->dir);
	if (tide_case_writes_vtp(c) && tide_pvd_open(&out->pvd, path)) return -1;
	tide_unit_system U = tide_case_output_units(c); /* the series' times: the case's units */
	for (int i = 0; i < out->n && tide_case_writes_vtp(c); i++) {
		snprintf(path, sizeof path, "%s/particles_%04d.vtp", out->dir, i);
		if (access(path, F_OK) == 0 &&
		    tide_pvd_add(&out->pvd, path, tide_units_to_case(&U, out->times[i], TIDE_DIM_TIME)))
			return -1;
	}
	if (tide_case_writes_h5(c) &&
	    tide_h5_reopen(&out->xmf, out->dir, out->n, out->times, c))
		return -1;
	if (c->motion.nbody) {
		snprintf(path, sizeof path, "%s/bodies.pvd", out->dir);
		if (tide_pvd_open(&out->bodies_pvd, path)) return -1;
		for (int i = 0; i < out->n; i++) {
			snprintf(path, sizeof path, "%s/bodies_%04d.vtp", out->dir, i);
			if (access(path, F_OK) == 0 && tide_pvd_add(&out->bodies_pvd, path, out->times[i])) return -1;
		}
	}
	return tide_stats_open(&out->stats, out->dir, c, out->n, step, tide_wtime());
}
