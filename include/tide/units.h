/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal units of a gas run (issues 23, 24): the gas kernels are single precision, and a case
 * in cgs or SI with astrophysical values overflows them (h^3 ~ (6e16 cm)^3 = 2e50 > FLT_MAX).
 * A run works in units of its own in which every quantity the kernels see is O(1): one internal
 * unit of length, mass and time, each given in the case's units.  A quantity of dimensions
 * length^l mass^m time^t is
 *     x_case = x_internal * length^l mass^m time^t,
 * the one formula every conversion goes through (tide_units_to_case / tide_units_from_case);
 * writers of outputs in the case's units call them with the dimensions below (the struct is
 * tide_unit_system: enum tide_units, gas_params.h, names the case's units key).  The identity
 * (tide_units_identity) is what a run in code units, or a water run, uses. */
#ifndef TIDE_UNITS_H
#define TIDE_UNITS_H
#include <math.h>

typedef struct tide_unit_system {
	double length, mass, time; /* one internal unit, in the case's units (cm, g, s in cgs) */
} tide_unit_system;

/* Dimensions: exponents of length, mass and time. */
typedef struct tide_dim {
	double l, m, t;
} tide_dim;

#define TIDE_DIM_NONE ((tide_dim){0, 0, 0})
#define TIDE_DIM_LENGTH ((tide_dim){1, 0, 0})
#define TIDE_DIM_MASS ((tide_dim){0, 1, 0})
#define TIDE_DIM_TIME ((tide_dim){0, 0, 1})
#define TIDE_DIM_VELOCITY ((tide_dim){1, 0, -1})
#define TIDE_DIM_ACCELERATION ((tide_dim){1, 0, -2})
#define TIDE_DIM_DENSITY ((tide_dim){-3, 1, 0})
#define TIDE_DIM_SPECIFIC_ENERGY ((tide_dim){2, 0, -2}) /* also the potential, c_s^2 */
#define TIDE_DIM_ENERGY ((tide_dim){2, 1, -2})
#define TIDE_DIM_PRESSURE ((tide_dim){-1, 1, -2})
#define TIDE_DIM_G ((tide_dim){3, -1, -2})          /* the gravitational constant */
#define TIDE_DIM_ANGULAR_MOMENTUM ((tide_dim){2, 1, -1})
#define TIDE_DIM_MOMENTUM ((tide_dim){1, 1, -1})
#define TIDE_DIM_FORCE ((tide_dim){1, 1, -2})

static inline tide_unit_system tide_units_identity(void) { return (tide_unit_system){1.0, 1.0, 1.0}; }

static inline int tide_units_is_identity(const tide_unit_system *u)
{
	return u->length == 1.0 && u->mass == 1.0 && u->time == 1.0;
}

/* One internal unit of a quantity of dimensions d, in the case's units. */
static inline double tide_units_factor(const tide_unit_system *u, tide_dim d)
{
	return pow(u->length, d.l) * pow(u->mass, d.m) * pow(u->time, d.t);
}

static inline double tide_units_to_case(const tide_unit_system *u, double x, tide_dim d)
{
	return x * tide_units_factor(u, d);
}

static inline double tide_units_from_case(const tide_unit_system *u, double x, tide_dim d)
{
	return x / tide_units_factor(u, d);
}

/* The units of length L and mass M (in the case's units) with the time unit that makes the
 * gravitational constant G (in the case's units) equal to 1: t = sqrt(L^3 / (G M)). */
static inline tide_unit_system tide_units_g1_of(double L, double M, double G)
{
	return (tide_unit_system){L, M, sqrt(L * L * L / (G * M))};
}

#endif
