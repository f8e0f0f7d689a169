/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A simulation case as read from a YAML case file (cases/NAME.yaml), fully validated, with every
 * default filled in.  tide_case_load() is the only place that knows the file format;
 * tide_case_build() turns the geometry into particles. */
#ifndef TIDE_CASE_H
#define TIDE_CASE_H
#include <stddef.h>
#include <stdio.h>
#include "tide/particle_set.h"
#include "tide/sph_params.h"   /* enum tide_eos */

#define TIDE_CASE_MAX_ITEMS 16
#define TIDE_CASE_NAME 128

typedef struct tide_box { double lo[3], hi[3]; } tide_box;

enum tide_integrator { TIDE_VERLET = 0, TIDE_SYMPLECTIC = 1 };
enum tide_diffusion { TIDE_DIFF_NONE = 0, TIDE_DIFF_MOLTENI = 1, TIDE_DIFF_FOURTAKAS = 2 };
/* Particle files of a run: .vtp + .pvd, .h5 + .xmf (needs HDF5 at build time), or both. */
enum tide_output_format { TIDE_OUT_VTP = 0, TIDE_OUT_HDF5 = 1, TIDE_OUT_BOTH = 2 };
/* Arrays of the particle files (case key output.fields, in this order; bit i: name i of
 * tide_output_field_names).  Position is always among them: it places the particles. */
enum tide_output_field {
	TIDE_OUT_POSITION = 1, TIDE_OUT_VELOCITY = 2, TIDE_OUT_DENSITY = 4, TIDE_OUT_PRESSURE = 8,
	TIDE_OUT_TYPE = 16, TIDE_OUT_ID = 32, TIDE_OUT_ALL_FIELDS = 63
};
extern const char *const tide_output_field_names[]; /* "position", ..., NULL */

typedef struct tide_tank {
	int present;
	tide_box box;          /* inner faces of the walls (the fluid side) */
	int open_top;          /* 1: no wall at hi[2] (z up) */
	int layers;            /* boundary particle layers, placed outside the inner faces */
} tide_tank;

/* A ball of fluid particles (the lattice points of spacing dp inside it). */
typedef struct tide_sphere {
	double c[3], r;
	int hydrostatic;       /* 1: initial density of a self-gravitating uniform sphere at rest */
} tide_sphere;

/* Barnes-Hut self-gravity of the fluid (section physics.self_gravity; present = on). */
typedef struct tide_self_gravity {
	int on;
	double G;              /* gravitational constant [m^3/(kg s^2)] */
	double theta;          /* opening angle */
	double softening;      /* Plummer softening [m]; 0: not given, dp is used */
	int quadrupole;        /* 1: monopole + quadrupole moments */
} tide_self_gravity;

typedef struct tide_probe {
	char name[32];
	double p[3];           /* water height probes use p[0], p[1]; pressure probes p[0..2] */
} tide_probe;

typedef struct tide_case {
	char path[1024];              /* file it came from */
	char name[TIDE_CASE_NAME];
	char description[512];
	int dim;                      /* 2 (x-z plane, y = 0) or 3 */
	double dp;                    /* particle spacing [m] */
	double coefh;                 /* h = coefh * dp */
	tide_box domain;              /* particles leaving it are removed (and counted) */
	int periodic;                 /* bit 0: x, bit 1: y periodic (case key periodic): the domain's
	                               * extent along it is the period, tank walls are left open */

	tide_tank tank;
	int nfluid;                   /* fluid boxes, filled on a lattice of spacing dp */
	tide_box fluid[TIDE_CASE_MAX_ITEMS];
	int nsphere;                  /* fluid balls (fluid_spheres), on the same lattice */
	tide_sphere sphere[TIDE_CASE_MAX_ITEMS];
	int nobstacle;                /* solid boxes of boundary particles (fixed walls) */
	tide_box obstacle[TIDE_CASE_MAX_ITEMS];

	/* physics */
	int kernel;                   /* enum tide_kernel */
	int eos;                      /* enum tide_eos (sph_params.h) */
	double rho0, gamma;           /* Tait equation of state */
	double cs_iso;                /* isothermal sound speed [m/s] (eos: isothermal) */
	double coefsound;             /* c0 = coefsound * sqrt(g * hswl) (Tait) */
	double hswl;                  /* still water level used for c0 [m]: max fluid height by default */
	double c0;                    /* derived (cs_iso for the isothermal equation of state) */
	double visco;                 /* Monaghan alpha (physics.viscosity: artificial) */
	int viscosity;                /* enum tide_viscosity (sph_params.h) */
	double nu;                    /* kinematic viscosity [m^2/s] (physics.viscosity: laminar) */
	int diffusion;                /* enum tide_diffusion */
	double delta;                 /* density diffusion coefficient (0.1 typical) */
	double gravity[3];
	double cfl;                   /* CFL number (0.2) */
	int integrator;               /* enum tide_integrator */
	int verlet_steps;             /* Euler step every N Verlet steps (40) */
	tide_self_gravity self_gravity;

	/* how the domain is cut into blocks: "slabs", "2d", "3d" or "NXxNYxNZ" (decomposition.h) */
	char decomp[32];

	/* time */
	double t_end, t_out;          /* simulated time, output interval [s] */
	int output_format;            /* enum tide_output_format */
	unsigned output_fields;       /* output.fields: TIDE_OUT_* mask (default all) */
	int output_single;            /* output.precision: 1 single (Float32 positions), 0 double */

	/* gauges (written to gauges.csv at every output) */
	int nheight;                  /* water-height probes: vertical lines at (x, y) */
	tide_probe height[TIDE_CASE_MAX_ITEMS];
	int npressure;                /* pressure probes: points */
	tide_probe pressure[TIDE_CASE_MAX_ITEMS];
	int surge_front;              /* 1: write the leading fluid x (and Z = x/a, T = t sqrt(2g/a)) */
	double surge_a;               /* initial column width a for the dimensionless surge front */
	double surge_x0;              /* x of the wall the column leans on (front measured from it) */
} tide_case;

/* Reads and validates a case file.  dp_override > 0 replaces the file's dp.  Returns 0, or -1
 * after printing one sentence naming the file, line, key and what is allowed. */
int tide_case_load(const char *path, double dp_override, tide_case *c);

/* Applies "--set key.sub=value" overrides (same validation as the file).  Returns 0 or -1. */
int tide_case_set(tide_case *c, const char *assignment);

/* Fills the particle set: boundary particles of the tank walls and obstacles, fluid particles of
 * the fluid boxes (minus any inside obstacles), with hydrostatic initial density.  Ids 0..n-1.
 * Returns 0, -1 (message printed), or -2 when the input gives no fluid particle (message
 * printed: dp larger than every box, or the boxes covered by obstacles). */
int tide_case_build(const tide_case *c, tide_particle_set *s);

/* Before building: refuses (one sentence, -1) a dp giving more than the 4e9 particles that ids
 * allow, or no fluid lattice point at all, both from the boxes and walls (counting would take
 * minutes at 1e9). */
int tide_case_check_size(const tide_case *c);
/* The particle count from the lattice sizes alone, an upper bound (no particle is made). */
double tide_case_particle_estimate(const tide_case *c);

/* "[lo x, lo z]..[hi x, hi z]" (2-D) or with y (3-D), for messages. */
void tide_case_box_text(const tide_case *c, const tide_box *b, char *buf, size_t n);

/* Derived quantities. */
double tide_case_h(const tide_case *c);
double tide_case_mass(const tide_case *c);   /* rho0 * dp^dim, the same for fluid and boundary */
double tide_case_tait_b(const tide_case *c); /* c0^2 rho0 / gamma */
/* The case's equation of state p(rho) [Pa] and its inverse, in double precision (host side:
 * output, gauges, initial densities; the codelets use tide_pressure of sph_interact.h). */
double tide_case_pressure(const tide_case *c, double rho);
double tide_case_density(const tide_case *c, double p);
/* Softening length of the self-gravity: the given one, else dp. */
double tide_case_softening(const tide_case *c);

/* Writes every parameter, defaults included, as YAML ("used_parameters.yaml"). */
int tide_case_write_used(const tide_case *c, const char *path);
/* The same text into an open stream (e.g. to fingerprint a case). */
void tide_case_print(FILE *f, const tide_case *c);

#endif
