// SPDX-License-Identifier: LGPL-2.1-or-later
// sink_accrete: after a step's drift, the gas particles of a block that sinks accrete
// (include/tide/sink.h: bound to and approaching a sink within its r_acc, or within the r_acc
// of a sink created this step) leave the block, their mass, momentum and angular momentum
// summed per sink into the block's record; the rest is compacted in order (as migrate_pack
// does).  The block's best creation candidates (density above the threshold, outside every
// sink's r_acc) go into the record too.
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/sph_interact.h"
#include "tide/sink.h"
#include "tide/codelet_decl.h"

static void sink_accrete_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_sink_set S;
	starpu_codelet_unpack_args(cl_arg, &P, &S, 0);
	struct tide_block_iface *bi = TIDE_BLOCK_IFACE(buffers[0]);
	tide_block_view v = tide_block_view_of(bi);
	tide_sink_accrete_rec *R = (tide_sink_accrete_rec *)STARPU_VARIABLE_GET_PTR(buffers[2]);
	memset(R, 0, TIDE_SINK_REC_SHARED);
	R->nraw = 0;
	uint32_t keep = 0;
	for (uint32_t i = 0; i < v.count; i++) {
		int inside;
		int s = tide_sink_target(&S, &v, i, &inside);
		if (s >= 0) {
			tide_sink_gain g;
			tide_sink_gain_of(&S, s, &v, i, tide_sink_mass_of(&P, &v, i), &g);
			tide_sink_gain_add(&R->g[s], &g);
			R->nacc++;
			continue;
		}
		tide_sink_cand c;
		if (!inside && tide_sink_cand_pass(&S, &v, i, &c)) {
			tide_sink_cand_insert(R->cand, &R->ncand, (uint32_t)S.ncand, &c);
			R->nall++;
		}
		if (keep != i) tide_copy_particle(&v, keep, &v, i);
		keep++;
	}
	bi->count = keep;
}

/* Buffers: block (RW), scratch (the CUDA half's selection space), tide_sink_accrete_rec (W).
 * Args: tide_sph_params, tide_sink_set. */
TIDE_CODELET(sink_accrete, sink_accrete_cpu, tide_sink_accrete_cuda, 3, STARPU_RW,
             STARPU_SCRATCH, STARPU_W);
