// SPDX-License-Identifier: LGPL-2.1-or-later
// gauge_sample: one block's share of every gauge (include/tide/gauge_math.h), written into the
// block's own result vector, which gauge_combine adds up over the blocks in block order.
// Shepard sums are additive over particles, so each block sums only its own particles at
// every sample point; the surge front and the obstacle forces also look at the neighbours'
// halos (fresh from halo_pack), for the neighbours of the block's own particles.
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/codelet_decl.h"
#include "tide/gauge_math.h"

static void gauge_sample_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	int nh;
	tide_gauge_arg G;
	starpu_codelet_unpack_args(cl_arg, &P, &A, &nh, &G, 0);
	STARPU_ASSERT(nh >= 0 && nh <= TIDE_MAX_NEIGHBOURS);
	tide_block_view v = tide_block_view_of(buffers[0]);
	const uint32_t *cs = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	double *out = (double *)STARPU_VECTOR_GET_PTR(buffers[2]);
	STARPU_ASSERT(STARPU_VECTOR_GET_NX(buffers[2]) >= tide_gauge_block_len(&G));
	tide_block_view halo[TIDE_MAX_NEIGHBOURS];
	for (int h = 0; h < nh; h++) halo[h] = tide_block_view_of(buffers[3 + h]);

	memset(out, 0, sizeof *out * tide_gauge_len(&G));
	out[0] = TIDE_GAUGE_NONE;
	for (int l = 0; l < G.nline; l++)
		for (int k = 0; k < G.nz; k++) {
			double r[3];
			tide_gauge_sums s;
			tide_gauge_sample_pos(&G, l, k, r);
			tide_gauge_point_sums(&P, &v, cs, &A, r, &s);
			size_t at = tide_gauge_sample_at(&G, l, k);
			out[at] = s.vw_f;
			out[at + 1] = s.vw_b;
		}
	for (int p = 0; p < G.npoint; p++) {
		tide_gauge_sums s;
		tide_gauge_point_sums(&P, &v, cs, &A, G.point[p], &s);
		tide_gauge_point_out(&G, p, &s, out);
	}
	/* from the end: a block sorted by cell key along the slab axis has its largest x there, so
	 * the front is found early and most particles are then skipped by x alone */
	if (G.front)
		for (uint32_t i = v.count; i-- > 0;)
			if (v.type[i] == TIDE_FLUID && v.x[i] > out[0] &&
			    tide_gauge_front_ok(&P, &G, &v, cs, &A, halo, nh, i))
				out[0] = v.x[i];
	if (G.nobst)
		for (uint32_t i = 0; i < v.count; i++) {
			if (v.type[i] != TIDE_BOUND) continue;
			int m = tide_gauge_obstacle_of(&G, v.id[i], v.x[i], v.y[i], v.z[i]);
			if (m >= 0) tide_gauge_particle_force(&P, &v, cs, &A, halo, nh, i, out + tide_gauge_obst_at(&G, m));
		}
}

/* Buffers: block (R), cell starts (R), the block's result (W), then one halo (R) per neighbour;
 * the modes come with each task (a variable number of halos). */
TIDE_CODELET_VARIABLE(gauge_sample, gauge_sample_cpu, tide_gauge_sample_cuda);
