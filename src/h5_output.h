/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* HDF5 + XDMF particle output (case key output.format: hdf5 or both).
 *
 * DIR/particles_NNNN.h5, one per output, holds the datasets of output.fields
 *   Position (N x 3 float64, float32 with output.precision single) [m], Velocity (N x 3
 *   float32) [m/s], Density (N float32) [kg/m^3], Pressure (N float32, Tait, as in the .vtp)
 *   [Pa], Type (N uint8), Id (N uint32)
 * and Connectivity (N uint32, the Polyvertex cells of the .xmf), each with a string attribute
 * "units" (m, m/s, kg/m^3, Pa; "1" for numbers without unit), and the root attributes time
 * (float64) [s], step (int64), ranks (int32: how many MPI processes wrote the file together),
 * case_name (string), dp and h (float64) [m] and tide_version (string).  DIR/particles.xmf is an
 * XDMF 3 temporal collection of uniform grids (Polyvertex topology, XYZ geometry) referencing
 * every .h5 written so far; it is rewritten whole after each output, so ParaView can open it at
 * any time.  A gas case in cgs writes every dimensional dataset, attribute and time in cgs
 * (cm, cm/s, g/cm^3, dyn/cm^2, erg/g, g; its "units" attributes say so): a case run in internal
 * units converts back (src/case_units.h).
 *
 * With MPI (at MPI_THREAD_MULTIPLE) and a parallel HDF5 library every rank writes the particles
 * of the blocks it owns into the same file with collective MPI-IO, at the offset given by an
 * exclusive prefix sum of the ranks' counts; nothing is gathered.  Otherwise rank 0 writes every
 * particle.  A run calls these from its snapshot writer thread (src/snapshot_writer.c), on a
 * communicator of its own.  Without HDF5 at build time every function fails with a message (the
 * case loader already refuses output.format = hdf5 then). */
#ifndef TIDE_H5_OUTPUT_H
#define TIDE_H5_OUTPUT_H
#include <mpi.h>
#include "tide/block.h"
#include "tide/case.h"
#include "output.h"

/* 0: built without HDF5; 1: serial HDF5; 2: parallel HDF5 (MPI-IO). */
int tide_h5_support(void);

/* Whether the ranks of a run write each .h5 together (mpi: the run uses MPI): parallel HDF5
 * and MPI_THREAD_MULTIPLE (the writes run in a thread beside StarPU-MPI's). */
int tide_h5_ranks_write_together(int mpi);

/* One snapshot: the particles this process writes (its own blocks when the ranks write
 * together, every particle otherwise), at time t of step `step`. */
typedef struct tide_h5_snap {
	const tide_block_view *v;
	int nv;
	double t;
	long step;
	MPI_Comm comm;   /* the ranks writing together (a duplicate of the world), or MPI_COMM_NULL:
	                  * this process writes the file alone */
} tide_h5_snap;

/* Writes one snapshot to path (through path.tmp, renamed when complete).  Collective over
 * snap->comm.  Returns 0 or -1 (message printed); the ranks writing together return the same. */
int tide_h5_write(const char *path, const tide_h5_snap *snap, const tide_case *c);

/* Output number `index` of a run in dir: writes dir/particles_NNNN.h5 as above and, on rank 0 of
 * snap->comm (or alone), adds it to the series xmf (started at dir/particles.xmf on first use)
 * and rewrites the .xmf.  Returns 0 or -1 as tide_h5_write. */
int tide_h5_output(tide_pvd *xmf, const char *dir, int index, const tide_h5_snap *snap,
                   const tide_case *c);

/* Restart (rank 0): starts dir/particles.xmf again with the outputs 0..n-1 whose .h5 files are
 * still there, at times[i] (the run's units, listed in the case's), reading each file's
 * particle count; the arrays listed are those of
 * c's output.fields.  Returns 0 or -1. */
int tide_h5_reopen(tide_pvd *xmf, const char *dir, int n, const double *times,
                   const tide_case *c);

/* Rewrites x->path (atomically) listing every file of x. */
int tide_xdmf_write(const tide_pvd *x);

#endif
