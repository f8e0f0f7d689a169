// SPDX-License-Identifier: LGPL-2.1-or-later
// body_motion: the boundary particles of the moving bodies (include/tide/motion.h) follow their
// bodies' prescribed motion over one integrator stage: from t_old to t_new, the stage's times
// from the step's start time t and its global time step (read from the step reduction, as
// integrate does): Verlet and Euler steps t -> t + dt, the symplectic predictor t -> t + dt/2
// and corrector t + dt/2 -> t + dt.  Positions, normals and velocities are set from the
// analytic motion; fluid and fixed boundary particles are left alone.
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/motion.h"
#include "tide/codelet_decl.h"

static void body_motion_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_body_motion_arg M;
	starpu_codelet_unpack_args(cl_arg, &P, &M, 0);
	tide_block_view v = tide_block_view_of(buffers[0]);
	const tide_step_reduce *red = (const tide_step_reduce *)STARPU_VARIABLE_GET_PTR(buffers[1]);
	double dt = M.f_new > 0.0 ? (double)red->dt : 0.0, /* f = 0: the start (red unset) */
	       t_old = M.t + M.f_old * dt, t_new = M.t + M.f_new * dt;
	int set_vel = M.set_vel;
	tide_motion_step S[TIDE_MOTION_MAX_BODIES];
	for (int k = 0; k < M.T.nbody; k++) tide_motion_steps(&M, k, t_old, t_new, &S[k]);
	for (uint32_t i = 0; i < v.count; i++) tide_motion_particle(&M.T, S, P.dim, set_vel, &v, i);
}

TIDE_CODELET(body_motion, body_motion_cpu, tide_body_motion_cuda, 2, STARPU_RW, STARPU_R);
