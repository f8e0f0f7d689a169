// SPDX-License-Identifier: LGPL-2.1-or-later
// bh_direct on the GPU: one thread block per sampled particle, a double-precision sum over all
// particles and a block reduction.
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/bh_codelets.h"
}

#define DIRECT_TPB 256

__global__ static void direct_kernel(const bh_body *b, const float *vel, uint32_t n,
                                     const uint32_t *sample, double *out, bh_params P)
{
	__shared__ double red[4][DIRECT_TPB];
	uint32_t i = sample[blockIdx.x];
	double x = b[i].x, y = b[i].y, z = b[i].z, ax = 0, ay = 0, az = 0, pot = 0;
	float ei = bh_body_eps(&P, vel, i);
	for (uint32_t j = threadIdx.x; j < n; j += DIRECT_TPB) {
		if (j == i) continue;
		bh_body s = b[j];
		double dx = s.x - x, dy = s.y - y, dz = s.z - z;
		double r2 = dx * dx + dy * dy + dz * dz + bh_soft2_ref(ei, bh_body_eps(&P, vel, j));
		if (r2 <= 0) continue;
		double rinv = rsqrt(r2), mr = s.m * rinv, mr3 = mr * rinv * rinv;
		ax += mr3 * dx; ay += mr3 * dy; az += mr3 * dz; pot -= mr;
	}
	red[0][threadIdx.x] = ax; red[1][threadIdx.x] = ay;
	red[2][threadIdx.x] = az; red[3][threadIdx.x] = pot;
	__syncthreads();
	for (int w = DIRECT_TPB / 2; w > 0; w >>= 1) {
		if ((int)threadIdx.x < w)
			for (int k = 0; k < 4; k++) red[k][threadIdx.x] += red[k][threadIdx.x + w];
		__syncthreads();
	}
	if (threadIdx.x < 4) out[4 * blockIdx.x + threadIdx.x] = (double)P.G * red[threadIdx.x][0];
}

extern "C" void tide_bh_direct_cuda(void *buffers[], void *cl_arg)
{
	uint32_t n, ns;
	bh_params P;
	starpu_codelet_unpack_args(cl_arg, &n, &ns, &P, 0);
	if (ns == 0) return;
	direct_kernel<<<ns, DIRECT_TPB, 0, starpu_cuda_get_local_stream()>>>(
	        (const bh_body *)STARPU_VECTOR_GET_PTR(buffers[0]),
	        (const float *)STARPU_VECTOR_GET_PTR(buffers[3]), n,
	        (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]),
	        (double *)STARPU_VECTOR_GET_PTR(buffers[2]), P);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
