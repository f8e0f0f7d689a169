/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Initial conditions of the gravity cases (src/nbody_ic.c), in G = M = 1 units.  Positions and
 * masses go to body (x, y, z, m), velocities to vel (vx, vy, vz, 0), 4 floats per particle.
 *   plummer: Plummer sphere of scale radius a = 1, in equilibrium (Aarseth, Hénon & Wielen 1974),
 *            radii cut at the 99.9 % mass radius, centre of mass at rest at the origin;
 *   uniform: uniform in the cube [-1, 1]³, at rest;
 *   sphere:  uniform in the ball of radius 1, at rest (the cold collapse). */
#ifndef TIDE_BH_IC_H
#define TIDE_BH_IC_H
#include <stdint.h>
#include "tide/bh_tree.h"

/* The most particles tide gravity and tide nbody take (counts and ids are 32-bit). */
#define BH_MAX_N 1.5e9

enum bh_dist { BH_DIST_PLUMMER, BH_DIST_UNIFORM, BH_DIST_SPHERE };

/* Returns 0, or -1 when name is not a distribution. */
int bh_dist_parse(const char *name, enum bh_dist *d);
const char *bh_dist_name(enum bh_dist d);
/* Fills body[0..n) and vel[0..4n).  Returns 0, or -1 when its scratch (6 doubles per particle)
 * cannot be allocated (nothing is written then). */
int bh_ic_make(enum bh_dist d, uint32_t n, uint64_t seed, bh_body *body, float *vel);
/* Host bytes per particle of tide gravity and tide nbody while the initial conditions are made,
 * their peak: position and mass, velocity, acceleration, and bh_ic_make's scratch.  Checked
 * against the available memory before anything is allocated. */
#define BH_IC_BYTES_PER_PARTICLE (sizeof(bh_body) + 4 * sizeof(float) + sizeof(bh_acc) + \
                                  6 * sizeof(double))

/* Plummer: half-mass radius a / sqrt(2^(2/3) - 1), crossing time of the half-mass radius. */
double bh_plummer_rhalf(void);
/* Free-fall time sqrt(3 pi / (32 G rho)) of a uniform ball of mass 1 and radius 1. */
double bh_sphere_tff(void);

/* Radii containing fractions fr[0..nf) of the mass around the centre of mass (sorts a copy). */
void bh_lagrange_radii(const bh_body *body, uint32_t n, const double *fr, int nf, double *r);
#endif
