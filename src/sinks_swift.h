/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sinks as SWIFT's PartType5 (src/sinks_swift.c), for a snapshot writer's types[5]. */
#ifndef TIDE_SINKS_SWIFT_H
#define TIDE_SINKS_SWIFT_H
#include <stdint.h>
#include "swift_io.h"
#include "tide/sinks.h"

/* The sinks' ParticleIDs: their table ids above every gas id (2^40 + id). */
#define TIDE_SINK_ID_BASE (1ull << 40)

/* The arrays PartType5 points into (the table's sinks, in table order). */
typedef struct tide_sinks_swift {
	double pos[TIDE_SINK_MAX * 3];
	float vel[TIDE_SINK_MAX * 3];
	float mass[TIDE_SINK_MAX];
	uint64_t id[TIDE_SINK_MAX];
} tide_sinks_swift;

/* Fills *buf from T (NULL: no sinks) and points *out (PartType5: Coordinates, Velocities,
 * Masses, ParticleIDs) at it. */
void tide_sinks_swift_out(const tide_sinks *T, tide_sinks_swift *buf, tide_swift_out *out);
#endif
