/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Jeans resolution of a self-gravitating gas (issue 24; Bate & Burkert 1997): the Jeans mass
 *     M_J = (pi^(5/2) / 6) c_s^3 / sqrt(G^3 rho)
 * is resolved while it exceeds the mass of one particle's neighbours, N_ngb m, N_ngb being the
 * neighbours within the kernel support 2h of h = eta (m / rho)^(1/3): (4 pi / 3) (2 eta)^3
 * (about 58 for eta = 1.2).  The per-particle part q = c_s^3 / sqrt(rho) is reduced on the
 * device (codelet jeans_min, float: q spans 1e-30 to 1e30 in cgs and SI); the host multiplies
 * the constants in double. */
#ifndef TIDE_JEANS_H
#define TIDE_JEANS_H
#include <math.h>
#include <stdint.h>
#include "tide/hd.h"

/* The record one block, then one rank, then the run reduces into (min of q; the density there;
 * the particles below the resolution threshold q_res). */
typedef struct tide_jeans_min {
	float q;          /* least c_s^3 / sqrt(rho) */
	float rho;        /* the density of the particle that has it */
	uint32_t n_below; /* particles with q < q_res */
	uint32_t pad;
} tide_jeans_min;

TIDE_HD void tide_jeans_min_init(tide_jeans_min *r)
{
	r->q = 3.0e38f;
	r->rho = 0.f;
	r->n_below = 0;
	r->pad = 0;
}

/* Combines b into a; ties of q keep the larger density (the same in any order). */
TIDE_HD void tide_jeans_min_combine(tide_jeans_min *a, const tide_jeans_min *b)
{
	if (b->q < a->q || (b->q == a->q && b->rho > a->rho)) {
		a->q = b->q;
		a->rho = b->rho;
	}
	a->n_below += b->n_below;
}

TIDE_HD float tide_jeans_q(float cs, float rho)
{
	return rho > 0.f ? cs * cs * cs / sqrtf(rho) : 3.0e38f;
}

/* pi^(5/2) / 6 */
#define TIDE_JEANS_PREFACTOR 2.91556972127081

/* M_J of sound speed cs at density rho. */
static inline double tide_jeans_mass(double cs, double rho, double G)
{
	return TIDE_JEANS_PREFACTOR * cs * cs * cs / sqrt(G * G * G * rho);
}

/* M_J from a reduced q = c_s^3 / sqrt(rho). */
static inline double tide_jeans_mass_of_q(double q, double G)
{
	return TIDE_JEANS_PREFACTOR * q / sqrt(G * G * G);
}

/* Neighbours within 2h of h = eta (m / rho)^(1/3): (4 pi / 3) (2 eta)^3. */
static inline double tide_jeans_ngb(double eta)
{
	return 4.18879020478639 * 8.0 * eta * eta * eta; /* 4 pi / 3 (2 eta)^3 */
}

/* The q below which a particle's Jeans mass is under N_ngb m (the threshold jeans_min counts). */
static inline double tide_jeans_q_res(double eta, double m, double G)
{
	return tide_jeans_ngb(eta) * m * sqrt(G * G * G) / TIDE_JEANS_PREFACTOR;
}

#endif
