/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading tide's HDF5 output back (post-processing: tide probe): a particles_NNNN.h5 snapshot
 * (datasets Position N x 3, Velocity N x 3, Density, Pressure, Type, Id of N, any numeric type,
 * as h5_output.h describes; a run with output.fields may have written only some) and the
 * particles.xmf series (XDMF 3) that lists the snapshots with their times. */
#ifndef TIDE_H5_READ_H
#define TIDE_H5_READ_H
#include "particle_set.h"
#include "snapshot_read.h"

/* As tide_snapshot_read for a .h5 file; *t is the file's time attribute where present.
 * Built without HDF5: refused with a sentence saying so (TIDE_READ_BAD). */
int tide_h5_read(const char *path, unsigned need, tide_particle_set *s, float **pressure,
                 unsigned *have, double *t, int *have_t);

#ifdef TIDE_HAVE_HDF5
/* "tide: PATH WHAT (HDF5: cause)." with HDF5's innermost message as the cause, its error stack
 * cleared; returns TIDE_READ_BAD. */
int tide_h5_fail(const char *path, const char *what);
#endif

/* Reads the .xmf series at path: one snapshot per uniform grid, its time from <Time Value>,
 * its file from the heavy-data reference (FILE:/dataset) of its geometry. */
int tide_xmf_read(const char *path, tide_pvd_list *l);

#endif
