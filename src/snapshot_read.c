// SPDX-License-Identifier: LGPL-2.1-or-later
// What the snapshot readers share (src/snapshot_read.h): the field table, the checked
// store of decoded values into a particle set, the messages, and the choice of reader by the
// file's extension.
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "h5_read.h"
#include "snapshot_read.h"
#include "vtp_read.h"

static const char *const names[TIDE_NFIELDS] = { "Points", "Velocity", "Density", "Pressure",
                                                 "Type", "Id" };

const char *tide_field_name(int field) { return names[field]; }

int tide_field_ncomp(int field)
{
	return field == TIDE_FIELD_POSITION || field == TIDE_FIELD_VELOCITY ? 3 : 1;
}

int tide_read_fail(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("tide: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs(".\n", stderr);
	va_end(ap);
	return code;
}

int tide_read_nomem(const char *path)
{
	return tide_read_fail(TIDE_READ_IO, "cannot read %s: out of memory", path);
}

int tide_read_ioerr(const char *path)
{
	return tide_read_fail(TIDE_READ_IO, "cannot read %s: %s", path, strerror(errno ? errno : EIO));
}

FILE *tide_read_open(const char *path, int *rc)
{
	FILE *f = fopen(path, "rb");
	if (f) return f;
	int e = errno;
	/* a missing file is the user's mistake (bad input); anything else the system's */
	*rc = tide_read_fail(e == ENOENT || e == ENOTDIR || e == EISDIR ? TIDE_READ_BAD : TIDE_READ_IO,
	                     "cannot read %s: %s", path, strerror(e));
	return NULL;
}

static int bad_value(const tide_field_sink *k, size_t particle, double v, const char *allowed)
{
	return tide_read_fail(TIDE_READ_BAD, "%s is damaged: particle %zu has %s %g (%s)", k->path,
	                      particle, names[k->field], v, allowed);
}

int tide_field_store(const tide_field_sink *k, uint64_t first, const double *v, size_t count)
{
	tide_particle_set *s = k->s;
	int nc = tide_field_ncomp(k->field);
	for (size_t j = 0; j < count; j++) {
		uint64_t q = first + j;
		size_t i = k->base + (size_t)(q / (uint64_t)nc);
		int d = (int)(q % (uint64_t)nc);
		double x = v[j];
		switch (k->field) {
		case TIDE_FIELD_POSITION:
			if (!isfinite(x)) return bad_value(k, i, x, "positions must be finite");
			(d == 0 ? s->x : d == 1 ? s->y : s->z)[i] = x;
			break;
		case TIDE_FIELD_VELOCITY:
			if (!(fabs(x) <= FLT_MAX))
				return bad_value(k, i, x, "velocities must be finite floats");
			(d == 0 ? s->vx : d == 1 ? s->vy : s->vz)[i] = (float)x;
			break;
		case TIDE_FIELD_DENSITY:
			if (!(x > 0.0 && x <= FLT_MAX))
				return bad_value(k, i, x, "densities must be positive and finite");
			s->rho[i] = (float)x;
			break;
		case TIDE_FIELD_PRESSURE:
			if (!(fabs(x) <= FLT_MAX)) return bad_value(k, i, x, "pressures must be finite floats");
			k->pressure[i] = (float)x;
			break;
		case TIDE_FIELD_TYPE:
			if (x != TIDE_FLUID && x != TIDE_BOUND)
				return bad_value(k, i, x, "0 fluid and 1 boundary are allowed");
			s->type[i] = (uint32_t)x;
			break;
		default:   /* TIDE_FIELD_ID */
			if (!(x >= 0.0 && x <= 4294967295.0 && x == floor(x)))
				return bad_value(k, i, x, "ids are whole numbers from 0 to 2^32 - 1");
			s->id[i] = (uint32_t)x;
		}
	}
	return 0;
}

void tide_fields_fill_missing(tide_particle_set *s, unsigned have)
{
	size_t n = s->n;
	if (!(have & TIDE_READ_BIT(TIDE_FIELD_VELOCITY)))
		for (size_t i = 0; i < n; i++) s->vx[i] = s->vy[i] = s->vz[i] = 0.f;
	if (!(have & TIDE_READ_BIT(TIDE_FIELD_DENSITY))) memset(s->rho, 0, n * sizeof *s->rho);
	if (!(have & TIDE_READ_BIT(TIDE_FIELD_TYPE))) memset(s->type, 0, n * sizeof *s->type);
	if (!(have & TIDE_READ_BIT(TIDE_FIELD_ID)))
		for (size_t i = 0; i < n; i++) s->id[i] = (uint32_t)i;
}

int tide_field_missing(const char *path, int field, unsigned need)
{
	char list[128] = "";
	need |= TIDE_READ_BIT(TIDE_FIELD_POSITION);
	for (int f = 0; f < TIDE_NFIELDS; f++)
		if (need & TIDE_READ_BIT(f))
			snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", *list ? ", " : "",
			         names[f]);
	return tide_read_fail(TIDE_READ_BAD, "%s has no %s array, which is needed here (needed: %s; "
	                      "was it written with output.fields leaving %s out?)", path, names[field],
	                      list, names[field]);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

int tide_snapshot_read(const char *path, unsigned need, tide_particle_set *s, float **pressure,
                       unsigned *have, double *t, int *have_t)
{
	*have_t = 0;
	if (ends_with(path, ".h5")) return tide_h5_read(path, need, s, pressure, have, t, have_t);
	if (ends_with(path, ".vtp")) return tide_vtp_read_fields(path, need, s, pressure, have);
	s->n = 0;
	if (pressure) *pressure = NULL;
	return tide_read_fail(TIDE_READ_BAD, "%s is neither a .vtp nor a .h5 particle file", path);
}

int tide_series_read(const char *path, tide_pvd_list *l)
{
	if (ends_with(path, ".xmf")) return tide_xmf_read(path, l);
	return tide_pvd_read(path, l);
}

int tide_pvd_list_add(tide_pvd_list *l, const char *series_path, const char *file, double t)
{
	char **nf = realloc(l->file, (l->n + 1) * sizeof *nf);
	if (nf) l->file = nf;
	double *nt = nf ? realloc(l->time, (l->n + 1) * sizeof *nt) : NULL;
	if (nt) l->time = nt;
	const char *slash = strrchr(series_path, '/');
	size_t dir = file[0] == '/' || !slash ? 0 : (size_t)(slash - series_path) + 1;
	char *full = nt ? malloc(dir + strlen(file) + 1) : NULL;
	if (!full) return tide_read_nomem(series_path);
	memcpy(full, series_path, dir);
	strcpy(full + dir, file);
	l->file[l->n] = full;
	l->time[l->n++] = t;
	return 0;
}

void tide_pvd_list_free(tide_pvd_list *l)
{
	for (size_t i = 0; i < l->n; i++) free(l->file[i]);
	free(l->file);
	free(l->time);
	memset(l, 0, sizeof *l);
}
