// SPDX-License-Identifier: LGPL-2.1-or-later
// sps_tau: under physics.viscosity = laminar+sps, the SPS stress tau / rho^2 of every fluid
// particle of a block from the velocity gradient the force pass just wrote (tide_sps_tau of
// sph_pair.h; the fields are include/tide/sps.h's), for the next force pass to read: tau lags
// one force evaluation, as in DualSPHysics.  Boundary particles get zeros.
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/sph_interact.h"
#include "tide/sps.h"
#include "tide/codelet_decl.h"

static void sps_tau_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	starpu_codelet_unpack_args(cl_arg, &P, 0);
	tide_block_view v = tide_block_view_of(buffers[0]);
	float *tau[6] = TIDE_SPS_TAU_PTRS(v), *grad[6] = TIDE_SPS_GRAD_PTRS(v);
	for (uint32_t i = 0; i < v.count; i++) {
		float g[6], t[6] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
		for (int k = 0; k < 6; k++) g[k] = grad[k][i];
		if (v.type[i] == TIDE_FLUID) tide_sps_tau(P.sps_smag, P.sps_blin, v.rho[i], g, t);
		for (int k = 0; k < 6; k++) tau[k][i] = t[k];
	}
}

TIDE_CODELET(sps_tau, sps_tau_cpu, tide_sps_tau_cuda, 1, STARPU_RW);
