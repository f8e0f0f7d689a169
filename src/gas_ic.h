/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Initial conditions of the gas scheme (physics.scheme: gas): particles of equal mass on
 * lattices whose spacing follows the density, with the gas fields (include/tide/gas_math.h)
 * set so that the first step starts the leapfrog.  The block's aux fields must be those of the
 * gas scheme (tide_sim_set_aux) before anything is allocated. */
#ifndef TIDE_GAS_IC_H
#define TIDE_GAS_IC_H
#include <stdint.h>
#include "tide/block.h"

/* Appends one gas particle to v (room assumed): position p, velocity vel, density rho, mass
 * m (the particle's own: gas_math.h's TIDE_GAS_MASS), specific internal energy u, first guess
 * of h (the callers take eta (m/rho)^(1/3)). */
void tide_gas_ic_push(tide_block_view *v, const double p[3], const double vel[3], double rho,
                      double m, double u, double h);

/* The gas fields of particles 0..n-1 of a block built from a case's geometry (fluid boxes,
 * balls, volumes: tide_host_block_build): h = eta (m / rho)^(1/dim) with the case's mass,
 * u = gas.u, the leapfrog's half-step values equal to the present. */
struct tide_case;
void tide_gas_ic_start(const struct tide_case *c, tide_block_view *v, size_t n);

/* A shock tube along axis `axis` of box [lo, hi): the left state (index 0) below x0, the right
 * one (1) above, each a cubic lattice of particles of mass m at the spacing (m / rho)^(1/3),
 * snapped to a whole number of cells across every axis of its part of the box (choose the box
 * a multiple of both spacings across the tube to keep the densities exact).  Velocities along
 * the tube; u = p / ((gamma - 1) rho).  The right lattice is moved across the tube by half
 * the left one's spacing (wrapped: the tube is periodic across), so that its columns continue
 * some of the left one's: with the columns of a lattice of spacing 2a between those of one of
 * spacing a, the contact layer interpenetrates and the left star state of Sod's problem stays
 * 15 % too dense (tests/test_gas_sod.c).  A new host block of the particles (ids 0..n-1): *mem
 * (tide_block_alloc_host, capacity count + extra), *v.  0, or -1 (out of memory). */
typedef struct tide_gas_tube {
	int axis;
	double lo[3], hi[3], x0;
	double rho[2], p[2], vel[2];
	double m, gamma, eta;
} tide_gas_tube;
int tide_gas_ic_shock_tube(const tide_gas_tube *t, uint32_t extra, void **mem, tide_block_view *v);

/* A Sedov-Taylor blast: a cubic lattice of spacing (m / rho)^(1/3) filling the cube of half side
 * `half` about the origin (a whole number of cells: the origin at a cell corner, so that the
 * 8 particles nearest to it are at rest at equal distances), gas of density rho at rest with
 * specific energy u_bg, and the energy E shared equally by the particles within r_inj of the
 * origin (at least the central 8).  A new host block (ids 0..n-1): *mem, *v.  Returns the
 * number of particles that took E, or -1 (out of memory). */
int tide_gas_ic_sedov(double half, double m, double rho, double u_bg, double E, double r_inj,
                      double eta, void **mem, tide_block_view *v);

/* Evrard's sphere (Evrard 1988): mass M, radius R, density M / (2 pi R^2 r), at rest with
 * specific energy u: the cubic lattice of n points across the diameter (cell centres of the
 * cube [-R, R]^3) inside the sphere, every radius stretched r -> R (r / R)^(3/2) (the lattice's
 * uniform mass profile M (r/R)^3 becomes M (r/R)^2).  Particles of mass M / N, their own N
 * returned in *np.  A new host block: *mem, *v.  0, or -1 (out of memory). */
int tide_gas_ic_evrard(int n, double R, double M, double u, double eta, void **mem,
                       tide_block_view *v, uint32_t *np);

#endif
