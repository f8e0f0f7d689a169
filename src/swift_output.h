/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A gas run's outputs as SWIFT/GADGET snapshots (output.format: swift; src/swift_output.c):
 * DIR/snapshot_NNNN.hdf5, PartType0 with Coordinates, Velocities, Masses, InternalEnergy,
 * SmoothingLength, Density and ParticleIDs, PartType1 (the collisionless particles,
 * nbody_swift.h) with Coordinates, Velocities, Masses and ParticleIDs, in the layout of src/swift_io.h, and the case's
 * units as the file's Units (swift_io.h's tide_swift_case_units). */
#ifndef TIDE_SWIFT_OUTPUT_H
#define TIDE_SWIFT_OUTPUT_H
#include <mpi.h>
#include "tide/block.h"
#include "tide/case.h"
#include "tide/sinks.h"
#include "swift_io.h"

/* The cgs values of the case's units: si (m, kg, s), cgs, code (cm, g and the time unit that
 * makes G = 1, as tide nbody's files without units). */
tide_swift_units tide_swift_case_units(const tide_case *c);

/* Writes the fluid particles of views v[0..nv) (a gas run's blocks, staged with h, u and m) as
 * the snapshot DIR/snapshot_INDEX.hdf5 at time t, with the sinks sinks[0..nsink) as PartType5
 * (sinks_swift.h; one rank gives them, the table being the same on all, the others nsink = 0): by the ranks of comm together, each giving
 * its own blocks (comm != MPI_COMM_NULL, collective), or by this rank alone.  Coordinates are
 * tide's (the domain's, not shifted to [0, BoxSize)); BoxSize is the domain's size.  Returns 0,
 * or 1 after one sentence (every rank of comm alike). */
int tide_swift_output(const char *dir, int index, const tide_block_view *v, int nv,
                      const tide_case *c, double t, const tide_sink_state *sinks, int nsink,
                      MPI_Comm comm);

#endif
