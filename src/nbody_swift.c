// SPDX-License-Identifier: LGPL-2.1-or-later
// The collisionless particles of a gas run as SWIFT's PartType1 (src/nbody_swift.h).
#include <stdlib.h>
#include <string.h>
#include "nbody_swift.h"
#include "tide/gas_math.h"   /* TIDE_GAS_MASS */

void tide_nbody_swift_free(tide_nbody_swift *buf)
{
	free(buf->pos); free(buf->vel); free(buf->mass); free(buf->id);
	memset(buf, 0, sizeof *buf);
}

int tide_nbody_swift_out(const tide_block_view *v, int nv, tide_nbody_swift *buf,
                         tide_swift_out *out)
{
	memset(out, 0, sizeof *out);
	memset(buf, 0, sizeof *buf);
	uint64_t n = 0, k = 0;
	for (int b = 0; b < nv; b++)
		for (uint32_t i = 0; i < v[b].count; i++) n += v[b].type[i] == TIDE_NBODY;
	size_t m = n ? (size_t)n : 1;
	buf->pos = malloc(3 * m * sizeof(double));
	buf->vel = malloc(3 * m * sizeof(float));
	buf->mass = malloc(m * sizeof(float));
	buf->id = malloc(m * sizeof(uint64_t));
	if (!buf->pos || !buf->vel || !buf->mass || !buf->id) {
		tide_nbody_swift_free(buf);
		return -1;
	}
	for (int b = 0; b < nv; b++) {
		const tide_block_view *w = &v[b];
		for (uint32_t i = 0; i < w->count; i++) {
			if (w->type[i] != TIDE_NBODY) continue;
			buf->pos[3 * k] = w->x[i]; buf->pos[3 * k + 1] = w->y[i]; buf->pos[3 * k + 2] = w->z[i];
			buf->vel[3 * k] = w->vx[i]; buf->vel[3 * k + 1] = w->vy[i]; buf->vel[3 * k + 2] = w->vz[i];
			buf->mass[k] = w->TIDE_GAS_MASS[i];
			buf->id[k++] = w->id[i];
		}
	}
	out->n = n;
	out->pos = buf->pos;
	out->vel = buf->vel;
	out->mass = buf->mass;
	out->id = buf->id;
	return 0;
}
