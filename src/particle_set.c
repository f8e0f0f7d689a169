// SPDX-License-Identifier: LGPL-2.1-or-later
// Growable host particle set (structure of arrays).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "particle_set.h"

static int grow(void **p, size_t elem, size_t cap)
{
	void *q = realloc(*p, elem * cap);
	if (!q) return -1;
	*p = q;
	return 0;
}

int tide_pset_reserve(tide_particle_set *s, size_t cap)
{
	if (cap <= s->cap || s->mode) return 0; /* counting and fixed sets do not grow */
	if (grow((void **)&s->x, sizeof(double), cap) || grow((void **)&s->y, sizeof(double), cap) ||
	    grow((void **)&s->z, sizeof(double), cap) || grow((void **)&s->vx, sizeof(float), cap) ||
	    grow((void **)&s->vy, sizeof(float), cap) || grow((void **)&s->vz, sizeof(float), cap) ||
	    grow((void **)&s->rho, sizeof(float), cap) || grow((void **)&s->id, sizeof(uint32_t), cap) ||
	    grow((void **)&s->type, sizeof *s->type, cap) || grow((void **)&s->nx, sizeof(float), cap) ||
	    grow((void **)&s->ny, sizeof(float), cap) || grow((void **)&s->nz, sizeof(float), cap)) {
		fprintf(stderr, "tide: out of host memory for %zu particles (%zu MiB)%s.\n", cap,
		        cap * 64 >> 20, TIDE_OOM_ADVICE);
		return -1;
	}
	/* readers fill the other fields themselves, not the normals */
	for (size_t i = s->cap; i < cap; i++) s->nx[i] = s->ny[i] = s->nz[i] = 0.f;
	s->cap = cap;
	return 0;
}

int tide_pset_push(tide_particle_set *s, double x, double y, double z, float rho, uint32_t type)
{
	if (s->mode == TIDE_PSET_COUNT) {
		s->n++;
		return 0;
	}
	if (s->n == s->cap) {
		if (s->mode == TIDE_PSET_FIXED) {
			fprintf(stderr, "tide: internal error: a builder made more than the %zu particles "
			        "it counted.\n", s->cap);
			return -1;
		}
		if (tide_pset_reserve(s, s->cap ? 2 * s->cap : 1024)) return -1;
	}
	size_t i = s->n++;
	s->x[i] = x; s->y[i] = y; s->z[i] = z;
	s->vx[i] = s->vy[i] = s->vz[i] = 0.f;
	s->rho[i] = rho;
	s->id[i] = (uint32_t)i;
	s->type[i] = (uint8_t)type;
	if (s->nx) s->nx[i] = s->ny[i] = s->nz[i] = 0.f;
	return 0;
}

void tide_pset_set_normal(tide_particle_set *s, double nx, double ny, double nz)
{
	if (s->mode == TIDE_PSET_COUNT || !s->nx || s->n == 0) return;
	size_t i = s->n - 1;
	s->nx[i] = (float)nx;
	s->ny[i] = (float)ny;
	s->nz[i] = (float)nz;
}

void tide_pset_mark(tide_particle_set *s)
{
	if (s->mark) s->mark[s->nmark++] = s->n;
}

void tide_pset_free(tide_particle_set *s)
{
	if (s->mode) { /* nothing of its own */
		memset(s, 0, sizeof *s);
		return;
	}
	free(s->x); free(s->y); free(s->z); free(s->vx); free(s->vy); free(s->vz);
	free(s->rho); free(s->id); free(s->type); free(s->nx); free(s->ny); free(s->nz);
	memset(s, 0, sizeof *s);
}

size_t tide_pset_count_type(const tide_particle_set *s, uint32_t type)
{
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) k += s->type[i] == type;
	return k;
}
