/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Sink particles of a self-gravitating gas (issue 24; Federrath et al. 2010, ApJ 713, 269), the
 * per-particle maths the codelets sink_gravity, sink_accrete and sink_region share (CPU and
 * CUDA), and the records they write.  The sink table itself is host bookkeeping
 * (tasks/sinks.c): it is the same on every rank and reaches the codelets by value
 * (tide_sink_set).
 *
 * Gravity: a sink of mass M at X pulls a gas particle at x with the Plummer-softened field
 *     a = -G M (x - X) / (|x - X|^2 + eps^2)^(3/2),   phi = -G M / sqrt(|x - X|^2 + eps^2),
 * and the gas pulls the sink back with the opposite force, summed per block in double (the
 * sinks are not in the Barnes-Hut tree: a direct sum over few sinks is exact and cheap).
 * Accretion (sink_accrete): a gas particle within r_acc of a sink is accreted when it is bound
 * to it, 1/2 |v - V|^2 + phi < 0, and approaching it, (v - V).(x - X) < 0; among several
 * sinks it goes to the one it is most bound to (lowest specific energy); a sink created this
 * step (tide_sink_set.nnew) takes every gas particle within its r_acc. */
#ifndef TIDE_SINK_H
#define TIDE_SINK_H
#include <math.h>
#include <stdint.h>
#include "tide/hd.h"
#include "tide/block.h"
#include "tide/gas_math.h"

#define TIDE_SINK_MAX 64       /* sinks of a run (case key sinks.max: at most this; the table
                                * travels by value, under the 4 KiB of a CUDA kernel argument) */
#define TIDE_SINK_CAND 64      /* room for the creation candidates tested in one pass (the
                                * pass's count, tide_sink_set.ncand, at most this; the step
                                * makes as many passes as its candidates need, tasks/sinks.c) */
#define TIDE_SINK_CAND_PASS 8  /* the candidates of one pass by default */
#define TIDE_SINK_RAW 256      /* GPU: candidates a block collects before keeping the best
                                * (more: the best are found by a scan of the block instead) */
#define TIDE_SINK_REGION 2048  /* region particles a block's record holds at first (grown to
                                * what a pass found, and the pass run again, when exceeded) */

/* The gas particles' gravitational potential (tree + sinks, per unit mass, G included): the aux
 * field after the gas scheme's (aux<TIDE_GAS_NAUX>, whatever their number), active only in runs
 * with sinks (the potential-minimum test). */
#define TIDE_SINK_AUX_(n) aux##n
#define TIDE_SINK_AUX(n) TIDE_SINK_AUX_(n)
#define TIDE_SINK_POT TIDE_SINK_AUX(TIDE_GAS_NAUX)
#define TIDE_SINK_NAUX (TIDE_GAS_NAUX + 1)

/* The mass of gas particle i (the one place the sink codelets and records take it from). */
TIDE_HD float tide_sink_mass_of(const tide_sph_params *P, const tide_block_view *v, uint32_t i)
{
	(void)P;
	return v->TIDE_GAS_MASS[i]; /* each gas particle's own (gas_math.h) */
}

/* The sink table as the codelets see it (by value). */
typedef struct tide_sink_set {
	int n;             /* sinks */
	int nnew;          /* the last nnew were created this step: they take all gas within r_acc */
	float r_acc2;      /* accretion radius squared */
	float eps2;        /* softening squared */
	float G;
	float rho_thr;     /* creation density threshold */
	float cfl;         /* the time step's factor (physics.cfl) */
	float dt_max;      /* the host's limit (sink-sink pairs, sinks' accelerations) */
	int acc_old;       /* sink_accrete: the sinks before the last nnew accrete bound gas (0:
	                    * only the new ones take their regions) */
	int ncand;         /* sink_accrete: the candidates a block keeps (<= TIDE_SINK_CAND) */
	int after_on;      /* sink_accrete: only candidates after `after` (deepest potential first):
	                    * those before it were tested in an earlier pass of the step */
	float after_pot;
	uint32_t after_id;
	double x[TIDE_SINK_MAX][3];
	float v[TIDE_SINK_MAX][3];   /* predicted velocity at the step's end */
	float m[TIDE_SINK_MAX];
} tide_sink_set;

/* The gas's pull on the sinks, one block's (sink_gravity), in block particle order. */
typedef struct tide_sink_force {
	double f[TIDE_SINK_MAX][3];
} tide_sink_force;

/* What a sink gained from one block's accreted particles, relative to the sink's position X and
 * velocity V of tide_sink_set: sum m, sum m (x - X), sum m (vh - V) (vh: the leapfrog's half-step
 * velocity), sum m (v - V) (v: predicted) and sum m (x - X) x (v - V). */
typedef struct tide_sink_gain {
	double m, mx[3], mvh[3], mv[3], L[3];
} tide_sink_gain;

/* A creation candidate: a gas particle above the threshold, farther than 2 r_acc from every
 * sink (so that its region, r_acc around it, cannot reach into a sink's accretion sphere). */
typedef struct tide_sink_cand {
	double x[3];
	float v[3], rho, h;
	float pot;     /* its potential: candidates go deepest first */
	uint32_t id;
} tide_sink_cand;

/* One block's accretion record (sink_accrete): the gains, the particles accreted, and its best
 * TIDE_SINK_CAND candidates (deepest potential first, ties by id); raw is the GPU's work
 * space. */
typedef struct tide_sink_accrete_rec {
	tide_sink_gain g[TIDE_SINK_MAX];
	uint32_t nacc, ncand, nraw, nall;   /* nall: the block's candidates, all of them */
	tide_sink_cand cand[TIDE_SINK_CAND];
	tide_sink_cand raw[TIDE_SINK_RAW];
} tide_sink_accrete_rec;
/* The part of the record the ranks exchange (raw is not). */
#define TIDE_SINK_REC_SHARED offsetof(tide_sink_accrete_rec, raw)

/* A particle within r_acc of a candidate being tested (sink_region). */
typedef struct tide_sink_rpart {
	double x[3];
	float v[3];
	float eth;     /* specific thermal energy */
	float pot;     /* potential (TIDE_SINK_POT) */
	float m;       /* mass */
	uint32_t id;
	uint32_t cand; /* which candidate's region, its index in tide_sink_region_arg */
} tide_sink_rpart;

/* A block's region record: n the particles found (all of them, also beyond the room of p, which
 * the record's size gives: the host grows the record and runs the pass again when n exceeds it). */
typedef struct tide_sink_region_rec {
	uint32_t n, pad;
	tide_sink_rpart p[];
} tide_sink_region_rec;
#define TIDE_SINK_REGION_BYTES(cap) (sizeof(tide_sink_region_rec) + (size_t)(cap) * sizeof(tide_sink_rpart))
#define TIDE_SINK_REGION_CAP(bytes) ((uint32_t)(((bytes) - sizeof(tide_sink_region_rec)) / sizeof(tide_sink_rpart)))

/* The candidates whose regions sink_region collects. */
typedef struct tide_sink_region_arg {
	int n;
	float r_acc2;
	double x[TIDE_SINK_CAND][3];
} tide_sink_region_arg;

/* ---- gravity ---- */

/* Adds sink s's pull to acc and its potential to *pot at x; returns the separation r. */
TIDE_HD float tide_sink_pull(const tide_sink_set *S, int s, const double *x, float *acc,
                             float *pot, float *dx_out)
{
	float dx[3] = {(float)(x[0] - S->x[s][0]), (float)(x[1] - S->x[s][1]),
	               (float)(x[2] - S->x[s][2])};
	float r2 = dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2], q2 = r2 + S->eps2;
	float inv = 1.f / sqrtf(q2), gm = S->G * S->m[s];
	for (int k = 0; k < 3; k++) {
		acc[k] -= gm * dx[k] * inv * inv * inv;
		dx_out[k] = dx[k];
	}
	*pot -= gm * inv;
	return sqrtf(r2);
}

/* The time-step limit of a gas particle at separation r (softened q) from a sink of mass M
 * approaching at relative velocity w: cfl x the smaller of the free-fall time sqrt(q^3 / G M)
 * and the crossing time q / |w|, so that no particle jumps across a sink's r_acc in a step. */
TIDE_HD float tide_sink_dt(const tide_sink_set *S, int s, float r2, float w)
{
	float q = sqrtf(r2 + S->eps2), gm = S->G * S->m[s];
	float t = gm > 0.f ? sqrtf(q * q * q / gm) : 3.0e38f;
	if (w > 0.f && q / w < t) t = q / w;
	return S->cfl * t;
}

/* Gas particle i of a block: the sinks' pull added to its acceleration and potential; its force
 * on each sink (m a, with the sign the sink feels) into f (NULL: none); the time-step limit
 * (of the sinks and of the new total acceleration, cfl sqrt(h / |a|)) returned. */
TIDE_HD float tide_sink_gravity_one(const tide_sph_params *P, const tide_sink_set *S,
                                    tide_block_view *v, uint32_t i)
{
	if (v->type[i] != TIDE_FLUID || S->n == 0) return 3.0e38f;
	double x[3] = {v->x[i], v->y[i], v->z[i]};
	float acc[3] = {0.f, 0.f, 0.f}, pot = 0.f, dt = 3.0e38f;
	for (int s = 0; s < S->n; s++) {
		float dx[3];
		float r = tide_sink_pull(S, s, x, acc, &pot, dx);
		float w[3] = {v->vx[i] - S->v[s][0], v->vy[i] - S->v[s][1], v->vz[i] - S->v[s][2]};
		float t = tide_sink_dt(S, s, r * r, sqrtf(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]));
		if (t < dt) dt = t;
	}
	v->ax[i] += acc[0];
	v->ay[i] += acc[1];
	v->az[i] += acc[2];
	if (v->naux >= TIDE_SINK_NAUX) v->TIDE_SINK_POT[i] += pot;
	float a = sqrtf(v->ax[i] * v->ax[i] + v->ay[i] * v->ay[i] + v->az[i] * v->az[i]);
	float h = v->TIDE_GAS_H[i];
	if (a > 0.f && P->cfl * sqrtf(h / a) < dt) dt = P->cfl * sqrtf(h / a);
	return dt;
}

/* The force of gas particle i (mass m) on sink s: + G M m (x - X) / q^3. */
TIDE_HD void tide_sink_force_on(const tide_sink_set *S, int s, const tide_block_view *v,
                                uint32_t i, float m, double *f)
{
	double dx[3] = {v->x[i] - S->x[s][0], v->y[i] - S->x[s][1], v->z[i] - S->x[s][2]};
	double q2 = dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2] + (double)S->eps2;
	double c = (double)S->G * (double)S->m[s] * (double)m / (q2 * sqrt(q2));
	for (int k = 0; k < 3; k++) f[k] = c * dx[k];
}

/* ---- accretion and candidates ---- */

/* The sink gas particle i goes to (-1: none): the first new sink whose r_acc holds it, else
 * among the sinks whose r_acc holds it the one it is most bound to and approaching.  *inside:
 * whether it is within 2 r_acc of a sink (a candidate must be farther from all). */
TIDE_HD int tide_sink_target(const tide_sink_set *S, const tide_block_view *v, uint32_t i,
                             int *inside)
{
	*inside = 0;
	if (v->type[i] != TIDE_FLUID) return -1;
	int best = -1;
	float ebest = 0.f;
	for (int s = 0; s < S->n; s++) {
		double dx[3] = {v->x[i] - S->x[s][0], v->y[i] - S->x[s][1], v->z[i] - S->x[s][2]};
		float r2 = (float)(dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2]);
		if (r2 < 4.f * S->r_acc2) *inside = 1;
		if (!(r2 < S->r_acc2)) continue;
		if (s >= S->n - S->nnew) return s;
		if (!S->acc_old) continue;   /* a later creation pass: only the new sinks take gas */
		float w[3] = {v->vx[i] - S->v[s][0], v->vy[i] - S->v[s][1], v->vz[i] - S->v[s][2]};
		float e = 0.5f * (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]) -
		          S->G * S->m[s] / sqrtf(r2 + S->eps2);
		float radial = w[0] * (float)dx[0] + w[1] * (float)dx[1] + w[2] * (float)dx[2];
		if (e < ebest && radial < 0.f) {
			ebest = e;
			best = s;
		}
	}
	return best;
}

/* Gas particle i's contribution (mass m) to the gain of sink s. */
TIDE_HD void tide_sink_gain_of(const tide_sink_set *S, int s, const tide_block_view *v, uint32_t i,
                               float m, tide_sink_gain *g)
{
	double dx[3] = {v->x[i] - S->x[s][0], v->y[i] - S->x[s][1], v->z[i] - S->x[s][2]};
	double dvh[3] = {(double)v->vx1[i] - S->v[s][0], (double)v->vy1[i] - S->v[s][1],
	                 (double)v->vz1[i] - S->v[s][2]};
	double dv[3] = {(double)v->vx[i] - S->v[s][0], (double)v->vy[i] - S->v[s][1],
	                (double)v->vz[i] - S->v[s][2]};
	g->m = m;
	for (int k = 0; k < 3; k++) {
		g->mx[k] = m * dx[k];
		g->mvh[k] = m * dvh[k];
		g->mv[k] = m * dv[k];
	}
	g->L[0] = m * (dx[1] * dv[2] - dx[2] * dv[1]);
	g->L[1] = m * (dx[2] * dv[0] - dx[0] * dv[2]);
	g->L[2] = m * (dx[0] * dv[1] - dx[1] * dv[0]);
}

TIDE_HD void tide_sink_gain_add(tide_sink_gain *a, const tide_sink_gain *b)
{
	a->m += b->m;
	for (int k = 0; k < 3; k++) {
		a->mx[k] += b->mx[k];
		a->mvh[k] += b->mvh[k];
		a->mv[k] += b->mv[k];
		a->L[k] += b->L[k];
	}
}

/* Whether candidate a goes before b: the deeper potential first (the creation tests want the
 * potential minimum of its region: the deepest are the likeliest to pass), then the lower id
 * (any order of finding them gives the same list). */
TIDE_HD int tide_sink_cand_before(const tide_sink_cand *a, const tide_sink_cand *b)
{
	return a->pot < b->pot || (a->pot == b->pot && a->id < b->id);
}

/* Inserts c into the sorted list L of *n (at most cap) entries, keeping the best cap. */
TIDE_HD void tide_sink_cand_insert(tide_sink_cand *L, uint32_t *n, uint32_t cap,
                                   const tide_sink_cand *c)
{
	uint32_t k = *n < cap ? *n : cap - 1;
	if (*n >= cap && !tide_sink_cand_before(c, &L[cap - 1])) return;
	while (k > 0 && tide_sink_cand_before(c, &L[k - 1])) {
		L[k] = L[k - 1];
		k--;
	}
	L[k] = *c;
	if (*n < cap) (*n)++;
}

/* Gas particle i as a candidate (call when it is farther than 2 r_acc from every sink): 1 when
 * its density is above the threshold. */
TIDE_HD int tide_sink_cand_of(const tide_sink_set *S, const tide_block_view *v, uint32_t i,
                              tide_sink_cand *c)
{
	if (v->type[i] != TIDE_FLUID || !(v->rho[i] > S->rho_thr)) return 0;
	c->x[0] = v->x[i]; c->x[1] = v->y[i]; c->x[2] = v->z[i];
	c->v[0] = v->vx[i]; c->v[1] = v->vy[i]; c->v[2] = v->vz[i];
	c->rho = v->rho[i];
	c->h = v->TIDE_GAS_H[i];
	c->pot = v->naux >= TIDE_SINK_NAUX ? v->TIDE_SINK_POT[i] : -v->rho[i];
	c->id = v->id[i];
	return 1;
}

/* Gas particle i as a candidate of this pass (call when it is farther than 2 r_acc from every
 * sink): above the threshold and, in a later pass, after the last candidate tested before. */
TIDE_HD int tide_sink_cand_pass(const tide_sink_set *S, const tide_block_view *v, uint32_t i,
                                tide_sink_cand *c)
{
	if (!tide_sink_cand_of(S, v, i, c)) return 0;
	if (!S->after_on) return 1;
	tide_sink_cand last;
	last.pot = S->after_pot;
	last.id = S->after_id;
	return tide_sink_cand_before(&last, c);
}

/* The specific thermal energy of gas particle i: u (ideal gas), 3/2 p / rho (isothermal and
 * barotropic: the thermal energy of a gas of sound speed c_s is 3/2 c_s^2 per unit mass). */
TIDE_HD float tide_sink_eth(const tide_gas_params *G, const tide_block_view *v, uint32_t i)
{
	if (G->eos == TIDE_GAS_IDEAL) return v->TIDE_GAS_U[i];
	float rho = v->rho[i];
	return rho > 0.f ? 1.5f * tide_gas_pressure(G, rho, v->TIDE_GAS_U[i]) / rho : 0.f;
}

/* The first candidate of A whose region (r_acc) holds gas particle i, from `from` on (-1: none). */
TIDE_HD int tide_sink_region_of(const tide_sink_region_arg *A, const tide_block_view *v,
                                uint32_t i, int from)
{
	if (v->type[i] != TIDE_FLUID) return -1;
	for (int c = from; c < A->n; c++) {
		double dx[3] = {v->x[i] - A->x[c][0], v->y[i] - A->x[c][1], v->z[i] - A->x[c][2]};
		if (dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2] < (double)A->r_acc2) return c;
	}
	return -1;
}

TIDE_HD void tide_sink_rpart_of(const tide_sph_params *P, const tide_block_view *v, uint32_t i,
                                int c, tide_sink_rpart *p)
{
	const tide_gas_params *G = &P->gas;
	p->m = tide_sink_mass_of(P, v, i);
	p->x[0] = v->x[i]; p->x[1] = v->y[i]; p->x[2] = v->z[i];
	p->v[0] = v->vx[i]; p->v[1] = v->vy[i]; p->v[2] = v->vz[i];
	p->eth = tide_sink_eth(G, v, i);
	p->pot = v->naux >= TIDE_SINK_NAUX ? v->TIDE_SINK_POT[i] : 0.f;
	p->id = v->id[i];
	p->cand = (uint32_t)c;
}

#endif
