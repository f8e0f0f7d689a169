/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Exchanges between ranks outside the time step's task graph (tasks/rank_exchange.c), for the
 * rebalance that moves particles from their old owner straight to their new one
 * (tasks/sph_setup.c): an exact sum over all ranks in log2 rounds, and point-to-point buffers
 * between the pairs both sides know may talk.  StarPU-MPI handles, synchronous, collective. */
#ifndef TIDE_RANK_EXCHANGE_H
#define TIDE_RANK_EXCHANGE_H
#include <stddef.h>
#include <stdint.h>

/* v[0..n) summed over all ranks, in place, on every rank: recursive doubling (the ranks above the
 * largest power of two first fold into the ranks below it and get the result last), so
 * floor(log2 size) + 2 rounds of one message.  Integers: the sum is exact, every rank ends with
 * the same bits whatever order it added in.  0, or -1 when out of memory. */
int tide_rank_allsum(int64_t *v, size_t n, int rank, int size);

/* Buffers between pairs of ranks: to[q] = 1 when this rank may send to q, from[q] = 1 when q may
 * send to it (every rank must compute the same relation: q's to[me] is my from[q]).  For each q
 * with to[q], send[q] of send_bytes[q] bytes goes to q (0 bytes: only the count); for each q with
 * from[q], recv[q] gets a malloc'ed buffer of recv_bytes[q] bytes (NULL when 0), freed by the
 * caller.  Messages: one count and at most one buffer per allowed pair.  0, or -1 when out of
 * memory. */
int tide_rank_exchange(int rank, int size, const unsigned char *to, const unsigned char *from,
                       void *const *send, const size_t *send_bytes, void **recv, size_t *recv_bytes);
#endif
