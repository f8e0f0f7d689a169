/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Start-up agreement of the MPI ranks of one run.  Every rank of an mpirun must build the same
 * task graph from the same case and options; ranks given different ones (an MPMD launch
 * `mpirun -np 1 tide run A : -np 1 tide run B`, a case file edited between node copies) would
 * otherwise wait for each other's messages for ever.  Each rank describes what it loaded, rank 0
 * compares and every rank learns the verdict, so all stop together with one sentence. */
#ifndef TIDE_RANK_AGREE_H
#define TIDE_RANK_AGREE_H
#include <stdint.h>

typedef struct tide_rank_view {
	int32_t status;      /* 0: the input loaded; otherwise it did not (the rank's message says why) */
	int32_t nblocks;     /* this rank's default block count (rank 0's is used by all) */
	uint64_t input;      /* fingerprint of the case after --dp/--set (and of the checkpoint); the
	                      * options were agreed on before StarPU started (cmd_agree.h) */
} tide_rank_view;

typedef struct tide_rank_verdict {
	tide_rank_view rank0;  /* rank 0's view */
	int32_t first_bad;     /* the first rank whose status or input differ from rank
	                        * 0's; -1: none */
	int32_t pad;
	tide_rank_view bad;    /* that rank's view */
} tide_rank_verdict;

/* Collective (every rank calls it, after StarPU-MPI is up): gathers every view on rank 0 and
 * gives every rank the verdict.  Without MPI the verdict is this process's view and -1. */
void tide_ranks_agree(const tide_rank_view *mine, tide_rank_verdict *verdict);

#endif
