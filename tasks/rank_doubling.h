/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The schedule of a recursive doubling among the ranks as StarPU-MPI tasks, shared by the time
 * step's record (tasks/sph_step.c, finish_reduction_tree) and the virtual roots of gravity
 * (tasks/gravity.c, gather_vroots): with P = 2^L the largest power of two <= size, the ranks
 * P .. size-1 first fold their contribution into rank q - P, then in round k = 0 .. L-1 every
 * rank q < P combines its part with that of q xor 2^k, and ranks >= P get the result back from
 * q - P.  Rank me submits only the steps it runs or feeds, in the same order as every other rank
 * that sees them (StarPU-MPI posts the sends and receives from its own submissions): the fold
 * on me or me - P, each round's two steps of the pair (the lower rank's first), the way back. */
#ifndef TIDE_RANK_DOUBLING_H
#define TIDE_RANK_DOUBLING_H

typedef struct tide_doubling {
	void *ctx;
	void (*fold)(void *ctx, int q);         /* q + P's part into q's, on q */
	void (*round)(void *ctx, int k, int q); /* round k on q: q's part and q xor 2^k's */
	void (*back)(void *ctx, int q);         /* q - P's result to q, on q */
} tide_doubling;

static inline void tide_doubling_submit(const tide_doubling *d, int me, int size, int levels)
{
	int P = 1 << levels;
	int fold = me + P < size ? me : me >= P ? me - P : -1;
	if (fold >= 0) d->fold(d->ctx, fold);
	for (int k = 0; k < levels && me < P; k++) {
		int o = me ^ (1 << k);
		d->round(d->ctx, k, me < o ? me : o);
		d->round(d->ctx, k, me < o ? o : me);
	}
	int back = me >= P ? me : me + P < size ? me + P : -1;
	if (back >= 0) d->back(d->ctx, back);
}
#endif
