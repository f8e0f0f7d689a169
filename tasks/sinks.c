// SPDX-License-Identifier: LGPL-2.1-or-later
// Sink particles in the step (issue 24; Federrath et al. 2010; the maths: include/tide/sink.h,
// the table: include/tide/sinks.h).  Every rank holds the whole table, and every decision on it
// is taken from the same numbers in the same order on every rank: each block's record comes
// from the block's owner (broadcast to the others), the host adds the records in block order.
//
// In a step of the gas scheme (tasks/sph_step.c):
//   sink_gravity(B[b]) -> F[b], red   after the self-gravity, before the reduction is combined:
//                                     the sinks' pull on the gas, the gas's on the sinks, the
//                                     sink time-step limits
//   ... gas_integrate, migration ...
//   host: the sinks' kick and drift over the step's dt, with the gas's pull summed over F[]
//   sink_accrete(B[b]) -> A[b]        accretion by the existing sinks, the creation candidates
//   host: the gains added to the sinks; the candidates, deepest potential first, the best
//         T->cand_pass (8) of them
//   ... creation passes while candidates remain (every one is tested, none dropped):
//   sink_region(B[b]) -> Rg[b]        (when there are candidates) the gas within their r_acc,
//                                     again with larger records when a block's did not hold it
//   host: the creation tests of each candidate on its region in id order; new sinks
//   sink_accrete(B[b]) -> A[b]        (when a sink was created or candidates remain) the new
//                                     sinks take their region; the candidates after the last
//                                     one tested
// The host waits for each pass: a sink run's step has two more syncs (four when it creates, two
// more per further creation pass, one per region pass run again).
//
// Creation tests of a candidate c (density above the threshold, farther than 2 r_acc from every
// sink: its region cannot overlap a sink's accretion sphere), over the gas within r_acc of it
// (its region, c included):
//   converging  the region's net radial inflow towards c, sum m (v_j - v_c).(x_j - x_c)/|x_j -
//               x_c| < 0 (the mass-weighted mean radial velocity; Federrath's div v < 0 over
//               the region rather than at c alone)
//   bound       kinetic (about the region's centre-of-mass velocity) + thermal < |gravitational|,
//               the region's own potential energy by a direct sum over its pairs (Plummer,
//               the self-gravity's softening)
//   minimum     c has the lowest potential (tree + sinks, TIDE_SINK_POT) of its region
//   apart       c is not within 2 r_acc of a sink created earlier in the same step
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "tide/codelets.h"
#include "tide/sinks.h"
#include "tide/sph_sim.h"
#include "tide/step_profile.h"

/* With --profile (and the load balancer's block times), the sink tasks count as "sinks". */
#define PROFILE_B(b) STARPU_CALLBACK_WITH_ARG_NFREE,                                           \
	tide_profile_enabled() || tide_profile_blocks_enabled() ? tide_profile_cb : NULL,         \
	tide_profile_arg(TIDE_K_SINKS, b)

/* ---- the table and the blocks' records ---- */

static void release(tide_sinks *T)
{
	for (int b = 0; b < T->nrec; b++) {
		starpu_data_unregister(T->hf[b]);
		starpu_data_unregister(T->ha[b]);
		starpu_data_unregister(T->hr[b]);
		free(T->r[b]);
	}
	free(T->hf); free(T->ha); free(T->hr);
	free(T->f); free(T->a); free(T->r); free(T->rcap);
	T->rcap = NULL;
	T->hf = T->ha = T->hr = NULL;
	T->f = NULL;
	T->a = NULL;
	T->r = NULL;
	T->nrec = 0;
}

void tide_sim_sinks_release(tide_sim *sim)
{
	if (sim->sinks) release(sim->sinks);
}

void tide_sim_sinks_free(tide_sim *sim)
{
	if (!sim->sinks) return;
	release(sim->sinks);
	free(sim->sinks);
	sim->sinks = NULL;
}

/* Block b's region record with room for cap particles (its handle made again). */
static void region_record(tide_sinks *T, int b, uint32_t cap)
{
	if (T->r[b]) {
		starpu_data_unregister(T->hr[b]);
		free(T->r[b]);
	}
	T->r[b] = calloc(1, TIDE_SINK_REGION_BYTES(cap));
	STARPU_ASSERT_MSG(T->r[b], "out of memory for a sink region record of %u particles", cap);
	T->rcap[b] = cap;
	starpu_variable_data_register(&T->hr[b], STARPU_MAIN_RAM, (uintptr_t)T->r[b],
	                              TIDE_SINK_REGION_BYTES(cap));
}

static void register_records(tide_sinks *T, int nb)
{
	T->hf = calloc((size_t)nb, sizeof *T->hf);
	T->ha = calloc((size_t)nb, sizeof *T->ha);
	T->hr = calloc((size_t)nb, sizeof *T->hr);
	T->f = calloc((size_t)nb, sizeof *T->f);
	T->a = calloc((size_t)nb, sizeof *T->a);
	T->r = calloc((size_t)nb, sizeof *T->r);
	T->rcap = calloc((size_t)nb, sizeof *T->rcap);
	STARPU_ASSERT_MSG(T->hf && T->ha && T->hr && T->f && T->a && T->r && T->rcap, "out of memory");
	for (int b = 0; b < nb; b++) {
		starpu_variable_data_register(&T->hf[b], STARPU_MAIN_RAM, (uintptr_t)&T->f[b], sizeof T->f[b]);
		starpu_variable_data_register(&T->ha[b], STARPU_MAIN_RAM, (uintptr_t)&T->a[b], sizeof T->a[b]);
		region_record(T, b, T->region0);
	}
	T->nrec = nb;
}

tide_sinks *tide_sim_sinks_table(tide_sim *sim)
{
	const tide_case *c = sim->c;
	if (!c->sinks.on || sim->P.scheme != TIDE_SCHEME_GAS || !c->self_gravity.on) return NULL;
	if (!sim->sinks) {
		tide_sinks *T = calloc(1, sizeof *T);
		STARPU_ASSERT_MSG(T, "out of memory");
		T->rho_thr = c->sinks.density_threshold;
		T->r_acc = c->sinks.accretion_radius;
		T->eps = c->sinks.softening > 0 ? c->sinks.softening : c->sinks.accretion_radius;
		T->eps_gas = tide_case_softening(c);
		T->G = c->self_gravity.G;
		T->cfl = c->cfl;
		T->max = c->sinks.max > 0 && c->sinks.max <= TIDE_SINK_MAX ? c->sinks.max : TIDE_SINK_MAX;
		T->cand_pass = TIDE_SINK_CAND_PASS;
		T->region0 = TIDE_SINK_REGION;
		sim->sinks = T;
	}
	tide_sinks *T = sim->sinks;
	if (T->nrec != sim->nblocks) {
		release(T);
		register_records(T, sim->nblocks);
	}
	return T;
}

double tide_sinks_mass(const tide_sinks *T)
{
	double m = 0;
	for (int s = 0; T && s < T->n; s++) m += T->s[s].m;
	return m;
}

void tide_sinks_save(const tide_sinks *T, tide_sinks_saved *out)
{
	memset(out, 0, sizeof *out);
	if (!T) return;
	out->n = T->n;
	out->next_id = T->next_id;
	out->n_accreted = T->n_accreted;
	memcpy(out->rejected, T->rejected, sizeof out->rejected);
	memcpy(out->s, T->s, sizeof out->s);
}

void tide_sim_sinks_restore(tide_sim *sim, const tide_sinks_saved *in)
{
	tide_sinks *T = in->n || in->next_id ? tide_sim_sinks_table(sim) : NULL;
	if (!T) return;
	T->n = in->n;
	T->next_id = in->next_id;
	T->n_accreted = in->n_accreted;
	memcpy(T->rejected, in->rejected, sizeof T->rejected);
	memcpy(T->s, in->s, sizeof T->s);
}

/* The table as the codelets see it; the last nnew sinks are this step's new ones. */
static void set_of(const tide_sinks *T, int nnew, double dt_max, tide_sink_set *S)
{
	memset(S, 0, sizeof *S);
	S->n = T->n;
	S->nnew = nnew;
	S->r_acc2 = (float)(T->r_acc * T->r_acc);
	S->eps2 = (float)(T->eps * T->eps);
	S->G = (float)T->G;
	S->rho_thr = (float)T->rho_thr;
	S->cfl = (float)T->cfl;
	S->dt_max = (float)fmin(dt_max, 3.0e38);
	for (int s = 0; s < T->n; s++) {
		for (int k = 0; k < 3; k++) {
			S->x[s][k] = T->s[s].x[k];
			S->v[s][k] = (float)T->s[s].v[k];
		}
		S->m[s] = (float)T->s[s].m;
	}
}

/* ---- the sinks' own dynamics ---- */

/* The other sinks' softened pull on sink s. */
static void sink_sink_acc(const tide_sinks *T, int s, double *a)
{
	a[0] = a[1] = a[2] = 0;
	for (int j = 0; j < T->n; j++) {
		if (j == s) continue;
		double d[3], q2 = T->eps * T->eps;
		for (int k = 0; k < 3; k++) {
			d[k] = T->s[j].x[k] - T->s[s].x[k];
			q2 += d[k] * d[k];
		}
		double c = T->G * T->s[j].m / (q2 * sqrt(q2));
		for (int k = 0; k < 3; k++) a[k] += c * d[k];
	}
}

/* The host's time-step limit: sink pairs (free fall and crossing at their softened distance)
 * and each sink's last acceleration (cfl sqrt(eps / |a|), as the gas's cfl sqrt(h / |a|)). */
static double host_dt(const tide_sinks *T)
{
	double dt = 3.0e38;
	for (int s = 0; s < T->n; s++) {
		const tide_sink_state *p = &T->s[s];
		double a = sqrt(p->a[0] * p->a[0] + p->a[1] * p->a[1] + p->a[2] * p->a[2]);
		if (a > 0) dt = fmin(dt, T->cfl * sqrt(T->eps / a));
		for (int j = s + 1; j < T->n; j++) {
			double q2 = T->eps * T->eps, w2 = 0;
			for (int k = 0; k < 3; k++) {
				double d = T->s[j].x[k] - p->x[k], w = T->s[j].v[k] - p->v[k];
				q2 += d * d;
				w2 += w * w;
			}
			double q = sqrt(q2), gm = T->G * (p->m + T->s[j].m);
			if (gm > 0) dt = fmin(dt, T->cfl * sqrt(q2 * q / gm));
			if (w2 > 0) dt = fmin(dt, T->cfl * q / sqrt(w2));
		}
	}
	return dt;
}

static starpu_data_handle_t red_part(const tide_sim *sim)
{
	return sim->mpi ? sim->part[0][sim->rank] : sim->red;
}

void tide_sim_sinks_gravity(tide_sim *sim)
{
	tide_sinks *T = tide_sim_sinks_table(sim);
	if (!T) return;
	T->grav_pending = 0;
	if (T->n == 0) return;
	tide_sink_set S;
	set_of(T, 0, host_dt(T), &S);
	/* each rank its own blocks, into its own part of the step reduction */
	for (int b = 0; b < sim->nblocks; b++) {
		if (sim->blk[b].owner != sim->rank) continue;
		STARPU_CHECK_RETURN_VALUE(starpu_task_insert(&tide_sink_gravity_cl, STARPU_RW,
		        sim->blk[b].B, STARPU_W, T->hf[b], STARPU_REDUX, red_part(sim), STARPU_VALUE,
		        &sim->P, sizeof sim->P, STARPU_VALUE, &S, sizeof S, STARPU_NAME, "sink_gravity",
		        PROFILE_B(b), 0), "task insert");
	}
	T->grav_pending = 1;
}

/* Block b's record at `rec` (bytes) from its owner to every rank. */
static void share(const tide_sim *sim, int b, void *rec, size_t bytes)
{
	if (sim->mpi && sim->size > 1)
		MPI_Bcast(rec, (int)bytes, MPI_BYTE, sim->blk[b].owner, MPI_COMM_WORLD);
}

static void wait_own(const tide_sim *sim, starpu_data_handle_t *h)
{
	for (int b = 0; b < sim->nblocks; b++) {
		if (sim->blk[b].owner != sim->rank) continue;
		starpu_data_acquire(h[b], STARPU_R);
		starpu_data_release(h[b]);
	}
}

/* The kick and drift of the sinks over dt (tide_gas_kick's leapfrog), with the gas's pull. */
static void move(tide_sim *sim, tide_sinks *T, double dt)
{
	if (!T->grav_pending) return;
	T->grav_pending = 0;
	wait_own(sim, T->hf);
	size_t per = sizeof T->f[0].f[0] * (size_t)T->n;
	for (int b = 0; b < sim->nblocks; b++) share(sim, b, T->f[b].f, per);
	double a[TIDE_SINK_MAX][3];
	for (int s = 0; s < T->n; s++) {
		double F[3] = {0, 0, 0};
		for (int b = 0; b < sim->nblocks; b++)
			for (int k = 0; k < 3; k++) F[k] += T->f[b].f[s][k];
		sink_sink_acc(T, s, a[s]);
		for (int k = 0; k < 3; k++) a[s][k] += F[k] / T->s[s].m;
	}
	for (int s = 0; s < T->n; s++) {
		tide_sink_state *p = &T->s[s];
		double kick = 0.5 * (p->dtk + dt);
		for (int k = 0; k < 3; k++) {
			p->vh[k] += kick * a[s][k];
			p->x[k] += dt * p->vh[k];
			p->v[k] = p->vh[k] + 0.5 * dt * a[s][k];
			p->a[k] = a[s][k];
		}
		p->dtk = dt;
	}
}

/* Sink s takes gain G (relative to its position and the velocity the codelets saw, vref). */
static void take(tide_sink_state *p, const tide_sink_gain *G, const float *vref)
{
	double M = p->m, M1 = M + G->m, W[3], D[3], w_s[3];
	for (int k = 0; k < 3; k++) {
		w_s[k] = p->v[k] - vref[k];
		D[k] = G->mx[k] / M1;
		W[k] = (M * w_s[k] + G->mv[k]) / M1;
	}
	/* the angular momentum about the new centre of mass, in its frame, becomes spin */
	double L[3] = {G->L[0] - M1 * (D[1] * W[2] - D[2] * W[1]),
	               G->L[1] - M1 * (D[2] * W[0] - D[0] * W[2]),
	               G->L[2] - M1 * (D[0] * W[1] - D[1] * W[0])};
	for (int k = 0; k < 3; k++) {
		p->spin[k] += L[k];
		p->x[k] += D[k];
		p->vh[k] = (M * p->vh[k] + G->m * vref[k] + G->mvh[k]) / M1;
		p->v[k] = vref[k] + W[k];
	}
	p->m = M1;
	p->m_acc += G->m;
}

/* One accretion pass with the table as it is (its last nnew sinks new, which take their
 * regions; the older ones accrete bound gas when acc_old); returns the best T->cand_pass
 * candidates (deepest potential first; after *after when not NULL) in cand, their count, and
 * in *nall the count of all of them. */
static uint32_t accrete(tide_sim *sim, tide_sinks *T, int nnew, int acc_old,
                        const tide_sink_cand *after, tide_sink_cand *cand, uint32_t *nall)
{
	tide_sink_set S;
	set_of(T, nnew, 3.0e38, &S);
	S.acc_old = acc_old;
	S.ncand = T->cand_pass;
	if (after) {
		S.after_on = 1;
		S.after_pot = after->pot;
		S.after_id = after->id;
	}
	for (int b = 0; b < sim->nblocks; b++) {
		if (sim->blk[b].owner != sim->rank) continue;
		STARPU_CHECK_RETURN_VALUE(starpu_task_insert(&tide_sink_accrete_cl, STARPU_RW,
		        sim->blk[b].B, STARPU_SCRATCH, sim->scratch, STARPU_W, T->ha[b], STARPU_VALUE,
		        &sim->P, sizeof sim->P, STARPU_VALUE, &S, sizeof S, STARPU_NAME, "sink_accrete",
		        PROFILE_B(b), 0), "task insert");
	}
	wait_own(sim, T->ha);
	uint32_t nc = 0, nacc = 0;
	*nall = 0;
	for (int b = 0; b < sim->nblocks; b++) {
		share(sim, b, &T->a[b], TIDE_SINK_REC_SHARED);
		nacc += T->a[b].nacc;
		*nall += T->a[b].nall;
		for (uint32_t k = 0; k < T->a[b].ncand; k++)
			tide_sink_cand_insert(cand, &nc, (uint32_t)T->cand_pass, &T->a[b].cand[k]);
	}
	for (int s = 0; s < T->n; s++) {
		tide_sink_gain G;
		memset(&G, 0, sizeof G);
		for (int b = 0; b < sim->nblocks; b++) tide_sink_gain_add(&G, &T->a[b].g[s]);
		if (G.m > 0) take(&T->s[s], &G, S.v[s]);
	}
	T->acc_step += nacc;
	T->n_accreted += nacc;
	return nc;
}

/* ---- creation ---- */

static int by_cand_id(const void *a, const void *b)
{
	const tide_sink_rpart *p = a, *q = b;
	if (p->cand != q->cand) return p->cand < q->cand ? -1 : 1;
	return p->id < q->id ? -1 : p->id > q->id;
}

/* The creation tests of candidate c on its region R[0..n) (sorted by id); 0 passes, else the
 * test that failed (1 converging, 2 bound, 3 minimum). */
static int creation_test(const tide_sinks *T, const tide_sink_cand *c, const tide_sink_rpart *R,
                         uint32_t n)
{
	double inflow = 0, M = 0, mv[3] = {0, 0, 0}, pot_c = 0;
	float pot_min = 3.0e38f;
	int self = -1;
	for (uint32_t j = 0; j < n; j++) {
		if (R[j].id == c->id) {
			self = (int)j;
			pot_c = R[j].pot;
			continue;
		}
		double d[3], w[3], r = 0, vr = 0;
		for (int k = 0; k < 3; k++) {
			d[k] = R[j].x[k] - c->x[k];
			w[k] = (double)R[j].v[k] - c->v[k];
			r += d[k] * d[k];
		}
		r = sqrt(r);
		for (int k = 0; k < 3; k++) vr += w[k] * d[k];
		if (r > 0) inflow += R[j].m * vr / r;
		if (R[j].pot < pot_min) pot_min = R[j].pot;
	}
	if (!(inflow < 0)) return 1;
	for (uint32_t j = 0; j < n; j++) {
		M += R[j].m;
		for (int k = 0; k < 3; k++) mv[k] += R[j].m * R[j].v[k];
	}
	double ekin = 0, eth = 0, egr = 0, e2 = T->eps_gas * T->eps_gas;
	for (uint32_t j = 0; j < n; j++) {
		for (int k = 0; k < 3; k++) {
			double w = R[j].v[k] - mv[k] / M;
			ekin += 0.5 * R[j].m * w * w;
		}
		eth += R[j].m * R[j].eth;
		for (uint32_t i = j + 1; i < n; i++) {
			double r2 = e2;
			for (int k = 0; k < 3; k++) r2 += (R[i].x[k] - R[j].x[k]) * (R[i].x[k] - R[j].x[k]);
			egr -= T->G * R[i].m * R[j].m / sqrt(r2);
		}
	}
	if (!(ekin + eth < -egr)) return 2;
	if (self < 0 || !(pot_c <= pot_min)) return 3;
	return 0;
}

/* The regions of the candidates, the tests in the candidates' order; returns the sinks created
 * (added at the end of the table). */
static int create(tide_sim *sim, tide_sinks *T, const tide_sink_cand *cand, uint32_t nc,
                  double t_new, double dt)
{
	tide_sink_region_arg A;
	memset(&A, 0, sizeof A);
	A.n = (int)nc;
	A.r_acc2 = (float)(T->r_acc * T->r_acc);
	for (uint32_t c = 0; c < nc; c++) memcpy(A.x[c], cand[c].x, sizeof A.x[c]);
	/* a block whose regions hold more than its record's room: every rank grows that record to
	 * the count its owner found (every rank sees the counts) and the pass runs again */
	for (int again = 1; again;) {
		for (int b = 0; b < sim->nblocks; b++) {
			if (sim->blk[b].owner != sim->rank) continue;
			STARPU_CHECK_RETURN_VALUE(starpu_task_insert(&tide_sink_region_cl, STARPU_R,
			        sim->blk[b].B, STARPU_W, T->hr[b], STARPU_VALUE, &sim->P, sizeof sim->P,
			        STARPU_VALUE, &A, sizeof A, STARPU_NAME, "sink_region",
			        PROFILE_B(b), 0), "task insert");
		}
		wait_own(sim, T->hr);
		again = 0;
		for (int b = 0; b < sim->nblocks; b++) {
			share(sim, b, T->r[b], sizeof(tide_sink_region_rec));
			if (T->r[b]->n > T->rcap[b]) {
				region_record(T, b, T->r[b]->n + T->r[b]->n / 4);
				again = 1;
			}
		}
		T->regrows += again;
	}
	size_t tot = 0;
	for (int b = 0; b < sim->nblocks; b++) {
		tide_sink_region_rec *R = T->r[b];
		share(sim, b, R->p, R->n * sizeof R->p[0]);
		tot += R->n;
	}
	tide_sink_rpart *all = malloc((tot ? tot : 1) * sizeof *all);
	STARPU_ASSERT_MSG(all, "out of memory");
	size_t at = 0;
	for (int b = 0; b < sim->nblocks; b++) {
		memcpy(all + at, T->r[b]->p, T->r[b]->n * sizeof *all);
		at += T->r[b]->n;
	}
	qsort(all, tot, sizeof *all, by_cand_id);
	int made = 0;
	size_t from = 0;
	for (uint32_t c = 0; c < nc; c++) {
		size_t to = from;
		while (to < tot && all[to].cand == c) to++;
		int near = 0;
		for (int s = T->n - made; s < T->n; s++) {
			double r2 = 0;
			for (int k = 0; k < 3; k++) r2 += (cand[c].x[k] - T->s[s].x[k]) * (cand[c].x[k] - T->s[s].x[k]);
			near |= r2 < 4 * T->r_acc * T->r_acc;
		}
		int why = near ? -1 : creation_test(T, &cand[c], all + from, (uint32_t)(to - from));
		from = to;
		if (why > 0) T->rejected[why - 1]++;
		if (why || T->n >= T->max) continue;
		tide_sink_state *p = &T->s[T->n++];
		memset(p, 0, sizeof *p);
		p->id = T->next_id++;
		for (int k = 0; k < 3; k++) {
			p->x[k] = cand[c].x[k];
			p->v[k] = p->vh[k] = cand[c].v[k];
		}
		p->t_form = t_new;
		p->dtk = dt;
		made++;
	}
	free(all);
	return made;
}

void tide_sim_sinks_step(tide_sim *sim)
{
	tide_sinks *T = tide_sim_sinks_table(sim);
	if (!T) return;
	starpu_data_acquire(sim->red, STARPU_R);
	tide_step_reduce r = *(tide_step_reduce *)starpu_variable_get_local_ptr(sim->red);
	starpu_data_release(sim->red);
	double dt = r.dt;
	move(sim, T, dt);
	T->acc_step = 0;
	tide_sink_cand cand[TIDE_SINK_CAND];
	uint32_t nall;
	uint32_t nc = accrete(sim, T, 0, 1, NULL, cand, &nall);
	if (nall > T->cand_seen) T->cand_seen = nall;
	/* Creation passes: the pass's candidates are tested, the sinks made take their regions in
	 * the next accretion pass, which reports the candidates after the last one tested; so every
	 * candidate of the step is tested, however many there are.  The older sinks accrete again in
	 * the pass after the first sinks are made (as when all candidates fit one pass), not after. */
	int acc_again = 1;
	while (nc && T->n < T->max) {
		int made = create(sim, T, cand, nc, sim->t + dt, dt);
		int more = nall > nc;
		if (!made && !more) break;
		tide_sink_cand last = cand[nc - 1];
		int acc_old = made && acc_again;
		if (made) acc_again = 0;
		nc = accrete(sim, T, made, acc_old, more ? &last : NULL, cand, &nall);
		T->passes++;
		if (!more) break;
	}
	if (T->acc_step) {
		/* the step's particle count (the reduction counted before the accretion) */
		starpu_data_acquire(sim->red, STARPU_RW);
		((tide_step_reduce *)starpu_variable_get_local_ptr(sim->red))->count -= T->acc_step;
		starpu_data_release(sim->red);
	}
}
