// SPDX-License-Identifier: LGPL-2.1-or-later
// sgrav_gather: every block's particles into the body array of the self-gravity's Barnes-Hut
// solver, in block order (block b's particles are bodies offs[b] .. offs[b+1]-1), each with its
// gather index in the spare velocity word so that the tree's Morton sort keeps a map back.
// One task reads all blocks: the body array is one handle, and a block's offset is only known
// once the counts before it are (they change at every migration); the counts are in the
// blocks' interfaces, so no step needs them on the host in advance.
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/sph_gravity_math.h"
#include "tide/codelet_decl.h"

static void sgrav_gather_cpu(void *buffers[], void *cl_arg)
{
	tide_sgrav_gather_arg A;
	starpu_codelet_unpack_args(cl_arg, &A, 0);
	bh_body *body = (bh_body *)STARPU_VECTOR_GET_PTR(buffers[0]);
	float *vel = (float *)STARPU_VECTOR_GET_PTR(buffers[1]);
	uint32_t *offs = (uint32_t *)STARPU_VECTOR_GET_PTR(buffers[2]);
	uint32_t k = 0;
	for (int b = 0; b < A.nblocks; b++) {
		tide_block_view v = tide_block_view_of(buffers[3 + b]);
		offs[b] = k;
		STARPU_ASSERT_MSG(k + v.count <= A.n, "sgrav_gather: more particles than bodies");
		for (uint32_t i = 0; i < v.count; i++, k++) {
			tide_sgrav_body(&v, i, A.centre, A.mass, &body[k]);
			tide_sgrav_set_id(vel + 4 * (size_t)k, k);
			tide_sgrav_set_eps(&v, i, A.h_factor, A.eps_nbody, vel + 4 * (size_t)k);
		}
	}
	offs[A.nblocks] = k;
	/* room left (sph_gravity.c says why there is some): massless bodies on the real ones in
	 * turn, so that they change neither the rank's box nor the tree's shape much */
	for (uint32_t np = k; k < A.n; k++) {
		body[k] = np ? body[k % np] : (bh_body){0.f, 0.f, 0.f, 0.f};
		body[k].m = 0.f;
		tide_sgrav_set_id(vel + 4 * (size_t)k, TIDE_SGRAV_NO_ID);
	}
}

TIDE_CODELET_VARIABLE(sgrav_gather, sgrav_gather_cpu, tide_sgrav_gather_cuda);
