/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fluid force and torque on floating bodies (issue 22, include/tide/rigid.h): what the
 * codelet body_force reduces over one block's particles, on the CPU and the GPU.
 *
 * A floating body's particles are found as a moving body's are (motion.h): by a contiguous range
 * of particle ids, passed by value, so a plain run keeps its 77 bytes per particle.  Particle k
 * of body j adds m_k a_k to F_j and (x_k - c_j) x m_k a_k to T_j, a_k its pair acceleration
 * from sph_forces (the fluid's pressure and viscosity on it, gravity not included: the body's
 * weight is M g, rigid.h) and c_j the body's centre at the force pass.  Sums in double: a body
 * of 10^5 particles whose forces nearly cancel (a floating body at rest: buoyancy against
 * weight) keeps its net force to round-off of the net, not of the parts. */
#ifndef TIDE_BODY_FORCE_H
#define TIDE_BODY_FORCE_H
#include <stdint.h>
#include "tide/block.h"
#include "tide/hd.h"
#include "tide/motion.h"

/* What a body_force task gets (by value): the bodies' id ranges and centres. */
typedef struct tide_body_force_arg {
	int n;
	uint32_t id0[TIDE_MOTION_MAX_BODIES], id1[TIDE_MOTION_MAX_BODIES];
	double c[TIDE_MOTION_MAX_BODIES][3];
} tide_body_force_arg;

/* One block's sums (the task's output, a StarPU variable): F then T of every body. */
typedef struct tide_body_sums {
	double s[TIDE_MOTION_MAX_BODIES][6];
} tide_body_sums;

/* Particle i's share of F and T of body j (f: 6 values), if it belongs to body j. */
TIDE_HD int tide_body_force_particle(const tide_body_force_arg *A, int j, float mass,
                                     const tide_block_view *v, uint32_t i, double f[6])
{
	uint32_t id = v->id[i];
	if (v->type[i] == TIDE_FLUID || id < A->id0[j] || id >= A->id1[j]) return 0;
	double m = (double)mass;
	double F[3] = {m * (double)v->ax[i], m * (double)v->ay[i], m * (double)v->az[i]};
	double r[3] = {v->x[i] - A->c[j][0], v->y[i] - A->c[j][1], v->z[i] - A->c[j][2]};
	f[0] = F[0];
	f[1] = F[1];
	f[2] = F[2];
	f[3] = r[1] * F[2] - r[2] * F[1];
	f[4] = r[2] * F[0] - r[0] * F[2];
	f[5] = r[0] * F[1] - r[1] * F[0];
	return 1;
}

#endif
