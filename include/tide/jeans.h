/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Jeans resolution of a self-gravitating gas (issue 24; Bate & Burkert 1997): the Jeans mass
 *     M_J = (pi^(5/2) / 6) c_s^3 / sqrt(G^3 rho)
 * is resolved at particle i while it exceeds the mass of its neighbours, N_ngb m_i with m_i
 * the particle's own mass (TIDE_GAS_MASS: masses may differ, so no rho0 dp^3 stands for them),
 * N_ngb being the neighbours within the kernel support 2h of h = eta (m / rho)^(1/3):
 * (4 pi / 3) (2 eta)^3 (about 58 for eta = 1.2).  The per-particle part q = c_s^3 / sqrt(rho)
 * and q / m_i are reduced on the device (codelet jeans_min, float: q spans 1e-30 to 1e30 in cgs
 * and SI); the host multiplies the constants in double. */
#ifndef TIDE_JEANS_H
#define TIDE_JEANS_H
#include <math.h>
#include <stdint.h>
#include "tide/hd.h"

/* The record one block, then one rank, then the run reduces into (min of q; the density there;
 * the particles below their resolution threshold, q < k m_i; the least q / m_i). */
typedef struct tide_jeans_min {
	float q;          /* least c_s^3 / sqrt(rho) */
	float rho;        /* the density of the particle that has it */
	uint32_t n_below; /* particles with q < k m_i (k: tide_jeans_q_res per unit mass) */
	float qm;         /* least q / m_i: M_J / (N_ngb m_i) = qm / k at the worst particle */
} tide_jeans_min;

TIDE_HD void tide_jeans_min_init(tide_jeans_min *r)
{
	r->q = 3.0e38f;
	r->rho = 0.f;
	r->n_below = 0;
	r->qm = 3.0e38f;
}

/* Combines b into a; ties of q keep the larger density (the same in any order). */
TIDE_HD void tide_jeans_min_combine(tide_jeans_min *a, const tide_jeans_min *b)
{
	if (b->q < a->q || (b->q == a->q && b->rho > a->rho)) {
		a->q = b->q;
		a->rho = b->rho;
	}
	a->n_below += b->n_below;
	if (b->qm < a->qm) a->qm = b->qm;
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

/* The q below which a particle of mass m has its Jeans mass under N_ngb m; jeans_min takes it
 * for m = 1 (k) and counts the particles with q < k m_i. */
static inline double tide_jeans_q_res(double eta, double m, double G)
{
	return tide_jeans_ngb(eta) * m * sqrt(G * G * G) / TIDE_JEANS_PREFACTOR;
}

/* One particle's record: q and its density, below when q < k m (m > 0). */
TIDE_HD tide_jeans_min tide_jeans_one(float q, float rho, float m, float k)
{
	tide_jeans_min r = {q, rho, q < k * m, m > 0.f ? q / m : 3.0e38f};
	return r;
}

#endif
