// SPDX-License-Identifier: LGPL-2.1-or-later
// sinks.csv: the sink table at every output of a run with sinks (include/tide/sinks.h), one row
// per sink, and a line in the log.  Appended (a restart goes on writing the same file); the
// header, with units, when the file is new.  Rank 0.
#include <math.h>
#include <stdio.h>
#include "case_units.h"
#include "log.h"
#include "sinks_csv.h"
#include "tide/sinks.h"

int tide_sinks_csv_reopen(const char *dir, const tide_case *c, double t)
{
	if (!c->sinks.on) return 0;
	char path[1200], tmp[1210], line[1024];
	snprintf(path, sizeof path, "%s/sinks.csv", dir);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *in = fopen(path, "r");
	if (!in) return 0; /* nothing written before the checkpoint */
	FILE *out = fopen(tmp, "w");
	if (!out) {
		fclose(in);
		fprintf(stderr, "tide: cannot write %s.\n", tmp);
		return -1;
	}
	/* the header, and the rows of outputs up to the checkpoint's time (written with 9 digits:
	 * a row of the checkpoint's own step may read a little later than t; the next output is a
	 * whole step later) */
	while (fgets(line, sizeof line, in)) {
		double tr;
		if (sscanf(line, "%lf,", &tr) == 1 && tr > t + 1e-8 * fabs(t) + 1e-300) continue;
		fputs(line, out);
	}
	fclose(in);
	int bad = ferror(out);
	if (fclose(out) || bad || rename(tmp, path)) {
		fprintf(stderr, "tide: cannot write %s.\n", path);
		return -1;
	}
	return 0;
}

int tide_sinks_csv_write(const char *dir, const tide_case *c, double t, const tide_sinks *T)
{
	if (!c->sinks.on) return 0;
	char path[1200];
	snprintf(path, sizeof path, "%s/sinks.csv", dir);
	FILE *f = fopen(path, "a");
	if (!f) {
		fprintf(stderr, "tide: cannot write %s.\n", path);
		return -1;
	}
	/* a gas case in cgs or SI runs in internal units: written in the case's (case_units.h) */
	tide_unit_system U = tide_case_output_units(c);
	int units = tide_case_output_system(c);
	const char *u = units == TIDE_UNITS_CGS ? "cgs" : units == TIDE_UNITS_SI ? "SI" : "code";
	double G = tide_units_to_case(&U, c->self_gravity.G, TIDE_DIM_G);
	double fT = tide_units_factor(&U, TIDE_DIM_TIME), fM = tide_units_factor(&U, TIDE_DIM_MASS),
	       fL = tide_units_factor(&U, TIDE_DIM_LENGTH), fV = tide_units_factor(&U, TIDE_DIM_VELOCITY),
	       fJ = tide_units_factor(&U, TIDE_DIM_ANGULAR_MOMENTUM);
	/* the units' names: cgs's or SI's (case_units.h); a case in code units names its own */
	int code = units == TIDE_UNITS_CODE;
	const char *um = code ? "mass" : tide_case_unit_name(c, TIDE_DIM_MASS, 0),
	           *ul = code ? "m" : tide_case_unit_name(c, TIDE_DIM_LENGTH, 0),
	           *uv = code ? "m/s" : tide_case_unit_name(c, TIDE_DIM_VELOCITY, 0),
	           *uj = code ? "mass*m^2/s" : tide_case_unit_name(c, TIDE_DIM_ANGULAR_MOMENTUM, 0);
	if (ftell(f) == 0)
		fprintf(f, "# sinks of run '%s', units %s (G = %g): time, id, mass, position, velocity, "
		        "mass accreted since creation, spin (angular momentum about the sink), time of "
		        "creation\ntime[s],id,mass[%s],x[%s],y[%s],z[%s],vx[%s],vy[%s],vz[%s],"
		        "accreted[%s],spin_x[%s],spin_y[%s],spin_z[%s],t_form[s]\n", c->name, u, G, um, ul, ul,
		        ul, uv, uv, uv, um, uj, uj, uj);
	int n = T ? T->n : 0;
	for (int s = 0; s < n; s++) {
		const tide_sink_state *p = &T->s[s];
		fprintf(f, "%.9g,%u,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.6g,%.6g,%.6g,%.9g\n", t * fT,
		        p->id, p->m * fM, p->x[0] * fL, p->x[1] * fL, p->x[2] * fL, p->v[0] * fV, p->v[1] * fV,
		        p->v[2] * fV, p->m_acc * fM, p->spin[0] * fJ, p->spin[1] * fJ, p->spin[2] * fJ,
		        p->t_form * fT);
	}
	int bad = ferror(f);
	if (fclose(f) || bad) {
		fprintf(stderr, "tide: cannot write %s.\n", path);
		return -1;
	}
	tide_info("sinks at t = %g: %d, holding mass %.6g; %llu gas particles accreted\n", t * fT, n,
	          tide_sinks_mass(T) * fM, T ? (unsigned long long)T->n_accreted : 0ULL);
	return 0;
}
