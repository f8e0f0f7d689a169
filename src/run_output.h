/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tide run's outputs (src/run_output.c): particle snapshots, gauges.csv, checkpoints, what a
 * failed run saves, and the series reopened for a restart. */
#ifndef TIDE_RUN_OUTPUT_H
#define TIDE_RUN_OUTPUT_H
#include "tide/block.h"
#include "tide/case.h"
#include "tide/gauge_tasks.h"
#include "tide/sph_sim.h"
#include "output.h"
#include "snapshot.h"
#include "statistics.h"

/* Output state of a run. */
typedef struct run_out {
	char dir[1024];
	tide_pvd pvd;
	tide_pvd xmf;                 /* the .h5 series (output.format hdf5 or both) */
	tide_pvd bodies_pvd;          /* bodies.pvd: the bodies_NNNN.vtp (a case with bodies) */
	tide_gauges gauges;
	tide_gauges bodies;           /* bodies.csv (rank 0; f NULL without bodies) */
	tide_gauge_tasks gt;          /* the gauges' tasks (every rank) */
	int gauges_on;                /* anything to measure besides the time */
	long gauge_k;                 /* the next gauge row is due at gauge_k * gauges.every */
	tide_stats_file stats;
	char ckpt[1100];              /* checkpoint directory: DIR/checkpoint */
	void *mem;
	tide_block_view all;
	int n;
	double *times;                /* simulated time of every output (rank 0) */
	int ntimes_cap;
	double next_out;              /* simulated time of the next output */
	long ckpt_step;               /* step of the checkpoint in ckpt (-1: none written or read) */
	size_t n_fluid0, n_bound0;    /* particles at the start of the run (before any restart) */
	tide_snapshots snap;          /* the snapshot writer (not started with --no-output) */
	double jeans_mj;              /* least Jeans mass seen at an output (gas + self-gravity) */
	double jeans_rho;             /* the density where it was */
	int jeans_lost;               /* an output had unresolved particles: at time jeans_lost_t */
	double jeans_lost_t;
} run_out;

/* Why a run loop stopped with an error: what the run can still save differs. */
enum run_failure {
	RUN_UNPHYSICAL = 1, /* the state is bad: saved apart, the last good checkpoint is kept */
	RUN_IO,             /* an output could not be written: the state is good, checkpoint it */
	RUN_CHECKPOINT,     /* the checkpoint itself could not be written (the previous one is kept) */
	RUN_LOST,           /* the blocks could not be rebuilt: nothing left to save */
};

/* Rank 0 could not write: the other ranks would wait for it forever, so stop them all. */
void tide_run_abort_ranks(void);
/* Records the simulated time of an output (rank 0).  0, or -1 out of memory. */
int tide_run_note_time(run_out *o, double t);
/* Collective: a snapshot (tag NULL, written in the background) or the file DIR/tag.vtp. */
int tide_run_write_output(run_out *o, tide_sim *sim, const tide_case *c, const char *tag);
/* Waits for the pending snapshot: 0, or -1 when one could not be written. */
int tide_run_wait_outputs(run_out *o, const tide_sim *sim);
/* Collective: a row of gauges.csv, and the time of the next row. */
int tide_run_write_gauges(run_out *o, tide_sim *sim, const tide_case *c);
/* Whether a gauges.csv row is due at the simulation's time. */
int tide_run_gauges_due(const run_out *o, const tide_sim *sim, const tide_case *c);
/* Collective: the checkpoint DIR/checkpoint (a failure stops every rank).  0 or -1. */
int tide_run_write_checkpoint(run_out *o, tide_sim *sim, const tide_case *c);
/* After a failed run loop (why: an enum run_failure): what can still be saved, and where. */
void tide_run_save_after_failure(run_out *o, tide_sim *sim, const tide_case *c, int why);
/* Restart: reopens the series and statistics of the run so far.  0 or -1. */
int tide_run_reopen_outputs(run_out *out, const tide_case *c, long step);

#endif
