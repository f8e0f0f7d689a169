// SPDX-License-Identifier: LGPL-2.1-or-later
// The sinks as SWIFT's PartType5 (the type SWIFT and GADGET-4 give sink particles): a snapshot
// writer that writes a gas run's particles with src/swift_io.c sets its types[5] from here.
#include <string.h>
#include "sinks_swift.h"

void tide_sinks_swift_out(const tide_sinks *T, tide_sinks_swift *buf, tide_swift_out *out)
{
	memset(out, 0, sizeof *out);
	int n = T ? T->n : 0;
	for (int s = 0; s < n; s++) {
		for (int k = 0; k < 3; k++) {
			buf->pos[3 * s + k] = T->s[s].x[k];
			buf->vel[3 * s + k] = (float)T->s[s].v[k];
		}
		buf->mass[s] = (float)T->s[s].m;
		buf->id[s] = TIDE_SINK_ID_BASE + T->s[s].id;
	}
	out->n = (uint64_t)n;
	out->pos = buf->pos;
	out->vel = buf->vel;
	out->mass = buf->mass;
	out->id = buf->id;
}
