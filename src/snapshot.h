/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Snapshots that overlap the computation (src/snapshot_writer.c).  At an output time the run
 * submits the staging copy of every block (snapshot_stage.h: tasks in the graph) and hands the
 * snapshot to a writer thread, which waits for the staged copy and writes the particle files,
 * the series (.pvd / .xmf) and the statistics row while the next steps run.
 *
 * At most one snapshot is pending: submitting the next one, a checkpoint, a failure and the
 * end of the run first wait for it (tide_snap_wait), so nothing is lost or half-written; every
 * file goes through PATH.tmp, renamed when complete.  Memory: snapshot_stage.h.
 *
 * Under MPI the writer thread of rank 0 writes the .vtp, the series and the statistics from
 * every rank's staged blocks.  The .h5: when the ranks write together
 * (tide_h5_ranks_write_together: parallel HDF5 and MPI_THREAD_MULTIPLE) every rank's writer
 * thread takes part in the collective MPI-IO write on a duplicate of MPI_COMM_WORLD made for
 * the writers alone, so its collectives never interleave with the main threads' on the world
 * communicator; MPI_THREAD_MULTIPLE makes MPI calls from that thread legal beside StarPU-MPI's
 * thread and the main thread.  Otherwise (MPI_THREAD_SERIALIZED or less, or serial HDF5) rank 0
 * writes the .h5 from the staged blocks alone and the writer threads call no MPI at all. */
#ifndef TIDE_SNAPSHOT_H
#define TIDE_SNAPSHOT_H
#include <pthread.h>
#include <mpi.h>
#include "tide/case.h"
#include "output.h"
#include "tide/snapshot_stage.h"
#include "tide/sinks.h"
#include "tide/sph_sim.h"
#include "statistics.h"

/* What one output writes besides the particles. */
typedef struct tide_snap_job {
	int index;                    /* particles_NNNN */
	double t, dt;                 /* simulated time, last time step [s] */
	long step;
	double wall;                  /* wall clock at the output (statistics' wall_per_step) */
	double e_self;                /* self-gravity energy for the statistics row (0: none) */
	int nbody;                    /* the moving and floating bodies at t (bodies_NNNN.vtp) */
	tide_body_row body[TIDE_MOTION_MAX_BODIES];
	int nsink;                    /* the sinks at t (SWIFT snapshots' PartType5, sinks_swift.h) */
	tide_sink_state sink[TIDE_SINK_MAX];
} tide_snap_job;

/* Rank 0's series and tables, written by the writer thread while a snapshot is pending and by
 * nobody else then (NULL on the other ranks). */
typedef struct tide_snap_outputs {
	tide_pvd *pvd, *xmf;
	tide_stats_file *stats;
	tide_pvd *bodies;             /* bodies.pvd (NULL: a case without bodies) */
} tide_snap_outputs;

typedef struct tide_snapshots {
	const tide_case *c;
	char dir[1024];
	int rank, size, mpi, vtp, h5, swift;   /* swift: output.format swift (swift_output.h) */
	MPI_Comm comm;                /* the writers' duplicate of the world, or MPI_COMM_NULL */
	tide_snap_outputs out;
	tide_snap_stage stage;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int started, busy, quit, failed;
	tide_snap_job job;
	tide_block_view *views, *own; /* staged blocks (all on rank 0), this rank's own */
	tide_particle_set *sets;
	int vcap;                     /* room in views, own and sets */
} tide_snapshots;

/* Starts the writer thread (collective under MPI).  0 or -1 (message printed). */
int tide_snap_init(tide_snapshots *w, const tide_sim *sim, const tide_case *c, const char *dir,
                   const tide_snap_outputs *out);
/* Waits for the pending snapshot, then submits the staging of sim's blocks and hands snapshot
 * `job` to the writer.  Collective.  0, or -1 when a snapshot failed to be written (this one or
 * an earlier one; message printed) or the staging could not be allocated. */
int tide_snap_submit(tide_snapshots *w, tide_sim *sim, const tide_snap_job *job);
/* Waits until no snapshot is pending.  0, or -1 when one of them failed to be written. */
int tide_snap_wait(tide_snapshots *w);
/* Waits, stops the thread and frees everything (collective).  Safe on a zeroed w. */
void tide_snap_fini(tide_snapshots *w);

#endif
