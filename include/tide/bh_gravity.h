/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One Barnes–Hut force evaluation as StarPU tasks (tasks/gravity.c), used by tide gravity,
 * tide nbody and the tests.  The caller owns the particle arrays; while registered they belong
 * to StarPU, and after tide_gravity_fini they hold the Morton-sorted particles, and acc their
 * accelerations and potentials. */
#ifndef TIDE_BH_GRAVITY_H
#define TIDE_BH_GRAVITY_H
#include <starpu.h>
#include "tide/bh_codelets.h"

#define TIDE_GRAVITY_MAX_PARTS 64

enum tide_gravity_where { TIDE_WHERE_ANY = 0, TIDE_WHERE_CPU = 1, TIDE_WHERE_CUDA = 2 };

typedef struct tide_gravity {
	uint32_t n;
	int nparts;                 /* walk tasks, each on a contiguous range of sorted particles */
	bh_params P;
	bh_body *body;              /* n (at least 1) */
	float *vel;                 /* 4 n floats: vx, vy, vz, spare; permuted with the bodies */
	bh_acc *acc;                /* n: ax, ay, az, potential (Morton order) */
	bh_range part[TIDE_GRAVITY_MAX_PARTS];
	starpu_data_handle_t hbody, hvel, hcells, hmeta, hgroups, hmom, hbscr, hwscr;
	starpu_data_handle_t hacc[TIDE_GRAVITY_MAX_PARTS];
	struct starpu_codelet build_cl, moments_cl, walk_cl, kick_cl, drift_cl;
} tide_gravity;

/* Registers the arrays.  nparts <= 0: one walk task per CPU worker without GPU, else one. */
void tide_gravity_init(tide_gravity *g, bh_body *body, float *vel, bh_acc *acc, uint32_t n,
                       bh_params P, int nparts, enum tide_gravity_where where);
/* Submit the three steps of one force evaluation (asynchronous). */
void tide_gravity_submit_build(tide_gravity *g);
void tide_gravity_submit_moments(tide_gravity *g);
void tide_gravity_submit_walk(tide_gravity *g);
static inline void tide_gravity_submit_forces(tide_gravity *g)
{
	tide_gravity_submit_build(g);
	tide_gravity_submit_moments(g);
	tide_gravity_submit_walk(g);
}
/* Leapfrog parts: v += a dt (from the last walk), x += v dt. */
void tide_gravity_submit_kick(tide_gravity *g, float dt);
void tide_gravity_submit_drift(tide_gravity *g, float dt);
/* Number of cells and groups of the last build (waits for it). */
void tide_gravity_tree_size(tide_gravity *g, int32_t *ncells, int32_t *ngroups);
/* Makes body, vel and acc valid on the host until tide_gravity_release. */
void tide_gravity_acquire(tide_gravity *g);
void tide_gravity_release(tide_gravity *g);
void tide_gravity_fini(tide_gravity *g);

/* Double-precision direct sum for the particles sample[0..ns) of body[0..n) (tasks over
 * sample chunks, on CPU or GPU); out: 4 doubles per sample.  Synchronous. */
void tide_gravity_direct(const bh_body *body, uint32_t n, const uint32_t *sample, uint32_t ns,
                         bh_params P, double *out, enum tide_gravity_where where);

/* Relative acceleration errors |a_tree - a_direct| / |a_direct| of the samples: median, 99th
 * percentile and maximum. */
typedef struct tide_gravity_err {
	double median, p99, max, pot_p99;
} tide_gravity_err;
tide_gravity_err tide_gravity_errors(const bh_acc *acc, const uint32_t *sample, uint32_t ns,
                                     const double *ref);
#endif
