// SPDX-License-Identifier: LGPL-2.1-or-later
// gauges.csv: its header (a column per measurement, with its unit), its rows from the summed
// gauges (whether the sums came from the codelets of a run, tasks/gauge_tasks.c, or from a host
// particle set, src/gauges.c), and its reopening, cut back, for a restart.
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "case_units.h"
#include "log.h"
#include "output.h"
#include "tide/gauge_math.h"

/* ---- gauges.csv ---- */

static int gauges_fail(tide_gauges *g)
{
	fprintf(stderr, "tide: cannot write %s: %s.\n", g->path, tide_io_reason(errno));
	return -1;
}

/* A column title: the probe's name (or a default) with its unit, quoted if it needs to be. */
static void csv_title(FILE *f, const char *name, const char *deflt, int k, const char *unit)
{
	char title[64];
	if (name[0]) snprintf(title, sizeof title, "%s[%s]", name, unit);
	else snprintf(title, sizeof title, "%s%d[%s]", deflt, k + 1, unit);
	if (!strpbrk(title, ",\"\n")) { fprintf(f, ",%s", title); return; }
	fputs(",\"", f);
	for (const char *p = title; *p; p++) {
		if (*p == '"') fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

/* Velocity components written: x, y, z (2-D: x, z). */
static const char *const comp3[] = {"x", "y", "z"};
static int comp_used(const tide_case *c, int d) { return c->dim == 3 || d != 1; }

static int header(tide_gauges *g, const tide_case *c)
{
	char name[48];
	/* the case's units (a cgs or SI gas case runs in internal ones: case_units.h) */
	const char *m = tide_case_unit_name(c, TIDE_DIM_LENGTH, 0), *ms = tide_case_unit_name(c, TIDE_DIM_VELOCITY, 0);
	fputs("time[s]", g->f);
	for (int k = 0; k < c->nheight; k++) csv_title(g->f, c->height[k].name, "H", k, m);
	for (int k = 0; k < c->npressure; k++)
		csv_title(g->f, c->pressure[k].name, "P", k, tide_case_unit_name(c, TIDE_DIM_PRESSURE, 0));
	for (int k = 0; k < c->nvelocity; k++)
		for (int d = 0; d < 3; d++)
			if (comp_used(c, d)) {
				snprintf(name, sizeof name, "%.32s%s", c->velocity[k].name, comp3[d]);
				csv_title(g->f, name, "U", k, ms);
			}
	/* 2-D: a particle stands for a metre of width (mass rho0 dp^2), so the force is per metre */
	for (int k = 0; c->gauge_forces && k < c->nobstacle; k++)
		for (int d = 0; d < 3; d++)
			if (comp_used(c, d)) {
				snprintf(name, sizeof name, "F%d%s", k + 1, comp3[d]);
				csv_title(g->f, name, "F", k, tide_case_unit_name(c, TIDE_DIM_FORCE, 1));
			}
	if (c->surge_front) fprintf(g->f, ",front[%s],Z[-],T[-]", m);
	/* moving bodies: their reference point (the body's centre at t = 0), its velocity, and the
	 * body's rotation (2-D: the angle about y; 3-D: the rotation vector, axis times angle) */
	for (int b = 0; b < c->motion.nbody; b++) {
		static const char *const what[] = {"", "v", "rot"};
		const char *const unit[] = {m, ms, "deg"};
		for (int q = 0; q < 3; q++)
			for (int d = 0; d < 3; d++)
				if (q == 2 && c->dim == 2 ? d == 1 : comp_used(c, d)) {
					snprintf(name, sizeof name, "B%d%s%s", b + 1, what[q], comp3[d]);
					csv_title(g->f, name, "B", b, unit[q]);
				}
	}
	if (fputc('\n', g->f) == EOF || fflush(g->f) != 0) {
		fclose(g->f);
		g->f = NULL;
		return gauges_fail(g);
	}
	return 0;
}

int tide_gauges_open(tide_gauges *g, const char *dir, const tide_case *c)
{
	memset(g, 0, sizeof *g);
	snprintf(g->path, sizeof g->path, "%s/gauges.csv", dir);
	g->f = fopen(g->path, "w");
	if (!g->f) return gauges_fail(g);
	return header(g, c);
}

int tide_gauges_reopen(tide_gauges *g, const char *dir, const tide_case *c, double t)
{
	memset(g, 0, sizeof *g);
	snprintf(g->path, sizeof g->path, "%s/gauges.csv", dir);
	int rc = tide_csv_cut_back(g, t);
	return rc > 0 ? tide_gauges_open(g, dir, c) : rc;
}

int tide_csv_cut_back(tide_gauges *g, double t)
{
	FILE *f = fopen(g->path, "r");
	if (!f) return 1;
	/* keep the header and every row up to t: those the checkpointed run had written (their
	 * times have 9 digits: a row at t itself may read up to 5e-9 t later, the next row is a
	 * whole step later) */
	char line[65536];
	long keep = 0, at = 0;
	int first = 1;
	while (fgets(line, sizeof line, f)) {
		long len = (long)strlen(line);
		if (!first) {
			char *end;
			double tr = strtod(line, &end);
			if (end == line || line[len - 1] != '\n' || !(tr <= t + 1e-8 * fabs(t) + 1e-9)) break;
		} else if (line[len - 1] != '\n') {
			break;
		}
		at += len;
		keep = at;
		first = 0;
	}
	fclose(f);
	if (keep == 0) return 1;   /* not even a header: start afresh */
	if (truncate(g->path, keep) || !(g->f = fopen(g->path, "a"))) return gauges_fail(g);
	return 0;
}

int tide_gauges_write_sums(tide_gauges *g, const tide_case *c, const tide_gauge_arg *G,
                           const double *sums, double t, const tide_rigid *rigid)
{
	/* measured in the run's units, written in the case's (case_units.h) */
	tide_unit_system U = tide_case_output_units(c);
	double fL = tide_units_factor(&U, TIDE_DIM_LENGTH), fV = tide_units_factor(&U, TIDE_DIM_VELOCITY),
	       fP = tide_units_factor(&U, TIDE_DIM_PRESSURE), fF = tide_units_factor(&U, TIDE_DIM_FORCE);
	fprintf(g->f, "%.9g", t * tide_units_factor(&U, TIDE_DIM_TIME));
	for (int k = 0; k < c->nheight; k++)
		fprintf(g->f, ",%.9g", tide_gauge_line_height(G, sums, k, tide_case_height_mode(c, k)) * fL);
	for (int k = 0; k < c->npressure + c->nvelocity; k++) {
		const double *o = sums + tide_gauge_point_at(G, k);
		double vw = o[TIDE_GAUGE_PT_VW];
		/* no fluid within 2h: 0 */
		double inv = vw > 0.0 ? 1.0 / vw : 0.0;
		if (k < c->npressure) {
			fprintf(g->f, ",%.9g", o[TIDE_GAUGE_PT_PVW] * inv * fP);
			continue;
		}
		for (int d = 0; d < 3; d++)
			if (comp_used(c, d)) fprintf(g->f, ",%.9g", o[TIDE_GAUGE_PT_VX + d] * inv * fV);
	}
	for (int m = 0; m < G->nobst; m++)
		for (int d = 0; d < 3; d++)
			if (comp_used(c, d)) fprintf(g->f, ",%.9g", sums[tide_gauge_obst_at(G, m) + d] * fF);
	if (c->surge_front) {
		double front = sums[0] > TIDE_GAUGE_NONE ? sums[0] - c->surge_x0 : 0.0;
		double gnorm = sqrt(c->gravity[0] * c->gravity[0] + c->gravity[1] * c->gravity[1] +
		                    c->gravity[2] * c->gravity[2]);
		double a = c->surge_a > 0.0 ? c->surge_a : NAN;   /* the case loader requires a > 0 */
		fprintf(g->f, ",%.9g,%.9g,%.9g", front * fL, front / a, t * sqrt(2.0 * gnorm / a));
	}
	for (int b = 0; b < c->motion.nbody; b++) {
		double x[3], v[3], r[3];
		int k = c->motion.body[b].rigid;
		if (k) tide_rigid_state(&(rigid ? rigid : c->rigid)[k - 1], x, v, r);
		else tide_motion_state(&c->motion, b, t, x, v, r);
		const double *col[3] = {x, v, r};
		for (int q = 0; q < 3; q++)
			for (int d = 0; d < 3; d++)
				if (q == 2 && c->dim == 2 ? d == 1 : comp_used(c, d))
					fprintf(g->f, ",%.9g", col[q][d] * (q == 2 ? 180.0 / M_PI : q ? fV : fL));
	}
	/* Flushed every row so an interrupted run keeps every measurement taken so far. */
	if (fputc('\n', g->f) == EOF || fflush(g->f) != 0 || ferror(g->f)) return gauges_fail(g);
	return 0;
}

int tide_gauges_write(tide_gauges *g, const tide_particle_set *s, const tide_case *c, double t)
{
	tide_gauge_arg G;
	double *sums;
	if (tide_gauge_sums_host(s, c, &G, &sums)) return -1;
	int rc = tide_gauges_write_sums(g, c, &G, sums, t, NULL);
	free(sums);
	return rc;
}

int tide_gauges_close(tide_gauges *g)
{
	if (!g->f) return 0;
	int rc = fclose(g->f);
	g->f = NULL;
	return rc == 0 ? 0 : gauges_fail(g);
}
