/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sinks as PartType5 of a gas run's SWIFT/GADGET snapshots (src/sinks_swift.c): written
 * with the run's snapshots (swift_output.h, from the table at the output's time) and read back
 * into the sink table when a run starts from such a snapshot (initial.file). */
#ifndef TIDE_SINKS_SWIFT_H
#define TIDE_SINKS_SWIFT_H
#include <stdint.h>
#include "swift_io.h"
#include "tide/case.h"
#include "tide/sinks.h"

/* The sinks' ParticleIDs: their table ids above every gas id (2^40 + id). */
#define TIDE_SINK_ID_BASE (1ull << 40)
/* The particle type of the sinks (the choice, GADGET-4's and GIZMO's type 5; SWIFT
 * itself keeps its sinks in PartType3). */
#define TIDE_SINK_SWIFT_TYPE 5

/* The arrays PartType5 points into (the table's sinks, in table order). */
typedef struct tide_sinks_swift {
	double pos[TIDE_SINK_MAX * 3];
	float vel[TIDE_SINK_MAX * 3];
	float mass[TIDE_SINK_MAX];
	uint64_t id[TIDE_SINK_MAX];
} tide_sinks_swift;

/* Fills *buf from the n sinks s[0..n) (n = 0: none) and points *out (PartType5: Coordinates,
 * Velocities, Masses, ParticleIDs) at it. */
void tide_sinks_swift_out(const tide_sink_state *s, int n, tide_sinks_swift *buf,
                          tide_swift_out *out);

/* The sinks of the SWIFT file at path (its PartType5; none when it has no such group) into
 * *out, in the case's units as the gas reader converts them (call after tide_gas_input_build,
 * which sets a code-unit case's units from the file): position, velocity (as the half-step
 * velocity too, with no kick pending), mass (also as the mass accreted), id (ParticleIDs -
 * 2^40), time of creation the file's time.  Returns 0; 2 after one sentence naming the file
 * and the problem (more sinks than sinks.max, a sink id used twice); 1 out of memory. */
int tide_sinks_swift_read(const char *path, const tide_case *c, tide_sinks_saved *out);
#endif
