// SPDX-License-Identifier: LGPL-2.1-or-later
// Particles of a several-rank Barnes–Hut evaluation moved between ranks outside its task graph
// (reports, diagnostics, rebalancing: gather, scatter, small values), and the split of a
// particle set over the ranks in Morton order.  The graph itself, for one rank or several, is
// gravity.c; this file only uses its handles (acquire/release) and MPI tags (gravity_ranks.h),
// so the two files depend one way: gravity_ranks.c -> gravity.c.
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "tide/bh_gravity.h"
#include "gravity_ranks.h"

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
