// SPDX-License-Identifier: LGPL-2.1-or-later
// One SPH time step as StarPU tasks: the whole task graph of a step is in this file.
//
// per block b (slab of cell layers [l0, l1)):
//   cell_sort(B[b])                       keys, radix sort, reorder, cell starts C[b]
//   halo_pack(B[b]) -> HL[b], HR[b]       first / last cell layer, for blocks b-1 / b+1
//   dt_init(red)                          (once) reset of the step reduction
//   sph_forces(B[b], C[b], HR[b-1], HL[b+1]) -> red (REDUX: CFL time step, health)
//   integrate(B[b], red)                  Verlet (or symplectic predictor ... corrector)
//   migrate_pack(B[b]) -> ML[b], MR[b]    particles that left the slab
//   migrate_unpack(B[b], MR[b-1], ML[b+1])
// The host then reads the reduction (the one value per step the algorithm needs: the global
// time step) to advance the clock and check the run is still physical.  Blocks on the domain's
// two ends see zero-particle halos.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "tide/codelets.h"
#include "tide/sph_sim.h"
#include "tide/step_profile.h"

/* Every rank submits the same tasks; under MPI a task runs on the owner of the block it writes
 * and StarPU-MPI moves what it reads from other ranks (halos, migrants, the time step). */
#define SUBMIT(sim, ...)                                                                    \
	STARPU_CHECK_RETURN_VALUE((sim)->mpi ? starpu_mpi_task_insert(MPI_COMM_WORLD, __VA_ARGS__) \
	                                     : starpu_task_insert(__VA_ARGS__),                    \
	                          "task insert")

/* With --profile, every task reports its execution and data-wait time to step_profile.c. */
#define PROFILE(kind) STARPU_CALLBACK_WITH_ARG_NFREE, tide_profile_enabled() ? tide_profile_cb : NULL, \
	(void *)(intptr_t)(kind)

static starpu_data_handle_t lower_halo(tide_sim *sim, int b)
{
	return b > 0 ? sim->blk[b - 1].HR : sim->empty_lo;
}
static starpu_data_handle_t upper_halo(tide_sim *sim, int b)
{
	return b < sim->nblocks - 1 ? sim->blk[b + 1].HL : sim->empty_hi;
}

static void submit_sort(tide_sim *sim)
{
	for (int b = 0; b < sim->nblocks; b++) {
		tide_sim_block *k = &sim->blk[b];
		SUBMIT(sim, &tide_cell_sort_cl, STARPU_RW, k->B, STARPU_W, k->C,
		        STARPU_SCRATCH, sim->scratch, STARPU_VALUE, &sim->P, sizeof sim->P,
		        STARPU_VALUE, &k->range, sizeof k->range, STARPU_NAME, "cell_sort", PROFILE(TIDE_K_SORT), 0);
	}
}

static void submit_halos(tide_sim *sim)
{
	for (int b = 0; b < sim->nblocks; b++) {
		tide_sim_block *k = &sim->blk[b];
		SUBMIT(sim, &tide_halo_pack_cl, STARPU_R, k->B, STARPU_R, k->C,
		        STARPU_W, k->HL, STARPU_W, k->HR, STARPU_VALUE, &sim->P, sizeof sim->P,
		        STARPU_VALUE, &k->range, sizeof k->range, STARPU_NAME, "halo_pack", PROFILE(TIDE_K_HALO), 0);
	}
}

static void submit_forces(tide_sim *sim, starpu_data_handle_t red)
{
	SUBMIT(sim, &tide_dt_init_cl, STARPU_W, red, STARPU_NAME, "dt_init", PROFILE(TIDE_K_DT), 0);
	for (int b = 0; b < sim->nblocks; b++) {
		tide_sim_block *k = &sim->blk[b];
		SUBMIT(sim, sim->mpi ? &tide_sph_forces_mpi_cl : &tide_sph_forces_cl, STARPU_RW, k->B, STARPU_R, k->C,
		        STARPU_R, lower_halo(sim, b), STARPU_R, upper_halo(sim, b), sim->mpi ? STARPU_MPI_REDUX : STARPU_REDUX, red,
		        STARPU_VALUE, &sim->P, sizeof sim->P, STARPU_VALUE, &k->range, sizeof k->range,
		        STARPU_NAME, "sph_forces", PROFILE(TIDE_K_FORCES), 0);
	}
	/* contributions of other ranks reach the owner (rank 0) */
	if (sim->mpi) starpu_mpi_redux_data(MPI_COMM_WORLD, red);
}

static void submit_integrate(tide_sim *sim, int stage)
{
	tide_integrate_arg I = {.stage = stage};
	for (int b = 0; b < sim->nblocks; b++) {
		tide_sim_block *k = &sim->blk[b];
		SUBMIT(sim, &tide_integrate_cl, STARPU_RW, k->B, STARPU_R, sim->red,
		        STARPU_VALUE, &sim->P, sizeof sim->P, STARPU_VALUE, &I, sizeof I,
		        STARPU_NAME, "integrate", PROFILE(TIDE_K_INTEGRATE), 0);
	}
}

static void submit_migration(tide_sim *sim)
{
	for (int b = 0; b < sim->nblocks; b++) {
		tide_sim_block *k = &sim->blk[b];
		SUBMIT(sim, &tide_migrate_pack_cl, STARPU_RW, k->B, STARPU_W, k->ML,
		        STARPU_W, k->MR, STARPU_SCRATCH, sim->scratch, STARPU_VALUE, &sim->P,
		        sizeof sim->P, STARPU_VALUE, &k->range, sizeof k->range,
		        STARPU_NAME, "migrate_pack", PROFILE(TIDE_K_MIG_PACK), 0);
	}
	for (int b = 0; b < sim->nblocks; b++) {
		tide_sim_block *k = &sim->blk[b];
		starpu_data_handle_t from_lo = b > 0 ? sim->blk[b - 1].MR : sim->empty_lo;
		starpu_data_handle_t from_hi = b < sim->nblocks - 1 ? sim->blk[b + 1].ML : sim->empty_hi;
		SUBMIT(sim, &tide_migrate_unpack_cl, STARPU_RW, k->B, STARPU_R,
		        from_lo, STARPU_R, from_hi, STARPU_NAME, "migrate_unpack", PROFILE(TIDE_K_MIG_UNPACK), 0);
	}
}

/* The stop conditions of a weakly compressible run: NaN/Inf anywhere, density beyond the range
 * the Tait equation is meant for, or a time step collapsing. */
static int check_health(const tide_sim *sim, const tide_step_reduce *r)
{
	float rho0 = sim->P.rho0;
	/* named as the run names it afterwards: the step just done, the time it reached */
	long step = sim->step + 1;
	double t = sim->t + (isfinite(r->dt) ? r->dt : 0);
	char what[320];
	if (r->nbad)
		snprintf(what, sizeof what, "%u particles have non-finite density or acceleration",
		         r->nbad);
	else if (r->rho_max > 1.5f * rho0 || (r->rho_min < 0.5f * rho0 && r->rho_min < r->rho_max))
		snprintf(what, sizeof what, "fluid density reached [%.6g, %.6g] kg/m^3, outside [0.5, "
		         "1.5] rho0 = %.6g", r->rho_min, r->rho_max, rho0);
	else if (!(r->vmax <= sim->P.c0))
		snprintf(what, sizeof what, "the fastest fluid particle moves at %.3g m/s, faster than "
		         "the speed of sound c0 = %.3g m/s (the velocities are exploding, or c0 is too "
		         "small for this flow: weakly compressible SPH needs speeds well below c0)", r->vmax, sim->P.c0);
	else if (!(r->dt > 1e-12f) || !isfinite(r->dt))
		snprintf(what, sizeof what, "the time step collapsed to %.3g s", r->dt);
	else
		return 0;
	if (sim->rank == 0)
		fprintf(stderr, "%stide: step %ld (t = %.6g s): %s; the run has gone unphysical (try a "
		        "smaller physics.cfl or a larger physics.coefsound, e.g. --set "
		        "physics.cfl=0.1).\n", isatty(1) ? "\n" : "", step, t, what);
	return -1;
}

int tide_sim_step(tide_sim *sim)
{
	submit_sort(sim);
	submit_halos(sim);
	submit_forces(sim, sim->red);
	if (sim->integrator == 0) {
		/* DualSPHysics' Verlet: an Euler step every verlet_steps steps decouples the chains */
		int euler = sim->verlet_count >= sim->verlet_steps;
		submit_integrate(sim, euler ? TIDE_STAGE_EULER : TIDE_STAGE_VERLET);
		sim->verlet_count = euler ? 0 : sim->verlet_count + 1;
	} else {
		submit_integrate(sim, TIDE_STAGE_SYMP_PRED);
		submit_halos(sim);
		submit_forces(sim, sim->red2);
		submit_integrate(sim, TIDE_STAGE_SYMP_CORR);
	}
	submit_migration(sim);

	if (sim->mpi) starpu_mpi_get_data_on_all_nodes_detached(MPI_COMM_WORLD, sim->red);
	starpu_data_acquire(sim->red, STARPU_R);
	tide_step_reduce r = *(tide_step_reduce *)starpu_variable_get_local_ptr(sim->red);
	starpu_data_release(sim->red);
	sim->last = r;
	int bad = check_health(sim, &r);
	sim->t += r.dt;
	sim->step++;
	return bad;
}
