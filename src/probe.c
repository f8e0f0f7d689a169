// SPDX-License-Identifier: LGPL-2.1-or-later
// tide probe: measuring points from the command line or a CSV file, and the CSV rows of one
// snapshot.  The measurements themselves are the gauges' (src/gauges.c): Shepard-interpolated
// fields and the water height, on one fluid grid per snapshot.
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "output.h"
#include "probe.h"
#include "vtp_read.h"

static int push(tide_point_list *l, const double p[3])
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		double (*q)[3] = realloc(l->p, cap * sizeof *q);
		if (!q) {
			fprintf(stderr, "tide probe: out of memory for %zu points.\n", cap);
			return TIDE_READ_IO;
		}
		l->p = q;
		l->cap = cap;
	}
	memcpy(l->p[l->n++], p, sizeof l->p[0]);
	return 0;
}

/* Up to 4 comma-separated numbers (spaces allowed around them) from [s, end); how many, or -1. */
static int numbers(const char *s, const char *end, double *v)
{
	int n = 0;
	for (;;) {
		while (s < end && isspace((unsigned char)*s)) s++;
		char buf[64], *stop;
		size_t len = 0;
		while (s + len < end && s[len] != ',') len++;
		if (len == 0 || len >= sizeof buf || n == 4) return -1;
		memcpy(buf, s, len);
		buf[len] = '\0';
		errno = 0;
		v[n] = strtod(buf, &stop);
		while (isspace((unsigned char)*stop)) stop++;
		if (stop == buf || *stop || errno == ERANGE || !isfinite(v[n])) return -1;
		n++;
		s += len;
		if (s == end) return n;
		s++;   /* the comma */
	}
}

/* One point from [s, end): 3 numbers, or 2 (x, z) in a 2-D case; 0 or -1. */
static int point(const char *s, const char *end, int dim, double p[3])
{
	double v[4];
	int n = numbers(s, end, v);
	if (n == 3) { p[0] = v[0]; p[1] = v[1]; p[2] = v[2]; return 0; }
	if (n == 2 && dim == 2) { p[0] = v[0]; p[1] = 0.0; p[2] = v[1]; return 0; }
	return -1;
}

static const char *point_form(int dim) { return dim == 2 ? "x,y,z or x,z" : "x,y,z"; }

int tide_points_add_point(tide_point_list *l, const char *spec, int dim)
{
	double p[3];
	if (point(spec, spec + strlen(spec), dim, p)) {
		fprintf(stderr, "tide probe: --point '%s' is not a point; expected %s in metres.\n", spec,
		        point_form(dim));
		return TIDE_READ_BAD;
	}
	return push(l, p);
}

/* Points of one --line: 10^7 rows per snapshot is already a 1 GB CSV. */
#define LINE_MAX_POINTS 10000000

int tide_points_add_line(tide_point_list *l, const char *spec, int dim)
{
	const char *c1 = strchr(spec, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	double a[3], b[3];
	char *end;
	long n = c2 ? strtol(c2 + 1, &end, 10) : 0;
	if (!c2 || point(spec, c1, dim, a) || point(c1 + 1, c2, dim, b) || c2[1] == '\0' || *end ||
	    n < 2 || n > LINE_MAX_POINTS) {
		fprintf(stderr, "tide probe: --line '%s' is not a line; expected FROM:TO:N with FROM and "
		        "TO points (%s, metres) and N from 2 to %d points.\n", spec, point_form(dim),
		        LINE_MAX_POINTS);
		return TIDE_READ_BAD;
	}
	for (long k = 0; k < n; k++) {
		double f = (double)k / (double)(n - 1), p[3];
		for (int d = 0; d < 3; d++) p[d] = k == n - 1 ? b[d] : a[d] + f * (b[d] - a[d]);
		int rc = push(l, p);
		if (rc) return rc;
	}
	return 0;
}

/* Why a line read by fgets is not a text line of a points file, or NULL. */
static const char *text_problem(const char *line, FILE *f)
{
	size_t len = strlen(line);
	if (len == 0) return "holds a NUL byte (binary data, not text)";
	for (size_t k = 0; k < len; k++) {
		unsigned char ch = (unsigned char)line[k];
		if ((ch < 32 && ch != '\t' && ch != '\n' && ch != '\r') || ch == 127)
			return "holds control characters (binary data, not text)";
		if (ch >= 0x80) {   /* only as part of a UTF-8 sequence */
			int more = ch >= 0xc2 && ch <= 0xdf ? 1 : ch >= 0xe0 && ch <= 0xef ? 2
			         : ch >= 0xf0 && ch <= 0xf4 ? 3 : -1;
			for (int j = 1; j <= more; j++)
				if (((unsigned char)line[k + (size_t)j] & 0xc0) != 0x80) more = -1;
			if (more < 0) return "is not UTF-8 text (binary data?)";
			k += (size_t)more;
		}
	}
	/* fgets stops at a NUL too: the line then looks short but more follows without '\n' */
	if (line[len - 1] != '\n' && !feof(f))
		return len + 1 == 4096 ? "is longer than 4094 characters"
		                       : "holds a NUL byte (binary data, not text)";
	return NULL;
}

int tide_points_add_file(tide_point_list *l, const char *path, int dim)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		int e = errno;
		fprintf(stderr, "tide probe: cannot read the points file %s: %s.\n", path, strerror(e));
		return e == ENOENT || e == ENOTDIR || e == EISDIR ? TIDE_READ_BAD : TIDE_READ_IO;
	}
	char line[4096];
	int lineno = 0, first = 1, rc = 0;
	size_t before = l->n;
	while (!rc && fgets(line, sizeof line, f)) {
		lineno++;
		/* A binary file (or a line fgets cut) is named, never echoed: its bytes would garble
		 * the terminal. */
		const char *why = text_problem(line, f);
		if (why) {
			fprintf(stderr, "tide probe: %s line %d %s; a line must be a point x,y,z (or x,z in "
			        "a 2-D case) in metres, a '#' comment or blank.\n", path, lineno, why);
			rc = TIDE_READ_BAD;
			break;
		}
		char *hash = strchr(line, '#');
		if (hash) *hash = '\0';
		size_t len = strlen(line);
		while (len && isspace((unsigned char)line[len - 1])) line[--len] = '\0';
		if (!len) continue;
		double p[3];
		if (point(line, line + len, dim, p) == 0) rc = push(l, p);
		else if (!first || isdigit((unsigned char)line[0]) || line[0] == '-' || line[0] == '.') {
			fprintf(stderr, "tide probe: %s line %d: '%s' is not a point; expected %s in "
			        "metres.\n", path, lineno, line, point_form(dim));
			rc = TIDE_READ_BAD;
		}
		first = 0;   /* only the first line may be a header */
	}
	if (!rc && ferror(f)) {
		fprintf(stderr, "tide probe: cannot read the points file %s: %s.\n", path,
		        strerror(errno ? errno : EIO));
		rc = TIDE_READ_IO;
	}
	fclose(f);
	if (!rc && l->n == before) {
		fprintf(stderr, "tide probe: the points file %s holds no point.\n", path);
		rc = TIDE_READ_BAD;
	}
	return rc;
}

void tide_points_free(tide_point_list *l)
{
	free(l->p);
	memset(l, 0, sizeof *l);
}

void tide_probe_header(FILE *f, int height)
{
	fputs("time[s],x[m],y[m],z[m],nfluid[-],vx[m/s],vy[m/s],vz[m/s],p[Pa],rho[kg/m^3]", f);
	fputs(height ? ",H[m]\n" : "\n", f);
}

int tide_probe_rows(FILE *f, const tide_particle_set *s, const tide_case *c,
                    const tide_point_list *l, double t, int have_time, int height, int velocity)
{
	tide_fluid_grid *g = tide_fluid_grid_new(s, c);
	if (!g) return TIDE_READ_IO;
	for (size_t i = 0; i < l->n; i++) {
		const double *p = l->p[i];
		tide_sample smp;
		tide_fluid_grid_sample(g, p, &smp);
		if (have_time) fprintf(f, "%.9g", t);
		fprintf(f, ",%.9g,%.9g,%.9g,%zu", p[0], p[1], p[2], smp.nfluid);
		if (smp.nfluid && velocity)
			fprintf(f, ",%.9g,%.9g,%.9g,%.9g,%.9g", smp.v[0], smp.v[1], smp.v[2], smp.p, smp.rho);
		else if (smp.nfluid)
			fprintf(f, ",,,,%.9g,%.9g", smp.p, smp.rho);
		else
			fputs(",,,,,", f);
		if (height) fprintf(f, ",%.9g", tide_fluid_grid_height(g, p[0], p[1]));
		fputc('\n', f);
	}
	tide_fluid_grid_free(g);
	return 0;
}
