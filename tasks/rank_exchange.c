// SPDX-License-Identifier: LGPL-2.1-or-later
// Exchanges between ranks outside the task graph (tasks/rank_exchange.h): each message is a
// StarPU-MPI handle registered on both sides with one tag per (sender, receiver, round) and moved
// by starpu_mpi_get_data_on_node_detached; unregistering waits for it.
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "rank_exchange.h"

/* One message of n bytes from rank `from` to rank `to` with tag t, both sides; buf is the
 * sender's data or the receiver's room. */
static starpu_data_handle_t post(void *buf, size_t n, int from, int to, int64_t t)
{
	starpu_data_handle_t h;
	starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t)buf, (uint32_t)n, 1);
	starpu_mpi_data_register(h, t, from);
	starpu_mpi_get_data_on_node_detached(MPI_COMM_WORLD, h, to, NULL, NULL);
	return h;
}

int tide_rank_allsum(int64_t *v, size_t n, int rank, int size)
{
	if (size < 2 || n == 0) return 0;
	int P = 1, L = 0;
	while (2 * P <= size) { P *= 2; L++; }
	int64_t *tmp = malloc(sizeof *tmp * n);
	if (!tmp) return -1;
	size_t bytes = sizeof *tmp * n;
	int64_t t0 = starpu_mpi_tags_allocate((int64_t)(L + 2) * size);
	/* round 0: ranks P.. fold into rank - P */
	if (rank >= P) {
		starpu_data_unregister(post(v, bytes, rank, rank - P, t0 + rank));
	} else if (rank + P < size) {
		starpu_data_unregister(post(tmp, bytes, rank + P, rank, t0 + rank + P));
		for (size_t i = 0; i < n; i++) v[i] += tmp[i];
	}
	/* rounds 1..L: partner rank ^ 2^(k-1) among the first P; both send what they had */
	for (int k = 1; k <= L && rank < P; k++) {
		int q = rank ^ (1 << (k - 1));
		int64_t *mine = malloc(bytes);
		if (!mine) { free(tmp); return -1; }
		memcpy(mine, v, bytes);
		starpu_data_handle_t hs = post(mine, bytes, rank, q, t0 + (int64_t)k * size + rank);
		starpu_data_handle_t hr = post(tmp, bytes, q, rank, t0 + (int64_t)k * size + q);
		starpu_data_unregister(hr);
		starpu_data_unregister(hs);
		free(mine);
		for (size_t i = 0; i < n; i++) v[i] += tmp[i];
	}
	/* the last round: the result back to the folded ranks */
	int64_t tl = t0 + (int64_t)(L + 1) * size;
	if (rank >= P) starpu_data_unregister(post(v, bytes, rank - P, rank, tl + rank - P));
	else if (rank + P < size) starpu_data_unregister(post(v, bytes, rank, rank + P, tl + rank));
	starpu_mpi_tags_free(t0);
	free(tmp);
	return 0;
}

int tide_rank_exchange(int rank, int size, const unsigned char *to, const unsigned char *from,
                       void *const *send, const size_t *send_bytes, void **recv, size_t *recv_bytes)
{
	uint64_t *nout = calloc((size_t)size, sizeof *nout), *nin = calloc((size_t)size, sizeof *nin);
	starpu_data_handle_t *h = calloc(2 * (size_t)size, sizeof *h);
	if (!nout || !nin || !h) { free(nout); free(nin); free(h); return -1; }
	int64_t ss = (int64_t)size * size, t0 = starpu_mpi_tags_allocate(2 * ss);
	/* the counts: tag t0 + s size + r */
	for (int q = 0; q < size; q++) {
		if (q == rank) continue;
		if (to[q]) {
			nout[q] = send_bytes[q];
			h[q] = post(&nout[q], sizeof nout[q], rank, q, t0 + (int64_t)rank * size + q);
		}
		if (from[q]) h[size + q] = post(&nin[q], sizeof nin[q], q, rank, t0 + (int64_t)q * size + rank);
	}
	for (int i = 0; i < 2 * size; i++)
		if (h[i]) { starpu_data_unregister(h[i]); h[i] = NULL; }
	/* the buffers: tag t0 + size^2 + s size + r */
	int ret = 0;
	for (int q = 0; q < size; q++) {
		if (q == rank) continue;
		if (to[q] && nout[q]) h[q] = post(send[q], nout[q], rank, q, t0 + ss + (int64_t)rank * size + q);
		recv_bytes[q] = from[q] ? nin[q] : 0;
		recv[q] = NULL;
		if (from[q] && nin[q]) {
			recv[q] = malloc(nin[q]);
			if (!recv[q]) { ret = -1; break; }
			h[size + q] = post(recv[q], nin[q], q, rank, t0 + ss + (int64_t)q * size + rank);
		}
	}
	for (int i = 0; i < 2 * size; i++)
		if (h[i]) starpu_data_unregister(h[i]);
	starpu_mpi_tags_free(t0);
	free(nout); free(nin); free(h);
	return ret;
}
