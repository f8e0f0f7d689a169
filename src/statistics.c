// SPDX-License-Identifier: LGPL-2.1-or-later
// DIR/statistics.csv: mass, energies, momentum, extrema per output (src/statistics.h).
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "case_units.h"
#include "log.h"
#include "particle_set.h"
#include "statistics.h"
#include "tide/gas_math.h"

/* Tait elastic energy per unit mass, B/rho0 [(x^(g-1) - 1)/(g-1) + 1/x - 1], x = rho/rho0,
 * written with expm1/log1p so that it keeps its digits near x = 1 (where it is O((x-1)^2)). */
static double tait_energy(double rho, double rho0, double B, double gamma)
{
	double d = rho / rho0 - 1.0;
	double a = gamma != 1.0 ? expm1((gamma - 1.0) * log1p(d)) / (gamma - 1.0) : log1p(d);
	return B / rho0 * (a - d / (1.0 + d));
}

/* The same for the isothermal p = cs^2 (rho - rho0): cs^2 [ln x + 1/x - 1]. */
static double iso_energy(double rho, double rho0, double cs)
{
	double d = rho / rho0 - 1.0;
	return cs * cs * (log1p(d) - d / (1.0 + d));
}

/* The gas scheme's internal energy per unit mass (physics.scheme: gas, gas_params.h): the
 * ideal gas's own u; for the isothermal p = cs^2 rho the work stored by compressing from rho0,
 * cs^2 ln(rho / rho0), and for the barotropic gas above rho_crit (p = cs^2 rho_crit
 * (rho / rho_crit)^(7/5)) that integral continued: cs^2 [ln(rho_crit / rho0) +
 * 2.5 ((rho / rho_crit)^(2/5) - 1)]. */
static double gas_energy(const tide_case *c, double rho, double u)
{
	const tide_gas_case *g = &c->gas;
	double cs2 = g->cs * g->cs;
	if (g->eos == TIDE_GAS_IDEAL) return u;
	if (g->eos == TIDE_GAS_BAROTROPIC && rho > g->rho_crit)
		return cs2 * (log(g->rho_crit / c->rho0) + 2.5 * (pow(rho / g->rho_crit, 0.4) - 1.0));
	return cs2 * log(rho / c->rho0);
}

void tide_stats_compute_views(const tide_block_view *v, int nv, const tide_case *c, tide_stats *s)
{
	memset(s, 0, sizeof *s);
	double m0 = tide_case_mass(c), B = tide_case_tait_b(c);
	s->rho_min = INFINITY;
	s->rho_max = -INFINITY;
	double v2max = 0;
	int gas = c->scheme == TIDE_SCHEME_GAS;   /* staged with u and m (snapshot_writer.c) */
	/* the body force's potential along the non-periodic axes only (statistics.h) */
	double gp[3];
	for (int a = 0; a < 3; a++) gp[a] = (c->periodic >> a & 1) && a < 2 ? 0.0 : c->gravity[a];
	/* one running sum over the views in order: the same sums as over their concatenation */
	for (int k = 0; k < nv; k++) {
		const tide_block_view *all = &v[k];
		for (uint32_t i = 0; i < all->count; i++) {
			if (all->type[i] == TIDE_BOUND) {
				s->n_bound++;
				continue;
			}
			int nbody = all->type[i] == TIDE_NBODY;   /* collisionless: no density or u */
			if (nbody) s->n_nbody++;
			else s->n_fluid++;
			/* the gas scheme's particles carry their own masses (gas_math.h) */
			double m = gas ? (double)all->TIDE_GAS_MASS[i] : m0;
			s->mass += m;
			double vx = all->vx[i], vy = all->vy[i], vz = all->vz[i], rho = all->rho[i];
			double v2 = vx * vx + vy * vy + vz * vz;
			s->e_kin += 0.5 * m * v2;
			s->e_pot -= m * (gp[0] * all->x[i] + gp[1] * all->y[i] + gp[2] * all->z[i]);
			s->p[0] += m * vx;
			s->p[1] += m * vy;
			s->p[2] += m * vz;
			if (v2 > v2max) v2max = v2;
			if (nbody) continue;
			if (gas) s->e_int += m * gas_energy(c, rho, all->TIDE_GAS_U[i]);
			else s->e_int += m * (c->eos == TIDE_EOS_ISOTHERMAL ? iso_energy(rho, c->rho0, c->cs_iso)
			                                               : tait_energy(rho, c->rho0, B, c->gamma));
			if (rho < s->rho_min) s->rho_min = rho;
			if (rho > s->rho_max) s->rho_max = rho;
		}
	}
	s->v_max = sqrt(v2max);
	if (!s->n_fluid) s->rho_min = s->rho_max = 0;
}

void tide_stats_compute(const tide_block_view *all, const tide_case *c, tide_stats *s)
{
	tide_stats_compute_views(all, 1, c, s);
}

static int stats_fail(tide_stats_file *s)
{
	fprintf(stderr, "tide: cannot write %s: %s.\n", s->path, tide_io_reason(errno));
	if (s->f) fclose(s->f);
	s->f = NULL;
	return -1;
}

FILE *tide_csv_reopen(const char *path, long rows)
{
	FILE *f = fopen(path, "r");
	if (!f) return NULL;
	long line = 0;
	long keep = -1;
	int ch;
	long off = 0;
	while ((ch = getc(f)) != EOF) {
		off++;
		if (ch == '\n' && ++line == rows + 1) {
			keep = off;
			break;
		}
	}
	if (keep < 0) keep = off; /* fewer rows than asked: keep them all */
	fclose(f);
	if (truncate(path, keep)) return NULL;
	return fopen(path, "a");
}

int tide_stats_open(tide_stats_file *s, const char *dir, const tide_case *c, long keep_rows,
                    long step, double wall)
{
	memset(s, 0, sizeof *s);
	snprintf(s->path, sizeof s->path, "%s/statistics.csv", dir);
	s->step_last = step;
	s->wall_last = wall;
	if (keep_rows >= 0 && (s->f = tide_csv_reopen(s->path, keep_rows))) return 0;
	s->f = fopen(s->path, "w");
	if (!s->f) return stats_fail(s);
	/* in the case's units (a cgs or SI gas case runs in internal ones: case_units.h); a 2-D
	 * case's extensive quantities per unit of width */
	const char *kg = tide_case_unit_name(c, TIDE_DIM_MASS, 1), *J = tide_case_unit_name(c, TIDE_DIM_ENERGY, 1),
	           *P = tide_case_unit_name(c, TIDE_DIM_MOMENTUM, 1), *V = tide_case_unit_name(c, TIDE_DIM_VELOCITY, 0),
	           *R = tide_case_unit_name(c, TIDE_DIM_DENSITY, 0);
	fprintf(s->f, "time[s],step[-],dt[s],n_fluid[-],n_bound[-],fluid_mass[%s],E_kin[%s],"
	        "E_pot[%s],E_int[%s],E_total[%s],px[%s],py[%s],pz[%s],v_max[%s],"
	        "rho_min[%s],rho_max[%s],n_nbody[-],wall_per_step[s]\n", kg, J, J, J, J, P, P, P, V, R, R);
	if (fflush(s->f)) return stats_fail(s);
	return 0;
}

int tide_stats_write(tide_stats_file *s, const tide_block_view *all, const tide_case *c,
                     double t, long step, double dt, double wall)
{
	return tide_stats_write_views(s, all, 1, c, t, step, dt, wall);
}

int tide_stats_write_views(tide_stats_file *s, const tide_block_view *v, int nv,
                           const tide_case *c, double t, long step, double dt, double wall)
{
	if (!s->f) return 0;
	tide_stats st;
	tide_stats_compute_views(v, nv, c, &st);
	st.e_pot += s->e_self;
	double wps = step > s->step_last ? (wall - s->wall_last) / (double)(step - s->step_last) : 0;
	s->wall_last = wall;
	s->step_last = step;
	/* computed in the run's units, written in the case's (case_units.h) */
	tide_unit_system U = tide_case_output_units(c);
	double fT = tide_units_factor(&U, TIDE_DIM_TIME), fM = tide_units_factor(&U, TIDE_DIM_MASS),
	       fE = tide_units_factor(&U, TIDE_DIM_ENERGY), fP = tide_units_factor(&U, TIDE_DIM_MOMENTUM),
	       fV = tide_units_factor(&U, TIDE_DIM_VELOCITY), fR = tide_units_factor(&U, TIDE_DIM_DENSITY);
	fprintf(s->f, "%.17g,%ld,%.9g,%zu,%zu,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,"
	        "%.9g,%.9g,%.9g,%zu,%.6g\n", t * fT, step, dt * fT, st.n_fluid, st.n_bound, st.mass * fM,
	        st.e_kin * fE, st.e_pot * fE, st.e_int * fE, (st.e_kin + st.e_pot + st.e_int) * fE,
	        st.p[0] * fP, st.p[1] * fP, st.p[2] * fP, st.v_max * fV, st.rho_min * fR, st.rho_max * fR,
	        st.n_nbody, wps);
	if (ferror(s->f) || fflush(s->f)) return stats_fail(s);
	return 0;
}

void tide_stats_close(tide_stats_file *s)
{
	if (s->f) fclose(s->f);
	s->f = NULL;
}
