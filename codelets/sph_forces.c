// SPDX-License-Identifier: LGPL-2.1-or-later
// sph_forces: density rate and acceleration of every particle of a cell-sorted block from its own
// cells and its neighbours' halos (sph_interact.h holds the physics, shared with CUDA), plus the
// block's contribution to the step reduction (CFL time step, speed and density range, health).
#include <math.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/sph_interact.h"

static void sph_forces_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	starpu_codelet_unpack_args(cl_arg, &P, &A);
	tide_block_view v = tide_block_view_of(buffers[0]);
	const uint32_t *start = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	tide_block_view lo = tide_block_view_of(buffers[2]);
	tide_block_view hi = tide_block_view_of(buffers[3]);
	tide_step_reduce *red = (tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[4]);

	tide_step_reduce r;
	tide_step_reduce_init(&r);
	for (uint32_t i = 0; i < v.count; i++) {
		tide_acc a = tide_particle_forces(&P, &A, &v, start, &lo, &hi, i);
		v.ax[i] = a.ax;
		v.ay[i] = a.ay;
		v.az[i] = a.az;
		v.drho[i] = a.drho;
		int fluid = v.type[i] == TIDE_FLUID;
		if (!isfinite(a.ax + a.ay + a.az + a.drho) || !isfinite(v.rho[i])) r.nbad++;
		float dt = tide_particle_dt(&P, &a, v.rho[i], fluid);
		if (dt < r.dt) r.dt = dt;
		if (fluid) {
			float sp = sqrtf(v.vx[i] * v.vx[i] + v.vy[i] * v.vy[i] + v.vz[i] * v.vz[i]);
			if (sp > r.vmax) r.vmax = sp;
			if (v.rho[i] < r.rho_min) r.rho_min = v.rho[i];
			if (v.rho[i] > r.rho_max) r.rho_max = v.rho[i];
		}
	}
	r.count = v.count;
	r.fill = tide_fill_of(v.count, v.cap, lo.count, lo.cap, hi.count, hi.cap);
	/* this worker's private copy of the reduction: no other task touches it concurrently */
	tide_step_reduce_combine(red, &r);
}

static struct starpu_perfmodel sph_forces_model = {
	.type = STARPU_HISTORY_BASED,
	.symbol = "tide_sph_forces",
};

#ifdef TIDE_USE_CUDA
#define FORCES_CUDA .cuda_funcs = {tide_sph_forces_cuda}, .cuda_flags = {STARPU_CUDA_ASYNC},
#else
#define FORCES_CUDA
#endif

/* One process: the step reduction is a StarPU reduction (STARPU_REDUX). */
struct starpu_codelet tide_sph_forces_cl = {
	.name = "sph_forces",
	.cpu_funcs = {sph_forces_cpu},
	FORCES_CUDA
	.nbuffers = 5,
	.modes = {STARPU_RW, STARPU_R, STARPU_R, STARPU_R, STARPU_REDUX},
	.model = &sph_forces_model,
};

/* Under MPI the tasks give STARPU_MPI_REDUX, which StarPU runs as a commutative read-write on
 * each rank's copy before combining the ranks' copies on the owner. */
struct starpu_codelet tide_sph_forces_mpi_cl = {
	.name = "sph_forces",
	.cpu_funcs = {sph_forces_cpu},
	FORCES_CUDA
	.nbuffers = 5,
	.modes = {STARPU_RW, STARPU_R, STARPU_R, STARPU_R, STARPU_RW | STARPU_COMMUTE},
	.model = &sph_forces_model,
};
