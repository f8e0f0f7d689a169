/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tide probe's pieces that do not touch the command line: the list of measuring points (from
 * --point, --line and --points-file texts) and the CSV rows measured on one snapshot. */
#ifndef TIDE_PROBE_H
#define TIDE_PROBE_H
#include <stdio.h>
#include "tide/case.h"
#include "particle_set.h"

typedef struct tide_point_list {
	size_t n, cap;
	double (*p)[3];     /* x, y, z [m]; a 2-D case's points have y = 0 unless given */
} tide_point_list;

/* Each adds points from a text and returns 0, or 2 (bad input) / 1 (I/O failure, out of memory)
 * after printing one sentence naming the option or file:line and what is allowed.
 * A point is "x,y,z", or "x,z" in a 2-D case (dim 2: the x-z plane). */
int tide_points_add_point(tide_point_list *l, const char *spec, int dim);
/* "x0,y0,z0:x1,y1,z1:N": N >= 2 points evenly spaced from the first to the last, both included. */
int tide_points_add_line(tide_point_list *l, const char *spec, int dim);
/* A CSV file of points, one a line (x,y,z or, in 2-D, x,z); blank lines and '#' comments are
 * skipped, and a first line that is not numbers is taken as a header. */
int tide_points_add_file(tide_point_list *l, const char *path, int dim);
void tide_points_free(tide_point_list *l);

/* The CSV header: time[s],x[m],y[m],z[m],nfluid[-],vx[m/s],vy[m/s],vz[m/s],p[Pa],rho[kg/m^3]
 * and, with height, H[m]. */
void tide_probe_header(FILE *f, int height);
/* One row per point measured on s at time t (have_time 0: the time field is left empty).
 * Where no fluid particle is within 2h the interpolated fields are left empty (nfluid 0), and
 * so are the velocity fields when velocity is 0 (a snapshot written without velocities).
 * Returns 0, or 1 when out of memory (message printed); write errors are the caller's check. */
int tide_probe_rows(FILE *f, const tide_particle_set *s, const tide_case *c,
                    const tide_point_list *l, double t, int have_time, int height, int velocity);

#endif
