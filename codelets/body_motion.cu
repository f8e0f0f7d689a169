// SPDX-License-Identifier: LGPL-2.1-or-later
// body_motion on the GPU (the same motion as the CPU, include/tide/motion.h): the first threads
// of each thread block compute one moving body's step each (poses in double, from the time
// step read on the device) into shared memory, then one thread per particle moves it.
#include "tide/cuda_util.cuh"

extern "C" {
#include "tide/block_interface.h"
#include "tide/codelets.h"
}
#include "tide/motion.h"

__global__ static void body_motion_kernel(tide_sph_params P, tide_body_motion_arg M,
                                          const tide_step_reduce *red, tide_block_view v)
{
	__shared__ tide_motion_step S[TIDE_MOTION_MAX_BODIES];
	double dt = M.f_new > 0.0 ? (double)red->dt : 0.0, /* f = 0: the start (red unset) */
	       t_old = M.t + M.f_old * dt, t_new = M.t + M.f_new * dt;
	int set_vel = M.set_vel;
	if ((int)threadIdx.x < M.T.nbody) tide_motion_steps(&M, threadIdx.x, t_old, t_new, &S[threadIdx.x]);
	__syncthreads();
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < v.count) tide_motion_particle(&M.T, S, P.dim, set_vel, &v, i);
}

extern "C" void tide_body_motion_cuda(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_body_motion_arg M;
	starpu_codelet_unpack_args(cl_arg, &P, &M, 0);
	tide_block_view v = tide_block_view_of(buffers[0]);
	if (v.count == 0 || M.T.nbody == 0) return;
	const tide_step_reduce *red = (const tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[1]);
	body_motion_kernel<<<tide_blocks_for(v.count, 256), 256, 0, starpu_cuda_get_local_stream()>>>(
	        P, M, red, v);
	TIDE_CUDA_CHECK(cudaGetLastError());
}
