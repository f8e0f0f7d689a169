/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* HDF5 + XDMF particle output (case key output.format: hdf5 or both).
 *
 * DIR/particles_NNNN.h5, one per output, holds the datasets
 *   Position (N x 3 float64) [m], Velocity (N x 3 float32) [m/s], Density (N float32) [kg/m^3],
 *   Pressure (N float32, Tait, as in the .vtp) [Pa], Type (N uint8), Id (N uint32)
 * and the root attributes time (float64) [s], step (int64) and ranks (int32: how many MPI
 * processes wrote the file together).  DIR/particles.xmf is an XDMF 3 temporal collection of
 * uniform grids (Polyvertex topology, XYZ geometry) referencing every .h5 written so far; it is
 * rewritten whole after each output, so ParaView can open it at any time.
 *
 * With MPI (at MPI_THREAD_MULTIPLE) and a parallel HDF5 library every rank writes the particles
 * of the blocks it owns into the same file with collective MPI-IO, at the offset given by an
 * exclusive prefix sum of the ranks' counts; nothing is gathered.  Otherwise rank 0 writes the
 * particles gathered for it.  Without HDF5 at build time every function fails with a message
 * (the case loader already refuses output.format = hdf5 then). */
#ifndef TIDE_H5_OUTPUT_H
#define TIDE_H5_OUTPUT_H
#include "tide/block.h"
#include "tide/case.h"
#include "output.h"
#include "tide/sph_sim.h"

/* 0: built without HDF5; 1: serial HDF5; 2: parallel HDF5 (MPI-IO). */
int tide_h5_support(void);

/* Writes one snapshot to path (through path.tmp, renamed when complete).  Collective: every rank
 * calls it.  gathered: every particle, on rank 0 (used when the ranks do not write together;
 * may be NULL elsewhere).  Returns 0 or -1 (message printed); when the ranks write together
 * every rank returns the same, otherwise only rank 0's result means anything. */
int tide_h5_write(const char *path, tide_sim *sim, const tide_case *c,
                  const tide_block_view *gathered);

/* Output number `index` of a run in dir: writes dir/particles_NNNN.h5 as above and, on rank 0,
 * adds it to the series xmf (started at dir/particles.xmf on first use) and rewrites the .xmf.
 * Collective.  Returns 0 or -1 as tide_h5_write. */
int tide_h5_output(tide_pvd *xmf, const char *dir, int index, tide_sim *sim, const tide_case *c,
                   const tide_block_view *gathered);

/* Restart (rank 0): starts dir/particles.xmf again with the outputs 0..n-1 whose .h5 files are
 * still there, at times[i], reading each file's particle count.  Returns 0 or -1. */
int tide_h5_reopen(tide_pvd *xmf, const char *dir, int n, const double *times);

/* Rewrites x->path (atomically) listing every file of x.  Returns 0 or -1. */
int tide_xdmf_write(const tide_pvd *x);

#endif
