// SPDX-License-Identifier: LGPL-2.1-or-later
// The task graph of one Barnes–Hut force evaluation, on one process or on several ranks:
//   bh_build (bodies RW, velocities RW → cells, meta, groups)
//   → bh_moments (→ moments)
//   → bh_walk × nparts (each writes the accelerations of its range of sorted particles).
// The tree arrays are registered without a host copy (home node -1): on a GPU they are made and
// used there and never cross the bus.  The leapfrog's kick and drift tasks are here too, so that
// one N-body step is build → moments → walk → kick → drift without leaving the device.
//
// Several ranks, with locally essential trees.  Per force evaluation, on every rank (all ranks
// submit the same cross-rank tasks, starpu_mpi_task_insert; a task runs on the owner of the data
// it writes):
//   bh_build → bh_moments                      local tree of this rank's particles
//   bh_vroot(q) for every rank q               virtual root of q, on q; sent to whoever needs it
//   bh_essential(me → r) for every other r     on me: the nodes of my tree r's walk needs, chosen
//                                              against r's box; StarPU-MPI sends them to r
//   bh_walk × parts                            my particles in my tree (overlaps the exchange)
//   bh_walk_sets × parts                       + the field of the nodes received from every
//                                              other rank, all sets in one task per part
//                                              (TIDE_GRAVITY_LET_WALK=each: one bh_walk_let per
//                                              set and part, as before; the same forces)
// The trees of other ranks are registered here without memory (home node -1) only so that the
// cross-rank tasks can name them; they never leave their rank.  A rank without particles takes
// part: its virtual root says n = 0, it sends empty buffers and receives the others'.
//
// The receiver's boxes: a virtual root carries, besides the particle box, a cover of up to
// BH_VROOT_BOXES (TIDE_GRAVITY_BOXES) cubes of the rank's top cells, each holding whole walk
// groups (bh_vroot_cover); bh_essential keeps a multipole only when it passes against every box.
// A Morton piece's bounding box reaches into its neighbours' pieces, its top cells do not: fewer
// nodes sent, the same forces (the walk takes every node from the same cells, see below).
//
// Near and far ranks (Bonsai's boundary tree; TIDE_GRAVITY_FAR, tide_gravity_far_choice): from
// TIDE_GRAVITY_FAR_MIN_RANKS ranks on, every rank's virtual root goes to every rank (above
// TIDE_GRAVITY_VGATHER_MIN_RANKS by recursive doubling: "Virtual roots by recursive doubling"
// below) and is read on the host (the local walks are submitted first and run meanwhile), and each rank s splits the
// others by the gap between their particle boxes: near when no farther than nu x the largest side of
// s's box, far otherwise.  Near ranks get their own essential nodes as above; all far ranks get
// one coarse tree of s, made once (bh_let_kind_far with radius R_s, the smallest gap to a far
// rank).  Why a far rank
// gets the forces it would get from its own essential nodes, bit for bit: every point p of a far
// rank's box is at least R_s from every point of s's box, hence from every centre of mass of s's
// tree; a cell the coarse tree keeps as a multipole has rcrit and its cube's diameter below R_s
// (minus a rounding margin), so p is outside its cube and farther than rcrit from its centre of
// mass: bh_accept takes it for every group of the far rank.  (The gap is measured from s's whole
// particle box, which holds every centre of mass of its tree, to the nearest box of the far
// rank's cover, one of which holds each of its walk groups: bh_vroot_cover.)  Its ancestors are open in the coarse
// tree, so the group walk tests them as in the full tree, and the first cell on each path that
// the group accepts (what the single tree's walk uses) is reached in both trees, in the same
// order (children in octant order).  So a coarse cell never needs opening: no fall-back.
// All ranks decide from the same virtual roots, so sender and receiver agree on every pair.
// Pairs where one side has no particles exchange nothing.
//
// Where the code lives: the whole graph, for one rank or several, is this file (gravity.c
// calls nothing of gravity_ranks.c); moving particles between ranks outside the graph (gather,
// scatter, the Morton split of a set over the ranks) is gravity_ranks.c, which uses this file's
// registration and acquire/release only.  The MPI tags both use are laid out in gravity_ranks.h.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "tide/bh_gravity.h"
#include "tide/bh_walk_sets.h"
#include "tide/gravity_synth.h"
#include "tide/let_interface.h"
#include "tide/step_profile.h"
#include "gravity_ranks.h"
#include "rank_doubling.h"

static void restrict_cl(struct starpu_codelet *cl, const struct starpu_codelet *src,
                        enum tide_where where)
{
	*cl = *src;
	tide_codelet_restrict(cl, where);
}

int tide_gravity_auto_parts(int gpu, int ncpu, int ranks, uint32_t n)
{
	/* on the CPU, four walk tasks per worker: a part near a dense centre takes several times the
	 * work of one at the edge, and the scheduler evens out smaller parts */
	if (!gpu) return ncpu > 0 ? 4 * ncpu : 1;
	if (ranks <= 1) return 1; /* nothing to overlap: one kernel over all particles */
	/* A GPU rank has one worker: the exchange's tasks (virtual root, essential nodes for other
	 * ranks) get in between the own walk's parts, which have a low priority, and wait for one
	 * part at most, not for the whole walk.  Parts of TIDE_GRAVITY_PART_BODIES or more, so that
	 * each still fills the GPU and the walks' per-task cost stays small beside it. */
	uint32_t k = n / TIDE_GRAVITY_PART_BODIES;
	return k < 1 ? 1 : k > TIDE_GRAVITY_RANK_PARTS ? TIDE_GRAVITY_RANK_PARTS : (int)k;
}

/* nparts <= 0: tide_gravity_auto_parts for this many ranks. */
static void gravity_init(tide_gravity *g, bh_body *body, float *vel, bh_acc *acc, uint32_t n,
                         bh_params P, int nparts, enum tide_where where, int ranks)
{
	memset(g, 0, sizeof *g);
	g->n = n;
	g->P = P;
	g->body = body;
	g->vel = vel;
	g->acc = acc;
	if (nparts <= 0)
		nparts = tide_gravity_auto_parts(starpu_cuda_worker_get_count() > 0 && where != TIDE_WHERE_CPU,
		                                 (int)starpu_cpu_worker_get_count(), ranks, n);
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
	/* a copy in main memory, on any worker, whatever --device says: on a GPU rank's one CUDA
	 * worker each round of the gathering would wait for a part of the own walk (log2 R parts in
	 * a row); a CPU worker, where there is one, runs it at once */
	restrict_cl(&g->vgather_cl, &tide_bh_vgather_cl, TIDE_WHERE_ANY);
	restrict_cl(&g->walk_sets_cl, &tide_bh_walk_sets_cl, where);

	uint32_t m = n ? n : 1;
	starpu_vector_data_register(&g->hbody, STARPU_MAIN_RAM, (uintptr_t)body, m, sizeof(bh_body));
	starpu_vector_data_register(&g->hvel, STARPU_MAIN_RAM, (uintptr_t)vel, m, 4 * sizeof(float));
	g->leaf = tide_bh_leaf(&P);
	starpu_vector_data_register(&g->hcells, -1, 0, bh_max_cells(n, g->leaf), sizeof(bh_cell));
	starpu_vector_data_register(&g->hmom, -1, 0, bh_max_cells(n, g->leaf), sizeof(bh_mom));
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

void tide_gravity_init(tide_gravity *g, bh_body *body, float *vel, bh_acc *acc, uint32_t n,
                       bh_params P, int nparts, enum tide_where where)
{
	gravity_init(g, body, vel, acc, n, P, nparts, where, 1);
}

/* Task priorities (docs/gravity.md, "Priorities"): what other ranks wait for (virtual roots and
 * their gathering, essential nodes and coarse trees, whose sends StarPU-MPI posts when they end)
 * before the rank's own walk, which nobody else waits for; everything else at StarPU's default
 * (0).  Kept within the scheduler's range (heteroprio's buckets start at 0). */
enum { PRIO_OWN_WALK = -1, PRIO_EXCHANGE = 1 };
static int prio(int p)
{
	int lo = starpu_sched_get_min_priority(), hi = starpu_sched_get_max_priority();
	return p < lo ? lo : p > hi ? hi : p;
}

/* Callback of a timed walk task: its execution time (StarPU's profiling information, filled
 * before callbacks run) added to the counter given as argument. */
static void walk_timed(void *counter)
{
	struct starpu_task *t = starpu_task_get_current();
	if (!t || !t->profiling_info) return;
	const struct starpu_profiling_task_info *pi = t->profiling_info;
	int64_t ns = (int64_t)(pi->end_time.tv_sec - pi->start_time.tv_sec) * 1000000000 +
	             (pi->end_time.tv_nsec - pi->start_time.tv_nsec);
	__atomic_add_fetch((int64_t *)counter, ns, __ATOMIC_RELAXED);
}

/* Callback of every tree task: the walk's timing for the load balancer (counter, or NULL when
 * it is off) and the step profile's gravity_tree family (tide run --profile). */
static void tree_task_done(void *counter)
{
	if (counter) walk_timed(counter);
	if (tide_profile_enabled()) tide_profile_cb(tide_profile_arg(TIDE_K_TREE, -1));
}

void tide_gravity_submit_build(tide_gravity *g)
{
	int ret = starpu_task_insert(&g->build_cl, STARPU_RW, g->hbody, STARPU_RW, g->hvel,
	                             STARPU_W, g->hcells, STARPU_W, g->hmeta, STARPU_W, g->hgroups,
	                             STARPU_SCRATCH, g->hbscr, STARPU_VALUE, &g->n, sizeof g->n,
	                             STARPU_VALUE, &g->universe, sizeof g->universe,
	                             STARPU_VALUE, &g->leaf, sizeof g->leaf,
	                             STARPU_FLOPS, (double)g->n, STARPU_CALLBACK_WITH_ARG_NFREE,
	                             tree_task_done, NULL, 0);
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert bh_build");
}

void tide_gravity_submit_moments(tide_gravity *g)
{
	int ret = starpu_task_insert(&g->moments_cl, STARPU_R, g->hbody, STARPU_R, g->hcells,
	                             STARPU_R, g->hmeta, STARPU_W, g->hmom, STARPU_R, g->hvel,
	                             STARPU_FLOPS, g->syn ? (double)g->n : 0.0, STARPU_VALUE, &g->P,
	                             sizeof g->P, STARPU_CALLBACK_WITH_ARG_NFREE, tree_task_done,
	                             NULL, 0);
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert bh_moments");
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

/* ---- several ranks ---- */

/* Rank q's tree handles: bodies, cells, moments, meta and velocities (the softenings that
 * bh_essential sends with the leaves' particles). */
#define TREE_HANDLES 5
static starpu_data_handle_t *tree_of(tide_gravity *g, int q) { return &g->rtree[TREE_HANDLES * q]; }

static void syn_model(tide_gravity *g);

/* Registers an essential-node buffer for the tree of n particles; in a simulation of the
 * synthetic domain, whose codelets fill nothing, with the modelled cells and particles c[0],
 * c[1] (NULL: none) as its capacity and its counts, the size of its messages. */
static void let_register(const tide_gravity *g, starpu_data_handle_t *h, uint32_t n, const double *c)
{
#ifdef TIDE_SIMGRID
	if (g->syn) {
		uint32_t nc = c ? (uint32_t)llround(c[0]) : 0, np = c ? (uint32_t)llround(c[1]) : 0;
		tide_let_register(h, nc ? nc : 1, np ? np : 1);
		tide_let_set_counts(*h, nc, np);
		return;
	}
#else
	(void)g;
#endif
	(void)c;
	tide_let_register(h, bh_max_cells(n, g->leaf), n ? n : 1);
}

/* The essential-node buffers of the pair (this rank, q), registered when the pair first
 * exchanges them: with near and far ranks a rank exchanges them with its near ranks only, and
 * 2 R handles per rank were most of a simulation's memory at hundreds of ranks. */
static void let_pair_register(tide_gravity *g, int q)
{
	if (g->let_reg[q]) return;
	g->let_reg[q] = 1;
	const double *io = g->syn_io ? &g->syn_io[6 * q] : NULL;
	/* capacity: the sender's whole tree, the case where every node is essential */
	let_register(g, &g->hlet_out[q], g->counts[g->rank], io);
	starpu_mpi_data_register(g->hlet_out[q], tag_let(g, g->rank, q), g->rank);
	let_register(g, &g->hlet_in[q], g->counts[q], io && io[5] == TIDE_LET_NODES ? io + 2 : NULL);
	starpu_mpi_data_register(g->hlet_in[q], tag_let(g, q, g->rank), q);
}

static void init_ranks(tide_gravity *g, bh_body *body, float *vel, bh_acc *acc,
                       const uint32_t *counts, const float *box, bh_params P, int nparts,
                       enum tide_where where, int mpi, const tide_gravity_synth *syn)
{
	int rank = mpi ? starpu_mpi_world_rank() : 0, size = mpi ? starpu_mpi_world_size() : 1;
	gravity_init(g, body, vel, acc, counts[rank], P, nparts, where, size);
	g->syn = syn;
	if (syn) g->syn_own = tide_gravity_synth_walk(syn, rank, rank, NULL, -1.f);
	if (!mpi || size == 1) return;
	/* the root a single tree of all particles would have: interior cells of every rank's tree
	 * are then the single tree's cells (accuracy as on one rank, measured in test_bh_let) */
	if (box) bh_root_cube(box, box + 3, &g->universe);
	g->mpi = 1;
	g->rank = rank;
	g->size = size;
	g->counts = must_alloc(sizeof(uint32_t) * size, 0);
	memcpy(g->counts, counts, sizeof(uint32_t) * size);
	g->tag0 = starpu_mpi_tags_allocate(tide_gravity_ntags(size));
	g->rtree = must_alloc(TREE_HANDLES * (size_t)size * sizeof(starpu_data_handle_t), 1);
	g->hvroot = must_alloc((size_t)size * sizeof(starpu_data_handle_t), 1);
	g->hlet_out = must_alloc((size_t)size * sizeof(starpu_data_handle_t), 1);
	g->hlet_in = must_alloc((size_t)size * sizeof(starpu_data_handle_t), 1);
	g->hcoarse = must_alloc((size_t)size * sizeof(starpu_data_handle_t), 1);
	g->vr = must_alloc((size_t)size * sizeof(bh_vroot), 1);
	g->sent = must_alloc((size_t)size, 1);
	const char *far = getenv("TIDE_GRAVITY_FAR");
	g->far_nu = tide_gravity_far_choice(far, size, rank);
	/* the synthetic domain's virtual roots are known: near and far ranks as in a real run, also
	 * in a simulation build */
	if (syn && (!far || !*far || !strcmp(far, "auto")))
		g->far_nu = size >= TIDE_GRAVITY_FAR_MIN_RANKS ? 1.0 : -1.0;
	g->nbox = tide_gravity_boxes_choice(getenv("TIDE_GRAVITY_BOXES"), rank);
	g->vgather = tide_gravity_vroots_choice(getenv("TIDE_GRAVITY_VROOTS"), size, rank);
	g->vg_levels = tide_gravity_vg_levels(size);
	g->hvg = must_alloc((size_t)(g->vg_levels + 1) * (size_t)size * sizeof(starpu_data_handle_t), 1);
	g->let_walk = tide_gravity_let_walk_choice(getenv("TIDE_GRAVITY_LET_WALK"), rank);
	g->far = tide_gravity_far_field_choice(getenv("TIDE_GRAVITY_FAR_FIELD"), rank);
	g->fill = tide_bh_group_fill();
	if (syn) syn_model(g);
	g->let_reg = must_alloc((size_t)size, 1);
	for (int q = 0; q < size; q++) {
		starpu_data_handle_t *t = tree_of(g, q);
		uint32_t nq = counts[q];
		if (q == rank) {
			t[0] = g->hbody; t[1] = g->hcells; t[2] = g->hmom; t[3] = g->hmeta; t[4] = g->hvel;
			for (int k = 0; k < TREE_HANDLES; k++) starpu_mpi_data_register(t[k], tag_rank(g, q, k), q);
		} else {
			/* Another rank's tree is only named by tasks that run on that rank (its virtual root,
			 * what it sends), so StarPU-MPI needs its owner, not its five handles: one handle
			 * without memory stands for them all.  A StarPU handle is ~25 KB (a replicate per
			 * memory node), and R ranks in one simulated process held 5 R^2 of them. */
			starpu_vector_data_register(&t[0], -1, 0, nq ? nq : 1, sizeof(bh_body));
			starpu_mpi_data_register(t[0], tag_rank(g, q, 0), q);
			for (int k = 1; k < TREE_HANDLES; k++) t[k] = t[0];
		}
		const double *io = g->syn_io ? &g->syn_io[6 * q] : NULL;
		let_register(g, &g->hcoarse[q], nq,
		             q == rank ? g->syn_coarse : io && io[5] == TIDE_LET_COARSE ? io + 2 : NULL);
		starpu_mpi_data_register(g->hcoarse[q], tag_rank(g, q, T_COARSE), q);
	}
	starpu_vector_data_register(&g->hescr, -1, 0, BH_ESSENTIAL_SCRATCH, 1);
}

void tide_gravity_init_ranks(tide_gravity *g, bh_body *body, float *vel, bh_acc *acc,
                             const uint32_t *counts, const float *box, bh_params P, int nparts,
                             enum tide_where where, int mpi)
{
	init_ranks(g, body, vel, acc, counts, box, P, nparts, where, mpi, NULL);
}

void tide_gravity_init_synthetic(tide_gravity *g, const tide_gravity_synth *syn, bh_body *body,
                                 float *vel, bh_acc *acc, const float *box, bh_params P,
                                 int nparts, enum tide_where where, int mpi)
{
	uint32_t *counts = must_alloc(sizeof(uint32_t) * (size_t)syn->size, 0);
	for (int q = 0; q < syn->size; q++) counts[q] = (uint32_t)llround(syn->n_rank);
	const float cube[6] = {-1.f, -1.f, -1.f, 1.f, 1.f, 1.f};
	init_ranks(g, body, vel, acc, counts, box ? box : cube, P, nparts, where, mpi, syn);
	free(counts);
}

/* Rank q's virtual root, registered where first named: with the recursive doubling a rank names
 * its own and its fold partner's only (a handle is ~25 KB, R per rank R^2 in one simulated
 * process). */
static starpu_data_handle_t vroot_handle(tide_gravity *g, int q)
{
	if (!g->hvroot[q]) {
		starpu_vector_data_register(&g->hvroot[q], -1, 0, 1, sizeof(bh_vroot));
		starpu_mpi_data_register(g->hvroot[q], tag_rank(g, q, T_VROOT), q);
	}
	return g->hvroot[q];
}

static int gathers(const tide_gravity *g);
static uint32_t vg_slot(const tide_gravity *g, int r);
static starpu_data_handle_t vg_handle(tide_gravity *g, int k, int q);

/* bh_essential(s → r) on s; every rank that calls it for the pair takes part (s runs it, r sends
 * its virtual root if s lacks the current one).  With the virtual roots gathered, s reads r's
 * from its gathered buffer (element vg_slot(r)); the other ranks name s's tree handle in its
 * place (a handle of s: they take no part in reading it). */
static void submit_essential_far(tide_gravity *g, int s, int r, starpu_data_handle_t out, float far2)
{
	starpu_data_handle_t *t = tree_of(g, s);
	starpu_data_handle_t vr = gathers(g) ? s == g->rank ? vg_handle(g, g->vg_levels, s) : t[0]
	                                     : vroot_handle(g, r);
	uint32_t vi = gathers(g) ? vg_slot(g, r) : 0;
	/* the synthetic domain's work: the items (cells + particles) the buffer gets */
	double items = 0;
	if (g->syn) {
		const double *c = far2 >= 0 ? (s == g->rank ? g->syn_coarse : &g->syn_io[6 * s + 2])
		                  : s == g->rank ? &g->syn_io[6 * r] : &g->syn_io[6 * s + 2];
		items = fmax(1.0, c[0] + c[1]);
	}
	int ret = starpu_mpi_task_insert(MPI_COMM_WORLD, &g->essential_cl, STARPU_R, t[0], STARPU_R, t[1],
	                                 STARPU_R, t[2], STARPU_R, vr, STARPU_W, out,
	                                 STARPU_SCRATCH, g->hescr, STARPU_R, t[4],
	                                 STARPU_VALUE, &g->counts[s],
	                                 sizeof g->counts[s], STARPU_VALUE, &g->let_whole_tree,
	                                 sizeof g->let_whole_tree, STARPU_VALUE, &far2, sizeof far2,
	                                 STARPU_VALUE, &g->P, sizeof g->P, STARPU_VALUE, &vi, sizeof vi,
	                                 STARPU_FLOPS, items, STARPU_PRIORITY, prio(PRIO_EXCHANGE), 0);
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_mpi_task_insert bh_essential");
}

static void submit_essential(tide_gravity *g, int s, int r, starpu_data_handle_t out)
{
	submit_essential_far(g, s, r, out, -1.f);
}

static void submit_vroot(tide_gravity *g, int q)
{
	starpu_data_handle_t *t = tree_of(g, q);
	int ret = starpu_mpi_task_insert(MPI_COMM_WORLD, &g->vroot_cl, STARPU_R, t[3], STARPU_R,
	                                 t[2], STARPU_R, t[1], STARPU_W, vroot_handle(g, q), STARPU_VALUE,
	                                 &g->counts[q], sizeof g->counts[q], STARPU_VALUE, &g->fill,
	                                 sizeof g->fill, STARPU_VALUE, &g->nbox, sizeof g->nbox,
	                                 STARPU_PRIORITY, prio(PRIO_EXCHANGE), 0);
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_mpi_task_insert bh_vroot");
}

static void submit_vroots(tide_gravity *g)
{
	/* every rank sees every virtual root written, so that no rank keeps a stale cached copy */
	for (int q = 0; q < g->size; q++) submit_vroot(g, q);
}

static void submit_exchange(tide_gravity *g)
{
	int me = g->rank;
	submit_vroots(g);
	/* the essential nodes of each ordered pair are submitted by its two ranks only */
	for (int q = 0; q < g->size; q++) {
		if (q == me) continue;
		let_pair_register(g, q);
		submit_essential(g, me, q, g->hlet_out[q]);
		submit_essential(g, q, me, g->hlet_in[q]);
	}
	for (int q = 0; q < g->size; q++) {
		if (q == me) continue;
		starpu_mpi_get_data_on_node_detached(MPI_COMM_WORLD, g->hlet_out[q], q, NULL, NULL);
		starpu_mpi_get_data_on_node_detached(MPI_COMM_WORLD, g->hlet_in[q], me, NULL, NULL);
	}
}

/* ---- near and far ranks (the head of the file) ---- */

double tide_gravity_far_choice(const char *v, int size, int rank)
{
#ifdef TIDE_SIMGRID
	/* a simulation build computes no virtual root: the near/far choice, made from them on the
	 * host, would see empty ranks and exchange nothing; all-to-all unless asked */
	double nu = -1.0;
	(void)size;
#else
	double nu = size >= TIDE_GRAVITY_FAR_MIN_RANKS ? 1.0 : -1.0;
#endif
	if (!v || !*v || !strcmp(v, "auto")) return nu;
	if (!strcmp(v, "all")) return -1.0;
	char *end;
	double x = strtod(v, &end);
	if (end != v && !*end && x >= 0 && x <= 1e6) return x;
	if (rank == 0)
		fprintf(stderr, "tide: warning: TIDE_GRAVITY_FAR='%s' is neither 'all', 'auto' nor a number "
		        "from 0 to 1e6: choosing by the number of ranks.\n", v);
	return nu;
}

int tide_gravity_vroots_choice(const char *v, int size, int rank)
{
	int auto_ = size > TIDE_GRAVITY_VGATHER_MIN_RANKS;
	if (!v || !*v || !strcmp(v, "auto")) return auto_;
	if (!strcmp(v, "tree")) return 1;
	if (!strcmp(v, "all")) return 0;
	if (rank == 0)
		fprintf(stderr, "tide: warning: TIDE_GRAVITY_VROOTS='%s' is neither 'all', 'tree' nor 'auto': "
		        "choosing by the number of ranks.\n", v);
	return auto_;
}

int tide_gravity_boxes_choice(const char *v, int rank)
{
	if (!v || !*v) return BH_VROOT_BOXES;
	char *end;
	long k = strtol(v, &end, 10);
	if (end != v && !*end && k >= 1 && k <= BH_VROOT_BOXES) return (int)k;
	if (rank == 0)
		fprintf(stderr, "tide: warning: TIDE_GRAVITY_BOXES='%s' is not a whole number from 1 to %d: "
		        "using %d.\n", v, BH_VROOT_BOXES, BH_VROOT_BOXES);
	return BH_VROOT_BOXES;
}

static double largest_side(const bh_vroot *v)
{
	double m = 0;
	for (int d = 0; d < 3; d++) m = fmax(m, (double)v->hi[d] - v->lo[d]);
	return m;
}

/* The gap between two boxes lo x, y, z, hi x, y, z (0 when they touch or overlap). */
static double gap6(const float *a, const float *b)
{
	double s = 0;
	for (int d = 0; d < 3; d++) {
		double g = fmax((double)a[d] - b[3 + d], (double)b[d] - a[3 + d]);
		if (g > 0) s += g * g;
	}
	return sqrt(s);
}

/* The gap from the particle box of sender a (which holds every centre of mass of its tree) to
 * the nearest box of receiver b's cover (one of which holds each of its walk groups). */
static double box_gap(const bh_vroot *a, const bh_vroot *b)
{
	float whole[6] = {a->lo[0], a->lo[1], a->lo[2], a->hi[0], a->hi[1], a->hi[2]};
	double m = INFINITY;
	for (uint32_t i = 0; i < b->nbox; i++) m = fmin(m, gap6(whole, b->box[i]));
	return m;
}

/* Whether the exchange goes by near and far ranks (else all-to-all). */
static int uses_far(const tide_gravity *g) { return g->mpi && g->far_nu >= 0 && !g->let_whole_tree; }

/* What s sends r at this evaluation, from the virtual roots every rank holds alike. */
static int pair_kind(const tide_gravity *g, int s, int r)
{
	if (s == r || g->vr[s].n == 0 || g->vr[r].n == 0) return TIDE_LET_NONE;
	return box_gap(&g->vr[s], &g->vr[r]) <= g->far_nu * largest_side(&g->vr[s]) ? TIDE_LET_NODES
	                                                                         : TIDE_LET_COARSE;
}

/* far2 of s's coarse tree: R_s squared, R_s the smallest gap to a far rank (at least nu times
 * the largest side of s's box: the farther the far ranks, the coarser the tree), less a margin
 * for the rounding of the receiver's test (1e-5 of R_s, and 1e-6 of the largest coordinate: a
 * few float ulps of the group boxes and centres of mass the test subtracts). */
static float coarse_far2(const tide_gravity *g, int s)
{
	double big = 0, gap = INFINITY;
	for (int q = 0; q < g->size; q++) {
		for (int d = 0; d < 3; d++)
			big = fmax(big, fmax(fabs((double)g->vr[q].lo[d]), fabs((double)g->vr[q].hi[d])));
		if (pair_kind(g, s, q) == TIDE_LET_COARSE) gap = fmin(gap, box_gap(&g->vr[s], &g->vr[q]));
	}
	double r = gap * (1 - 1e-5) - 1e-6 * big;
	return r > 0 ? (float)(r * r) * (1.f - 1e-6f) : 0.f;
}

/* ---- virtual roots by recursive doubling ----
 * The near/far exchange needs every rank's virtual root on every rank.  Sent by each rank to
 * every other (starpu_mpi_get_data_on_all_nodes_detached) they are R - 1 messages per rank and
 * R^2 in all, whose per-message cost (latency; in a simulation SimGrid's and StarPU-MPI's CPU
 * time, which grew x7 per doubling) dominated from 64 ranks on.  Gathered by recursive doubling
 * (as the time step's record, tasks/sph_step.c), a rank sends log2 R + 2 messages at most and
 * the same bytes ((R - 1) x 440 per rank, as before, at a power of two):
 *   with P = 2^L the largest power of two <= R and E = R - P, ranks P .. R-1 first send theirs
 *   to rank q - P (the fold: block of level 0 of q < E = its own and q + P's; of E <= q < P its
 *   own virtual root handle), then in round k = 0 .. L-1 rank q < P and q xor 2^k exchange
 *   their blocks of level k and each places both, the lower rank's first, in its block of level
 *   k + 1 (bh_vgather, in main memory); after L rounds each q < P holds all R, which ranks >= P get from q - P.
 * The gathered buffer is ordered by groups p = 0 .. P-1 of ranks {p, p + P}, so that every
 * block is contiguous: rank r sits at vg_slot(r).  A rank submits only the tasks it runs or
 * feeds (StarPU-MPI posts the sends and receives from them), O(log R) a rank, and registers
 * only the blocks they name; the virtual roots it reads are the same bytes as before, so the
 * choice of essential nodes and the forces are those of the all-to-all exchange bit for bit
 * (tests/test_bh_let.c, near_far). */
static int gathers(const tide_gravity *g) { return uses_far(g) && g->vgather; }

/* Place of group p in the gathered buffer (p = P: its length R). */
static uint32_t vg_off(const tide_gravity *g, int p)
{
	int e = g->size - (1 << g->vg_levels);
	return (uint32_t)(p + (p < e ? p : e));
}

static uint32_t vg_slot(const tide_gravity *g, int r)
{
	int P = 1 << g->vg_levels;
	return r < P ? vg_off(g, r) : vg_off(g, r - P) + 1;
}

/* Virtual roots in rank q's block after k rounds (q >= P: its copy of the whole, k = L). */
static uint32_t vg_len(const tide_gravity *g, int k, int q)
{
	int P = 1 << g->vg_levels;
	if (q >= P) return (uint32_t)g->size;
	int b = q & ~((1 << k) - 1);
	return vg_off(g, b + (1 << k)) - vg_off(g, b);
}

static starpu_data_handle_t vg_handle(tide_gravity *g, int k, int q)
{
	int P = 1 << g->vg_levels;
	if (k == 0 && q < P && q + P >= g->size) return vroot_handle(g, q); /* nothing folded in */
	starpu_data_handle_t *h = &g->hvg[(size_t)k * (size_t)g->size + (size_t)q];
	if (!*h) {
		starpu_vector_data_register(h, -1, 0, vg_len(g, k, q), sizeof(bh_vroot));
		starpu_mpi_data_register(*h, tag_vgather(g, k, q), q);
	}
	return *h;
}

/* out = a then b (b NULL: a copy), on out's owner. */
static void vg_place(tide_gravity *g, starpu_data_handle_t out, starpu_data_handle_t a,
                     starpu_data_handle_t b)
{
	struct starpu_data_descr d[3] = {{out, STARPU_W}, {a, STARPU_R}, {b, STARPU_R}};
	int ret = starpu_mpi_task_insert(MPI_COMM_WORLD, &g->vgather_cl, STARPU_DATA_MODE_ARRAY, d,
	                                 b ? 3 : 2, STARPU_PRIORITY, prio(PRIO_EXCHANGE), 0);
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_mpi_task_insert bh_vgather");
}

/* A block received from another rank: its owner rewrites it at the next evaluation in a task
 * this rank does not submit, so StarPU-MPI's receive cache here must forget it (or the next
 * evaluation would read the old one without receiving the new). */
static void vg_received(starpu_data_handle_t h) { starpu_mpi_cache_flush(MPI_COMM_WORLD, h); }

/* The fold: q + P's virtual root after q's, on q. */
static void vg_fold(void *ctx, int q)
{
	tide_gravity *g = ctx;
	int P = 1 << g->vg_levels;
	vg_place(g, vg_handle(g, 0, q), vroot_handle(g, q), vroot_handle(g, q + P));
	if (q == g->rank) vg_received(vroot_handle(g, q + P));
}

/* Round k's placement on rank q: its block and that of q xor 2^k, the lower rank's first. */
static void vg_round(void *ctx, int k, int q)
{
	tide_gravity *g = ctx;
	int o = q ^ (1 << k), lo = q < o ? q : o;
	vg_place(g, vg_handle(g, k + 1, q), vg_handle(g, k, lo), vg_handle(g, k, lo + (1 << k)));
	if (q == g->rank) vg_received(vg_handle(g, k, o));
}

/* All of them back to folded rank q, from q - P. */
static void vg_back(void *ctx, int q)
{
	tide_gravity *g = ctx;
	int L = g->vg_levels, P = 1 << L;
	vg_place(g, vg_handle(g, L, q), vg_handle(g, L, q - P), NULL);
	if (q == g->rank) vg_received(vg_handle(g, L, q - P));
}

static void gather_vroots(tide_gravity *g)
{
	submit_vroot(g, g->rank);
	tide_doubling d = {g, vg_fold, vg_round, vg_back};
	tide_doubling_submit(&d, g->rank, g->size, g->vg_levels);
}

void tide_gravity_vroot_sent(const tide_gravity *g, int q, int *msgs, double *bytes)
{
	*msgs = 0;
	*bytes = 0;
	if (!uses_far(g)) return; /* the all-to-all exchange sends each to the ranks choosing nodes for it */
	if (!g->vgather) {
		*msgs = g->size - 1;
		*bytes = (double)(g->size - 1) * sizeof(bh_vroot);
		return;
	}
	int L = g->vg_levels, P = 1 << L;
	if (q >= P) { /* its own to q - P */
		*msgs = 1;
		*bytes = sizeof(bh_vroot);
		return;
	}
	for (int k = 0; k < L; k++) *bytes += (double)vg_len(g, k, q) * sizeof(bh_vroot);
	*msgs = L;
	if (q + P < g->size) { /* the whole back to q + P */
		*msgs += 1;
		*bytes += (double)g->size * sizeof(bh_vroot);
	}
}

/* Every virtual root to every rank, read on the host (waits for every rank's tree). */
static void share_vroots(tide_gravity *g)
{
#ifdef TIDE_SIMGRID
	/* a simulation computes no virtual root: the synthetic domain's stay */
	int keep = g->syn != NULL;
#else
	int keep = 0;
#endif
	if (gathers(g)) {
		gather_vroots(g);
		starpu_data_handle_t h = vg_handle(g, g->vg_levels, g->rank);
		starpu_data_acquire(h, STARPU_R);
		const bh_vroot *all = (const bh_vroot *)starpu_data_get_local_ptr(h);
		for (int q = 0; q < g->size && !keep; q++) g->vr[q] = all[vg_slot(g, q)];
		starpu_data_release(h);
		return;
	}
	submit_vroots(g);
	for (int q = 0; q < g->size; q++) starpu_mpi_get_data_on_all_nodes_detached(MPI_COMM_WORLD, g->hvroot[q]);
	for (int q = 0; q < g->size; q++) {
		starpu_data_acquire(g->hvroot[q], STARPU_R);
		if (!keep) g->vr[q] = *(const bh_vroot *)starpu_data_get_local_ptr(g->hvroot[q]);
		starpu_data_release(g->hvroot[q]);
	}
}

/* The exchange with near and far ranks, once the virtual roots are shared (share_vroots): the
 * essential nodes of each near pair (both ranks submit them), and each rank's coarse tree
 * (submitted by its owner and by every rank that reads it now, so that none of them keeps a
 * stale cached copy) sent to its far ranks. */
static void submit_exchange_far(tide_gravity *g)
{
	int me = g->rank;
	for (int s = 0; s < g->size; s++) {
		int nfar = 0;
		for (int r = 0; r < g->size; r++) nfar += pair_kind(g, s, r) == TIDE_LET_COARSE;
		if (!nfar || (s != me && pair_kind(g, s, me) != TIDE_LET_COARSE)) continue;
		submit_essential_far(g, s, s, g->hcoarse[s], coarse_far2(g, s));
		if (s != me) {
			starpu_mpi_get_data_on_node_detached(MPI_COMM_WORLD, g->hcoarse[s], me, NULL, NULL);
			continue;
		}
		for (int r = 0; r < g->size; r++)
			if (pair_kind(g, me, r) == TIDE_LET_COARSE)
				starpu_mpi_get_data_on_node_detached(MPI_COMM_WORLD, g->hcoarse[me], r, NULL, NULL);
	}
	for (int q = 0; q < g->size; q++) {
		g->sent[q] = (unsigned char)pair_kind(g, me, q);
		if (g->sent[q] == TIDE_LET_NODES || pair_kind(g, q, me) == TIDE_LET_NODES) let_pair_register(g, q);
		if (g->sent[q] == TIDE_LET_NODES) {
			submit_essential(g, me, q, g->hlet_out[q]);
			starpu_mpi_get_data_on_node_detached(MPI_COMM_WORLD, g->hlet_out[q], q, NULL, NULL);
		}
		if (pair_kind(g, q, me) == TIDE_LET_NODES) {
			submit_essential(g, q, me, g->hlet_in[q]);
			starpu_mpi_get_data_on_node_detached(MPI_COMM_WORLD, g->hlet_in[q], me, NULL, NULL);
		}
	}
}

/* What s sends r in the synthetic domain's model (its virtual roots in g->vr). */
static int syn_kind(const tide_gravity *g, int s, int r)
{
	if (uses_far(g)) return pair_kind(g, s, r);
	return s == r ? TIDE_LET_NONE : TIDE_LET_NODES;
}

/* The synthetic domain's virtual roots (into g->vr, which a real run's first evaluation
 * replaces by the measured ones) and the modelled exchange of this rank (g->syn_io,
 * g->syn_coarse). */
static void syn_model(tide_gravity *g)
{
	const tide_gravity_synth *s = g->syn;
	int me = g->rank, any_far = 0;
	g->syn_io = must_alloc(6 * sizeof(double) * (size_t)g->size, 1);
	for (int q = 0; q < g->size; q++) tide_gravity_synth_vroot(s, q, &g->vr[q]);
	for (int q = 0; q < g->size; q++) {
		if (q == me) continue;
		double *io = &g->syn_io[6 * q];
		int ko = syn_kind(g, me, q), ki = syn_kind(g, q, me);
		any_far |= ko == TIDE_LET_COARSE;
		if (ko == TIDE_LET_NODES) tide_gravity_synth_let(s, me, q, &g->vr[q], -1.f, &io[0], &io[1]);
		io[5] = ki;
		/* the walk's work: its interactions and its far nodes' expansions (in interactions) */
		double w[2] = {0, 0};
		if (ki == TIDE_LET_NODES) {
			tide_gravity_synth_let(s, q, me, &g->vr[me], -1.f, &io[2], &io[3]);
			tide_gravity_synth_walk_parts(s, me, q, &g->vr[me], -1.f, w);
		} else if (ki == TIDE_LET_COARSE) {
			float f2 = coarse_far2(g, q);
			tide_gravity_synth_let(s, q, me, NULL, f2, &io[2], &io[3]);
			tide_gravity_synth_walk_parts(s, me, q, NULL, f2, w);
		}
		io[4] = w[0] + s->w_m2l * w[1];
		g->syn_let_parts[0] += w[0];
		g->syn_let_parts[1] += w[1];
	}
	if (any_far) tide_gravity_synth_let(s, me, me, NULL, coarse_far2(g, me), &g->syn_coarse[0], &g->syn_coarse[1]);
}

/* What this rank walks of rank q's tree: its essential nodes, its coarse tree, or nothing. */
static starpu_data_handle_t received_from(const tide_gravity *g, int q)
{
	if (!uses_far(g)) return g->hlet_in[q];
	int k = pair_kind(g, q, g->rank);
	return k == TIDE_LET_NODES ? g->hlet_in[q] : k == TIDE_LET_COARSE ? g->hcoarse[q] : NULL;
}

/* The walks over the received sets: one task per part over them all (bh_walk_sets, the
 * default), or one per (set, part) (bh_walk_let; TIDE_GRAVITY_LET_WALK=each), the same forces bit
 * for bit.  Both take the sets in the order q = 0 .. R-1, on each part's acc after its own walk. */
static void submit_let_walks(tide_gravity *g)
{
	int nsets = 0;
	struct starpu_data_descr *d = must_alloc(sizeof *d * (size_t)(BH_WALK_SETS_FIXED + g->size), 0);
	int *from = must_alloc(sizeof(int) * (size_t)g->size, 0);
	for (int q = 0; q < g->size; q++) {
		starpu_data_handle_t in = q == g->rank ? NULL : received_from(g, q);
		if (!in) continue;
		d[BH_WALK_SETS_FIXED + nsets] = (struct starpu_data_descr){.handle = in, .mode = STARPU_R};
		from[nsets++] = q;
	}
	g->let_sets = nsets;
	g->let_tasks = 0;
	if (g->let_walk == TIDE_GRAVITY_LET_WALK_EACH) {
		for (int j = 0; j < nsets; j++)
			for (int k = 0; k < g->nparts; k++) {
				double np = g->part[k].r1 - g->part[k].r0;
				/* the synthetic work: the set's interactions (far nodes' expansions
				 * included: tide_gravity_synth_walk) and each particle's L2P */
				double l2p = g->far > 0 && g->syn ? g->syn->w_l2p : 0.0;
				double work = g->syn ? fmax(1.0, np * (g->syn_io[6 * from[j] + 4] + l2p)) : 0.0;
				int ret = starpu_task_insert(&g->walk_let_cl, STARPU_R, g->hbody, STARPU_R, g->hmeta,
				                             STARPU_R, g->hgroups, STARPU_R, d[BH_WALK_SETS_FIXED + j].handle,
				                             STARPU_FLOPS, work,
				                             STARPU_RW, g->hacc[k], STARPU_SCRATCH, g->hwscr,
				                             STARPU_R, g->hvel,
				                             STARPU_VALUE, &g->P, sizeof g->P, STARPU_VALUE,
				                             &g->part[k], sizeof g->part[k], STARPU_VALUE, &g->far,
				                             sizeof g->far, STARPU_CALLBACK_WITH_ARG_NFREE,
				                             tree_task_done, g->time_walks ? &g->walk_ns[1] : NULL, 0);
				STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert bh_walk_let");
				g->let_tasks++;
			}
		nsets = 0; /* no merged task */
	}
	for (int k = 0; k < g->nparts && nsets; k++) {
		/* the work: the interactions of all sets (the model's one constant is then paid once) */
		double np = g->part[k].r1 - g->part[k].r0, all = 0;
		for (int j = 0; j < nsets && g->syn; j++) all += np * g->syn_io[6 * from[j] + 4];
		if (g->far > 0 && g->syn) all += np * g->syn->w_l2p; /* one L2P per particle, all sets */
		const starpu_data_handle_t fixed[BH_WALK_SETS_FIXED] = {g->hbody, g->hmeta, g->hgroups,
		                                                       g->hacc[k], g->hwscr, g->hvel};
		const enum starpu_data_access_mode modes[BH_WALK_SETS_FIXED] = {
			STARPU_R, STARPU_R, STARPU_R, STARPU_RW, STARPU_SCRATCH, STARPU_R};
		for (int b = 0; b < BH_WALK_SETS_FIXED; b++)
			d[b] = (struct starpu_data_descr){.handle = fixed[b], .mode = modes[b]};
		int ret = starpu_task_insert(&g->walk_sets_cl, STARPU_DATA_MODE_ARRAY, d, BH_WALK_SETS_FIXED + nsets,
		                             STARPU_FLOPS, g->syn ? fmax(1.0, all) : 0.0,
		                             STARPU_VALUE, &g->P, sizeof g->P, STARPU_VALUE, &g->part[k],
		                             sizeof g->part[k], STARPU_VALUE, &nsets, sizeof nsets,
		                             STARPU_VALUE, &g->far, sizeof g->far,
		                             STARPU_CALLBACK_WITH_ARG_NFREE, tree_task_done,
		                             g->time_walks ? &g->walk_ns[1] : NULL, 0);
		STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert bh_walk_sets");
		g->let_tasks++;
	}
	free(d);
	free(from);
}

int tide_gravity_let_walk_choice(const char *v, int rank)
{
	if (!v || !*v || !strcmp(v, "sets")) return TIDE_GRAVITY_LET_WALK_SETS;
	if (!strcmp(v, "each")) return TIDE_GRAVITY_LET_WALK_EACH;
	if (rank == 0)
		fprintf(stderr, "tide: warning: TIDE_GRAVITY_LET_WALK='%s' is neither 'sets' nor 'each': "
		        "using 'sets'.\n", v);
	return TIDE_GRAVITY_LET_WALK_SETS;
}

float tide_gravity_far_field_choice(const char *v, int rank)
{
	if (!v || !*v || !strcmp(v, "local")) return TIDE_GRAVITY_FAR_RATIO;
	if (!strcmp(v, "direct")) return 0.f;
	char *end;
	double t = strtod(v, &end);
	if (*end == 0 && t > 0.0 && t <= 1.0) return (float)t;
	if (rank == 0)
		fprintf(stderr, "tide: warning: TIDE_GRAVITY_FAR_FIELD='%s' is neither 'local', 'direct' "
		        "nor a ratio in (0, 1]: using 'local' (%g).\n", v, (double)TIDE_GRAVITY_FAR_RATIO);
	return TIDE_GRAVITY_FAR_RATIO;
}

int tide_gravity_let_kind(const tide_gravity *g, int q)
{
	if (!g->mpi || q == g->rank) return TIDE_LET_NONE;
	return uses_far(g) ? g->sent[q] : TIDE_LET_NODES;
}

void tide_gravity_let_sent(tide_gravity *g, int q, uint32_t *ncells, uint32_t *nparts)
{
	*ncells = *nparts = 0;
	int k = tide_gravity_let_kind(g, q);
	if (k == TIDE_LET_NONE || (k == TIDE_LET_NODES && !g->let_reg[q])) return; /* none yet */
	starpu_data_handle_t h = k == TIDE_LET_NODES ? g->hlet_out[q] : g->hcoarse[g->rank];
	starpu_data_acquire(h, STARPU_R);
	tide_let_counts(h, ncells, nparts);
	starpu_data_release(h);
}

static void ranks_fini(tide_gravity *g)
{
	starpu_mpi_wait_for_all(MPI_COMM_WORLD);
	for (int q = 0; q < g->size; q++) {
		if (q != g->rank) starpu_data_unregister_no_coherency(tree_of(g, q)[0]); /* one for five */
		if (g->hvroot[q]) starpu_data_unregister_no_coherency(g->hvroot[q]);
		starpu_data_unregister_no_coherency(g->hcoarse[q]);
		if (q == g->rank || !g->let_reg[q]) continue;
		starpu_data_unregister_no_coherency(g->hlet_out[q]);
		starpu_data_unregister_no_coherency(g->hlet_in[q]);
	}
	for (size_t i = 0; i < (size_t)(g->vg_levels + 1) * (size_t)g->size; i++)
		if (g->hvg[i]) starpu_data_unregister_no_coherency(g->hvg[i]);
	starpu_data_unregister_no_coherency(g->hescr);
	starpu_mpi_tags_free(g->tag0);
	free(g->counts); free(g->rtree); free(g->hvroot); free(g->hlet_out); free(g->hlet_in);
	free(g->hcoarse); free(g->vr); free(g->sent); free(g->syn_io); free(g->let_reg); free(g->hvg);
	g->syn_io = NULL;
	g->mpi = 0;
}

/* ---- one force evaluation, kick and drift ---- */

void tide_gravity_submit_walk(tide_gravity *g)
{
	int far = uses_far(g);
	if (g->mpi && !far) submit_exchange(g); /* in flight while the local walk runs */
	for (int k = 0; k < g->nparts; k++) {
		double work = g->syn ? fmax(1.0, (g->part[k].r1 - g->part[k].r0) * g->syn_own) : 0.0;
		int ret = starpu_task_insert(&g->walk_cl, STARPU_R, g->hbody, STARPU_R, g->hcells, STARPU_FLOPS, work,
		                             STARPU_R, g->hmom, STARPU_R, g->hmeta, STARPU_R, g->hgroups,
		                             STARPU_W, g->hacc[k], STARPU_SCRATCH, g->hwscr,
		                             STARPU_R, g->hvel,
		                             STARPU_VALUE, &g->P, sizeof g->P, STARPU_VALUE, &g->part[k],
		                             sizeof g->part[k], STARPU_CALLBACK_WITH_ARG_NFREE,
		                             tree_task_done, g->time_walks ? &g->walk_ns[0] : NULL,
		                             STARPU_PRIORITY, prio(g->mpi ? PRIO_OWN_WALK : 0), 0);
		STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert bh_walk");
	}
	/* waits for the virtual roots while the own walk runs (its first part at least) */
	if (far) {
		share_vroots(g);
		submit_exchange_far(g);
	}
	if (g->mpi) submit_let_walks(g);
}

void tide_gravity_submit_forces(tide_gravity *g)
{
	tide_gravity_submit_build(g);
	tide_gravity_submit_moments(g);
	tide_gravity_submit_walk(g);
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
	if (g->mpi) ranks_fini(g);
	starpu_data_unregister(g->hbody);
	starpu_data_unregister(g->hvel);
	for (int k = 0; k < g->nparts; k++) starpu_data_unregister(g->hacc[k]);
	starpu_data_handle_t tree[] = {g->hcells, g->hmom, g->hgroups, g->hmeta, g->hbscr, g->hwscr};
	for (size_t i = 0; i < sizeof tree / sizeof *tree; i++) starpu_data_unregister_no_coherency(tree[i]);
}

void tide_gravity_direct(const bh_body *body, uint32_t n, const uint32_t *sample, uint32_t ns,
                         bh_params P, double *out, enum tide_where where)
{
	P.soft_h = 0;
	tide_gravity_direct_soft(body, NULL, n, sample, ns, P, out, where);
}

void tide_gravity_direct_soft(const bh_body *body, const float *vel, uint32_t n,
                              const uint32_t *sample, uint32_t ns, bh_params P, double *out,
                              enum tide_where where)
{
	if (ns == 0) return;
	float none[4] = {0.f, 0.f, 0.f, 0.f}; /* no softenings of their own: a placeholder */
	struct starpu_codelet cl;
	restrict_cl(&cl, &tide_bh_direct_cl, where);
	int gpu = starpu_cuda_worker_get_count() > 0 && where != TIDE_WHERE_CPU;
	uint32_t nt = gpu ? 1 : starpu_cpu_worker_get_count() * 4;
	if (nt > ns) nt = ns;
	if (nt < 1) nt = 1;
	starpu_data_handle_t hb, hs[256], ho[256];
	if (nt > 256) nt = 256;
	starpu_data_handle_t hv;
	starpu_vector_data_register(&hb, STARPU_MAIN_RAM, (uintptr_t)body, n ? n : 1, sizeof(bh_body));
	starpu_vector_data_register(&hv, STARPU_MAIN_RAM, (uintptr_t)(vel ? vel : none),
	                            vel && n ? n : 1, 4 * sizeof(float));
	for (uint32_t t = 0; t < nt; t++) {
		uint32_t s0 = (uint32_t)((uint64_t)ns * t / nt), s1 = (uint32_t)((uint64_t)ns * (t + 1) / nt);
		uint32_t cnt = s1 - s0;
		starpu_vector_data_register(&hs[t], STARPU_MAIN_RAM, (uintptr_t)(sample + s0), cnt,
		                            sizeof(uint32_t));
		starpu_vector_data_register(&ho[t], STARPU_MAIN_RAM, (uintptr_t)(out + 4 * (size_t)s0),
		                            cnt, 4 * sizeof(double));
		int ret = starpu_task_insert(&cl, STARPU_R, hb, STARPU_R, hs[t], STARPU_W, ho[t],
		                             STARPU_R, hv, STARPU_VALUE, &n, sizeof n, STARPU_VALUE, &cnt, sizeof cnt,
		                             STARPU_VALUE, &P, sizeof P, 0);
		STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert bh_direct");
	}
	starpu_task_wait_for_all();
	for (uint32_t t = 0; t < nt; t++) {
		starpu_data_unregister(hs[t]);
		starpu_data_unregister(ho[t]);
	}
	starpu_data_unregister(hb);
	starpu_data_unregister(hv);
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
