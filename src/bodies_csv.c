// SPDX-License-Identifier: LGPL-2.1-or-later
// bodies.csv: the moving and floating bodies against time (issue 22), one row per body at every
// gauges row.  Prescribed bodies from their analytic motion (include/tide/motion.h), floating
// ones from their integrated state (include/tide/rigid.h): both are host values at hand when
// the gauges row is written, so the file costs the step nothing.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "log.h"
#include "output.h"

static int bodies_fail(tide_gauges *g)
{
	fprintf(stderr, "tide: cannot write %s: %s.\n", g->path, tide_io_reason(errno));
	return -1;
}

int tide_bodies_csv_open(tide_gauges *g, const char *dir, const tide_case *c)
{
	memset(g, 0, sizeof *g);
	if (!c->motion.nbody) return 0;
	snprintf(g->path, sizeof g->path, "%s/bodies.csv", dir);
	g->f = fopen(g->path, "w");
	if (!g->f) return bodies_fail(g);
	/* 2-D: per metre of width, as the particles' masses */
	const char *N = c->dim == 2 ? "N/m" : "N", *Nm = c->dim == 2 ? "N m/m" : "N m";
	fprintf(g->f, "time[s],body,kind,x[m],y[m],z[m],qw[-],qx[-],qy[-],qz[-],vx[m/s],vy[m/s],"
	        "vz[m/s],wx[rad/s],wy[rad/s],wz[rad/s],Fx[%s],Fy[%s],Fz[%s],Tx[%s],Ty[%s],Tz[%s]\n",
	        N, N, N, Nm, Nm, Nm);
	if (fflush(g->f) != 0) return bodies_fail(g);
	return 0;
}

int tide_bodies_csv_reopen(tide_gauges *g, const char *dir, const tide_case *c, double t)
{
	memset(g, 0, sizeof *g);
	if (!c->motion.nbody) return 0;
	snprintf(g->path, sizeof g->path, "%s/bodies.csv", dir);
	int rc = tide_csv_cut_back(g, t);
	return rc > 0 ? tide_bodies_csv_open(g, dir, c) : rc;
}

/* The unit quaternion of rotation matrix R (Shepperd's method: the largest of the four squares
 * first, so that no division by a small number occurs), with qw >= 0. */
static void quat_of(const double R[9], double q[4])
{
	double tr = R[0] + R[4] + R[8];
	double d[4] = {tr, R[0], R[4], R[8]};
	int k = 0;
	for (int j = 1; j < 4; j++)
		if (d[j] > d[k]) k = j;
	if (k == 0) {
		double s = 2.0 * sqrt(1.0 + tr);
		q[0] = 0.25 * s; q[1] = (R[7] - R[5]) / s; q[2] = (R[2] - R[6]) / s; q[3] = (R[3] - R[1]) / s;
	} else if (k == 1) {
		double s = 2.0 * sqrt(1.0 + R[0] - R[4] - R[8]);
		q[0] = (R[7] - R[5]) / s; q[1] = 0.25 * s; q[2] = (R[1] + R[3]) / s; q[3] = (R[2] + R[6]) / s;
	} else if (k == 2) {
		double s = 2.0 * sqrt(1.0 + R[4] - R[0] - R[8]);
		q[0] = (R[2] - R[6]) / s; q[1] = (R[1] + R[3]) / s; q[2] = 0.25 * s; q[3] = (R[5] + R[7]) / s;
	} else {
		double s = 2.0 * sqrt(1.0 + R[8] - R[0] - R[4]);
		q[0] = (R[3] - R[1]) / s; q[1] = (R[2] + R[6]) / s; q[2] = (R[5] + R[7]) / s; q[3] = 0.25 * s;
	}
	if (q[0] < 0)
		for (int j = 0; j < 4; j++) q[j] = -q[j];
}

void tide_body_numbers(const tide_case *c, const uint32_t *id, size_t n, int32_t *out)
{
	for (size_t i = 0; i < n; i++) {
		int b = tide_motion_body_of(&c->motion, id[i]);
		out[i] = b < 0 ? -1 : b + 1;
	}
}

int tide_body_rows(const tide_case *c, double t, const tide_rigid *rigid, tide_body_row *rows)
{
	const tide_motion_table *T = &c->motion;
	for (int b = 0; b < T->nbody; b++) {
		tide_body_row *o = &rows[b];
		double r[3];
		int k = T->body[b].rigid;
		o->floating = k != 0;
		if (k) {
			const tide_rigid *B = &(rigid ? rigid : c->rigid)[k - 1];
			tide_rigid_state(B, o->x, o->v, r);
			memcpy(o->q, B->q, sizeof o->q);
			if (o->q[0] < 0)
				for (int j = 0; j < 4; j++) o->q[j] = -o->q[j];
			tide_rigid_omega_world(B, o->w);
			memcpy(o->F, B->F, sizeof o->F);
			memcpy(o->T, B->T, sizeof o->T);
		} else {
			/* the fluid force on a prescribed body is gauges.forces' (gauges.csv) */
			tide_pose P;
			double u0[3], cc[3];
			tide_motion_state(T, b, t, o->x, o->v, r);
			tide_motion_pose(T, b, t, &P);
			quat_of(P.R, o->q);
			tide_motion_velocity_field(T, b, t, u0, o->w, cc);
			for (int j = 0; j < 3; j++) o->F[j] = o->T[j] = NAN;
		}
	}
	return T->nbody;
}

int tide_bodies_csv_write(tide_gauges *g, const tide_case *c, double t, const tide_rigid *rigid)
{
	if (!g->f) return 0;
	tide_body_row rows[TIDE_MOTION_MAX_BODIES];
	int n = tide_body_rows(c, t, rigid, rows);
	for (int b = 0; b < n; b++) {
		const tide_body_row *o = &rows[b];
		fprintf(g->f, "%.9g,%d,%s", t, b + 1, o->floating ? "floating" : "moving");
		const double *col[6] = {o->x, o->q, o->v, o->w, o->F, o->T};
		for (int j = 0; j < 6; j++)
			for (int d = 0; d < (j == 1 ? 4 : 3); d++) fprintf(g->f, ",%.9g", col[j][d]);
		fputc('\n', g->f);
	}
	if (fflush(g->f) != 0 || ferror(g->f)) return bodies_fail(g);
	return 0;
}
