/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The SPH simulation as StarPU data: blocks of particles (slabs of cell layers along the longest
 * axis), their cell tables, halo and migration buffers, and the step reduction.  tasks/sph_step.c
 * submits one time step; tasks/sph_setup.c registers, gathers and rebalances. */
#ifndef TIDE_SPH_SIM_H
#define TIDE_SPH_SIM_H
#include <starpu.h>
#include "tide/block.h"
#include "tide/case.h"
#include "tide/sph_params.h"

typedef struct tide_sim_block {
	tide_block_arg range;             /* cell layers [l0, l1) */
	uint32_t cap;
	int owner;                        /* MPI rank that owns (computes) the block */
	void *host;                       /* main-memory replica (pinned), on the owner only */
	starpu_data_handle_t B;           /* particles */
	starpu_data_handle_t C;           /* cell starts: uint32[(l1-l0)*plane + 1] */
	starpu_data_handle_t HL, HR;      /* edges for the lower / upper neighbour */
	starpu_data_handle_t ML, MR;      /* migrants to the lower / upper neighbour */
} tide_sim_block;

typedef struct tide_sim {
	const tide_case *c;
	int mpi, rank, size;                       /* StarPU-MPI in use; this rank; ranks */
	int64_t tag0;                              /* first MPI tag of this registration */
	tide_sph_params P;
	int integrator, verlet_steps, verlet_count;
	int nblocks, nblocks_wanted;
	tide_sim_block *blk;
	uint32_t halo_cap;
	starpu_data_handle_t empty_lo, empty_hi;   /* zero-particle halos at the domain ends */
	void *empty_mem[2];
	starpu_data_handle_t scratch;              /* per-worker sort scratch */
	starpu_data_handle_t red, red2;            /* step reductions (red2: symplectic stage 2) */
	tide_step_reduce red_host, red2_host;
	long step;
	double t;
	tide_step_reduce last;                     /* reduction of the last step */
	size_t n_total;                            /* particles at the last count */
	int rebalances;
} tide_sim;

/* Restricts every SPH codelet to the given workers (STARPU_CUDA, STARPU_CPU|STARPU_CUDA). */
void tide_sph_codelets_where(uint32_t where);

/* Physics parameters and cell grid of a case. */
void tide_sim_params(const tide_case *c, tide_sph_params *P);

/* A host block of all particles (every field) made from a freshly built particle set. */
int tide_host_block_from_set(const tide_particle_set *s, void **mem, tide_block_view *v);

/* Splits the particles of `all` into nblocks blocks and registers everything.  Under MPI every
 * rank passes the same particles; block b belongs to rank b * size / nblocks.  0 or -1. */
int tide_sim_setup(tide_sim *sim, const tide_case *c, const tide_block_view *all, int nblocks);
/* The same with given blocks (a restart): nblocks blocks of layer ranges `ranges` (tiling the
 * slab axis), block b taking the next counts[b] particles of `all` in their order, capacities
 * caps[b] (NULL: computed) and halo capacity halo_cap (0: computed).  0 or -1 (message). */
int tide_sim_setup_ranges(tide_sim *sim, const tide_case *c, const tide_block_view *all,
                          int nblocks, const tide_block_arg *ranges, const uint32_t *counts,
                          const uint32_t *caps, uint32_t halo_cap);
/* Whether this rank's blocks fit: its largest task's data on each GPU it may run on, and what
 * main memory still has to hold (tasks/sph_memory.c).  0, or -1 after one sentence saying what
 * does not fit and what to do. */
int tide_sim_check_memory(const tide_sim *sim);
/* Submits one time step and waits for its reduction (dt, health).  Returns 0, or -1 if the step
 * went unphysical (message printed; the particles are those after the bad step). */
int tide_sim_step(tide_sim *sim);
/* Copies every particle into host memory on rank `root` (-1: on every rank), growing *mem and
 * *all as needed.  Collective: every rank calls it.  0 or -1. */
int tide_sim_gather(tide_sim *sim, int root, void **mem, tide_block_view *all);
/* The same, also giving each block's particle count on `root` (counts[nblocks]; NULL: none). */
int tide_sim_gather_blocks(tide_sim *sim, int root, void **mem, tide_block_view *all,
                           uint32_t *counts);
/* Particle count and fullest block or halo (count/capacity), from the last step's reduction. */
size_t tide_sim_count(const tide_sim *sim, double *max_fill);
/* Re-splits the blocks by the current particle positions (load balance, capacity). */
int tide_sim_rebalance(tide_sim *sim);
void tide_sim_free(tide_sim *sim);

/* A particle-set view of a host block (no copy). */
void tide_set_view_of_block(const tide_block_view *v, tide_particle_set *s);

#endif
