/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the gas scheme's gather codelets (gas_density, gas_forces; CPU and CUDA halves) take from
 * their task: the parameters, the block's box, the block, its cell starts and its halos as
 * the passes read them, plus the fullest of the block and its halos (the reduction's fill).
 * Host code, included by the codelets only (it reads StarPU's buffers). */
#ifndef TIDE_GAS_CODELET_H
#define TIDE_GAS_CODELET_H
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/gas_halo.h"

typedef struct tide_gas_task {
	tide_sph_params P;
	tide_block_arg A;
	tide_block_view v;
	const uint32_t *start;
	tide_gas_halos H;
	float fill;
} tide_gas_task;

/* Per-block halos (gas_halo.h): the layers the block's own supports may reach, and those of
 * the widest halo it reads, as the halos were packed for them (their senders' records, which
 * they carry, and its own); the global width while a record is not known. */
static inline void tide_gas_task_layers(tide_gas_task *t, void *buffers[], int first_halo, int nh)
{
	tide_grid *g = &t->P.grid;
	if (!g->halo_block) return;
	float own = TIDE_BLOCK_IFACE(buffers[0])->hmax, rec[TIDE_CELL_ROWS_MAX_SRC];
	for (int h = 0; h < nh; h++) rec[h] = TIDE_BLOCK_IFACE(buffers[first_halo + h])->hmax;
	int lo = tide_gas_own_layers(g, own, nh, rec), lr = tide_gas_reach_layers(g, own, nh, rec);
	if (lo <= 0 || lr <= 0) return;
	g->halo_own = lo;
	g->halo_now = lr;
}

/* buffers: block, cell starts, then (first_halo - 2) others, then the halos; cl_arg: the
 * parameters, the box, the number of halos. */
static inline void tide_gas_task_of(void *buffers[], void *cl_arg, int first_halo, tide_gas_task *t)
{
	int nh;
	/* the 0 ends the pointers: a force task carries one more value (sph_forces' cell part,
	 * tasks/sph_step.c submit_forces), which StarPU would otherwise write through a garbage
	 * pointer (tests/test_unpack_args.sh) */
	starpu_codelet_unpack_args(cl_arg, &t->P, &t->A, &nh, 0);
	STARPU_ASSERT(nh >= 0 && nh <= TIDE_MAX_NEIGHBOURS);
	t->v = tide_block_view_of(buffers[0]);
	t->start = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	t->H.n = nh;
	t->fill = tide_fill_of(t->v.count, t->v.cap, 0, 0, 0, 0);
	for (int h = 0; h < nh; h++) {
		tide_block_view hv = tide_block_view_of(buffers[first_halo + h]);
		t->H.h[h] = tide_gas_src_of(&hv);
		float f = tide_fill_of(hv.count, hv.cap, 0, 0, 0, 0);
		if (f > t->fill) t->fill = f;
	}
	tide_gas_task_layers(t, buffers, first_halo, nh);
}

#endif
