/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Bonnor-Ebert sphere (Bonnor 1956, Ebert 1955) as an initial condition of a gas case
 * (case key bonnor_ebert, src/bonnor_ebert.c): the isothermal Lane-Emden equation
 *     psi'' + (2 / xi) psi' = exp(-psi),   psi(0) = psi'(0) = 0,
 * rho = rho_c exp(-psi(xi)), r = a xi with a = c_s / sqrt(4 pi G rho_c); the dimensionless mass
 * within xi is mu(xi) = xi^2 psi'(xi) (M = 4 pi rho_c a^3 mu).  The critical sphere has
 * xi_max = 6.451, rho_c / rho_edge = 14.04, mu = 15.70. */
#ifndef TIDE_BONNOR_EBERT_H
#define TIDE_BONNOR_EBERT_H
#include <stddef.h>
#include "tide/block.h"
#include "tide/case.h"

/* psi and mu at xi (RK4 in steps of at most 1e-3 from the centre's series). */
void tide_be_solve(double xi, double *psi, double *mu);
/* Maps the particles of the case's first fluid sphere (centre C, radius R) radially so that a
 * lattice of uniform mass becomes the Bonnor-Ebert profile truncated at c->bonnor_ebert.xi_max
 * with the same radius and mass: a particle at r keeps its enclosed mass fraction (r / R)^3 =
 * mu(xi) / mu(xi_max) and goes to R xi / xi_max; its density becomes the profile's, rho_c =
 * rho0 xi_max^3 / (3 mu(xi_max)) at the centre.  0, or -1 (message: no fluid sphere). */
int tide_bonnor_ebert_apply(const tide_case *c, tide_block_view *v, size_t n);
#endif
