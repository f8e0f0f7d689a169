// SPDX-License-Identifier: LGPL-2.1-or-later
// Barnes–Hut gravity across ranks with locally essential trees (run by mpirun on 1, 2 and 4
// ranks, and alone).  Every rank generates the same particles and takes its Morton share; the
// distributed forces are gathered on rank 0 and checked there, per particle id, against
//   - a double-precision direct sum on 1000 sampled particles: 99th percentile of the relative
//     acceleration error at most 1e-3 at theta 0.5 with monopoles (Plummer and uniform), and
//     quadrupoles better than monopoles;
//   - the single-rank tree on all particles (rank 0 alone): 99th percentile of the relative
//     difference at most 1e-3, the same bound as against the exact forces;
//   - with several ranks, the essential nodes must be fewer than the particles the sender holds
//     (the opening test against the box prunes), and every rank must have sent some;
//   - degenerate splits: 3 particles on 4 ranks (rank 0 empty), 1 particle (three empty
//     ranks), no particle at all: exact forces (a point mass is its own multipole) or none.
//   - each body its own softening (soft_each, below), against the direct sum with the pair
//     rule; with --cuda (bh_let_cuda, under mpirun) that case alone on the GPU's codelets,
//     SKIP without a CUDA worker.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "tide/bh_gravity.h"
#include "tide/bh_walk_sets.h"
#include "bh_ic.h"
#include "tide/let_interface.h"
#include "runtime.h"
#include "test_cuda_mode.h"

static int failures;
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static tide_runtime rt;

/* The exchange the next distributed() uses: far_nu of bh_gravity.h (-2: the default of
 * TIDE_GRAVITY_FAR), and what it sent: bytes of the messages, pairs by kind. */
static double use_nu = -2;
static int use_nbox = 0; /* boxes of the receivers' covers (0: the default) */
static int use_vgather = -1; /* the virtual roots by recursive doubling (1) or not (0); -1: the
                              * default of TIDE_GRAVITY_VROOTS */
static bh_vroot *use_vr_out; /* non-NULL: the virtual roots this rank used, copied there */
static int use_evals = 1; /* force evaluations of the same particles (the last one is checked):
                           * later ones reuse StarPU-MPI's cached copies of the exchange */
static const float *use_vel; /* the particles' velocities by input index (NULL: zeros): with
                              * bh_params.soft_h their first words are their softenings */
static enum tide_where use_where = TIDE_WHERE_CPU; /* --cuda: the GPU's codelets */
static int use_let_walk = -1; /* TIDE_GRAVITY_LET_WALK_SETS or _EACH (-1: the default) */
static float use_far = -1; /* tide_gravity.far (0: direct; -1: the default, TIDE_GRAVITY_FAR_FIELD) */
static int let_sets, let_tasks, let_parts; /* of the last evaluation: received sets walked,
                                           * walk tasks over them, walk parts */
static double sent_bytes;
static int sent_kinds[3];

/* The distributed forces of all n particles, by input index (on rank 0; NULL elsewhere), and
 * the essential cells and particles this rank sent (in all, and to each rank when sent_to). */
static bh_acc *distributed(const bh_body *all, uint32_t n, bh_params P, int whole,
                           uint64_t *sent_items, uint32_t *sent_to)
{
	float *v0 = calloc(4 * (size_t)(n ? n : 1), sizeof(float));
	if (use_vel && v0) memcpy(v0, use_vel, 16 * (size_t)n);
	uint32_t *counts = malloc(sizeof(uint32_t) * rt.size);
	bh_body *body;
	float *vel;
	bh_acc *acc;
	EXPECT(bh_take_share(all, v0, n, rt.rank, rt.size, &body, &vel, &acc, counts) == 0, "no memory");
	float box[6];
	bh_bounding_box(all, n, box);
	tide_gravity g;
	tide_gravity_init_ranks(&g, body, vel, acc, counts, box, P, 0, use_where,
	                        tide_runtime_uses_mpi());
	g.let_whole_tree = whole;
	if (use_nu > -2) g.far_nu = use_nu;
	if (use_nbox > 0) g.nbox = use_nbox;
	if (use_vgather >= 0) g.vgather = use_vgather;
	if (use_let_walk >= 0) g.let_walk = use_let_walk;
	if (use_far >= 0) g.far = use_far;
	for (int e = 0; e < use_evals; e++) {
		tide_gravity_submit_forces(&g);
		tide_gravity_wait(&g);
	}
	if (use_vr_out && g.mpi) memcpy(use_vr_out, g.vr, sizeof(bh_vroot) * (size_t)rt.size);
	let_sets = g.let_sets;
	let_tasks = g.let_tasks;
	let_parts = g.nparts;
	*sent_items = 0;
	sent_bytes = 0;
	memset(sent_kinds, 0, sizeof sent_kinds);
	for (int q = 0; q < rt.size; q++) {
		uint32_t nc, np;
		tide_gravity_let_sent(&g, q, &nc, &np);
		sent_kinds[tide_gravity_let_kind(&g, q)]++;
		if (tide_gravity_let_kind(&g, q) != TIDE_LET_NONE) sent_bytes += tide_let_message_bytes(nc, np);
		*sent_items += nc + np;
		if (sent_to) sent_to[q] = nc + np;
		if (q != rt.rank)
			printf("    rank %d -> %d: %u essential cells + %u particles (%.1f kB; %u particles here)\n",
			       rt.rank, q, nc, np, tide_let_message_bytes(nc, np) / 1e3, counts[rt.rank]);
	}
	bh_body *gb = NULL;
	float *gv = NULL;
	bh_acc *ga = NULL, *byid = NULL;
	if (rt.rank == 0) {
		gb = malloc(sizeof(bh_body) * (n ? n : 1));
		gv = malloc(16 * (size_t)(n ? n : 1));
		ga = malloc(sizeof(bh_acc) * (n ? n : 1));
		byid = calloc(n ? n : 1, sizeof(bh_acc));
	}
	tide_gravity_gather(&g, 0, gb, gv, ga);
	tide_gravity_fini(&g);
	if (rt.rank == 0) {
		int bad = 0;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t id = bh_get_id(&gv[4 * i]);
			if (id >= n || gb[i].x != all[id].x || gb[i].m != all[id].m) { bad++; continue; }
			byid[id] = ga[i];
		}
		EXPECT(!bad, "%d gathered particles do not match their id", bad);
	}
	free(gb); free(gv); free(ga); free(body); free(vel); free(acc); free(counts); free(v0);
	return byid;
}

/* The single-rank tree on rank 0, by input index. */
static bh_acc *single(const bh_body *all, uint32_t n, bh_params P)
{
	uint32_t m = n ? n : 1;
	bh_body *b = malloc(sizeof(bh_body) * m);
	float *v = calloc(4 * (size_t)m, sizeof(float));
	bh_acc *a = calloc(m, sizeof(bh_acc)), *byid = calloc(m, sizeof(bh_acc));
	memcpy(b, all, sizeof(bh_body) * n);
	for (uint32_t i = 0; i < n; i++) bh_set_id(&v[4 * i], i);
	tide_gravity g;
	tide_gravity_init(&g, b, v, a, n, P, 0, TIDE_WHERE_CPU);
	tide_gravity_submit_forces(&g);
	starpu_task_wait_for_all();
	tide_gravity_fini(&g);
	for (uint32_t i = 0; i < n; i++) byid[bh_get_id(&v[4 * i])] = a[i];
	free(b); free(v); free(a);
	return byid;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* 99th percentile and maximum of |a - b| / |b| over all particles. */
static void rel_diff(const bh_acc *a, const bh_acc *b, uint32_t n, double *p99, double *max)
{
	double *r = malloc(sizeof(double) * (n ? n : 1));
	for (uint32_t i = 0; i < n; i++) {
		double dx = a[i].ax - b[i].ax, dy = a[i].ay - b[i].ay, dz = a[i].az - b[i].az;
		double nb = sqrt((double)b[i].ax * b[i].ax + (double)b[i].ay * b[i].ay + (double)b[i].az * b[i].az);
		r[i] = sqrt(dx * dx + dy * dy + dz * dz) / (nb > 0 ? nb : 1);
	}
	qsort(r, n, sizeof *r, cmp_d);
	*p99 = n ? r[(size_t)(0.99 * (n - 1) + 0.5)] : 0;
	*max = n ? r[n - 1] : 0;
	free(r);
}

/* The distributed forces against the direct sum; returns the 99th percentile. */
static double against_direct(const char *what, const bh_body *all, uint32_t n, bh_params P,
                             const bh_acc *acc)
{
	uint32_t ns = n < 1000 ? n : 1000;
	uint32_t *s = malloc(sizeof(uint32_t) * (ns ? ns : 1));
	for (uint32_t k = 0; k < ns; k++) s[k] = (uint32_t)(((uint64_t)k * n) / ns);
	double *ref = malloc(sizeof(double) * 4 * (ns ? ns : 1));
	tide_gravity_direct(all, n, s, ns, P, ref, TIDE_WHERE_CPU);
	/* tide_gravity_errors indexes acc by sample: acc is by input index already */
	tide_gravity_err e = tide_gravity_errors(acc, s, ns, ref);
	printf("  %-8s N %6u theta %.2f %-10s on %d rank(s) vs direct: median %.2e  99%% %.2e  max %.2e\n",
	       what, n, P.theta, P.quadrupole ? "quadrupole" : "monopole", rt.size, e.median, e.p99, e.max);
	free(s); free(ref);
	return e.p99;
}

static void accuracy(enum bh_dist d, uint32_t n)
{
	bh_body *all = malloc(sizeof(bh_body) * n);
	float *v = malloc(16 * (size_t)n);
	bh_ic_make(d, n, 7, all, v);
	const char *name = bh_dist_name(d);
	double pm = 0, pq = 0;
	for (int quad = 0; quad < 2; quad++) {
		if (quad && d != BH_DIST_PLUMMER) break;
		bh_params P = {.theta = 0.5f, .eps = 0.f, .G = 1.f, .quadrupole = quad};
		uint64_t items;
		bh_acc *acc = distributed(all, n, P, 0, &items, NULL);
		EXPECT(rt.size == 1 || items > 0, "%s: rank %d sent no essential node", name, rt.rank);
		if (rt.rank == 0) {
			double p99 = against_direct(name, all, n, P, acc);
			EXPECT(quad || p99 <= 1e-3, "%s: monopole theta 0.5 99th percentile %.2e > 1e-3", name, p99);
			*(quad ? &pq : &pm) = p99;
			bh_acc *one = single(all, n, P);
			double dp99, dmax;
			rel_diff(acc, one, n, &dp99, &dmax);
			printf("  %-8s N %6u %d rank(s) vs 1 rank, all particles: 99%% %.2e  max %.2e\n", name, n,
			       rt.size, dp99, dmax);
			EXPECT(dp99 <= 1e-3, "%s: %d ranks differ from 1 rank by %.2e (99th percentile)", name,
			       rt.size, dp99);
			free(one);
		}
		if (rt.size > 1 && !quad && d == BH_DIST_PLUMMER) {
			/* the essential nodes are all a walk from the box needs: the whole remote trees
			 * give the same forces */
			bh_acc *whole = distributed(all, n, P, 1, &items, NULL);
			if (rt.rank == 0) {
				double wp99, wmax;
				rel_diff(acc, whole, n, &wp99, &wmax);
				printf("  %-8s essential nodes vs whole trees sent: max difference %.1e\n", name, wmax);
				EXPECT(wmax <= 1e-6, "%s: the essential nodes change the forces by up to %.2e "
				       "against the whole trees", name, wmax);
			}
			free(whole);
		}
		free(acc);
	}
	if (rt.rank == 0 && d == BH_DIST_PLUMMER)
		EXPECT(pq < pm, "%s: quadrupoles (%.2e) not better than monopoles (%.2e)", name, pq, pm);
	free(all); free(v);
}

/* Two uniform cubes of side 1, 20 apart: rank q holds part of cube 2q/size (Morton order), and
 * a rank's tree seen from the other cube passes the opening test a few levels down, so it sends
 * that cube's ranks a handful of cells (and the particles of a few large, nearly empty leaves):
 * at most 5 % of what it holds, where the whole tree would be over 100 %.  Forces stay right.
 * On an odd number of ranks the middle rank holds parts of both cubes: it is neither checked
 * nor checked against. */
/* Whether rank q's Morton range of the n particles holds parts of both cubes (the first n / 2
 * in Morton order are one cube). */
static int both_clumps(uint32_t n, int q)
{
	uint64_t a = (uint64_t)n * q / rt.size, b = (uint64_t)n * (q + 1) / rt.size;
	return a < n / 2 && b > n / 2;
}

static void two_clumps(uint32_t n)
{
	bh_body *all = malloc(sizeof(bh_body) * n);
	float *v = malloc(16 * (size_t)n);
	bh_ic_make(BH_DIST_UNIFORM, n, 3, all, v);
	for (uint32_t i = 0; i < n; i++) {
		all[i].x = 0.5f * all[i].x + (i < n / 2 ? -10.f : 10.f);
		all[i].y *= 0.5f; all[i].z *= 0.5f;
	}
	bh_params P = {.theta = 0.5f, .eps = 0.f, .G = 1.f, .quadrupole = 0};
	uint64_t items;
	uint32_t *items_to = calloc((size_t)rt.size, sizeof(uint32_t));
	bh_acc *acc = distributed(all, n, P, 0, &items, items_to);
	uint32_t mine = (uint32_t)((uint64_t)n * (rt.rank + 1) / rt.size - (uint64_t)n * rt.rank / rt.size);
	for (int q = 0; q < rt.size; q++)
		if (2 * q / rt.size != 2 * rt.rank / rt.size && !both_clumps(n, q) && !both_clumps(n, rt.rank))
			EXPECT(items_to[q] <= mine / 20, "two clumps: rank %d sent %u essential cells and "
			       "particles to rank %d in the other clump (it holds %u particles)", rt.rank,
			       items_to[q], q, mine);
	if (rt.rank == 0) {
		double p99 = against_direct("2 clumps", all, n, P, acc);
		EXPECT(p99 <= 1e-3, "two clumps: 99th percentile %.2e > 1e-3", p99);
	}
	free(acc); free(items_to); free(all); free(v);
}

/* The bodies moved into eight clumps at the corners of a flat box (20 x 20 x 3), each of a
 * consecutive eighth of them: far apart, so that the near/far exchange has far ranks. */
static void eight_clumps(bh_body *all, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t c = (uint32_t)((uint64_t)i * 8 / n);
		all[i].x = 0.5f * all[i].x + (c & 1 ? 10.f : -10.f);
		all[i].y = 0.5f * all[i].y + (c & 2 ? 10.f : -10.f);
		all[i].z = 0.5f * all[i].z + (c & 4 ? 1.5f : -1.5f);
	}
}

/* Near and far ranks (tasks/gravity.c): eight uniform clumps of side 1 at (+-10, +-10, +-1.5),
 * one octant each, so that on 8 ranks each rank holds one clump, whose partner across z = 0 is
 * near (gap 2 < nu = 3 sides) and the six others far; on 4 ranks a rank holds such a pair (box
 * side 4, all others 19 or more away: far), on 2 ranks four clumps (side 21: all near).  The
 * forces must be those of the all-to-all exchange bit for bit (the proof at the head of
 * tasks/gravity.c; the third of three evaluations, so that cached copies are exercised), and
 * within the tree's error of the direct sum (99th percentile 1e-3 at theta 0.5, monopoles).  The bytes each rank sent both ways are printed (bench figure).
 * The near/far exchange runs twice, its virtual roots sent by each rank to every rank and
 * gathered by recursive doubling (TIDE_GRAVITY_VROOTS; 3 ranks: the fold of a rank above the
 * power of two): every rank must end with the same virtual roots, byte for byte, the same near
 * and far ranks and the same forces bit for bit. */
static void near_far(uint32_t n)
{
	bh_body *all = malloc(sizeof(bh_body) * n);
	float *v = malloc(16 * (size_t)n);
	bh_ic_make(BH_DIST_UNIFORM, n, 5, all, v);
	eight_clumps(all, n);
	bh_params P = {.theta = 0.5f, .eps = 0.f, .G = 1.f, .quadrupole = 0};
	uint64_t items;
	use_nu = -1;
	bh_acc *a2a = distributed(all, n, P, 0, &items, NULL);
	double bytes_a2a = sent_bytes;
	use_nu = 3;
	use_evals = 3; /* the coarse trees and near nodes of the third, after two that cached theirs */
	bh_vroot *vr_all = calloc((size_t)rt.size, sizeof(bh_vroot));
	bh_vroot *vr_tree = calloc((size_t)rt.size, sizeof(bh_vroot));
	use_vgather = 0;
	use_vr_out = vr_all;
	bh_acc *acc = distributed(all, n, P, 0, &items, NULL);
	int kinds[3] = {sent_kinds[0], sent_kinds[1], sent_kinds[2]};
	use_vgather = 1;
	use_vr_out = vr_tree;
	bh_acc *acc_tree = distributed(all, n, P, 0, &items, NULL);
	int kinds_tree[3] = {sent_kinds[0], sent_kinds[1], sent_kinds[2]};
	use_vgather = -1;
	use_vr_out = NULL;
	use_nu = -2;
	use_evals = 1;
	EXPECT(!memcmp(vr_all, vr_tree, sizeof(bh_vroot) * (size_t)rt.size), "near/far: rank %d's "
	       "virtual roots gathered by recursive doubling differ from those sent to every rank", rt.rank);
	EXPECT(!memcmp(kinds, kinds_tree, sizeof kinds), "near/far: rank %d has %d near and %d far "
	       "ranks with the gathered virtual roots, %d and %d without", rt.rank, kinds_tree[TIDE_LET_NODES],
	       kinds_tree[TIDE_LET_COARSE], kinds[TIDE_LET_NODES], kinds[TIDE_LET_COARSE]);
	if (rt.rank == 0) {
		uint32_t differ = 0;
		for (uint32_t i = 0; i < n; i++) differ += memcmp(&acc_tree[i], &a2a[i], sizeof acc_tree[i]) != 0;
		printf("  near/far, virtual roots by recursive doubling, vs all-to-all on %d rank(s): %u of %u "
		       "forces differ\n", rt.size, differ, n);
		EXPECT(differ == 0, "near/far (gathered virtual roots): %u forces differ from the all-to-all "
		       "exchange", differ);
	}
	free(vr_all); free(vr_tree); free(acc_tree);
	printf("    rank %d: all-to-all %.1f kB, near/far %.1f kB (%d near ranks, %d far)\n", rt.rank,
	       bytes_a2a / 1e3, sent_bytes / 1e3, kinds[TIDE_LET_NODES], kinds[TIDE_LET_COARSE]);
	if (rt.size == 8)
		EXPECT(kinds[TIDE_LET_NODES] == 1 && kinds[TIDE_LET_COARSE] == 6, "near/far: rank %d has %d "
		       "near and %d far ranks, not 1 and 6", rt.rank, kinds[TIDE_LET_NODES], kinds[TIDE_LET_COARSE]);
	if (rt.size == 4)
		EXPECT(kinds[TIDE_LET_COARSE] == 3, "near/far: rank %d has %d far ranks, not 3", rt.rank,
		       kinds[TIDE_LET_COARSE]);
	if (rt.rank == 0) {
		double p99 = against_direct("near/far", all, n, P, acc);
		EXPECT(p99 <= 1e-3, "near/far: 99th percentile %.2e > 1e-3", p99);
		uint32_t differ = 0;
		for (uint32_t i = 0; i < n; i++) differ += memcmp(&acc[i], &a2a[i], sizeof acc[i]) != 0;
		printf("  near/far vs all-to-all on %d rank(s): %u of %u forces differ\n", rt.size, differ, n);
		EXPECT(differ == 0, "near/far: %u forces differ from the all-to-all exchange", differ);
	}
	free(acc); free(a2a); free(all); free(v);
}

/* The walks over the received sets in one task per part (bh_walk_sets, the default) against one
 * task per set and part (bh_walk_let, TIDE_GRAVITY_LET_WALK=each): with every node on every
 * particle (TIDE_GRAVITY_FAR_FIELD=direct) the same forces bit for bit (each group walks the sets
 * in the order the per-set tasks ran, each set's field summed apart and added:
 * include/tide/bh_walk_sets.h); with the far nodes' local expansions (the default) the same up
 * to float rounding (the merged walk evaluates one expansion of all sets' far nodes, the per-set
 * walks one per set): largest relative difference below 1e-5 (measured 4 and 8 ranks: see
 * the output), in the all-to-all exchange and with near and far
 * ranks (the eight clumps of near_far: on 4 and 8 ranks coarse trees and essential nodes
 * together), quadrupoles and each body its own softening, the default parts (on the CPU, 4 per
 * worker: the parts cut walk groups), the third of three evaluations.  Each rank also checks
 * that the paths did what they say: one merged task per part, one task per set and part. */
static void walk_sets(uint32_t n)
{
	bh_body *all = malloc(sizeof(bh_body) * n);
	float *v = calloc(4 * (size_t)n, sizeof(float));
	bh_ic_make(BH_DIST_UNIFORM, n, 13, all, v);
	eight_clumps(all, n);
	for (uint32_t i = 0; i < n; i++) {
		v[4 * i] = 0.01f + 0.04f * (float)(i % 7) / 7.f; /* softenings of 0.01 to 0.05 */
		v[4 * i + 1] = v[4 * i + 2] = v[4 * i + 3] = 0.f;
	}
	bh_params P = {.theta = 0.5f, .eps = 0.f, .G = 1.f, .quadrupole = 1, .soft_h = 1};
	uint64_t items;
	use_vel = v;
	use_evals = 3;
	const double nus[2] = {-1, 3};
	for (int m = 0; m < 4; m++) {
		use_nu = nus[m & 1];
		use_far = m < 2 ? 0.f : -1.f;
		use_let_walk = TIDE_GRAVITY_LET_WALK_EACH;
		bh_acc *each = distributed(all, n, P, 0, &items, NULL);
		int tasks_each = let_tasks, sets = let_sets;
		use_let_walk = TIDE_GRAVITY_LET_WALK_SETS;
		bh_acc *merged = distributed(all, n, P, 0, &items, NULL);
		int tasks_sets = let_tasks, parts = let_parts;
		/* every rank holds particles, so each receives a set (nodes or a coarse tree) from
		 * every other rank */
		EXPECT(sets == rt.size - 1 && let_sets == sets, "walk_sets: rank %d walked %d and %d "
		       "received sets, not %d", rt.rank, sets, let_sets, rt.size - 1);
		EXPECT(tasks_each == sets * parts && tasks_sets == (sets ? parts : 0), "walk_sets: rank %d "
		       "submitted %d per-set and %d merged walk tasks for %d sets and %d parts", rt.rank,
		       tasks_each, tasks_sets, sets, parts);
		if (rt.rank == 0) {
			const char *how = m & 1 ? "near/far" : "all-to-all";
			const char *far = m < 2 ? "direct" : "local expansions";
			uint32_t differ = 0;
			for (uint32_t i = 0; i < n; i++) differ += memcmp(&merged[i], &each[i], sizeof each[i]) != 0;
			double dp99, dmax;
			rel_diff(merged, each, n, &dp99, &dmax);
			printf("  walk_sets (%s, far nodes %s, %d sets on rank 0): one task per part vs one per "
			       "set on %d rank(s): %u of %u forces differ, by up to %.1e\n", how, far, sets,
			       rt.size, differ, n, dmax);
			if (m < 2)
				EXPECT(differ == 0, "walk_sets (%s, %s): %u forces differ between the merged and "
				       "the per-set walks", how, far, differ);
			else
				EXPECT(dmax < 1e-5, "walk_sets (%s, %s): the merged and the per-set walks differ by "
				       "up to %.2e", how, far, dmax);
		}
		free(each);
		free(merged);
	}
	use_nu = -2;
	use_evals = 1;
	use_let_walk = -1;
	use_far = -1;
	use_vel = NULL;
	free(all); free(v);
}

/* The far nodes of the received sets in local expansions about each walk group's centre
 * (TIDE_GRAVITY_FAR_FIELD, bh_interact.h's bh_m2l/bh_l2p) against every node on every particle
 * (direct), theta 0.6 with quadrupoles (the scaling runs'), both against the double direct sum
 * on 1000 particles: the expansions' errors (relative, ~4 theta_l^3 at most per node, theta_l =
 * 0.12) must stay well below the tree's own: 99th percentile at most 1.1 times the direct
 * walk's, and the two walks' difference below a fifth of it (99th percentile; measured on 2-8
 * ranks: 0.13 of it on the uniform cube, 0.02-0.03 on the Plummer sphere).  The CPU walks'
 * counts (bh_walk_let_tally) on each rank: from 2 ranks on some far nodes (M2L), fewer node-
 * particle interactions than the direct walk, the same particle-particle interactions (the
 * opening test is unchanged).  With --cuda: the GPU's walks against the CPU's, both with the
 * expansions (the same nodes are far up to rounding at the criterion's edge): 99th percentile of
 * the difference below 2e-5, and the GPU's error against the direct sum at most 1.1 times the
 * CPU's. */
static void far_field(enum bh_dist d, uint32_t n)
{
	bh_body *all = malloc(sizeof(bh_body) * n);
	float *v = malloc(16 * (size_t)n);
	bh_ic_make(d, n, 17, all, v);
	const char *name = bh_dist_name(d);
	bh_params P = {.theta = 0.6f, .eps = 0.f, .G = 1.f, .quadrupole = 1};
	uint64_t items;
	int64_t t[2][BH_LET_TALLY_N];
	bh_acc *acc[2];
	enum tide_where where = use_where;
	use_where = TIDE_WHERE_CPU;
	for (int k = 0; k < 2; k++) {
		use_far = k ? -1.f : 0.f;
		bh_walk_let_tally(t[k]); /* zeroed */
		acc[k] = distributed(all, n, P, 0, &items, NULL);
		bh_walk_let_tally(t[k]);
		printf("    rank %d, far nodes %s: received-set walks: %lld groups, %lld node-particle, %lld "
		       "particle-particle interactions, %lld far nodes (M2L), %lld L2P\n", rt.rank,
		       k ? "local" : "direct", (long long)t[k][BH_LET_TALLY_GROUPS],
		       (long long)t[k][BH_LET_TALLY_M2P], (long long)t[k][BH_LET_TALLY_P2P],
		       (long long)t[k][BH_LET_TALLY_M2L], (long long)t[k][BH_LET_TALLY_L2P]);
	}
	use_far = -1;
	if (rt.size > 1) {
		EXPECT(t[1][BH_LET_TALLY_M2L] > 0 && t[1][BH_LET_TALLY_M2P] < t[0][BH_LET_TALLY_M2P],
		       "far field: rank %d walked %lld far nodes, %lld node-particle interactions (direct: "
		       "%lld)", rt.rank, (long long)t[1][BH_LET_TALLY_M2L], (long long)t[1][BH_LET_TALLY_M2P],
		       (long long)t[0][BH_LET_TALLY_M2P]);
		EXPECT(t[1][BH_LET_TALLY_P2P] == t[0][BH_LET_TALLY_P2P] && t[0][BH_LET_TALLY_M2L] == 0,
		       "far field: rank %d: %lld particle-particle interactions with the expansions, %lld "
		       "without; %lld far nodes without", rt.rank, (long long)t[1][BH_LET_TALLY_P2P],
		       (long long)t[0][BH_LET_TALLY_P2P], (long long)t[0][BH_LET_TALLY_M2L]);
	}
	bh_acc *gpu = NULL;
	if (where == TIDE_WHERE_CUDA) {
		use_where = where;
		gpu = distributed(all, n, P, 0, &items, NULL);
	}
	if (rt.rank == 0) {
		double e0 = against_direct("direct", all, n, P, acc[0]);
		double e1 = against_direct("local", all, n, P, acc[1]);
		double dp99, dmax;
		rel_diff(acc[1], acc[0], n, &dp99, &dmax);
		printf("  far field %s N %u on %d rank(s): local expansions vs direct walk, all particles: "
		       "99%% %.2e  max %.2e\n", name, n, rt.size, dp99, dmax);
		EXPECT(e1 <= 1.1 * e0, "far field %s: 99th percentile error %.2e with the expansions, %.2e "
		       "without", name, e1, e0);
		EXPECT(dp99 <= 0.2 * e0, "far field %s: the expansions change the forces by %.2e (99th "
		       "percentile), the tree's error is %.2e", name, dp99, e0);
		if (gpu) {
			double eg = against_direct("GPU", all, n, P, gpu);
			rel_diff(gpu, acc[1], n, &dp99, &dmax);
			printf("  far field %s: GPU vs CPU, local expansions: 99%% %.2e  max %.2e\n", name, dp99,
			       dmax);
			EXPECT(dp99 <= 2e-5 && eg <= 1.1 * e1, "far field %s: the GPU's forces differ from the "
			       "CPU's by %.2e (99th percentile), error %.2e against the CPU's %.2e", name, dp99,
			       eg, e1);
		}
	}
	use_where = where;
	free(gpu); free(acc[0]); free(acc[1]); free(all); free(v);
}

/* TIDE_GRAVITY_FAR_FIELD's values (rank 1: no warning printed for the bad ones). */
static void far_choice(void)
{
	EXPECT(tide_gravity_far_field_choice(NULL, 1) == TIDE_GRAVITY_FAR_RATIO &&
	       tide_gravity_far_field_choice("", 1) == TIDE_GRAVITY_FAR_RATIO &&
	       tide_gravity_far_field_choice("local", 1) == TIDE_GRAVITY_FAR_RATIO &&
	       tide_gravity_far_field_choice("direct", 1) == 0.f &&
	       tide_gravity_far_field_choice("0.5", 1) == 0.5f &&
	       tide_gravity_far_field_choice("1", 1) == 1.f &&
	       tide_gravity_far_field_choice("0", 1) == TIDE_GRAVITY_FAR_RATIO &&
	       tide_gravity_far_field_choice("1.5", 1) == TIDE_GRAVITY_FAR_RATIO &&
	       tide_gravity_far_field_choice("0.2x", 1) == TIDE_GRAVITY_FAR_RATIO &&
	       tide_gravity_far_field_choice("Direct", 1) == TIDE_GRAVITY_FAR_RATIO,
	       "TIDE_GRAVITY_FAR_FIELD's values");
}

/* The essential nodes chosen against each receiver's cover of BH_VROOT_BOXES boxes (the
 * default) against its one bounding box (TIDE_GRAVITY_BOXES=1), both all-to-all: the same forces
 * bit for bit (each walk group lies in one box of the cover), and from 4 ranks on at least 5 %
 * fewer bytes sent in all (measured: 2 % on 2 ranks, 16 % on 4, 11 % on 8) (a Morton piece of a uniform cube has a bounding box that reaches into
 * its neighbours' pieces; the cubes of its top cells do not; on a Plummer sphere of 3e4 the gain
 * is 0 on 2 and 4 ranks, 12 % on 8, where the dense core is cut in every case). */
static void cover_bytes(uint32_t n)
{
	bh_body *all = malloc(sizeof(bh_body) * n);
	float *v = malloc(16 * (size_t)n);
	bh_ic_make(BH_DIST_UNIFORM, n, 11, all, v);
	bh_params P = {.theta = 0.6f, .eps = 0.f, .G = 1.f, .quadrupole = 1};
	uint64_t items;
	double b[2];
	use_nu = -1;
	use_nbox = 1;
	bh_acc *one = distributed(all, n, P, 0, &items, NULL);
	b[0] = sent_bytes;
	use_nbox = BH_VROOT_BOXES;
	bh_acc *cov = distributed(all, n, P, 0, &items, NULL);
	b[1] = sent_bytes;
	use_nu = -2;
	use_nbox = 0;
	double mine[2] = {b[0], b[1]}, tot[2] = {0, 0};
	double *every = rt.rank == 0 ? malloc(sizeof(double) * 2 * (size_t)rt.size) : NULL;
	if (rt.size > 1) {
		/* the bytes of every rank, on rank 0 (a solver of nothing, for its gather only) */
		tide_gravity g;
		uint32_t *counts = calloc((size_t)rt.size, sizeof *counts);
		bh_body dummy = {0, 0, 0, 0};
		float dv[4] = {0, 0, 0, 0};
		bh_acc da;
		tide_gravity_init_ranks(&g, &dummy, dv, &da, counts, NULL, P, 1, TIDE_WHERE_CPU, 1);
		tide_gravity_gather_values(&g, 0, mine, 2, every);
		tide_gravity_fini(&g);
		free(counts);
	} else if (every) {
		every[0] = mine[0]; every[1] = mine[1];
	}
	if (rt.rank == 0) {
		for (int q = 0; q < rt.size; q++) { tot[0] += every[2 * q]; tot[1] += every[2 * q + 1]; }
		uint32_t differ = 0;
		for (uint32_t i = 0; i < n; i++) differ += memcmp(&one[i], &cov[i], sizeof one[i]) != 0;
		printf("  cover: uniform %u theta 0.6 on %d rank(s): bytes sent per rank %.1f kB with one box, "
		       "%.1f kB with a cover of %d; %u forces differ\n", n, rt.size, tot[0] / rt.size / 1e3,
		       tot[1] / rt.size / 1e3, BH_VROOT_BOXES, differ);
		EXPECT(differ == 0, "cover: %u forces differ between one box and the cover", differ);
		/* on 2 ranks the two halves face each other along the whole split plane: little to
		 * prune; from 4 ranks on the cover prunes */
		if (rt.size > 1)
			EXPECT(rt.size < 4 ? tot[1] <= tot[0] : tot[1] < 0.95 * tot[0], "cover: %.0f bytes sent "
			       "with the cover, %.0f with one box", tot[1], tot[0]);
	}
	free(every); free(one); free(cov); free(all); free(v);
}

/* Each body its own softening (bh_params.soft_h, as the SPH self-gravity's softenings tied to
 * h): a Plummer sphere whose softenings grow outwards as h does, eps = min(0.02 (1 + r)^2, 0.5)
 * (tests/test_bh_soft.c), at theta 0.1, where nearly every pair within a few softenings is
 * direct.  A pair across ranks must be softened by bh_soft2 of the two bodies' own softenings
 * as on one rank: the essential nodes carry each leaf particle's softening (bh_let_eps).  The
 * distributed forces against the direct sum with that rule (tide_gravity_direct_soft): 99th
 * percentile below 2e-5, the bound test_bh_soft sets for one rank (measured there 6.2e-6).
 * Measured 99th percentiles, 1 / 2 / 4 / 8 ranks: 7.6e-6, 2.0e-6, 1.1e-6, 9.5e-7 (the ranks' walks
 * open more cells near their boxes).  When the received particles took their leaf's largest
 * softening (before the softenings travelled): 2 / 4 / 8 ranks 1.8e-2, 1.9e-2, 2.5e-2 (medians
 * 1.1e-3 to 2.4e-3). */
static float soft_of(const bh_body *b)
{
	double r = sqrt((double)b->x * b->x + (double)b->y * b->y + (double)b->z * b->z);
	return (float)fmin(0.02 * (1 + r) * (1 + r), 0.5);
}

static void soft_each(uint32_t n)
{
	bh_body *all = malloc(sizeof(bh_body) * n);
	float *v = calloc(4 * (size_t)n, sizeof(float));
	bh_ic_make(BH_DIST_PLUMMER, n, 11, all, v);
	for (uint32_t i = 0; i < n; i++) {
		v[4 * i] = soft_of(&all[i]);
		v[4 * i + 1] = v[4 * i + 2] = v[4 * i + 3] = 0.f;
	}
	bh_params P = {.theta = 0.1f, .eps = 0.f, .G = 1.f, .quadrupole = 1, .soft_h = 1};
	uint64_t items;
	use_vel = v;
	bh_acc *acc = distributed(all, n, P, 0, &items, NULL);
	use_vel = NULL;
	if (rt.rank == 0) {
		uint32_t ns = n < 1000 ? n : 1000;
		uint32_t *smp = malloc(sizeof(uint32_t) * ns);
		for (uint32_t k = 0; k < ns; k++) smp[k] = (uint32_t)(((uint64_t)k * n) / ns);
		double *ref = malloc(sizeof(double) * 4 * ns);
		tide_gravity_direct_soft(all, v, n, smp, ns, P, ref, TIDE_WHERE_CPU);
		tide_gravity_err e = tide_gravity_errors(acc, smp, ns, ref);
		printf("  softened N %6u theta %.2f each body's softening on %d rank(s) vs direct (bh_soft2 "
		       "of the pair's own): median %.2e  99%% %.2e  max %.2e\n", n, P.theta, rt.size,
		       e.median, e.p99, e.max);
		EXPECT(e.p99 < 2e-5, "softening of each body on %d ranks: 99th percentile %.2e >= 2e-5 "
		       "(are the received particles softened by their own softening?)", rt.size, e.p99);
		free(smp); free(ref);
	}
	free(acc); free(all); free(v);
}

/* Fewer particles than ranks: the empty ranks send empty buffers and receive. */
static void few(uint32_t n)
{
	const bh_body pts[3] = {{-1.f, 0.2f, 0.f, 0.5f}, {1.f, -0.3f, 0.4f, 0.25f}, {0.1f, 2.f, -0.7f, 0.25f}};
	bh_params P = {.theta = 0.5f, .eps = 0.f, .G = 1.f, .quadrupole = 1};
	uint64_t items;
	bh_acc *acc = distributed(pts, n, P, 0, &items, NULL);
	if (rt.rank != 0) return;
	double worst = 0;
	for (uint32_t i = 0; i < n; i++) {
		double a[3] = {0, 0, 0}, pot = 0;
		for (uint32_t j = 0; j < n; j++) {
			if (j == i) continue;
			double d[3] = {pts[j].x - pts[i].x, pts[j].y - pts[i].y, pts[j].z - pts[i].z};
			double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
			for (int k = 0; k < 3; k++) a[k] += pts[j].m * d[k] / (r * r * r);
			pot -= pts[j].m / r;
		}
		double e = fabs(acc[i].ax - a[0]) + fabs(acc[i].ay - a[1]) + fabs(acc[i].az - a[2]) +
		           fabs(acc[i].pot - pot);
		worst = e > worst || !isfinite(e) ? e : worst;
	}
	printf("  %u particle(s) on %d rank(s): largest error %.1e\n", n, rt.size, worst);
	EXPECT(worst < 1e-5, "%u particles on %d ranks: error %.2e", n, rt.size, worst);
	free(acc);
}

int main(int argc, char **argv)
{
	int cuda = test_cuda_requested(argc, argv), sets_only = 0;
	for (int i = 1; i < argc; i++) sets_only |= !strcmp(argv[i], "--sets");
	if (tide_runtime_init(&argc, &argv, NULL, &rt)) return 77;
	if (cuda) {
		/* bh_essential and bh_walk_let on the GPU: each received particle's own softening */
		if (test_cuda_missing(sets_only ? "bh_walk_sets_cuda" : "bh_let_cuda")) { tide_runtime_shutdown(); return TEST_SKIP; }
		use_where = TIDE_WHERE_CUDA;
		if (sets_only) {
			walk_sets(8000); /* bh_walk_sets' kernel against bh_walk_let's, bit for bit */
			far_field(BH_DIST_UNIFORM, 50000); /* the GPU's expansions against the CPU's */
			tide_runtime_shutdown();
			if (failures) { fprintf(stderr, "rank %d: %d failures\n", rt.rank, failures); return 1; }
			if (rt.rank == 0) printf("bh_walk_sets_cuda: passed\n");
			return 0;
		}
		soft_each(4000);
		tide_runtime_shutdown();
		if (failures) { fprintf(stderr, "rank %d: %d failures\n", rt.rank, failures); return 1; }
		if (rt.rank == 0) printf("bh_let_cuda: passed\n");
		return 0;
	}
	if (rt.rank == 0) printf("bh_let test: %d rank(s), %d CPU worker(s) each\n", rt.size, rt.ncpu);
	accuracy(BH_DIST_PLUMMER, 20000);
	accuracy(BH_DIST_UNIFORM, 50000); /* at 2e4 the single-rank tree itself is at 1.1e-3 */
	two_clumps(10000);
	near_far(8000);
	walk_sets(8000);
	far_choice();
	far_field(BH_DIST_UNIFORM, 50000);
	far_field(BH_DIST_PLUMMER, 20000);
	cover_bytes(30000);
	soft_each(4000);
	few(3);
	few(1);
	few(0);
	tide_runtime_shutdown();
	if (failures) { fprintf(stderr, "rank %d: %d failures\n", rt.rank, failures); return 1; }
	if (rt.rank == 0) printf("bh_let: all cases pass\n");
	return 0;
}
