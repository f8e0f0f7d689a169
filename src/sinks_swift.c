// SPDX-License-Identifier: LGPL-2.1-or-later
// The sinks as PartType5 of a gas run's SWIFT snapshots (src/sinks_swift.h): written from the
// table at an output's time, read back into the table for a run started from a snapshot.
#include <string.h>
#include "sinks_swift.h"
#include "snapshot_read.h"
#include "swift_output.h"   /* tide_swift_case_units */

void tide_sinks_swift_out(const tide_sink_state *s, int n, tide_sinks_swift *buf,
                          tide_swift_out *out)
{
	memset(out, 0, sizeof *out);
	for (int k = 0; k < n; k++) {
		for (int j = 0; j < 3; j++) {
			buf->pos[3 * k + j] = s[k].x[j];
			buf->vel[3 * k + j] = (float)s[k].v[j];
		}
		buf->mass[k] = (float)s[k].m;
		buf->id[k] = TIDE_SINK_ID_BASE + s[k].id;
	}
	out->n = (uint64_t)n;
	out->pos = buf->pos;
	out->vel = buf->vel;
	out->mass = buf->mass;
	out->id = buf->id;
}

int tide_sinks_swift_read(const char *path, const tide_case *c, tide_sinks_saved *out)
{
	memset(out, 0, sizeof *out);
	if (!tide_swift_has_type(path, TIDE_SINK_SWIFT_TYPE)) return 0;
	tide_swift_set s;
	int rc = tide_swift_read(path, 1u << TIDE_SINK_SWIFT_TYPE, 0, 0, &s);
	if (rc) return rc;
	uint64_t n = s.count[TIDE_SINK_SWIFT_TYPE];
	int max = c->sinks.max > 0 && c->sinks.max <= TIDE_SINK_MAX ? c->sinks.max : TIDE_SINK_MAX;
	if (n > (uint64_t)max)
		rc = tide_read_fail(TIDE_READ_BAD, "%s holds %llu PartType5 (sink) particles, more than "
		                    "the case's sinks.max = %d; allowed: at most sinks.max (<= %d)", path,
		                    (unsigned long long)n, max, TIDE_SINK_MAX);
	/* the case's units, as the gas reader converts the file's (gas_input.c) */
	double fl = 1, fm = 1, ft = 1;
	if (s.have_units) {
		tide_swift_units cu = tide_swift_case_units(c);
		fl = s.units.length / cu.length;
		fm = s.units.mass / cu.mass;
		ft = s.units.time / cu.time;
	}
	double t = s.have_time ? s.time * ft : 0.0;
	for (uint64_t k = 0; k < n && !rc; k++) {
		tide_sink_state *p = &out->s[k];
		uint64_t id = s.id[k] >= TIDE_SINK_ID_BASE ? s.id[k] - TIDE_SINK_ID_BASE : s.id[k];
		if (id >= UINT32_MAX) {
			rc = tide_read_fail(TIDE_READ_BAD, "%s: PartType5/ParticleIDs holds %llu; sink ids "
			                    "are 2^40 + a 32-bit number (or a 32-bit number)", path,
			                    (unsigned long long)s.id[k]);
			break;
		}
		p->id = (uint32_t)id;
		for (uint64_t j = 0; j < k && !rc; j++)
			if (out->s[j].id == p->id)
				rc = tide_read_fail(TIDE_READ_BAD, "%s: PartType5/ParticleIDs holds %llu twice; "
				                    "every sink needs its own id", path, (unsigned long long)s.id[k]);
		p->m = p->m_acc = s.mass[k] * fm;
		for (int j = 0; j < 3; j++) {
			p->x[j] = s.pos[3 * k + j] * fl;
			/* v is the velocity at the step's end: as the half-step velocity with dtk = 0,
			 * the first kick, 0.5 (0 + dt) a, is the leapfrog's second half-kick */
			p->v[j] = p->vh[j] = s.vel[3 * k + j] * fl / ft;
		}
		p->t_form = t;
		if (p->id >= out->next_id) out->next_id = p->id + 1;
	}
	if (!rc) out->n = (int32_t)n;
	tide_swift_set_free(&s);
	if (rc) memset(out, 0, sizeof *out);
	return rc;
}
