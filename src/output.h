/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The output side of a run, all host-side and run only at output times: ParaView files (.vtp
 * particle snapshots and a .pvd time series), gauges (water height, pressure, surge front) in
 * gauges.csv, and the end-of-run summary (run_summary.csv / run_summary.json).
 * Every function that can fail prints one sentence naming the path and the reason and returns -1;
 * files are written to PATH.tmp and renamed, so a crash never leaves a half-written file. */
#ifndef TIDE_OUTPUT_H
#define TIDE_OUTPUT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "tide/case.h"
#include "particle_set.h"

/* ---- atomic files (write to PATH.tmp, rename over PATH on success) ---- */

typedef struct tide_atomic_file {
	FILE *f;
	char path[1024], tmp[1040];
} tide_atomic_file;

/* Opens PATH.tmp for writing ("wb").  Returns 0 or -1 (message printed). */
int tide_atomic_open(tide_atomic_file *a, const char *path);
/* Closes and renames over the target when the write went well (ok != 0 and no stream error);
 * otherwise removes the temporary.  Pass ok = 0 right after a failed write call (errno says
 * why).  Returns 0 or -1 (message printed). */
int tide_atomic_commit(tide_atomic_file *a, int ok);

/* ---- ParaView ---- */

/* One VTK XML PolyData snapshot: points (Float64), one vertex cell per particle, point data
 * Velocity, Density, Pressure (Tait), Type (UInt8), Id (UInt32), binary appended raw encoding. */
int tide_vtp_write(const char *path, const tide_particle_set *s, const tide_case *c);
/* A snapshot of the particles of sets[0], sets[1], ... in this order, with the point-data arrays
 * of `fields` (enum tide_output_field; the points and vertex cells are always written) and the
 * points as Float32 when `single` (output.precision), else Float64.  tide_vtp_write is this for
 * one set, every field, double precision. */
int tide_vtp_write_sets(const char *path, const tide_particle_set *sets, int nsets,
                        const tide_case *c, unsigned fields, int single);

/* Tait pressure [Pa] written for density rho in every particle file: B ((rho/rho0)^gamma - 1),
 * with tait_b = tide_case_tait_b(c). */
float tide_tait_pressure(const tide_case *c, double tait_b, float rho);

/* 1 on a little-endian host (a VTK file's byte_order). */
int tide_host_little_endian(void);

/* Writes str escaped for an XML attribute or text (& < > "). */
void tide_xml_escaped(FILE *f, const char *str);

/* A .pvd collection listing every snapshot with its time; rewritten whole after each step so an
 * interrupted run still has a valid series.  The .xmf series of the HDF5 output (h5_output.h)
 * keeps its list in the same structure, with the particle count of every file. */
typedef struct tide_pvd {
	char path[1024];
	size_t n, cap;
	char **file;    /* as written in the .pvd: relative to the .pvd's directory when possible */
	double *time;
	size_t *count;  /* particles of each file */
	unsigned fields; /* .xmf: the arrays of the files appended next (output.fields) ... */
	int single;      /* ... and their positions as float32 (output.precision single) */
	unsigned *layout; /* of each file: its fields | TIDE_LAYOUT_SINGLE (a restart may change them) */
} tide_pvd;
#define TIDE_LAYOUT_SINGLE 0x10000u

/* Appends a file to the list (stored relative to the directory of p->path when it lies below
 * it) with its time and particle count; writes nothing.  Returns 0 or -1. */
int tide_series_append(tide_pvd *p, const char *file, double t, size_t count);

/* Starts a series at path (writes an empty collection).  Returns 0 or -1. */
int tide_pvd_open(tide_pvd *p, const char *path);
/* Adds a written .vtp (a path below the .pvd's directory is stored relative to it) at time t and
 * rewrites the .pvd.  Returns 0 or -1. */
int tide_pvd_add(tide_pvd *p, const char *vtp_path, double t);
/* Frees the list (the file is already complete). */
void tide_pvd_close(tide_pvd *p);

/* ---- gauges ---- */

/* Single measurements over the particles of s (each builds its own cell grid: O(N)).
 * Water height at the vertical line (x, y) [y ignored in 2-D], in the case's gauges.mode:
 * tide_gauge_profile_height (gauge_math.h) of the line sampled every dp/2 over the domain's
 * height (over the particles' when the case has no domain); 0 if nothing there. */
double tide_gauge_height(const tide_particle_set *s, const tide_case *c, double x, double y);
/* Shepard-interpolated Tait pressure at point p (2-D: p[1] ignored); 0 if no fluid within 2h. */
double tide_gauge_pressure(const tide_particle_set *s, const tide_case *c, const double p[3]);
/* Largest x - surge_x0 among fluid particles with at least 2 other fluid particles within 1.5 dp
 * (lone droplets do not count); 0 if there is none. */
double tide_gauge_front(const tide_particle_set *s, const tide_case *c);

/* The same measurements at many points of one snapshot (tide probe): the fluid grid is built
 * once.  tide_fluid_grid_new returns NULL when out of memory (message printed); the set and the
 * case must outlive the grid. */
typedef struct tide_fluid_grid tide_fluid_grid;
tide_fluid_grid *tide_fluid_grid_new(const tide_particle_set *s, const tide_case *c);
void tide_fluid_grid_free(tide_fluid_grid *g);

/* Shepard interpolation over the fluid particles j within 2h of a point:
 * f(r) = sum_j f_j V_j W(r - r_j) / sum_j V_j W(r - r_j), V_j = m / rho_j. */
typedef struct tide_sample {
	size_t nfluid;          /* fluid particles within 2h; 0: no fluid near, values are 0 */
	double v[3];            /* velocity [m/s] */
	double p;               /* Tait pressure [Pa] (interpolated p_j, as tide_gauge_pressure) */
	double rho;             /* density [kg/m^3] */
} tide_sample;
/* Samples at point p (2-D: p[1] ignored). */
void tide_fluid_grid_sample(const tide_fluid_grid *g, const double p[3], tide_sample *out);
/* tide_gauge_height on a built grid. */
double tide_fluid_grid_height(const tide_fluid_grid *g, double x, double y);

/* The case's gauges as the measurement gauge_math.h describes: its height lines over the
 * domain's height, its pressure then velocity points, its obstacles (with gauges.forces), the
 * front.  0, or -1 (too many samples: message printed). */
struct tide_gauge_arg;
int tide_gauge_arg_of_case(const tide_case *c, struct tide_gauge_arg *G);
/* The gauges' sums (gauge_math.h's layout) over the particles of s, computed on the host: G
 * receives the measurement, *out (malloc'd, tide_gauge_len(G) doubles) the sums.  0 or -1. */
int tide_gauge_sums_host(const tide_particle_set *s, const tide_case *c, struct tide_gauge_arg *G,
                         double **out);
/* Height of line l of summed gauges (gauge_math.h's profile formula; mode: enum
 * tide_gauge_mode); NAN out of memory.  src/gauges.c, used by gauges.csv (src/gauges_csv.c). */
double tide_gauge_line_height(const struct tide_gauge_arg *G, const double *sums, int l, int mode);

typedef struct tide_gauges {
	FILE *f;
	char path[1024];
} tide_gauges;

/* Creates dir/gauges.csv with a header naming every column and its unit:
 * time[s], one H[m] per height probe, one P[Pa] per pressure probe, NAMEx[m/s] NAMEy NAMEz per
 * velocity probe (2-D: x, z), with gauges.forces FKx[N] FKy FKz per obstacle K (2-D: FKx, FKz
 * in N/m, per metre of width), and, for a surge-front case, front[m], Z[-] (front/surge_a),
 * T[-] (t sqrt(2|g|/surge_a)).  Returns 0 or -1. */
int tide_gauges_open(tide_gauges *g, const char *dir, const tide_case *c);
/* A restart at time t: dir/gauges.csv cut back to its header and the rows up to t (those the
 * checkpointed run had written), opened for appending; a new file if there is none. */
int tide_gauges_reopen(tide_gauges *g, const char *dir, const tide_case *c, double t);
/* g->path (a CSV file whose rows start with their time) cut back to its header and the rows up
 * to t, opened for appending into g->f: 0; 1 if it is missing or has no header (the caller
 * starts afresh); -1 after a message. */
int tide_csv_cut_back(tide_gauges *g, double t);

/* bodies.csv (src/bodies_csv.c): a row per moving or floating body at every gauges row (time,
 * body, centre, orientation quaternion, velocity, angular velocity, fluid force and torque);
 * nothing (g->f NULL) in a case without bodies.  Open (or, for a restart at t, reopen cut back)
 * and write the rows at time t (rigid: the floating bodies' states by rigid index, NULL: the
 * case's at t = 0).  0 or -1. */
int tide_bodies_csv_open(tide_gauges *g, const char *dir, const tide_case *c);
/* The Body array of the particle files: for each of n particle ids, its body's number in
 * bodies.csv (1, 2, ...: the case's id ranges, motion.h), -1 for a particle of no body. */
void tide_body_numbers(const tide_case *c, const uint32_t *id, size_t n, int32_t *out);
/* One moving or floating body at a time t: what a row of bodies.csv and a point of
 * bodies_NNNN.vtp hold (world frame; q the unit quaternion of the rotation from t = 0 with
 * qw >= 0; F, T the fluid's force and torque about x on a floating body, NAN on a moving one). */
typedef struct tide_body_row {
	int floating;
	double x[3], q[4], v[3], w[3], F[3], T[3];
} tide_body_row;
/* The rows of the case's bodies (c->motion's order: body b + 1 of bodies.csv is rows[b]) at
 * time t, the floating ones from rigid as tide_bodies_csv_write; returns their count. */
int tide_body_rows(const tide_case *c, double t, const tide_rigid *rigid, tide_body_row *rows);
/* bodies_NNNN.vtp (src/bodies_vtp.c): one vertex per body at its centre with the point data
 * Body (its number in bodies.csv), Floating (0 moving, 1 floating), AxisX, AxisY, AxisZ (the
 * body's axes: the world images of x, y, z under its rotation), Quaternion, Velocity,
 * AngularVelocity, Force, Torque (Float64, SI units).  0 or -1 (message printed). */
int tide_bodies_vtp_write(const char *path, const tide_body_row *rows, int n);
int tide_bodies_csv_reopen(tide_gauges *g, const char *dir, const tide_case *c, double t);
int tide_bodies_csv_write(tide_gauges *g, const tide_case *c, double t, const tide_rigid *rigid);
/* Appends (and flushes) one row at time t from the summed gauges (tide_gauge_arg_of_case's
 * measurement G); the floating bodies' columns from rigid (their states now, by rigid index;
 * NULL: the case's states at t = 0).  Returns 0 or -1. */
int tide_gauges_write_sums(tide_gauges *g, const tide_case *c, const struct tide_gauge_arg *G,
                           const double *sums, double t, const tide_rigid *rigid);
/* The same measured on the host particle set s.  Returns 0 or -1. */
int tide_gauges_write(tide_gauges *g, const tide_particle_set *s, const tide_case *c, double t);
/* Closes the file.  Returns 0 or -1 (e.g. disk full at the last flush). */
int tide_gauges_close(tide_gauges *g);

/* ---- run summary ---- */

typedef struct tide_run_stats {
	char case_name[128];
	char status[256];             /* "ok" or the sentence that stopped the run */
	int dim;
	size_t n_fluid, n_bound;
	long steps;
	double t_sim, wall_s, time_per_step_s, particle_steps_per_s;
	size_t peak_host_bytes, peak_device_bytes;
	/* the device bytes expected from the allocation formulas when one GPU holds this rank's
	 * data (tide_sim_node_bytes; beside peak_device for the bench ladder); 0 without GPUs */
	size_t expected_device_bytes;
	int nranks, ncpu_workers, ncuda_workers;
	char sched[32];
	int n_outputs;
	double dp, h;
	double first_step_s, later_step_s; /* the first step; the mean of the others (0: < 2 steps) */
	/* the Jeans check of a self-gravitating gas (include/tide/jeans.h; 0 when not checked):
	 * the least Jeans mass at an output, the density there, the first output's time at which
	 * some particle had M_J < N_ngb m (-1: never) */
	double jeans_mass_min, jeans_rho, jeans_unresolved_t;
	/* sink particles (include/tide/sinks.h; 0 without): how many at the end, their mass */
	int n_sinks;
	double sink_mass;
	size_t n_nbody;      /* collisionless particles of a gas run (block.h TIDE_NBODY) */
	/* the units the csv titles name for dp and h, the Jeans and sink masses, the Jeans
	 * density: a gas case's in cgs or SI (src/case_units.h); "": m, mass, density */
	char unit_length[16], unit_mass[16], unit_density[16];
} tide_run_stats;

/* Writes dir/run_summary.csv (a header row with units and one value row) and
 * dir/run_summary.json (the same fields, keys as in tide_run_stats).  Returns 0 or -1. */
int tide_summary_write(const char *dir, const tide_run_stats *st);

/* Peak resident set size of this process (VmHWM in /proc/self/status) in bytes; 0 if unknown. */
size_t tide_peak_host_bytes(void);

#endif
