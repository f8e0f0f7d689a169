/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A gas run's collisionless particles (block.h TIDE_NBODY) as SWIFT's PartType1
 * (src/nbody_swift.c), for a snapshot writer's types[1]: Coordinates, Velocities, Masses and
 * ParticleIDs, the layout of swift_io.h (which a run's initial.file reads back, gas_input.h). */
#ifndef TIDE_NBODY_SWIFT_H
#define TIDE_NBODY_SWIFT_H
#include <stdint.h>
#include "swift_io.h"
#include "tide/block.h"

/* The arrays PartType1 points into (the views' collisionless particles in view order). */
typedef struct tide_nbody_swift {
	double *pos;
	float *vel, *mass;
	uint64_t *id;
} tide_nbody_swift;

/* Fills *buf from the collisionless particles of v[0..nv) (staged with their masses) and points
 * *out at it (n = 0 when there are none).  0, or -1 (out of memory; *buf freed). */
int tide_nbody_swift_out(const tide_block_view *v, int nv, tide_nbody_swift *buf,
                         tide_swift_out *out);
void tide_nbody_swift_free(tide_nbody_swift *buf);
#endif
