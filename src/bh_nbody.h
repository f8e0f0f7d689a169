/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Collisionless N-body runs with the Barnes–Hut forces (src/nbody.c): kick-drift-kick leapfrog,
 * every step build → moments → walk → kick → drift as StarPU tasks; diagnostics at every output
 * (Lagrangian radii, energies, momentum, angular momentum), written to a CSV with units. */
#ifndef TIDE_BH_NBODY_H
#define TIDE_BH_NBODY_H
#include <stdio.h>
#include "tide/bh_gravity.h"
#include "bh_ic.h"
#include "particle_input.h"

typedef struct bh_nbody_opts {
	enum bh_dist dist;
	uint32_t n;
	uint64_t seed;
	double dt, t_end;
	int out_every;              /* steps between outputs */
	bh_params P;
	enum tide_where where;
	const char *csv;            /* NULL: no file */
	const tide_bodies *in;      /* the particles (and start time) of --input; NULL: dist, n, seed */
	const char *snap_dir;       /* snapshots DIR/snapshot_NNNN.hdf5 (SWIFT/GADGET); NULL: none */
	long snap_every;            /* steps between snapshots (and the last step) */
} bh_nbody_opts;

typedef struct bh_nbody_diag {
	double t, r10, r50, r90;    /* Lagrangian radii of 10, 50, 90 % of the mass */
	double ekin, epot, etot;
	double p[3], L[3];
} bh_nbody_diag;

/* Runs the case from t0 (the input's time, else 0) to t_end; fills diag[0..*ndiag) (at most cap
 * outputs, the first at t0; with more outputs than cap, the last row holds the latest).
 * Returns 0, or -1 when the CSV or a snapshot cannot be written or the particles do not fit in
 * memory (a snapshot that fails stops the snapshots, not the run). */
int bh_nbody_run(const bh_nbody_opts *o, bh_nbody_diag *diag, int cap, int *ndiag);
#endif
