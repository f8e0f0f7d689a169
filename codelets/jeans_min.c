// SPDX-License-Identifier: LGPL-2.1-or-later
// jeans_min: the Jeans resolution check of a gas block (include/tide/jeans.h): the least
// c_s^3 / sqrt(rho) over its fluid particles, the density there, how many are under their own
// resolution threshold k m_i and the least q / m_i, folded into the rank's record (STARPU_RW | STARPU_COMMUTE: the
// blocks' tasks in any order, min and sum being order-free).
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/gas_math.h"
#include "tide/jeans.h"
#include "tide/codelet_decl.h"

static void jeans_min_cpu(void *buffers[], void *cl_arg)
{
	tide_gas_params G;
	float k;
	starpu_codelet_unpack_args(cl_arg, &G, &k, 0);
	tide_block_view v = tide_block_view_of(buffers[0]);
	tide_jeans_min *out = (tide_jeans_min *)STARPU_VARIABLE_GET_PTR(buffers[1]);
	tide_jeans_min r;
	tide_jeans_min_init(&r);
	for (uint32_t i = 0; i < v.count; i++) {
		if (v.type[i] != TIDE_FLUID) continue;
		float q = tide_jeans_q(tide_gas_sound(&G, v.rho[i], v.TIDE_GAS_U[i]), v.rho[i]);
		tide_jeans_min one = tide_jeans_one(q, v.rho[i], v.TIDE_GAS_MASS[i], k);
		tide_jeans_min_combine(&r, &one);
	}
	tide_jeans_min_combine(out, &r);
}

/* Buffers: block (R), record (RW | COMMUTE).  Args: tide_gas_params, float k (q_res per unit mass). */
TIDE_CODELET(jeans_min, jeans_min_cpu, tide_jeans_min_cuda, 2, STARPU_R, STARPU_RW | STARPU_COMMUTE);
