/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Initial conditions of the gas scheme (physics.scheme: gas): particles of equal mass on
 * lattices whose spacing follows the density, with the gas fields (include/tide/gas_math.h)
 * set so that the first step starts the leapfrog.  The block's aux fields must be those of the
 * gas scheme (tide_sim_set_aux) before anything is allocated. */
#ifndef TIDE_GAS_IC_H
#define TIDE_GAS_IC_H
#include <stdint.h>
#include "tide/block.h"

/* Appends one gas particle to v (room assumed): position p, velocity vel, density rho (the
 * first h guess eta (m/rho)^(1/3) comes from it), specific internal energy u. */
void tide_gas_ic_push(tide_block_view *v, const double p[3], const double vel[3], double rho,
                      double u, double h);

/* The gas fields of particles 0..n-1 of a block built from a case's geometry (fluid boxes,
 * balls, volumes: tide_host_block_build): h = eta (m / rho)^(1/dim) with the case's mass,
 * u = gas.u, the leapfrog's half-step values equal to the present. */
struct tide_case;
void tide_gas_ic_start(const struct tide_case *c, tide_block_view *v, size_t n);

/* The generators below (the case keys' `generator:`, src/gas_generator.c, and the tests) share
 * one pattern: with v NULL they only count their particles; otherwise they append them to v,
 * which has room for them (tide_gas_ic_alloc), with ids from v->count.  Both return the count. */

/* A periodic glass of n particles in the unit cube [0, 1)^3 (src/glass.h), coordinates p[3 i ..
 * 3 i + 2]: the generators' positions where it is given, tiled in cubes of side a n^(1/3) for a
 * mean spacing a and cut at the faces of the region; NULL: cubic lattices. */
typedef struct tide_glass {
	uint32_t n;
	float *p;
} tide_glass;

/* A new host block with room for n + extra particles (tide_block_alloc_host): *mem, *v (count
 * 0).  0, or -1 (out of memory). */
int tide_gas_ic_alloc(size_t n, uint32_t extra, void **mem, tide_block_view *v);

/* A shock tube along axis `axis` of box [lo, hi): the left state (index 0) below x0, the right
 * one (1) above, each a cubic lattice of particles of mass m at the spacing (m / rho)^(1/3),
 * snapped to a whole number of cells across every axis of its part of the box (choose the box
 * a multiple of both spacings across the tube to keep the densities exact).  Velocities along
 * the tube; u = p / ((gamma - 1) rho).  The right lattice is moved across the tube by half
 * the left one's spacing (wrapped: the tube is periodic across), so that its columns continue
 * some of the left one's: with the columns of a lattice of spacing 2a between those of one of
 * spacing a, the contact layer interpenetrates and the left star state of Sod's problem stays
 * 15 % too dense (tests/test_gas_sod.c).  The `fixed` lattice layers at each end of the tube
 * are fixed gas particles (type boundary: they hold the end states while the waves are inside). */
typedef struct tide_gas_tube {
	int axis;
	double lo[3], hi[3], x0;
	double rho[2], p[2], vel[2];
	double m, gamma, eta;
	int fixed;
	const tide_glass *glass;   /* NULL: lattices (the right one moved across, as above) */
} tide_gas_tube;
size_t tide_gas_ic_shock_tube(const tide_gas_tube *t, tide_block_view *v);

/* A Sedov-Taylor blast: a cubic lattice of spacing (m / rho)^(1/3) filling the cube of half side
 * `half` about `centre` (a whole number of cells: the centre at a cell corner, so that the
 * 8 particles nearest to it are at rest at equal distances), gas of density rho at rest with
 * specific energy u_bg, and the energy E shared equally by the particles within r_inj of the
 * centre (at least the central 8); their number is returned in ninj. */
typedef struct tide_gas_sedov {
	double half, m, rho, u_bg, E, r_inj, eta, centre[3];
	const tide_glass *glass;   /* NULL: the lattice */
	int ninj;   /* out */
} tide_gas_sedov;
size_t tide_gas_ic_sedov(tide_gas_sedov *s, tide_block_view *v);

/* A gas sphere of mass M, radius R about `centre`, at rest with specific energy u: the cubic
 * lattice of n points across the diameter (cell centres of the cube [-R, R]^3) inside the
 * sphere, particles of mass M / N (N the count: tide_gas_ic_sphere_mass).  evrard = 0: uniform
 * density; 1: Evrard's sphere (Evrard 1988), density M / (2 pi R^2 r), every radius stretched r
 * -> R (r / R)^(3/2) (the lattice's uniform mass profile M (r/R)^3 becomes M (r/R)^2).
 * rho_out > 0: a top hat, the sphere in a background of density rho_out (a cubic lattice of
 * particles of the same mass, snapped to a whole number of cells across the cube of half side
 * `half` about the centre, outside the sphere) with specific energy u_out. */
typedef struct tide_gas_sphere {
	int evrard, n;
	double R, M, u, eta, centre[3];
	double half, rho_out, u_out;
	const tide_glass *glass;   /* NULL: lattices; else the glass of mean spacing 2R / n */
} tide_gas_sphere;
size_t tide_gas_ic_sphere(const tide_gas_sphere *s, tide_block_view *v);
double tide_gas_ic_sphere_mass(const tide_gas_sphere *s);

#endif
