/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A simulation case as read from a YAML case file (cases/NAME.yaml), fully validated, with every
 * default filled in, and the quantities derived from it (inline below, one home for each).
 * Every layer reads a case; reading, overriding and building one is the program's
 * (src/case_load.h: tide_case_load() is the only place that knows the file format,
 * tide_case_build() turns the geometry into particles). */
#ifndef TIDE_CASE_H
#define TIDE_CASE_H
#include <math.h>
#include <stddef.h>
#include "tide/sph_params.h"   /* enum tide_eos */
#include "tide/motion.h"       /* the moving bodies' table */
#include "tide/rigid.h"        /* floating bodies */

#define TIDE_CASE_MAX_ITEMS 16
#define TIDE_CASE_NAME 128

typedef struct tide_box { double lo[3], hi[3]; } tide_box;

enum tide_integrator { TIDE_VERLET = 0, TIDE_SYMPLECTIC = 1 };
enum tide_diffusion { TIDE_DIFF_NONE = 0, TIDE_DIFF_MOLTENI = 1, TIDE_DIFF_FOURTAKAS = 2 };
/* Particle files of a run: .vtp + .pvd, .h5 + .xmf (needs HDF5 at build time), or both; or
 * (gas runs) SWIFT/GADGET snapshots, snapshot_NNNN.hdf5 (src/swift_output.c). */
/* case key block_owners: which rank owns which block (include/tide/decomposition.h) */
enum tide_block_owners { TIDE_OWNERS_BOXES = 0, TIDE_OWNERS_HILBERT = 1 };
enum tide_output_format { TIDE_OUT_VTP = 0, TIDE_OUT_HDF5 = 1, TIDE_OUT_BOTH = 2, TIDE_OUT_SWIFT = 3 };
/* Arrays of the particle files (case key output.fields, in this order; bit i: name i of
 * tide_output_field_names).  Position is always among them: it places the particles. */
enum tide_output_field {
	TIDE_OUT_POSITION = 1, TIDE_OUT_VELOCITY = 2, TIDE_OUT_DENSITY = 4, TIDE_OUT_PRESSURE = 8,
	TIDE_OUT_TYPE = 16, TIDE_OUT_ID = 32,
	/* the gas scheme's (physics.scheme: gas), written only by gas runs */
	TIDE_OUT_INTERNAL_ENERGY = 64, TIDE_OUT_SMOOTHING_LENGTH = 128, TIDE_OUT_SOUND_SPEED = 256,
	TIDE_OUT_MASS = 512,
	/* written only by cases with moving or floating bodies: the particle's body (its number in
	 * bodies.csv), -1 for none, found from the id ranges at output time (no bytes per particle) */
	TIDE_OUT_BODY = 1024,
	TIDE_OUT_ALL_FIELDS = 2047
};
#define TIDE_OUT_GAS_FIELDS (TIDE_OUT_INTERNAL_ENERGY | TIDE_OUT_SMOOTHING_LENGTH | TIDE_OUT_SOUND_SPEED | \
                             TIDE_OUT_MASS)
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
	double h_factor;       /* gas: > 0, each particle's softening h_factor h (bh_soft2); 0: softening */
} tide_self_gravity;

/* The gas scheme's keys (physics.scheme: gas; section gas; include/tide/gas_math.h). */
typedef struct tide_gas_case {
	int eos;                 /* enum tide_gas_eos (gas_params.h) */
	double gamma;            /* ideal gas adiabatic index */
	double cs;               /* isothermal sound speed (isothermal, barotropic) */
	double rho_crit;         /* barotropic: end of the isothermal regime */
	double eta;              /* h = eta (m / rho)^(1/dim) */
	double h_tolerance;      /* relative tolerance of the h iteration */
	int h_iterations;        /* most iterations */
	double h_max;            /* largest h; 0: not given, tide_case_gas_h_max */
	double h_min;            /* smallest h (0: none) */
	double h_cell;           /* half the cell side; 0: not given, tide_case_gas_h_cell */
	double alpha_visc, beta_visc, alpha_cond;
	double u_min;            /* floor of the specific internal energy */
	double u;                /* initial specific internal energy of the fluid (ideal gas) */
} tide_gas_case;

/* Turbulent initial velocities of a gas case (section turbulence; src/turbulence.h). */
typedef struct tide_turbulence {
	int on;             /* section turbulence present */
	double mach;        /* rms Mach number of the particles' added velocities */
	double slope;       /* power per Fourier mode P(k) ~ k^slope */
	double solenoidal;  /* zeta (Federrath et al. 2010): 1 solenoidal, 0 compressive */
	int seed;
	int grid;           /* points per side of the periodic grid (a power of two) */
} tide_turbulence;
#define TIDE_TURB_GRID_MAX 256

/* Sink particles of a self-gravitating gas case (section sinks; include/tide/sink.h). */
typedef struct tide_sinks_case {
	int on;                   /* section sinks present */
	double density_threshold; /* creation: gas density above this */
	double accretion_radius;  /* r_acc */
	double softening;         /* Plummer softening of the sinks' gravity; 0: r_acc */
	int max;                  /* most sinks (<= TIDE_SINK_MAX) */
} tide_sinks_case;
/* Generated initial conditions of a gas case (section generator; src/gas_generator.c builds
 * them with src/gas_ic.c's formulas, in the case's units; docs/case-format.md). */
enum tide_gen_type {
	TIDE_GEN_NONE = 0, TIDE_GEN_SHOCK_TUBE = 1, TIDE_GEN_SEDOV = 2, TIDE_GEN_EVRARD = 3,
	TIDE_GEN_UNIFORM_SPHERE = 4, TIDE_GEN_TOP_HAT = 5
};
extern const char *const tide_gen_type_names[]; /* "none", "shock_tube", ..., NULL */
typedef struct tide_generator {
	int type;              /* enum tide_gen_type */
	/* shock_tube: the tube fills the domain along `axis`, left state below x0 */
	int axis;              /* 0 x, 1 y, 2 z */
	double x0;
	double rho[2], p[2], v[2];   /* left (0) and right (1) states */
	int fixed_layers;      /* lattice layers at each end held fixed */
	/* sedov */
	double E, r_inj, half; /* half: half the side of the gas cube (sedov, top_hat) */
	double rho_gas;        /* sedov: density */
	double u;              /* sedov: background; spheres: the sphere's specific energy */
	/* evrard, uniform_sphere, top_hat */
	double M, R, centre[3];
	double rho_in, rho_out;  /* top_hat */
	double u_out;          /* top_hat: the background's u; < 0: pressure equilibrium */
	int positions;         /* enum tide_gen_positions */
	char glass[1024];      /* positions: glass: the glass file (absolute; "": the shipped one) */
} tide_generator;
enum tide_gen_positions { TIDE_GEN_LATTICE = 0, TIDE_GEN_GLASS = 1 };
extern const char *const tide_gen_positions_names[]; /* "lattice", "glass", NULL */

/* An STL mesh of the case (solids, fluid_volumes): file, placement, and what loading found. */
typedef struct tide_stl_item {
	char file[1024];       /* absolute path (the case gives it relative to its own directory) */
	double scale, rotate[3], translate[3];   /* see tide_xform (mesh_geometry.h) */
	int layers;            /* solids: boundary layers inside the material, below the surface */
	int closed;            /* solids: 1 the mesh must be closed (fluid volumes always) */
	double lo[3], hi[3];   /* bounding box once placed (checked when the case is loaded) */
	double area, volume;   /* surface area and enclosed volume once placed (particle estimate) */
	int has_mass;          /* 1: the mesh is closed and the next two hold its mass properties */
	double centroid[3];    /* centroid of the enclosed solid [m] */
	double inertia[9];     /* its inertia tensor about the centroid at unit density [m^5] */
} tide_stl_item;

/* Types of motion segments (case key obstacles[i].motion.type, solids[i].motion.type). */
enum tide_motion_type {
	TIDE_MOT_LINEAR = 0, TIDE_MOT_SINE = 1, TIDE_MOT_ROTATION = 2, TIDE_MOT_ROTATION_SINE = 3,
	TIDE_MOT_PISTON = 4, TIDE_MOT_FLAP = 5, TIDE_MOT_PISTON_JONSWAP = 6
};
extern const char *const tide_motion_type_names[]; /* "linear", ..., NULL */

/* A motion segment as the case gives it (docs/case-format.md); src/case_motion.c derives the
 * codelet's form (motion.h) from it.  Angles in degrees, as the case gives them. */
typedef struct tide_motion_input {
	int type;              /* enum tide_motion_type */
	double start, end;     /* [s]; end INFINITY when not given */
	double vec[3];         /* linear: velocity [m/s]; sine: amplitude [m]; piston: direction */
	double centre[3];      /* rotations, flap: a point of the axis [m] */
	double axis[3];        /* rotations, flap: the axis (3-D; 2-D: y) */
	double rate;           /* rotation: angular velocity [deg/s] */
	double amplitude;      /* rotation_sine: angle amplitude [deg] */
	double period, phase;  /* sine types and wave makers: [s], [deg] */
	double height, depth;  /* wave makers: target wave height H, water depth d [m] */
	double ramp;           /* wave makers: ramp duration [periods] */
	double hinge_height;   /* flap: hinge height above the bottom [m] */
	double gamma;          /* piston_jonswap: peak enhancement factor */
	double seed;           /* piston_jonswap: seed of the phases (an integer) */
	double components;     /* piston_jonswap: number of sine components (an integer) */
} tide_motion_input;

/* A floating body as the case gives it (obstacles[i].floating, solids[i].floating;
 * docs/case-format.md); src/case_floating.c derives its rigid state (rigid.h). */
typedef struct tide_floating_input {
	double density, mass;  /* exactly one given (> 0), the other 0 */
	int has_centre, has_inertia;
	double centre[3];      /* centre of mass [m] (default: a box's centre) */
	double inertia[3];     /* principal moments about the centre along x, y, z [kg m^2] (2-D:
	                        * inertia[1] = I_yy) (default: a box's, uniform density) */
	double velocity[3];    /* initial velocity of the centre [m/s] */
	int fix[6];            /* constraints: translation x, y, z, rotation about x, y, z */
} tide_floating_input;

typedef struct tide_probe {
	char name[32];
	double p[3];           /* water height probes use p[0], p[1]; point probes p[0..2] */
	int mode;              /* height probes: enum tide_gauge_mode (gauge_math.h); -1: gauges.mode */
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
	int nsolid;                   /* STL solids: boundary particles in layers under the surface */
	tide_stl_item solid[TIDE_CASE_MAX_ITEMS];
	int nvolume;                  /* STL fluid volumes: fluid particles inside closed meshes */
	tide_stl_item volume[TIDE_CASE_MAX_ITEMS];

	/* prescribed motion (obstacles[i].motion, solids[i].motion) */
	int nmotion;                              /* segments of all bodies */
	tide_motion_input motion_in[TIDE_MOTION_MAX_SEGS];
	int obstacle_motion[TIDE_CASE_MAX_ITEMS][2];  /* first segment and count (0: fixed) */
	int solid_motion[TIDE_CASE_MAX_ITEMS][2];
	int tank_motion[2];                       /* tank.motion: the walls sway or roll (sloshing) */
	tide_motion_table motion;                 /* derived: what body_motion gets, ids included */
	/* floating bodies (obstacles[i].floating, solids[i].floating) */
	int nfloating;
	tide_floating_input floating_in[TIDE_MAX_FLOAT];
	int obstacle_floating[TIDE_CASE_MAX_ITEMS];  /* 0: not floating; k + 1: floating_in[k] */
	int solid_floating[TIDE_CASE_MAX_ITEMS];
	tide_rigid rigid[TIDE_MAX_FLOAT];         /* derived: the rigid states at t = 0 */

	/* physics */
	int kernel;                   /* enum tide_kernel */
	int eos;                      /* enum tide_eos (sph_params.h) */
	int boundary;                 /* enum tide_boundary (sph_params.h): dbc or mdbc */
	int mdbc_slip;                /* enum tide_mdbc_slip (sph_params.h): vel0, noslip, freeslip */
	double rho0, gamma;           /* Tait equation of state */
	double cs_iso;                /* isothermal sound speed [m/s] (eos: isothermal) */
	double coefsound;             /* c0 = coefsound * sqrt(g * hswl) (Tait) */
	double hswl;                  /* still water level used for c0 [m]: max fluid height by default */
	double c0;                    /* derived (cs_iso for the isothermal equation of state) */
	double visco;                 /* Monaghan alpha (physics.viscosity: artificial) */
	int viscosity;                /* enum tide_viscosity (sph_params.h) */
	double nu;                    /* kinematic viscosity [m^2/s] (physics.viscosity: laminar) */
	double sps_cs, sps_ci;        /* SPS Smagorinsky and isotropic constants (laminar+sps) */
	int diffusion;                /* enum tide_diffusion */
	double delta;                 /* density diffusion coefficient (0.1 typical) */
	double gravity[3];
	double cfl;                   /* CFL number (0.2) */
	int integrator;               /* enum tide_integrator */
	int verlet_steps;             /* Euler step every N Verlet steps (40) */
	tide_self_gravity self_gravity;
	int scheme;                   /* enum tide_scheme (gas_params.h): wcsph or gas */
	int units;                    /* enum tide_units (gas_params.h) */
	tide_gas_case gas;            /* physics.scheme = gas */
	tide_turbulence turbulence;   /* gas only: turbulent initial velocities */
	tide_sinks_case sinks;        /* gas with self-gravity only: sink particles */
	struct {
		int on;               /* section bonnor_ebert present (src/bonnor_ebert.h) */
		double xi_max;        /* the profile's truncation (6.451: the critical sphere) */
	} bonnor_ebert;
	tide_generator generator;     /* gas only: generated initial conditions (none: the geometry) */
	char initial_file[1024];      /* initial.file (gas only): the particles from this file, an
	                               * absolute path (src/gas_input.h); "": from the geometry */
	char initial_nbody_file[1024];  /* initial.nbody_file (gas only): collisionless particles
	                                 * from this text file, an absolute path; "": none */
	double code_length, code_mass;  /* units: code, derived: the cgs length and mass units of
	                                 * initial.file (gas_input.h); 0: cm and g */
	double code_time;             /* derived, > 0 only for a case run in internal units
	                               * (src/case_units.h): the time unit [s]; code_length and
	                               * code_mass then its cgs length and mass units */
	int units_given;              /* derived, with code_time > 0: the units the case was given in
	                               * (enum tide_units), those of the outputs */
	const struct tide_case *given; /* derived, with code_time > 0: the case as given, which
	                                * used_parameters.yaml and checkpoints print; else NULL */

	/* how the domain is cut into blocks: "slabs", "2d", "3d" or "NXxNYxNZ" (decomposition.h) */
	char decomp[32];
	int block_owners;             /* enum tide_block_owners: boxes of blocks per rank, or runs of
	                               * equal cost along a Hilbert curve */

	/* time */
	double t_end, t_out;          /* simulated time, output interval [s] */
	int output_format;            /* enum tide_output_format */
	unsigned output_fields;       /* output.fields: TIDE_OUT_* mask (default all) */
	int output_single;            /* output.precision: 1 single (Float32 positions), 0 double */

	/* gauges (gauges.csv, every gauge_every of simulated time) */
	double gauge_every;           /* [s]; 0: not given, at every output (t_out) */
	int gauge_mode;               /* height probes' default: enum tide_gauge_mode (column) */
	int nheight;                  /* water-height probes: vertical lines at (x, y) */
	tide_probe height[TIDE_CASE_MAX_ITEMS];
	int npressure;                /* pressure probes: points */
	tide_probe pressure[TIDE_CASE_MAX_ITEMS];
	int nvelocity;                /* velocity probes: points */
	tide_probe velocity[TIDE_CASE_MAX_ITEMS];
	int gauge_forces;             /* 1: the fluid's force on every obstacle */
	int surge_front;              /* 1: write the leading fluid x (and Z = x/a, T = t sqrt(2g/a)) */
	double surge_a;               /* initial column width a for the dimensionless surge front */
	double surge_x0;              /* x of the wall the column leans on (front measured from it) */
} tide_case;

/* Derived quantities. */
/* The arrays a run's particle files hold: output.fields less the gas scheme's arrays in a water
 * run and the Body array in a case without bodies. */
static inline unsigned tide_case_written_fields(const tide_case *c)
{
	unsigned f = c->output_fields;
	if (c->scheme != TIDE_SCHEME_GAS) f &= ~(unsigned)TIDE_OUT_GAS_FIELDS;
	if (!c->motion.nbody) f &= ~(unsigned)TIDE_OUT_BODY;
	return f;
}
static inline double tide_case_h(const tide_case *c) { return c->coefh * c->dp; }
/* rho0 * dp^dim, the same for fluid and boundary */
/* Which particle files the run writes (output.format). */
static inline int tide_case_writes_vtp(const tide_case *c)
{
	return c->output_format == TIDE_OUT_VTP || c->output_format == TIDE_OUT_BOTH;
}
static inline int tide_case_writes_h5(const tide_case *c)
{
	return c->output_format == TIDE_OUT_HDF5 || c->output_format == TIDE_OUT_BOTH;
}
static inline double tide_case_mass(const tide_case *c) { return c->rho0 * pow(c->dp, c->dim); }
/* c0^2 rho0 / gamma */
static inline double tide_case_tait_b(const tide_case *c)
{
	return c->c0 * c->c0 * c->rho0 / c->gamma;
}
/* The case's equation of state p(rho) [Pa] and its inverse, in double precision (host side:
 * output, gauges, initial densities; the codelets use tide_pressure of sph_interact.h). */
static inline double tide_case_pressure(const tide_case *c, double rho)
{
	if (c->eos == TIDE_EOS_ISOTHERMAL) return c->cs_iso * c->cs_iso * (rho - c->rho0);
	return tide_case_tait_b(c) * (pow(rho / c->rho0, c->gamma) - 1.0);
}
static inline double tide_case_density(const tide_case *c, double p)
{
	if (c->eos == TIDE_EOS_ISOTHERMAL) return c->rho0 + p / (c->cs_iso * c->cs_iso);
	return c->rho0 * pow(1.0 + p / tide_case_tait_b(c), 1.0 / c->gamma);
}
/* Interval of the gauges [s]: gauges.every, else time.output. */
static inline double tide_case_gauge_every(const tide_case *c)
{
	return c->gauge_every > 0 ? c->gauge_every : c->t_out;
}
/* Height mode of height probe k: its own, else gauges.mode. */
static inline int tide_case_height_mode(const tide_case *c, int k)
{
	return c->height[k].mode >= 0 ? c->height[k].mode : c->gauge_mode;
}
/* The gas scheme's largest smoothing length: the given one, else 4 eta dp (down to rho0 / 64
 * in 3-D).  The cells have side 2 h_max (tide_sim_params). */
static inline double tide_case_gas_h_max(const tide_case *c)
{
	return c->gas.h_max > 0 ? c->gas.h_max : 4.0 * c->gas.eta * c->dp;
}

/* The gas scheme's cells have side 2 h_cell: the given one, else eta dp (the initial h of a
 * uniform gas), at most h_max; h_max with periodic boundaries (one ghost layer of cells holds
 * the images, sph_params.h, so one cell must hold the largest support). */
static inline double tide_case_gas_h_cell(const tide_case *c)
{
	double hm = tide_case_gas_h_max(c), hc = c->gas.h_cell > 0 ? c->gas.h_cell : c->gas.eta * c->dp;
	return c->periodic || hc > hm ? hm : hc;
}

/* Half the side of the neighbour cells: h (WCSPH) or h_cell (gas). */
static inline double tide_case_cell_h(const tide_case *c)
{
	return c->scheme == TIDE_SCHEME_GAS ? tide_case_gas_h_cell(c) : tide_case_h(c);
}

/* Cell layers of a halo: the gas scheme's largest support 2 h_max in cells of side 2 h_cell;
 * one for WCSPH, except under mDBC, whose ghost nodes lie up to 2 |n| < 4h beyond their
 * boundary particles (include/tide/mdbc.h, tide_mdbc_has_ghost: only particles less than 2h
 * inside their solid take one) and read a support 2h around that: 3 cells of side 2h, so that
 * a ghost sees its whole support in every decomposition (tide_grid.halo). */
static inline int tide_case_halo_layers(const tide_case *c)
{
	if (c->scheme != TIDE_SCHEME_GAS) {
		/* (a periodic case keeps one: its images fill a single ghost layer of cells) */
		if (c->boundary != TIDE_BOUNDARY_MDBC || c->periodic) return 1;
		double h = tide_case_h(c), reach = 2.0 * (2.0 * h) + 2.0 * h;
		return (int)ceil(reach / (2.0 * h) - 1e-6);
	}
	int n = (int)ceil(tide_case_gas_h_max(c) / tide_case_gas_h_cell(c) - 1e-6);
	return n > 1 ? n : 1;
}

/* Softening length of the self-gravity: the given one, else dp. */
static inline double tide_case_softening(const tide_case *c)
{
	return c->self_gravity.softening > 0 ? c->self_gravity.softening : c->dp;
}

#endif
