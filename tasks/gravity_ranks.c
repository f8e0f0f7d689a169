// SPDX-License-Identifier: LGPL-2.1-or-later
// Barnes–Hut gravity on several ranks with locally essential trees.  Per force evaluation, on
// every rank (all ranks submit the same cross-rank tasks, starpu_mpi_task_insert; a task runs on
// the owner of the data it writes):
//   bh_build → bh_moments                      local tree of this rank's particles (gravity.c)
//   bh_vroot(q) for every rank q               virtual root of q, on q; sent to whoever needs it
//   bh_essential(me → r) for every other r     on me: the nodes of my tree r's walk needs, chosen
//                                              against r's box; StarPU-MPI sends them to r
//   bh_walk × parts                            my particles in my tree (overlaps the exchange)
//   bh_walk_let(s) × parts for every other s   + the field of the nodes received from s
// MPI tags from one starpu_mpi_tags_allocate block: 5 per rank (bodies, cells, moments, meta,
// virtual root), one per ordered pair of ranks (essential nodes s → r), two per rank (gathers of
// particles and of numbers).
// The trees of other ranks are registered here without memory (home node -1) only so that the
// cross-rank tasks can name them; they never leave their rank.  A rank without particles takes
// part: its virtual root says n = 0, it sends empty buffers and receives the others'.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "tide/bh_gravity.h"
#include "tide/let_interface.h"
#include "tide/runtime.h"

/* The gathers, scatters and splits return nothing: a rank that cannot get their buffers (all
 * particles on the root) ends the run with one sentence and exit code 1 (under mpirun the job
 * stops) rather than crash on a null pointer. */
static void *must_alloc(size_t bytes, int zero)
{
	void *p = zero ? calloc(bytes ? bytes : 1, 1) : malloc(bytes ? bytes : 1);
	if (!p) {
		fprintf(stderr, "tide: out of host memory for %.1f MiB of particle buffers (the "
		        "particles exchanged between ranks); use fewer particles or more nodes.\n",
		        bytes / 1048576.0);
		exit(1);
	}
	return p;
}

enum { T_BODY, T_CELLS, T_MOM, T_META, T_VROOT, T_PER_RANK };

static int64_t tag_rank(const tide_gravity *g, int q, int what) { return g->tag0 + T_PER_RANK * q + what; }
static int64_t tag_let(const tide_gravity *g, int s, int r)
{
	return g->tag0 + (int64_t)T_PER_RANK * g->size + (int64_t)s * g->size + r;
}
static int64_t tag_gather(const tide_gravity *g, int q)
{
	return g->tag0 + (int64_t)T_PER_RANK * g->size + (int64_t)g->size * g->size + q;
}
/* one tag per handle: StarPU-MPI mismatched a rank's two messages of one tag sent back to back
 * into handles of different sizes (MPI_ERR_TRUNCATE on 4 ranks) */
static int64_t tag_values(const tide_gravity *g, int q) { return tag_gather(g, q) + g->size; }

static starpu_data_handle_t *tree_of(tide_gravity *g, int q) { return &g->rtree[4 * q]; }

void tide_gravity_init_ranks(tide_gravity *g, bh_body *body, float *vel, bh_acc *acc,
                             const uint32_t *counts, const float *box, bh_params P, int nparts,
                             enum tide_where where)
{
	int mpi = tide_runtime_uses_mpi();
	int rank = mpi ? starpu_mpi_world_rank() : 0, size = mpi ? starpu_mpi_world_size() : 1;
	tide_gravity_init(g, body, vel, acc, counts[rank], P, nparts, where);
	if (!mpi || size == 1) return;
	/* the root a single tree of all particles would have: interior cells of every rank's tree
	 * are then the single tree's cells (accuracy as on one rank, measured in test_bh_let) */
	if (box) bh_root_cube(box, box + 3, &g->universe);
	g->mpi = 1;
	g->rank = rank;
	g->size = size;
	g->counts = must_alloc(sizeof(uint32_t) * size, 0);
	memcpy(g->counts, counts, sizeof(uint32_t) * size);
	g->tag0 = starpu_mpi_tags_allocate((int64_t)(T_PER_RANK + 2 + size) * size);
	g->rtree = must_alloc(4 * (size_t)size * sizeof(starpu_data_handle_t), 1);
	g->hvroot = must_alloc((size_t)size * sizeof(starpu_data_handle_t), 1);
	g->hlet_out = must_alloc((size_t)size * sizeof(starpu_data_handle_t), 1);
	g->hlet_in = must_alloc((size_t)size * sizeof(starpu_data_handle_t), 1);
	for (int q = 0; q < size; q++) {
		starpu_data_handle_t *t = tree_of(g, q);
		uint32_t nq = counts[q];
		if (q == rank) {
			t[0] = g->hbody; t[1] = g->hcells; t[2] = g->hmom; t[3] = g->hmeta;
		} else {
			starpu_vector_data_register(&t[0], -1, 0, nq ? nq : 1, sizeof(bh_body));
			starpu_vector_data_register(&t[1], -1, 0, bh_max_cells(nq), sizeof(bh_cell));
			starpu_vector_data_register(&t[2], -1, 0, bh_max_cells(nq), sizeof(bh_mom));
			starpu_vector_data_register(&t[3], -1, 0, BH_META_LEN, sizeof(int32_t));
		}
		for (int k = 0; k < 4; k++) starpu_mpi_data_register(t[k], tag_rank(g, q, k), q);
		starpu_vector_data_register(&g->hvroot[q], -1, 0, 1, sizeof(bh_vroot));
		starpu_mpi_data_register(g->hvroot[q], tag_rank(g, q, T_VROOT), q);
		if (q == rank) continue;
		/* capacity: the sender's whole tree, the case where every node is essential */
		tide_let_register(&g->hlet_out[q], bh_max_cells(counts[rank]), counts[rank] ? counts[rank] : 1);
		starpu_mpi_data_register(g->hlet_out[q], tag_let(g, rank, q), rank);
		tide_let_register(&g->hlet_in[q], bh_max_cells(nq), nq ? nq : 1);
		starpu_mpi_data_register(g->hlet_in[q], tag_let(g, q, rank), q);
	}
	starpu_vector_data_register(&g->hescr, -1, 0, BH_ESSENTIAL_SCRATCH, 1);
}

/* bh_essential(s → r) on s; every rank that calls it for the pair takes part (s runs it, r sends
 * its virtual root if s lacks the current one). */
static void submit_essential(tide_gravity *g, int s, int r, starpu_data_handle_t out)
{
	starpu_data_handle_t *t = tree_of(g, s);
	int ret = starpu_mpi_task_insert(MPI_COMM_WORLD, &g->essential_cl, STARPU_R, t[0], STARPU_R, t[1],
	                                 STARPU_R, t[2], STARPU_R, g->hvroot[r], STARPU_W, out,
	                                 STARPU_SCRATCH, g->hescr, STARPU_VALUE, &g->counts[s],
	                                 sizeof g->counts[s], STARPU_VALUE, &g->let_whole_tree,
	                                 sizeof g->let_whole_tree, 0);
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_mpi_task_insert bh_essential");
}

void tide_gravity_submit_exchange(tide_gravity *g)
{
	int me = g->rank;
	/* every rank sees every virtual root written, so that no rank keeps a stale cached copy */
	for (int q = 0; q < g->size; q++) {
		starpu_data_handle_t *t = tree_of(g, q);
		int ret = starpu_mpi_task_insert(MPI_COMM_WORLD, &g->vroot_cl, STARPU_R, t[3], STARPU_R,
		                                 t[2], STARPU_W, g->hvroot[q], STARPU_VALUE, &g->counts[q],
		                                 sizeof g->counts[q], 0);
		STARPU_CHECK_RETURN_VALUE(ret, "starpu_mpi_task_insert bh_vroot");
	}
	/* the essential nodes of each ordered pair are submitted by its two ranks only */
	for (int q = 0; q < g->size; q++) {
		if (q == me) continue;
		submit_essential(g, me, q, g->hlet_out[q]);
		submit_essential(g, q, me, g->hlet_in[q]);
	}
	for (int q = 0; q < g->size; q++) {
		if (q == me) continue;
		starpu_mpi_get_data_on_node_detached(MPI_COMM_WORLD, g->hlet_out[q], q, NULL, NULL);
		starpu_mpi_get_data_on_node_detached(MPI_COMM_WORLD, g->hlet_in[q], me, NULL, NULL);
	}
}

void tide_gravity_submit_let_walks(tide_gravity *g)
{
	for (int q = 0; q < g->size; q++) {
		if (q == g->rank) continue;
		for (int k = 0; k < g->nparts; k++) {
			int ret = starpu_task_insert(&g->walk_let_cl, STARPU_R, g->hbody, STARPU_R, g->hmeta,
			                             STARPU_R, g->hgroups, STARPU_R, g->hlet_in[q],
			                             STARPU_RW, g->hacc[k], STARPU_SCRATCH, g->hwscr,
			                             STARPU_VALUE, &g->P, sizeof g->P, STARPU_VALUE,
			                             &g->part[k], sizeof g->part[k], STARPU_CALLBACK_WITH_ARG_NFREE,
			                             g->time_walks ? tide_gravity_walk_timed : NULL,
			                             &g->walk_ns[1], 0);
			STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert bh_walk_let");
		}
	}
}

void tide_gravity_let_sent(tide_gravity *g, int q, uint32_t *ncells, uint32_t *nparts)
{
	*ncells = *nparts = 0;
	if (!g->mpi || q == g->rank) return;
	starpu_data_acquire(g->hlet_out[q], STARPU_R);
	tide_let_counts(g->hlet_out[q], ncells, nparts);
	starpu_data_release(g->hlet_out[q]);
}

void tide_gravity_ranks_fini(tide_gravity *g)
{
	starpu_mpi_wait_for_all(MPI_COMM_WORLD);
	for (int q = 0; q < g->size; q++) {
		if (q != g->rank)
			for (int k = 0; k < 4; k++) starpu_data_unregister_no_coherency(tree_of(g, q)[k]);
		starpu_data_unregister_no_coherency(g->hvroot[q]);
		if (q == g->rank) continue;
		starpu_data_unregister_no_coherency(g->hlet_out[q]);
		starpu_data_unregister_no_coherency(g->hlet_in[q]);
	}
	starpu_data_unregister_no_coherency(g->hescr);
	starpu_mpi_tags_free(g->tag0);
	free(g->counts); free(g->rtree); free(g->hvroot); free(g->hlet_out); free(g->hlet_in);
	g->mpi = 0;
}

/* ---- particles to and from one rank (reports, diagnostics, rebalancing) ---- */

typedef struct snap {
	bh_body b;
	float v[4];
	bh_acc a;
} snap;

/* One vector handle of records per rank (owner q, gather tags); on root those of the other ranks
 * point at all[], elsewhere only this rank's exists.  Ranks without particles have none (their
 * one-element placeholder would land on another rank's records). */
static void snap_register(tide_gravity *g, int root, snap *own, snap *all, starpu_data_handle_t *h)
{
	size_t off = 0;
	for (int q = 0; q < g->size; q++) {
		uint32_t nq = g->counts[q];
		h[q] = NULL;
		if (nq > 0 && (q == g->rank || g->rank == root)) {
			snap *p = q == g->rank ? own : all + off;
			starpu_vector_data_register(&h[q], STARPU_MAIN_RAM, (uintptr_t)p, nq, sizeof(snap));
			starpu_mpi_data_register(h[q], tag_gather(g, q), q);
		}
		off += nq;
	}
}

static void snap_unregister(tide_gravity *g, starpu_data_handle_t *h)
{
	for (int q = 0; q < g->size; q++)
		if (h[q]) starpu_data_unregister(h[q]);
}

static uint32_t total_of(const tide_gravity *g)
{
	uint32_t n = 0;
	for (int q = 0; q < g->size; q++) n += g->counts[q];
	return n;
}

void tide_gravity_gather(tide_gravity *g, int root, bh_body *body, float *vel, bh_acc *acc)
{
	uint32_t n = g->n;
	if (!g->mpi) {
		tide_gravity_acquire(g);
		if (body) memcpy(body, g->body, sizeof(bh_body) * n);
		if (vel) memcpy(vel, g->vel, 16 * (size_t)n);
		if (acc) memcpy(acc, g->acc, sizeof(bh_acc) * n);
		tide_gravity_release(g);
		return;
	}
	uint32_t total = total_of(g);
	snap *own = must_alloc(sizeof(snap) * (n ? n : 1), 0);
	snap *all = g->rank == root ? must_alloc(sizeof(snap) * (total ? total : 1), 0) : NULL;
	tide_gravity_acquire(g);
	for (uint32_t i = 0; i < n; i++) {
		own[i].b = g->body[i];
		memcpy(own[i].v, &g->vel[4 * i], sizeof own[i].v);
		own[i].a = g->acc[i];
	}
	tide_gravity_release(g);
	starpu_data_handle_t *h = must_alloc(sizeof(starpu_data_handle_t) * g->size, 0);
	snap_register(g, root, own, all, h);
	starpu_mpi_gather_detached(h, g->size, root, MPI_COMM_WORLD, NULL, NULL, NULL, NULL);
	snap_unregister(g, h); /* waits for the transfers */
	if (all) {
		uint32_t off = 0;
		for (int q = 0; q < g->size; q++) {
			const snap *src = q == root ? own : all + off;
			for (uint32_t i = 0; i < g->counts[q]; i++) {
				if (body) body[off + i] = src[i].b;
				if (vel) memcpy(&vel[4 * (size_t)(off + i)], src[i].v, sizeof src[i].v);
				if (acc) acc[off + i] = src[i].a;
			}
			off += g->counts[q];
		}
	}
	free(h); free(all); free(own);
}

void tide_gravity_scatter(tide_gravity *g, int root, const bh_body *body, const float *vel,
                          const bh_acc *acc)
{
	uint32_t n = g->n;
	snap *own = must_alloc(sizeof(snap) * (n ? n : 1), 0);
	uint32_t total = g->mpi ? total_of(g) : n;
	snap *all = !g->mpi || g->rank == root ? must_alloc(sizeof(snap) * (total ? total : 1), 0) : NULL;
	for (uint32_t i = 0; all && i < total; i++) {
		all[i].b = body[i];
		memcpy(all[i].v, &vel[4 * (size_t)i], sizeof all[i].v);
		all[i].a = acc[i];
	}
	if (g->mpi) {
		starpu_data_handle_t *h = must_alloc(sizeof(starpu_data_handle_t) * g->size, 0);
		snap_register(g, root, own, all, h);
		starpu_mpi_scatter_detached(h, g->size, root, MPI_COMM_WORLD, NULL, NULL, NULL, NULL);
		snap_unregister(g, h);
		free(h);
		if (g->rank == root) {
			uint32_t off = 0;
			for (int q = 0; q < root; q++) off += g->counts[q];
			memcpy(own, all + off, sizeof(snap) * n);
		}
	} else {
		memcpy(own, all, sizeof(snap) * n);
	}
	tide_gravity_acquire_mode(g, STARPU_RW);
	for (uint32_t i = 0; i < n; i++) {
		g->body[i] = own[i].b;
		memcpy(&g->vel[4 * i], own[i].v, sizeof own[i].v);
		g->acc[i] = own[i].a;
	}
	tide_gravity_release(g);
	free(all); free(own);
}

void tide_gravity_gather_values(tide_gravity *g, int root, const double *mine, int k, double *all)
{
	if (!g->mpi) {
		memcpy(all, mine, sizeof(double) * k);
		return;
	}
	double *own = must_alloc(sizeof(double) * k, 0);
	memcpy(own, mine, sizeof(double) * k);
	starpu_data_handle_t *h = must_alloc((size_t)g->size * sizeof(starpu_data_handle_t), 1);
	for (int q = 0; q < g->size; q++) {
		if (q != g->rank && g->rank != root) continue;
		double *p = q == g->rank ? own : all + (size_t)k * q;
		starpu_vector_data_register(&h[q], STARPU_MAIN_RAM, (uintptr_t)p, k, sizeof(double));
		starpu_mpi_data_register(h[q], tag_values(g, q), q);
	}
	starpu_mpi_gather_detached(h, g->size, root, MPI_COMM_WORLD, NULL, NULL, NULL, NULL);
	snap_unregister(g, h);
	if (g->rank == root) memcpy(all + (size_t)k * root, own, sizeof(double) * k);
	free(h);
	free(own);
}

/* ---- the split of the particles over the ranks ---- */

typedef struct keyed {
	uint64_t key;
	uint32_t index;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	if (x->key != y->key) return x->key < y->key ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

void bh_bounding_box(const bh_body *b, uint32_t n, float box[6])
{
	for (int d = 0; d < 6; d++) box[d] = n ? (&b[0].x)[d % 3] : 0.f;
	for (uint32_t i = 1; i < n; i++) {
		const float *p = &b[i].x;
		for (int d = 0; d < 3; d++) {
			box[d] = p[d] < box[d] ? p[d] : box[d];
			box[3 + d] = p[d] > box[3 + d] ? p[d] : box[3 + d];
		}
	}
}

void bh_split_morton(const bh_body *b, uint32_t n, int size, uint32_t *order, uint32_t *counts)
{
	for (int q = 0; q < size; q++)
		counts[q] = (uint32_t)((uint64_t)n * (q + 1) / size - (uint64_t)n * q / size);
	if (n == 0) return;
	float box[6];
	bh_bounding_box(b, n, box);
	bh_cell root;
	bh_root_cube(box, box + 3, &root);
	keyed *k = must_alloc(sizeof(keyed) * n, 0);
	for (uint32_t i = 0; i < n; i++) {
		k[i].key = bh_key(b[i].x, b[i].y, b[i].z, &root);
		k[i].index = i;
	}
	qsort(k, n, sizeof *k, cmp_keyed);
	for (uint32_t i = 0; i < n; i++) order[i] = k[i].index;
	free(k);
}

int bh_take_share(const bh_body *b, const float *vel, uint32_t n, int rank, int size,
                  bh_body **body_out, float **vel_out, bh_acc **acc_out, uint32_t *counts)
{
	uint32_t *order = malloc(sizeof(uint32_t) * (n ? n : 1));
	if (!order) return -1;
	bh_split_morton(b, n, size, order, counts);
	uint32_t first = (uint32_t)((uint64_t)n * rank / size), m = counts[rank];
	bh_body *body = malloc(sizeof(bh_body) * (m ? m : 1));
	float *v = calloc(4 * (size_t)(m ? m : 1), sizeof(float));
	bh_acc *acc = calloc(m ? m : 1, sizeof(bh_acc));
	if (!body || !v || !acc) {
		free(order); free(body); free(v); free(acc);
		return -1;
	}
	for (uint32_t i = 0; i < m; i++) {
		uint32_t o = order[first + i];
		body[i] = b[o];
		memcpy(&v[4 * i], &vel[4 * (size_t)o], 3 * sizeof(float));
		bh_set_id(&v[4 * i], o);
	}
	free(order);
	*body_out = body; *vel_out = v; *acc_out = acc;
	return 0;
}
