/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A gas case's particles from a file (case key initial.file; src/gas_input.c), instead of the
 * geometry's lattice:
 *   - HDF5 in the SWIFT/GADGET layout (swift_io.h): PartType0's Coordinates, Velocities, Masses
 *     (or the MassTable), ParticleIDs, and where present InternalEnergy (else gas.u),
 *     SmoothingLength (else h from the density: eta (m / rho)^(1/3) with the file's Density, or
 *     the density pass's own iteration from h_max / 2 without one) and Density (the first
 *     guess of h only: the density pass computes rho); the Header's Time is the run's start.
 *     PartType1 (N-body: dark matter, stars) become collisionless particles (block.h TIDE_NBODY,
 *     gas_math.h) with their Coordinates, Velocities, Masses (or the MassTable) and ParticleIDs;
 *     other types (PartType2..5) are refused.
 *     A file with a Units group is converted to the case's units (si, cgs); a case in code
 *     units (G = 1) takes the file's length and mass units and the time unit that makes G = 1,
 *     as tide nbody does (its velocities, energies and time converted), and writes them into
 *     its SWIFT snapshots.  A file without Units is in the case's units.
 *   - text: one particle per line, "x y z m", "x y z m vx vy vz" or "x y z m vx vy vz u",
 *     '#' starting a comment; ids 0, 1, ... in line order, u = gas.u where not given, time 0.
 * Every particle must lie inside the case's domain, ids must fit 32 bits; with the reader's
 * checks (swift_io.h: shapes, finite values, masses > 0, ...) a bad file gets one sentence
 * naming the file and the dataset (or line) and the run stops with exit code 2. */
#ifndef TIDE_GAS_INPUT_H
#define TIDE_GAS_INPUT_H
#include <stddef.h>
#include "tide/block.h"
#include "tide/case.h"

/* Reads c->initial_file into one host block as tide_host_block_build makes it (*mem, *v; one
 * block's capacity with nblocks == 1), the gas fields set for the first step (gas_ic.h);
 * *n_fluid the gas particles, *n_nbody the collisionless ones (PartType1), *t0 the time the run starts at.  In code units, sets
 * c->code_length and c->code_mass to the file's units.  Every rank reads the file (ranks other
 * than 0 quietly).  0, -2 (bad file, one sentence: exit code 2) or -1 (out of memory). */
int tide_gas_input_build(tide_case *c, int nblocks, void **mem, tide_block_view *v,
                         size_t *n_fluid, size_t *n_nbody, double *t0);

#endif
