// SPDX-License-Identifier: LGPL-2.1-or-later
// bh_direct: the accuracy reference, a double-precision direct sum over all particles for a
// sample of them (Plummer softening as in the tree: bh_soft2_ref, bh_soft2's mean in double, of
// the pair's softenings, no self term).  Output per sample: ax, ay, az, potential, in double.
#include <math.h>
#include <starpu.h>
#include "tide/bh_codelets.h"
#include "tide/codelet_decl.h"

static void direct_cpu(void *buffers[], void *cl_arg)
{
	uint32_t n, ns;
	bh_params P;
	starpu_codelet_unpack_args(cl_arg, &n, &ns, &P, 0);
	const bh_body *b = (const bh_body *)STARPU_VECTOR_GET_PTR(buffers[0]);
	const uint32_t *sample = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	double *out = (double *)STARPU_VECTOR_GET_PTR(buffers[2]);
	const float *vel = (const float *)STARPU_VECTOR_GET_PTR(buffers[3]);
	for (uint32_t s = 0; s < ns; s++) {
		uint32_t i = sample[s];
		double x = b[i].x, y = b[i].y, z = b[i].z, ax = 0, ay = 0, az = 0, pot = 0;
		float ei = bh_body_eps(&P, vel, i);
		for (uint32_t j = 0; j < n; j++) {
			if (j == i) continue;
			double dx = b[j].x - x, dy = b[j].y - y, dz = b[j].z - z;
			double r2 = dx * dx + dy * dy + dz * dz + bh_soft2_ref(ei, bh_body_eps(&P, vel, j));
			if (r2 <= 0) continue;
			double rinv = 1.0 / sqrt(r2), mr = b[j].m * rinv, mr3 = mr * rinv * rinv;
			ax += mr3 * dx; ay += mr3 * dy; az += mr3 * dz; pot -= mr;
		}
		out[4 * s + 0] = P.G * ax; out[4 * s + 1] = P.G * ay;
		out[4 * s + 2] = P.G * az; out[4 * s + 3] = P.G * pot;
	}
}

TIDE_CODELET(bh_direct, direct_cpu, tide_bh_direct_cuda, 4, STARPU_R, STARPU_R, STARPU_W, STARPU_R);
