// SPDX-License-Identifier: LGPL-2.1-or-later
// Floating bodies in the step (issue 22; the maths: include/tide/rigid.h, body_force.h): after a
// force pass, every block's body_force task sums its floating particles' m a and (x - c) x m a
// per body into the block's own record; the host adds the records in block order, so that the
// sums are the same bits on 1 rank and on N (each record comes from the block's owner, the
// others contribute exact zeros to an MPI sum), then integrates each body over the stage and
// hands the bodies' steps to body_motion (tasks/sph_step.c), which places their particles.
// The host waits here for the stage's forces: a floating run's step has this one more sync
// (the integrate tasks already submitted run meanwhile).
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "tide/codelets.h"
#include "tide/sph_sim.h"
#include "tide/step_profile.h"

#define SUBMIT_LOCAL(...) STARPU_CHECK_RETURN_VALUE(starpu_task_insert(__VA_ARGS__), "task insert")

void tide_sim_floating_free(tide_sim *sim)
{
	for (int b = 0; b < sim->nbsum; b++) starpu_data_unregister(sim->bsum[b]);
	free(sim->bsum);
	free(sim->bsum_host);
	sim->bsum = NULL;
	sim->bsum_host = NULL;
	sim->nbsum = 0;
}

/* The rigid states from the case (unless a checkpoint gave them), and one record per block. */
static void prepare(tide_sim *sim)
{
	const tide_case *c = sim->c;
	if (!sim->rigid_set) {
		sim->nrigid = c->nfloating;
		for (int r = 0; r < sim->nrigid; r++) {
			sim->rigid[r] = c->rigid[r];
			tide_rigid_pose(&sim->rigid[r], &sim->rigid_pose[r]);
		}
		sim->rigid_set = 1;
	}
	if (sim->nbsum == sim->nblocks) return;
	tide_sim_floating_free(sim);
	sim->bsum = calloc((size_t)sim->nblocks, sizeof *sim->bsum);
	sim->bsum_host = calloc((size_t)sim->nblocks, sizeof *sim->bsum_host);
	STARPU_ASSERT_MSG(sim->bsum && sim->bsum_host, "out of memory");
	for (int b = 0; b < sim->nblocks; b++)
		starpu_variable_data_register(&sim->bsum[b], STARPU_MAIN_RAM, (uintptr_t)&sim->bsum_host[b],
		                              sizeof sim->bsum_host[b]);
	sim->nbsum = sim->nblocks;
}

void tide_sim_floating_stage(tide_sim *sim, int stage)
{
	if (!sim->c->nfloating) return;
	prepare(sim);
	const tide_motion_table *T = &sim->c->motion;
	tide_body_force_arg A = {.n = 0};
	int rig[TIDE_MOTION_MAX_BODIES];
	for (int k = 0; k < T->nbody; k++) {
		if (!T->body[k].rigid) continue;
		int r = T->body[k].rigid - 1;
		rig[A.n] = r;
		A.id0[A.n] = T->body[k].id0;
		A.id1[A.n] = T->body[k].id1;
		memcpy(A.c[A.n], sim->rigid[r].c, sizeof A.c[A.n]);
		A.n++;
	}
	for (int b = 0; b < sim->nblocks; b++) {
		if (sim->blk[b].owner != sim->rank) continue;
		SUBMIT_LOCAL(&tide_body_force_cl, STARPU_R, sim->blk[b].B, STARPU_W, sim->bsum[b],
		             STARPU_VALUE, &sim->P, sizeof sim->P, STARPU_VALUE, &A, sizeof A,
		             STARPU_NAME, "body_force", 0);
	}
	/* every block's record on every rank: the owner's, zeros elsewhere (exact in the sum) */
	size_t nrec = (size_t)sim->nblocks;
	double (*rec)[TIDE_MOTION_MAX_BODIES][6] = calloc(nrec, sizeof *rec);
	STARPU_ASSERT_MSG(rec, "out of memory");
	for (int b = 0; b < sim->nblocks; b++) {
		if (sim->blk[b].owner != sim->rank) continue;
		starpu_data_acquire(sim->bsum[b], STARPU_R);
		for (int j = 0; j < A.n; j++) memcpy(rec[b][j], sim->bsum_host[b].s[j], sizeof rec[b][j]);
		starpu_data_release(sim->bsum[b]);
	}
	if (sim->mpi)
		MPI_Allreduce(MPI_IN_PLACE, rec, (int)(nrec * TIDE_MOTION_MAX_BODIES * 6), MPI_DOUBLE,
		              MPI_SUM, MPI_COMM_WORLD);
	/* the stage's time step: the first force pass's (the corrector steps by it too) */
	starpu_data_acquire(sim->red, STARPU_R);
	double dt = (double)((tide_step_reduce *)starpu_variable_get_local_ptr(sim->red))->dt;
	starpu_data_release(sim->red);
	for (int j = 0; j < A.n; j++) {
		double s[6] = {0, 0, 0, 0, 0, 0};
		for (int b = 0; b < sim->nblocks; b++)
			for (int q = 0; q < 6; q++) s[q] += rec[b][j][q];
		double g[3] = {sim->c->gravity[0], sim->c->gravity[1], sim->c->gravity[2]};
		tide_rigid_stage(&sim->rigid[rig[j]], stage, dt, s, s + 3, g);
	}
	free(rec);
}

void tide_sim_floating_steps(tide_sim *sim, tide_body_motion_arg *M)
{
	if (!sim->c->nfloating) return;
	prepare(sim);
	for (int k = 0; k < M->T.nbody; k++) {
		if (!M->T.body[k].rigid) continue;
		int r = M->T.body[k].rigid - 1;
		tide_rigid_motion_step(&sim->rigid[r], &sim->rigid_pose[r], &M->F[k]);
		tide_rigid_pose(&sim->rigid[r], &sim->rigid_pose[r]);
	}
}
