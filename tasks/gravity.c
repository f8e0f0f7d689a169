// SPDX-License-Identifier: LGPL-2.1-or-later
// The task graph of one Barnes–Hut force evaluation on one process:
//   bh_build (bodies RW, velocities RW → cells, meta, groups)
//   → bh_moments (→ moments)
//   → bh_walk × nparts (each writes the accelerations of its range of sorted particles).
// With several ranks (gravity_ranks.c), between moments and walk: bh_vroot, bh_essential for
// every other rank and the exchanges; after the walk, bh_walk_let × nparts per other rank.
// The tree arrays are registered without a host copy (home node -1): on a GPU they are made and
// used there and never cross the bus.  The leapfrog's kick and drift tasks are here too, so that
// one N-body step is build → moments → walk → kick → drift without leaving the device.
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "tide/bh_gravity.h"

static void restrict_cl(struct starpu_codelet *cl, const struct starpu_codelet *src,
                        enum tide_where where)
{
	*cl = *src;
	tide_codelet_restrict(cl, where);
}

void tide_gravity_init(tide_gravity *g, bh_body *body, float *vel, bh_acc *acc, uint32_t n,
                       bh_params P, int nparts, enum tide_where where)
{
	memset(g, 0, sizeof *g);
	g->n = n;
	g->P = P;
	g->body = body;
	g->vel = vel;
	g->acc = acc;
	if (nparts <= 0) {
		int gpu = starpu_cuda_worker_get_count() > 0 && where != TIDE_WHERE_CPU;
		/* on the CPU, four walk tasks per worker: a part near a dense centre takes several
		 * times the work of one at the edge, and the scheduler evens out smaller parts */
		nparts = gpu ? 1 : 4 * (int)starpu_cpu_worker_get_count();
	}
	if (nparts < 1) nparts = 1;
	if (nparts > TIDE_GRAVITY_MAX_PARTS) nparts = TIDE_GRAVITY_MAX_PARTS;
	g->nparts = nparts;
	restrict_cl(&g->build_cl, &tide_bh_build_cl, where);
	restrict_cl(&g->moments_cl, &tide_bh_moments_cl, where);
	restrict_cl(&g->walk_cl, &tide_bh_walk_cl, where);
	restrict_cl(&g->kick_cl, &tide_bh_kick_cl, where);
	restrict_cl(&g->drift_cl, &tide_bh_drift_cl, where);
	restrict_cl(&g->vroot_cl, &tide_bh_vroot_cl, where);
	restrict_cl(&g->essential_cl, &tide_bh_essential_cl, where);
	restrict_cl(&g->walk_let_cl, &tide_bh_walk_let_cl, where);

	uint32_t m = n ? n : 1;
	starpu_vector_data_register(&g->hbody, STARPU_MAIN_RAM, (uintptr_t)body, m, sizeof(bh_body));
	starpu_vector_data_register(&g->hvel, STARPU_MAIN_RAM, (uintptr_t)vel, m, 4 * sizeof(float));
	starpu_vector_data_register(&g->hcells, -1, 0, bh_max_cells(n), sizeof(bh_cell));
	starpu_vector_data_register(&g->hmom, -1, 0, bh_max_cells(n), sizeof(bh_mom));
	starpu_vector_data_register(&g->hgroups, -1, 0, bh_max_groups(n), sizeof(bh_group));
	starpu_vector_data_register(&g->hmeta, -1, 0, BH_META_LEN, sizeof(int32_t));
	starpu_vector_data_register(&g->hbscr, -1, 0, bh_build_scratch_bytes(n), 1);
	starpu_vector_data_register(&g->hwscr, -1, 0, bh_walk_scratch_bytes(), 1);
	for (int k = 0; k < nparts; k++) {
		uint32_t r0 = (uint32_t)((uint64_t)n * k / nparts);
		uint32_t r1 = (uint32_t)((uint64_t)n * (k + 1) / nparts);
		g->part[k].r0 = r0;
		g->part[k].r1 = r1;
		/* an empty part still gets one element so that its handle is valid */
		starpu_vector_data_register(&g->hacc[k], STARPU_MAIN_RAM, (uintptr_t)(acc + r0),
		                            r1 > r0 ? r1 - r0 : 1, sizeof(bh_acc));
	}
}

void tide_gravity_submit_build(tide_gravity *g)
{
	int ret = starpu_task_insert(&g->build_cl, STARPU_RW, g->hbody, STARPU_RW, g->hvel,
	                             STARPU_W, g->hcells, STARPU_W, g->hmeta, STARPU_W, g->hgroups,
	                             STARPU_SCRATCH, g->hbscr, STARPU_VALUE, &g->n, sizeof g->n,
	                             STARPU_VALUE, &g->universe, sizeof g->universe,
	                             STARPU_FLOPS, (double)g->n, 0);
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert bh_build");
}

void tide_gravity_submit_moments(tide_gravity *g)
{
	int ret = starpu_task_insert(&g->moments_cl, STARPU_R, g->hbody, STARPU_R, g->hcells,
	                             STARPU_R, g->hmeta, STARPU_W, g->hmom, STARPU_VALUE, &g->P,
	                             sizeof g->P, 0);
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert bh_moments");
}

/* Callback of a timed walk task: its execution time (StarPU's profiling information, filled
 * before callbacks run) added to the counter given as argument. */
void tide_gravity_walk_timed(void *counter)
{
	struct starpu_task *t = starpu_task_get_current();
	if (!t || !t->profiling_info) return;
	const struct starpu_profiling_task_info *pi = t->profiling_info;
	int64_t ns = (int64_t)(pi->end_time.tv_sec - pi->start_time.tv_sec) * 1000000000 +
	             (pi->end_time.tv_nsec - pi->start_time.tv_nsec);
	__atomic_add_fetch((int64_t *)counter, ns, __ATOMIC_RELAXED);
}

void tide_gravity_time_walks(tide_gravity *g, int on)
{
	starpu_task_wait_for_all(); /* no walk of before counted, none cut in two */
	if (on == g->time_walks) return;
	if (on) {
		g->profiling_was = starpu_profiling_status_get();
		starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
		g->walk_ns[0] = g->walk_ns[1] = 0;
	} else {
		starpu_profiling_status_set(g->profiling_was);
	}
	g->time_walks = on;
}

void tide_gravity_submit_walk(tide_gravity *g)
{
	if (g->mpi) tide_gravity_submit_exchange(g); /* in flight while the local walk runs */
	for (int k = 0; k < g->nparts; k++) {
		int ret = starpu_task_insert(&g->walk_cl, STARPU_R, g->hbody, STARPU_R, g->hcells,
		                             STARPU_R, g->hmom, STARPU_R, g->hmeta, STARPU_R, g->hgroups,
		                             STARPU_W, g->hacc[k], STARPU_SCRATCH, g->hwscr,
		                             STARPU_VALUE, &g->P, sizeof g->P, STARPU_VALUE, &g->part[k],
		                             sizeof g->part[k], STARPU_CALLBACK_WITH_ARG_NFREE,
		                             g->time_walks ? tide_gravity_walk_timed : NULL, &g->walk_ns[0], 0);
		STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert bh_walk");
	}
	if (g->mpi) tide_gravity_submit_let_walks(g);
}

void tide_gravity_submit_kick(tide_gravity *g, float dt)
{
	for (int k = 0; k < g->nparts; k++) {
		int ret = starpu_task_insert(&g->kick_cl, STARPU_RW, g->hvel, STARPU_R, g->hacc[k],
		                             STARPU_VALUE, &g->part[k], sizeof g->part[k],
		                             STARPU_VALUE, &dt, sizeof dt, 0);
		STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert bh_kick");
	}
}

void tide_gravity_submit_drift(tide_gravity *g, float dt)
{
	int ret = starpu_task_insert(&g->drift_cl, STARPU_RW, g->hbody, STARPU_R, g->hvel,
	                             STARPU_VALUE, &g->n, sizeof g->n, STARPU_VALUE, &dt, sizeof dt,
	                             0);
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert bh_drift");
}

void tide_gravity_tree_size(tide_gravity *g, int32_t *ncells, int32_t *ngroups)
{
	starpu_data_acquire(g->hmeta, STARPU_R);
	const int32_t *meta = (const int32_t *)starpu_data_get_local_ptr(g->hmeta);
	*ncells = meta[BH_META_NCELLS];
	*ngroups = meta[BH_META_NGROUPS];
	starpu_data_release(g->hmeta);
}

void tide_gravity_acquire_mode(tide_gravity *g, enum starpu_data_access_mode mode)
{
	starpu_data_acquire(g->hbody, mode);
	starpu_data_acquire(g->hvel, mode);
	for (int k = 0; k < g->nparts; k++) starpu_data_acquire(g->hacc[k], mode);
}

void tide_gravity_acquire(tide_gravity *g) { tide_gravity_acquire_mode(g, STARPU_R); }

void tide_gravity_wait(tide_gravity *g)
{
	if (g->mpi) starpu_mpi_wait_for_all(MPI_COMM_WORLD);
	else starpu_task_wait_for_all();
}

void tide_gravity_release(tide_gravity *g)
{
	starpu_data_release(g->hbody);
	starpu_data_release(g->hvel);
	for (int k = 0; k < g->nparts; k++) starpu_data_release(g->hacc[k]);
}

void tide_gravity_fini(tide_gravity *g)
{
	if (g->mpi) tide_gravity_ranks_fini(g);
	starpu_data_unregister(g->hbody);
	starpu_data_unregister(g->hvel);
	for (int k = 0; k < g->nparts; k++) starpu_data_unregister(g->hacc[k]);
	starpu_data_handle_t tree[] = {g->hcells, g->hmom, g->hgroups, g->hmeta, g->hbscr, g->hwscr};
	for (size_t i = 0; i < sizeof tree / sizeof *tree; i++) starpu_data_unregister_no_coherency(tree[i]);
}

void tide_gravity_direct(const bh_body *body, uint32_t n, const uint32_t *sample, uint32_t ns,
                         bh_params P, double *out, enum tide_where where)
{
	if (ns == 0) return;
	struct starpu_codelet cl;
	restrict_cl(&cl, &tide_bh_direct_cl, where);
	int gpu = starpu_cuda_worker_get_count() > 0 && where != TIDE_WHERE_CPU;
	uint32_t nt = gpu ? 1 : starpu_cpu_worker_get_count() * 4;
	if (nt > ns) nt = ns;
	if (nt < 1) nt = 1;
	starpu_data_handle_t hb, hs[256], ho[256];
	if (nt > 256) nt = 256;
	starpu_vector_data_register(&hb, STARPU_MAIN_RAM, (uintptr_t)body, n ? n : 1, sizeof(bh_body));
	for (uint32_t t = 0; t < nt; t++) {
		uint32_t s0 = (uint32_t)((uint64_t)ns * t / nt), s1 = (uint32_t)((uint64_t)ns * (t + 1) / nt);
		uint32_t cnt = s1 - s0;
		starpu_vector_data_register(&hs[t], STARPU_MAIN_RAM, (uintptr_t)(sample + s0), cnt,
		                            sizeof(uint32_t));
		starpu_vector_data_register(&ho[t], STARPU_MAIN_RAM, (uintptr_t)(out + 4 * (size_t)s0),
		                            cnt, 4 * sizeof(double));
		int ret = starpu_task_insert(&cl, STARPU_R, hb, STARPU_R, hs[t], STARPU_W, ho[t],
		                             STARPU_VALUE, &n, sizeof n, STARPU_VALUE, &cnt, sizeof cnt,
		                             STARPU_VALUE, &P, sizeof P, 0);
		STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert bh_direct");
	}
	starpu_task_wait_for_all();
	for (uint32_t t = 0; t < nt; t++) {
		starpu_data_unregister(hs[t]);
		starpu_data_unregister(ho[t]);
	}
	starpu_data_unregister(hb);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double quantile(double *v, uint32_t n, double q)
{
	if (n == 0) return 0.0;
	size_t k = (size_t)(q * (n - 1) + 0.5);
	return v[k];
}

tide_gravity_err tide_gravity_errors(const bh_acc *acc, const uint32_t *sample, uint32_t ns,
                                     const double *ref)
{
	tide_gravity_err e = {0, 0, 0, 0};
	if (ns == 0) return e;
	double *r = malloc(sizeof(double) * ns), *rp = malloc(sizeof(double) * ns);
	if (!r || !rp) { /* no memory for the sorted errors: unknown, not zero */
		free(r); free(rp);
		e.median = e.p99 = e.max = e.pot_p99 = NAN;
		return e;
	}
	for (uint32_t s = 0; s < ns; s++) {
		const bh_acc *a = &acc[sample[s]];
		const double *d = &ref[4 * (size_t)s];
		double dx = a->ax - d[0], dy = a->ay - d[1], dz = a->az - d[2];
		double na = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
		double err = sqrt(dx * dx + dy * dy + dz * dz);
		/* zero reference field (one particle, symmetric points): absolute error */
		r[s] = na > 0 ? err / na : err;
		rp[s] = d[3] != 0 ? fabs(a->pot - d[3]) / fabs(d[3]) : fabs(a->pot);
	}
	qsort(r, ns, sizeof *r, cmp_double);
	qsort(rp, ns, sizeof *rp, cmp_double);
	e.median = quantile(r, ns, 0.5);
	e.p99 = quantile(r, ns, 0.99);
	e.max = r[ns - 1];
	e.pot_p99 = quantile(rp, ns, 0.99);
	free(r);
	free(rp);
	return e;
}
