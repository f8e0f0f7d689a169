/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Self-gravity of the SPH fluid (case section physics.self_gravity): the Barnes-Hut solver of
 * bh_gravity.h over the fluid particles of every block, its field added to their acceleration
 * after sph_forces.  tasks/sph_gravity.c keeps the data; tasks/sph_step.c submits the tasks:
 *   sgrav_gather (all blocks -> bodies, gather index in the spare velocity word, block offsets)
 *   -> bh_build -> bh_moments -> bh_walk (tasks/gravity.c)
 *   -> sgrav_unsort (Morton order -> gather order)
 *   -> sgrav_apply per block (a += g for fluid; CFL force limit into the step reduction). */
#ifndef TIDE_SPH_GRAVITY_H
#define TIDE_SPH_GRAVITY_H
#include <starpu.h>
#include "tide/bh_gravity.h"
#include "tide/codelets.h"

struct tide_sim;

typedef struct tide_sph_gravity {
	tide_gravity g;                  /* this rank's bodies, tree and walk (+ essential nodes) */
	bh_params bp;
	uint32_t n;                      /* this rank's bodies (see sph_gravity.c) */
	bh_body *body;                   /* host arrays of g (StarPU keeps them on the device) */
	float *vel;
	bh_acc *acc;
	starpu_data_handle_t accg;       /* bh_acc[n]: the field in gather order */
	starpu_data_handle_t offs;       /* uint32[own blocks + 1]: each own block's first body */
	tide_sgrav_gather_arg gather;
	tide_sgrav_unsort_arg unsort;
	enum tide_where where;
	int nown, *own;                  /* this rank's blocks, in block order */
	int *lidx;                       /* per block: its index among its owner's blocks */
	/* several ranks: accg and offs of every rank (this rank's are the two above), MPI tags */
	int mpi, rank, size;
	starpu_data_handle_t *accg_r, *offs_r;
	int64_t tag0;
} tide_sph_gravity;

/* Sets sim->grav for a case with self-gravity (NULL otherwise).  0, or -1 with a message. */
int tide_sph_gravity_init(struct tide_sim *sim);
void tide_sph_gravity_fini(struct tide_sim *sim);
/* Before a step's gravity tasks: registers the bodies again when the particle count changed
 * (one rank: particles left the domain; the last step's reduction says how many there are). */
void tide_sph_gravity_prepare(struct tide_sim *sim);
#endif
