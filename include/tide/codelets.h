/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every codelet of tide: one per file pair codelets/NAME.c (CPU implementation, and the codelet
 * with its performance model declared by TIDE_CODELET, codelet_decl.h) and codelets/NAME.cu
 * (CUDA implementation). */
#ifndef TIDE_CODELETS_H
#define TIDE_CODELETS_H
#include <starpu.h>
#include <stddef.h>
#include "tide/sph_params.h"

/* The most neighbours a block has: 26 in a 3-D grid of boxes. */
#define TIDE_MAX_NEIGHBOURS 26

/* Buffers: block (RW), cell starts (W, uint32 vector of layers*plane + 1), scratch.
 * Args: tide_sph_params, tide_block_arg.  Sorts the block's particles by cell key. */
extern struct starpu_codelet tide_cell_sort_cl;
/* Buffers: block (R), cell starts (R), scratch, then one halo (W) per reader, in tide_halo_cut's
 * order (include/tide/halo_cut.h), then (the gas scheme with per-block halos,
 * tide_grid.halo_block) the migration buffer (R) each neighbour sent this block, in
 * tide_halo_recv's order: their records of the neighbours' largest h.  Args: tide_sph_params,
 * tide_block_arg, tide_halo_recv, tide_halo_cut.  Copies the cells of the block each reader's
 * support reaches (the particles within 2h of the faces toward it; include/tide/gas_halo.h for
 * the gas scheme's widths). */
extern struct starpu_codelet tide_halo_pack_cl;
/* Who reads a block's face halos: neighbour j (sph_sim.h's nb[j]) reads the halo of face slot
 * slot[j] (tide_face_slots); n: how many neighbours' records follow the halos (0: none). */
typedef struct tide_halo_recv {
	int n;
	signed char slot[TIDE_MAX_NEIGHBOURS];
} tide_halo_recv;
/* Buffers: block (RW), cell starts (R), step reduction (REDUX), then one halo (R) per neighbour
 * block: the halo that neighbour packs for this block (halo_cut.h).  Args: tide_sph_params,
 * tide_block_arg, int (number of halos), int (the cells computed: enum tide_cell_part of
 * include/tide/cell_split.h; the interior's task has no halo). */
extern struct starpu_codelet tide_sph_forces_cl;
/* Buffers: halos (R), those a split block's boundary forces read.  No args, no work: it brings
 * them to its worker's memory while the block's interior forces run (codelets/halo_fetch.c). */
extern struct starpu_codelet tide_halo_fetch_cl;
/* Buffers: block (RW), cell starts (R), then one halo (R) per neighbour block, as sph_forces.
 * Args: tide_sph_params, tide_block_arg, int (number of halos), tide_motion_ids (the moving
 * bodies, motion.h).  Under physics.boundary = mdbc: the density of every boundary particle from
 * its ghost node (mdbc.h). */
extern struct starpu_codelet tide_mdbc_ghost_cl;
/* Buffers: block (RW).  Args: tide_sph_params.  Under physics.viscosity = laminar+sps: tau of
 * every particle from the velocity gradient of the last sph_forces (include/tide/sps.h). */
extern struct starpu_codelet tide_sps_tau_cl;
/* The gas scheme (physics.scheme: gas; include/tide/gas_math.h):
 * gas_density: buffers as mdbc_ghost (block RW, cell starts R, one halo R per neighbour), args
 *   tide_sph_params, tide_block_arg, int (halos).  h, rho, 1/Omega, Balsara switch.
 * gas_forces: buffers and args as sph_forces.  Acceleration, du/dt, the step reduction.
 * gas_integrate: buffers block (RW), step reduction (R); args tide_sph_params.  Kick-drift. */
extern struct starpu_codelet tide_gas_density_cl;
extern struct starpu_codelet tide_gas_forces_cl;
/* jeans_min: buffers block (R), tide_jeans_min record (RW | COMMUTE); args tide_gas_params,
 * float q_res.  The Jeans resolution check of a gas block (include/tide/jeans.h). */
extern struct starpu_codelet tide_jeans_min_cl;
/* Sink particles (include/tide/sink.h, tasks/sinks.c):
 * sink_gravity: buffers block (RW), tide_sink_force (W), step reduction (REDUX); args
 *   tide_sph_params, tide_sink_set.  The sinks' pull on the gas and the gas's on the sinks.
 * sink_accrete: buffers block (RW), scratch, tide_sink_accrete_rec (W); args tide_sph_params,
 *   tide_sink_set.  Accretion (the block compacted) and the creation candidates.
 * sink_region: buffers block (R), tide_sink_region_rec (W); args tide_sph_params,
 *   tide_sink_region_arg.  The gas within r_acc of the candidates under test. */
extern struct starpu_codelet tide_sink_gravity_cl;
extern struct starpu_codelet tide_sink_accrete_cl;
extern struct starpu_codelet tide_sink_region_cl;
extern struct starpu_codelet tide_gas_integrate_cl;
/* Step reduction record: init (W) and redux (RW, R) codelets, also used as the reset task. */
extern struct starpu_codelet tide_dt_init_cl;
extern struct starpu_codelet tide_dt_redux_cl;
/* Buffers: the combined record (W), then the ranks' records (R), any number.  No args. */
extern struct starpu_codelet tide_dt_combine_cl;
/* Buffers: block (RW), step reduction (R).  Args: tide_sph_params, tide_integrate_arg. */
extern struct starpu_codelet tide_integrate_cl;
/* Buffers: block (RW), step reduction (R).  Args: tide_sph_params, tide_body_motion_arg
 * (include/tide/motion.h).  Moves the moving bodies' boundary particles over one stage. */
extern struct starpu_codelet tide_body_motion_cl;
/* Buffers: block (R), the block's tide_body_sums (W).  Args: tide_sph_params,
 * tide_body_force_arg (include/tide/body_force.h).  The floating bodies' fluid force and torque
 * from this block's particles. */
extern struct starpu_codelet tide_body_force_cl;
/* Buffers: block (RW), scratch, then the low and high face buffer (W) of every split axis.
 * Args: params, block arg.  Moves particles that left the block's box out through the face they
 * crossed; drops those that left the domain. */
extern struct starpu_codelet tide_migrate_pack_cl;
/* Buffers: block (RW), scratch, then one face buffer (R) per neighbour.  Args: params, block
 * arg, tide_unpack_arg (the senders' boxes).  Appends the particles that are for this block. */
extern struct starpu_codelet tide_migrate_unpack_cl;
/* Buffers: block (R), staging block (W, always in main memory).  No args.  Copies the count and
 * the fields of the staging block's mask (a snapshot, tasks/snapshot_stage.c). */
extern struct starpu_codelet tide_snap_copy_cl;

/* Gauges (include/tide/gauge_math.h, tasks/gauge_tasks.c).
 * gauge_sample: buffers block (R), cell starts (R), the block's result (W, doubles,
 *   tide_gauge_block_len), then one halo (R) per neighbour.  Args: tide_sph_params,
 *   tide_block_arg, int (number of halos), tide_gauge_arg.  The block's share of every gauge.
 * gauge_combine: buffers the sums (W), then every block's result (R).  Arg: size_t (elements,
 *   tide_gauge_len).  Max of element 0 (the front), sums of the others, in block order. */
extern struct starpu_codelet tide_gauge_sample_cl;
extern struct starpu_codelet tide_gauge_combine_cl;

/* Self-gravity of the fluid (tasks/sph_gravity.c), around the Barnes-Hut tasks of bh_gravity.h:
 * sgrav_gather: buffers bodies (W, bh_body[n]), velocities (W, float4[n]: the fourth holds the
 *   body's gather index as bits, which bh_build permutes with the body), block offsets (W,
 *   uint32[nblocks + 1]), then every block of the rank (R).  Args: tide_sgrav_gather_arg.  Bodies in block
 *   order, positions relative to `centre`, fluid mass (boundary particles: mass 0); the bodies
 *   past the particles (particles that left the domain since the count) get mass 0.
 * sgrav_unsort: buffers velocities (R, Morton order after bh_build), accelerations in gather
 *   order (W, bh_acc[n]), then the walk's acceleration parts (R).  Args: tide_sgrav_unsort_arg.
 * sgrav_apply: buffers block (RW), accelerations in gather order (R), block offsets (R), step
 *   reduction (REDUX).  Args: tide_sph_params, int block (its index among the rank's blocks).  Adds the self-gravity to the fluid
 *   particles' acceleration and the force time-step limit cfl sqrt(h/|a|) of the new total to
 *   the reduction (boundary particles keep theirs). */
extern struct starpu_codelet tide_sgrav_gather_cl;
extern struct starpu_codelet tide_sgrav_unsort_cl;
extern struct starpu_codelet tide_sgrav_apply_cl;

#define TIDE_SGRAV_MAX_PARTS 64      /* = TIDE_GRAVITY_MAX_PARTS of bh_gravity.h */
#define TIDE_SGRAV_NO_ID 0xffffffffu /* gather index of a padding body */

typedef struct tide_sgrav_gather_arg {
	double centre[3];
	float mass;          /* of a fluid particle; < 0: each particle's own (the gas scheme) */
	uint32_t n;          /* bodies */
	int nblocks;
	float h_factor;      /* > 0: each body's softening h_factor h (gas: bh_params.soft_h) */
	float eps_nbody;     /* with h_factor > 0, the softening of collisionless particles */
} tide_sgrav_gather_arg;

typedef struct tide_sgrav_unsort_arg {
	int nparts;
	uint32_t r0[TIDE_SGRAV_MAX_PARTS], r1[TIDE_SGRAV_MAX_PARTS]; /* sorted range of each part */
} tide_sgrav_unsort_arg;

typedef struct tide_unpack_arg {
	int nsrc;
	tide_block_arg src[TIDE_MAX_NEIGHBOURS];
} tide_unpack_arg;

/* Integrator stage for tide_integrate_cl. */
enum tide_stage { TIDE_STAGE_VERLET = 0, TIDE_STAGE_EULER = 1, TIDE_STAGE_SYMP_PRED = 2,
                  TIDE_STAGE_SYMP_CORR = 3 };
typedef struct tide_integrate_arg {
	int stage;
} tide_integrate_arg;

/* Bytes of the scratch buffer (STARPU_SCRATCH: one per worker that runs them) of cell_sort,
 * halo_pack, migrate_pack, migrate_unpack and sink_accrete for blocks of at most `cap` particles,
 * with index lists of `list` entries: the largest block capacity where a block packs halos of
 * side faces or reads migrants (a block with faces), else 0 (one block alone).  Their CPU halves
 * use none of it (a token 512 bytes without CUDA workers); the CUDA halves CUB's temporary
 * storage, counters and the index list: about 0.1 byte per particle plus 4 * list (cell_sort's
 * keys, indices and gather space are in the block's work space, block.h). */
size_t tide_sort_scratch_bytes(size_t cap, size_t list);

#ifdef TIDE_USE_CUDA
void tide_cell_sort_cuda(void *buffers[], void *cl_arg);
void tide_halo_pack_cuda(void *buffers[], void *cl_arg);
void tide_sph_forces_cuda(void *buffers[], void *cl_arg);
void tide_halo_fetch_cuda(void *buffers[], void *cl_arg);
void tide_dt_init_cuda(void *buffers[], void *cl_arg);
void tide_dt_redux_cuda(void *buffers[], void *cl_arg);
void tide_dt_combine_cuda(void *buffers[], void *cl_arg);
void tide_integrate_cuda(void *buffers[], void *cl_arg);
void tide_body_motion_cuda(void *buffers[], void *cl_arg);
void tide_body_force_cuda(void *buffers[], void *cl_arg);
void tide_mdbc_ghost_cuda(void *buffers[], void *cl_arg);
void tide_sps_tau_cuda(void *buffers[], void *cl_arg);
void tide_gas_density_cuda(void *buffers[], void *cl_arg);
void tide_gas_forces_cuda(void *buffers[], void *cl_arg);
void tide_gas_integrate_cuda(void *buffers[], void *cl_arg);
void tide_jeans_min_cuda(void *buffers[], void *cl_arg);
void tide_sink_gravity_cuda(void *buffers[], void *cl_arg);
void tide_sink_accrete_cuda(void *buffers[], void *cl_arg);
void tide_sink_region_cuda(void *buffers[], void *cl_arg);
void tide_migrate_pack_cuda(void *buffers[], void *cl_arg);
void tide_migrate_unpack_cuda(void *buffers[], void *cl_arg);
void tide_snap_copy_cuda(void *buffers[], void *cl_arg);
size_t tide_cuda_scratch_bytes(size_t cap, size_t list);
void tide_sgrav_gather_cuda(void *buffers[], void *cl_arg);
void tide_sgrav_unsort_cuda(void *buffers[], void *cl_arg);
void tide_sgrav_apply_cuda(void *buffers[], void *cl_arg);
void tide_gauge_sample_cuda(void *buffers[], void *cl_arg);
void tide_gauge_combine_cuda(void *buffers[], void *cl_arg);
#endif

#endif
