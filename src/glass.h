/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Periodic glasses (tide_glass, gas_ic.h): particles in the unit cube [0, 1)^3 whose SPH density
 * is nearly uniform without the preferred directions of a lattice, the initial positions of gas
 * cases (generator.positions: glass).  Made by relaxing a random set (tide glass, src/cmd_glass.c),
 * stored as text, one "x y z" line per particle. */
#ifndef TIDE_GLASS_H
#define TIDE_GLASS_H
#include <stddef.h>
#include <stdio.h>
#include "gas_ic.h"

/* The glass shipped with tide (cases/glass/glass_4096.txt in the source tree, else the installed
 * copy): its path into buf. */
void tide_glass_default_path(char *buf, size_t n);

/* Reads a glass file.  0, or -1 with why (one clause: what is wrong and where). */
int tide_glass_read(const char *path, tide_glass *g, char *why, size_t nwhy);
int tide_glass_write(const char *path, const tide_glass *g, const char *comment);
void tide_glass_free(tide_glass *g);

/* n uniform random points (seeded: the same set everywhere). -1: out of memory. */
int tide_glass_random(uint32_t n, unsigned seed, tide_glass *g);

/* The spread std / mean of the SPH densities rho_i = sum_j m W(|x_i - x_j|, h) of the periodic
 * set (cubic spline, h = eta n^(-1/3), every j and its periodic images), the measure of a glass:
 * 0 on a cubic lattice, about 0.1 for random points at eta = 1.2. */
double tide_glass_spread(const tide_glass *g, double eta);

/* Relaxes g in place for `iterations` steps: each particle moves down the SPH pressure gradient
 * of an isothermal gas, -sum_j m (1/rho_i + 1/rho_j) grad_i W_ij (the gradient of sum_i rho_i
 * that drives the densities together), by at most a tenth of the mean spacing per step, in the
 * periodic cube (over-damped: no velocities, so it settles rather than oscillates).  log (may
 * be NULL) gets the spread every `every` steps.  -1: out of memory. */
int tide_glass_relax(tide_glass *g, int iterations, double eta, FILE *log, int every);

#endif
