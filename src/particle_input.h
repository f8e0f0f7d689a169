/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The user's own particles for tide gravity and tide nbody (--input FILE), and the N-body files
 * they write (src/particle_input.c).  A file is either
 *   - HDF5 in the SWIFT/GADGET layout (swift_io.h): every particle of PartType0..5 becomes a
 *     gravitating body (gas fields are not used); or
 *   - text: one particle per line, "x y z m" or "x y z m vx vy vz", numbers separated by blanks,
 *     '#' starting a comment, blank lines skipped.
 * The bodies are held as the gravity solver holds them (bh_body x, y, z, m and 4 velocity floats,
 * single precision) in file order; the index in that order is the particle's identity inside
 * tide (bh_set_id), its file ParticleIDs and type are kept to be written back.
 *
 * Units: the run is in G = 1 units.  A file with a Units group keeps its length and mass units
 * and its velocities are converted to the time unit that makes G = 1 (swift_io.h); a file
 * without one (and a text file) is taken to be in G = 1 units already.  Files tide writes carry
 * the units of the run: those of its input, or for generated particles U_L = 1 cm, U_M = 1 g
 * and the matching time unit, so that any reader finds G = 1. */
#ifndef TIDE_PARTICLE_INPUT_H
#define TIDE_PARTICLE_INPUT_H
#include <stdint.h>
#include "tide/bh_tree.h"
#include "swift_io.h"

typedef struct tide_bodies {
	uint32_t n;
	bh_body *body;          /* n: x, y, z, m */
	float *vel;             /* 4 n: vx, vy, vz, spare */
	uint64_t *id;           /* n: ParticleIDs (text: 1, 2, ... by line order); NULL: 1..n */
	uint8_t *type;          /* n: PartType (text: 1); NULL: all 1 */
	double time;            /* the file's Header Time; 0 for text or without one */
	tide_swift_units units; /* the run's G = 1 units */
	bh_acc *acc;            /* n: Accelerations and Potentials of the file, NULL without */
	int have_state;         /* a tide nbody snapshot's state (swift_io.h) */
	double state[TIDE_NBODY_STATE];
} tide_bodies;

/* Parses up to 8 numbers of a text line into v ('#' starts a comment, which is cut off the
 * line); returns how many, or -1 when a word is not a number (its start in *bad).  The text
 * readers of particle files share it (gas_input.c too). */
int tide_parse_numbers(char *line, double v[8], char **bad);
/* Whether v fits a float (finite, within FLT_MAX): the check of every number a particle file
 * gives (text or HDF5). */
int tide_fits_float(double v);
/* The checks every text particle line shares, on its k numbers (x y z m ...): each a finite
 * single-precision number, the mass (v[3]) > 0.  0, or the tide_read_fail code after one
 * sentence naming path and line. */
int tide_particle_line_check(const char *path, long lineno, const double *v, int k);

/* Reads path into b (HDF5 when the file has its signature or a .hdf5/.h5 name, else text).
 * Returns 0; 2 after one sentence naming the file (and the line of a text file) and the problem:
 * missing datasets, wrong shapes, values not finite or beyond single precision, masses <= 0, a
 * file with no particles or more than BH_MAX_N, a line that is not 4 or 7 numbers; 1 after one
 * sentence when memory runs out.  On failure b holds nothing. */
int tide_bodies_read(const char *path, tide_bodies *b);
void tide_bodies_free(tide_bodies *b);

/* Collective over the ranks of an mpirun (StarPU-MPI started): every rank reads the file, only
 * rank 0 speaks, and all agree on the outcome and on what was read (a fingerprint of the
 * bodies), so that they all go on or all stop.  Returns 0, or the exit code (1 or 2) every rank
 * returns after one sentence. */
int tide_bodies_load(const char *path, tide_bodies *b);

/* Collective tide_host_memory_check (host_memory.h) for a command whose particle count is known
 * only once the file is read: 0 when every rank's node has room; else 1 on every rank, after
 * the sentence of rank 0, or of the first rank short of memory. */
int tide_bodies_memory_agree(const char *prefix, double bytes, const char *what, const char *advice);

/* Fingerprint of the bodies (positions, masses, velocities, ids, types). */
uint64_t tide_bodies_fingerprint(const tide_bodies *b);

/* What tide_bodies_write needs of n generated particles: ids 1..n, type 1, time 0, the default
 * units (no arrays are held). */
void tide_bodies_generated(tide_bodies *b, uint32_t n);

/* Writes n particles held in any order (body[i], vel[4 i] with bh_get_id giving the index in
 * b's order, acc[i] or NULL) to path in the SWIFT/GADGET layout, in b's order: each type in its
 * group with b's ids, and the potentials and accelerations when acc is given.  t: Header Time;
 * state: tide nbody's state (NULL: none).
 * Returns 0, or 1 after one sentence. */
int tide_bodies_write(const char *path, const tide_bodies *b, const bh_body *body,
                      const float *vel, const bh_acc *acc, double t, const double *state);

#endif
