/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* DIR/statistics.csv: one row per particle output, computed on rank 0 from the gathered
 * particles (fluid particles only for every sum, extremum and energy; boundary particles are
 * fixed walls).  Columns and units (2-D cases are per metre of width: kg/m, J/m, kg/s; a gas
 * case in cgs writes cgs, cm, g, erg, ..., the header names them, src/case_units.h):
 *   time[s], step[-], dt[s] (the last step's), n_fluid[-], n_bound[-],
 *   fluid_mass[kg]          sum m,                    m = rho0 dp^dim
 *   E_kin[J]                sum m |v|^2 / 2
 *   E_pot[J]                sum -m g.r                (m |g| z for gravity along -z), the
 *                           periodic axes left out: along them a particle's coordinate jumps by
 *                           the period when it wraps, and a body force there (a channel's drive)
 *                           has no potential, it does work without bound
 *                           + with self-gravity sum m phi / 2 (Barnes-Hut potential, softened)
 *   E_int[J]                sum m e(rho), the elastic energy of the equation of state,
 *                           e(rho) = int_rho0^rho p/r^2 dr; Tait p = B ((rho/rho0)^gamma - 1):
 *                           = B/rho0 [ (x^(gamma-1) - 1)/(gamma-1) + 1/x - 1 ],  x = rho/rho0;
 *                           isothermal p = cs^2 (rho - rho0): cs^2 [ln x + 1/x - 1]
 *                           (>= 0, 0 at rho0; the work stored by compressing the fluid)
 *                           gas scheme: ideal gas sum m u (thermal energy); isothermal
 *                           sum m cs^2 ln(rho/rho0), barotropic its continuation above
 *                           rho_crit (statistics.c, gas_energy)
 *   E_total[J]              E_kin + E_pot + E_int (viscosity and diffusion dissipate it)
 *   px, py, pz[kg m/s]      sum m v
 *   v_max[m/s], rho_min, rho_max[kg/m^3],
 *   n_nbody[-]              collisionless particles of a gas run (block.h TIDE_NBODY): counted
 *                           in fluid_mass, E_kin, E_pot and p (and v_max), not in n_fluid, E_int
 *                           or the density range
 *   wall_per_step[s]        wall-clock seconds per step since the previous row (0 on the first)
 * Numbers are written with 17 significant digits (doubles round-trip exactly). */
#ifndef TIDE_STATISTICS_H
#define TIDE_STATISTICS_H
#include <stdio.h>
#include "tide/block.h"
#include "tide/case.h"

typedef struct tide_stats_file {
	FILE *f;
	char path[1100];
	double wall_last;
	long step_last;
	double e_self;     /* self-gravity energy of the next row (set by the caller; 0: none) */
} tide_stats_file;

typedef struct tide_stats {
	size_t n_fluid, n_bound, n_nbody;
	double mass, e_kin, e_pot, e_int, p[3], v_max, rho_min, rho_max;
} tide_stats;

/* Computes the statistics of a host block of particles. */
void tide_stats_compute(const tide_block_view *all, const tide_case *c, tide_stats *s);
/* The same over the particles of v[0 .. nv-1] taken together (the blocks of a snapshot). */
void tide_stats_compute_views(const tide_block_view *v, int nv, const tide_case *c, tide_stats *s);

/* Creates dir/statistics.csv with its header; keep_rows >= 0 (a restart): keeps the header and
 * the first keep_rows rows of an existing file and appends after them (a missing file is
 * created).  Returns 0 or -1 (message printed). */
int tide_stats_open(tide_stats_file *s, const char *dir, const tide_case *c, long keep_rows,
                    long step, double wall);
/* Appends (and flushes) one row.  Returns 0 or -1. */
int tide_stats_write(tide_stats_file *s, const tide_block_view *all, const tide_case *c,
                     double t, long step, double dt, double wall);
/* The same for the particles of v[0 .. nv-1] taken together. */
int tide_stats_write_views(tide_stats_file *s, const tide_block_view *v, int nv,
                           const tide_case *c, double t, long step, double dt, double wall);
void tide_stats_close(tide_stats_file *s);

/* Keeps the first line and the next `rows` lines of the text file path, drops the rest, and
 * opens it for appending.  NULL if the file does not exist or cannot be opened (errno set). */
FILE *tide_csv_reopen(const char *path, long rows);

#endif
