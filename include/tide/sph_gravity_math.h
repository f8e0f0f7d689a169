/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Per-particle steps of the SPH self-gravity (codelets/sgrav_*), written once for the CPU and
 * CUDA codelets: a particle made into a Barnes-Hut body, and the field added to a fluid
 * particle with its time-step limit. */
#ifndef TIDE_SPH_GRAVITY_MATH_H
#define TIDE_SPH_GRAVITY_MATH_H
#include <math.h>
#include <string.h>
#include "tide/bh_tree.h"
#include "tide/block.h"
#include "tide/gas_math.h"   /* TIDE_GAS_H */
#include "tide/sink.h"       /* TIDE_SINK_POT */
#include "tide/sph_params.h"

/* The gather index travels as the bits of the fourth velocity component: bh_build moves the
 * 16 bytes of a body's velocity with it and nothing computes with them. */
TIDE_HD void tide_sgrav_set_id(float *vel4, uint32_t id)
{
	vel4[0] = vel4[1] = vel4[2] = 0.f;
	memcpy(&vel4[3], &id, sizeof id);
}
TIDE_HD uint32_t tide_sgrav_get_id(const float *vel4)
{
	uint32_t id;
	memcpy(&id, &vel4[3], sizeof id);
	return id;
}

/* The softening of a body from its particle's smoothing length (physics.self_gravity.h_factor:
 * eps = h_factor h, in the velocity's first word, bh_body_eps), after tide_sgrav_set_id. */
TIDE_HD void tide_sgrav_set_eps(const tide_block_view *v, uint32_t i, float h_factor,
                                float eps_nbody, float *vel4)
{
	/* a collisionless particle has no h: its fixed softening (gas_math.h) */
	if (h_factor > 0.f && v->type[i] == TIDE_NBODY) vel4[0] = eps_nbody;
	else vel4[0] = h_factor > 0.f ? h_factor * v->TIDE_GAS_H[i] : 0.f;
}

/* Particle i of a block as body k: position relative to the centre (so that float keeps its
 * digits far from the origin), the fluid mass (mass < 0: the particle's own, the gas scheme's
 * TIDE_GAS_MASS); boundary particles are walls, not matter: mass 0 (they neither attract nor,
 * in sgrav_apply, feel the field). */
TIDE_HD void tide_sgrav_body(const tide_block_view *v, uint32_t i, const double *centre,
                             float mass, bh_body *b)
{
	b->x = (float)(v->x[i] - centre[0]);
	b->y = (float)(v->y[i] - centre[1]);
	b->z = (float)(v->z[i] - centre[2]);
	b->m = v->type[i] == TIDE_BOUND ? 0.f : mass >= 0.f ? mass : v->TIDE_GAS_MASS[i];
}

/* Adds the self-gravity g to fluid particle i's acceleration; returns the CFL force limit
 * cfl sqrt(h/|a|) of the new total (h: the particle's under the gas scheme) (3e38: none), and sets *bad when it is not finite. */
TIDE_HD float tide_sgrav_add(const tide_sph_params *P, tide_block_view *v, uint32_t i,
                             const bh_acc *g, int *bad)
{
	*bad = 0;
	if (v->type[i] == TIDE_BOUND) return 3.0e38f;
	float ax = v->ax[i] + g->ax, ay = v->ay[i] + g->ay, az = v->az[i] + g->az;
	v->ax[i] = ax;
	v->ay[i] = ay;
	v->az[i] = az;
	/* runs with sinks keep the potential, for their creation test (sink.h) */
	if (v->naux >= TIDE_SINK_NAUX) v->TIDE_SINK_POT[i] = g->pot;
	float a = sqrtf(ax * ax + ay * ay + az * az);
	if (!isfinite(a)) {
		*bad = 1;
		return 3.0e38f;
	}
	if (v->type[i] == TIDE_NBODY) return tide_gas_nbody_dt(P, ax, ay, az);
	/* the gas scheme's particles have their own h (gas_math.h); P->h is its h_max there */
	float h = P->scheme == TIDE_SCHEME_GAS ? v->TIDE_GAS_H[i] : P->h;
	return a > 0.f ? P->cfl * sqrtf(h / a) : 3.0e38f;
}
#endif
