/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Particle files in the HDF5 layout of SWIFT and GADGET (format 3), the one astrophysicists read
 * with h5py, swiftsimio and yt and give to SWIFT, GADGET, AREPO or GIZMO as initial conditions
 * (src/swift_io.c).  One group per particle type, PartTypeK:
 *   PartType0 gas, PartType1 dark matter / N-body, PartType2 background dark matter,
 *   PartType3 sinks (SWIFT), PartType4 stars, PartType5 black holes (sinks in GIZMO);
 * each with the datasets Coordinates (N x 3), Velocities (N x 3), Masses (N) and ParticleIDs
 * (N), optional Potentials (N) and Accelerations (N x 3), and for gas InternalEnergy,
 * SmoothingLength and Density (N).  A Header group holds the time, box size and counts with the
 * names GADGET-2 defined (NumPart_ThisFile, NumPart_Total, NumPart_Total_HighWord, MassTable,
 * ...), a Units group the cgs value of the base units (SWIFT's "Unit length in cgs (U_L)", ...),
 * and every dataset says its dimensions and conversion factor as SWIFT's snapshots do ("U_L
 * exponent", "Conversion factor to CGS (not including cosmological corrections)", ...).
 *
 * This file knows the layout only: the arrays of one type come in and go out as plain arrays, so
 * the N-body commands (particle_input.h) and a gas scheme (PartType0 with its fields) share it. */
#ifndef TIDE_SWIFT_IO_H
#define TIDE_SWIFT_IO_H
#include <stdint.h>
#include <mpi.h>

/* Particle types 0..5 (GADGET's six; the Header's per-type arrays have six entries). */
#define TIDE_SWIFT_NTYPES 6

/* Newton's constant in cgs (CODATA 2018), the one home of G for converting to G = 1 units. */
#define TIDE_G_CGS 6.67430e-8

/* Numbers in tide nbody's state (tide_swift_header). */
#define TIDE_NBODY_STATE 9

/* The base units of a file: cgs value of one unit of length, mass, time, current, temperature. */
typedef struct tide_swift_units {
	double length, mass, time, current, temperature;
} tide_swift_units;

/* The time unit that makes G = 1 with u's length and mass units: sqrt(U_L^3 / (G U_M)). */
double tide_swift_time_unit_g1(const tide_swift_units *u);
/* Units with length and mass units L and M (cgs) and the time unit that makes G = 1. */
tide_swift_units tide_swift_units_g1(double L, double M);

/* ---- writing ---- */

/* The particles of one type, in the caller's arrays (n entries, 3 n for vectors).  pos, vel,
 * mass and id are needed when n > 0; the others are written when not NULL (u, h, rho for
 * PartType0 only). */
typedef struct tide_swift_out {
	uint64_t n;
	const double *pos;
	const float *vel;
	const float *mass;
	const uint64_t *id;
	const float *pot;       /* Potentials */
	const float *acc;       /* Accelerations, 3 n */
	const float *u, *h, *rho;
	/* PartType0, all three or none: tide's leapfrog state (gas_math.h), written as
	 * tide_HalfStepVelocities (3 n), tide_HalfStepInternalEnergy, tide_LastKickStep; with them
	 * (or NULL) dh/dt, tide_SmoothingLengthRate */
	const float *vh, *uh, *dtk, *hdot;
} tide_swift_out;

typedef struct tide_swift_header {
	double time;
	double box[3];          /* BoxSize; for a run without a periodic box, the particles' extent */
	int periodic;           /* RuntimePars/PeriodicBoundariesOn */
	tide_swift_units units;
	/* tide nbody's state beyond the particles, kept so that a run continued from the file is
	 * the run that wrote it (Parameters, "tide nbody state"): the shared root of the ranks'
	 * trees (lo x, y, z, hi x, y, z) and the force parameters theta, eps, quadrupole (0/1) of
	 * the Accelerations written */
	int have_state;
	double state[TIDE_NBODY_STATE];
} tide_swift_header;

/* Writes one file: types[k] for k = 0..5 (types with n = 0 have no group).  The file appears
 * whole or not at all (written as PATH.tmp, then renamed).  Returns 0, or 1 after one sentence
 * "tide: cannot write PATH: ..." (an I/O failure, or a build without HDF5). */
int tide_swift_write(const char *path, const tide_swift_header *h,
                     const tide_swift_out types[TIDE_SWIFT_NTYPES]);
/* The same file written by the ranks of comm together (parallel HDF5, collective MPI-IO): each
 * gives its own particles of every type, which go after those of the lower ranks; h must be the
 * same on every rank, and a field given by one rank with particles of a type must be given by
 * all of them.  Collective (MPI calls: with StarPU-MPI running, only at MPI_THREAD_MULTIPLE).
 * Every rank returns 0, or 1 when the file could not be written (rank 0 says why).  Without
 * parallel HDF5 and with several ranks: 1 after a sentence saying so. */
int tide_swift_write_ranks(const char *path, const tide_swift_header *h,
                           const tide_swift_out types[TIDE_SWIFT_NTYPES], MPI_Comm comm);

/* ---- reading ---- */

/* What a file held: the particles of the types asked for, type after type (0 first), in file
 * order within a type. */
typedef struct tide_swift_set {
	uint64_t n;
	uint64_t count[TIDE_SWIFT_NTYPES];
	double *pos, *vel, *mass;   /* 3 n, 3 n, n (masses from Masses or the MassTable) */
	uint64_t *id;               /* ParticleIDs; 1, 2, ... in file order where a type has none */
	uint8_t *type;
	double *u, *h, *rho;        /* count[0] entries each, with TIDE_SWIFT_GAS, NULL when absent */
	double *vh, *uh, *dtk;      /* tide's leapfrog state (tide_swift_out): 3 count[0], count[0],
	                             * count[0], with TIDE_SWIFT_GAS when the file has all three */
	double *hdot;               /* tide_SmoothingLengthRate: count[0] with them, or NULL */
	double *acc, *pot;          /* 3 n and n, with TIDE_SWIFT_FORCES when every type has both */
	double time;
	int have_time;
	tide_swift_units units;
	int have_units;             /* 0: the file has no Units group (units holds 1s) */
	int have_state;             /* the file has tide nbody's state (tide_swift_header) */
	double state[TIDE_NBODY_STATE];
} tide_swift_set;

/* flags of tide_swift_read */
#define TIDE_SWIFT_GAS 1u       /* also read PartType0's InternalEnergy, SmoothingLength, Density */
#define TIDE_SWIFT_FORCES 2u    /* also read Accelerations and Potentials (finite) */

/* Reads the groups PartTypeK for the bits k of types_mask.  Before anything is allocated, the
 * set's arrays plus extra_bytes per particle (what the caller will allocate beside them) are
 * checked against the available memory (host_memory.h): more is refused with exit code 1.  Every dataset is checked: shape (N x
 * 3 or N, the same N in all datasets of a type and the Header's NumPart_ThisFile), numbers,
 * finite values, masses > 0, ids >= 0, gas fields finite with h > 0, u >= 0, rho >= 0; a file
 * with no particles, one of a multi-file snapshot, or with Dimension other than 3 is refused.
 * Returns 0; 2 after one sentence "tide: PATH ..." naming the file, the dataset and the problem;
 * 1 after one sentence when memory runs out.  On failure nothing is left allocated. */
int tide_swift_read(const char *path, unsigned types_mask, unsigned flags, double extra_bytes,
                    tide_swift_set *s);
void tide_swift_set_free(tide_swift_set *s);

/* 1 when the HDF5 file at path has a PartTypeK group with rows (0: not, or not readable), so
 * that a reader of one optional type need not read the others. */
int tide_swift_has_type(const char *path, int k);

/* 1 when the file at path starts with the HDF5 signature (0 when it does not or cannot be read). */
int tide_swift_is_hdf5(const char *path);

#endif
