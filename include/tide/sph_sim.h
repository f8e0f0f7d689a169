/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The SPH simulation as StarPU data: blocks of particles (boxes of cells: slabs along the longest
 * axis, or a 2-D / 3-D grid, tasks/decomposition.c), their cell tables, halo and migration
 * buffers, and the step reduction.  tasks/sph_step.c
 * submits one time step; tasks/sph_setup.c registers, gathers and rebalances.  Host blocks made
 * from a case are the program's (src/host_blocks.h). */
#ifndef TIDE_SPH_SIM_H
#define TIDE_SPH_SIM_H
#include <starpu.h>
#include "tide/block.h"
#include "tide/body_force.h"
#include "tide/case.h"
#include "tide/codelet_decl.h"
#include "tide/halo_cut.h"
#include "tide/sph_params.h"

typedef struct tide_sim_block {
	tide_block_arg range;             /* its box of cells */
	uint32_t cap;
	int owner;                        /* MPI rank that owns (computes) the block */
	double cost;                      /* estimated cost of its particles when the blocks were
	                                   * made (tide_decomp_cost; 0 after a rebalance without a
	                                   * gather): for the log's balance line */
	void *host;                       /* main-memory replica (pinned), on the owner only */
	void *virt;                       /* or, a modelled block (tide_sim_setup_lattice) on its
	                                   * owner: address space for it, never touched */
	starpu_data_handle_t B;           /* particles */
	starpu_data_handle_t C;           /* cell starts: uint32[cells of the box + 1] */
	starpu_data_handle_t R;           /* gas scheme: reach map, float[cells of the box]
	                                   * (gas_forces' work space, gas_math.h); else NULL */
	int nface;                        /* faces with neighbours (tide_face_slots) */
	starpu_data_handle_t H[26];       /* one halo per reader: the edge particles it reads
	                                   * (include/tide/halo_cut.h; cut.n of them) */
	tide_halo_cut cut;                /* ... their regions (tasks/halo_cuts.c) */
	uint32_t hcap[26];                /* ... and capacities (tide_sim_halo_cap) */
	starpu_data_handle_t M[6];        /* migrants through each face with neighbours */
	int nnb;                          /* neighbour blocks */
	int nb[26];                       /* their indices ... */
	/* bytes, not ints: every rank holds this record for every block, R of them on each of R
	 * ranks (R^2 in the one process of a simulation: 1016 bytes a block with ints, 784) */
	signed char nb_face[26];          /* ... the face of theirs that faces this block ... */
	signed char nb_slot[26];          /* ... its slot (their migrants through it) ... */
	signed char nb_halo[26];          /* ... and their halo this block reads (H[nb_halo]) */
} tide_sim_block;

typedef struct tide_sim {
	const tide_case *c;
	int mpi, rank, size;                       /* StarPU-MPI in use; this rank; ranks */
	int64_t tag0;                              /* first MPI tag of this registration */
	tide_sph_params P;
	int integrator, verlet_steps, verlet_count;
	int nblocks, nblocks_wanted;
	int p[3];                                  /* blocks along the key axes */
	int *cut[3];                               /* their cuts: cut[k][0 .. p[k]] */
	tide_sim_block *blk;
	uint32_t halo_cap;
	starpu_data_handle_t scratch;              /* per-worker sort scratch ... */
	size_t scratch_bytes;                      /* ... of this size (tide_sort_scratch_bytes) */
	starpu_data_handle_t red, red2;            /* step reductions (red2: symplectic stage 2) */
	tide_step_reduce red_host, red2_host;
	/* Under MPI, stage s (0: red, 1: red2): rank r's tasks reduce into part[s][r], owned by r,
	 * and every rank combines the first stage's parts into its own all[r] (dt_combine): one
	 * hop of small messages where a reduction at rank 0 and its broadcast took two.  red is
	 * then this rank's all[rank]; red2 its own part[1][rank], which nothing reads (the
	 * symplectic corrector steps by the first stage's time step).  Host copies: *_host. */
	starpu_data_handle_t *part[2], *all;
	tide_step_reduce *part_host[2], *all_host;
	/* Above TIDE_DT_TREE_MIN_RANKS ranks (or with TIDE_DT_REDUCTION=tree) the parts are
	 * combined by recursive doubling instead (dt_tree: log2 N rounds of one message per rank,
	 * not N - 1 messages): tree[k * size + q] is rank q's record after fold/round k (owned
	 * by q), the last round writing all[q] itself. */
	int dt_tree, dt_levels;
	starpu_data_handle_t *tree;
	tide_step_reduce *tree_host;
	long step;
	double t;
	tide_step_reduce last;                     /* reduction of the last step */
	/* Called with each step's reduction before the host uses it (src/step_trace.c: records it
	 * for --record-steps, replaces it from the record for --replay-steps, as a simulated run
	 * must, whose tasks compute nothing); NULL: none.  0, or -1 to stop the run. */
	int (*on_reduce)(void *arg, long step, tide_step_reduce *r);
	void *on_reduce_arg;
	size_t n_total;                            /* particles at the last count */
	int rebalances;
	struct tide_sph_gravity *grav;             /* self-gravity (NULL: off), sph_gravity.h */
	/* The blocks whose tasks this rank submits (tasks/block_lists.c), ascending: mine[] the
	 * blocks it owns (tasks touching only their block run there and nowhere else matter),
	 * near[] those and their neighbours (a task reading a neighbour's halo or migrants needs
	 * that neighbour's owner, who sends them).  Without MPI both are every block.  Rebuilt at
	 * every registration (setup, rebalance, rank exchange): owners change there. */
	int *mine, nmine, *near, nnear;
	int prune;                                 /* under MPI, unless TIDE_PRUNE=0 */
	/* A pruned simulation of the synthetic box registers only the handles this rank's tasks
	 * name (tasks/sph_setup.c, sparse_needs): a far block's and a far rank's are NULL, and
	 * nothing may gather or rebalance the blocks. */
	int sparse;
	long nsubmit;                              /* tasks this rank submitted (counted by SUBMIT) */
	int mig_records;                           /* a migration was submitted since the migration
	                                            * buffers were registered: they hold the blocks'
	                                            * records for halo_pack (gas_halo.h) */
	double submit_us;                          /* host time of the last step's submission */
	/* Floating bodies (include/tide/rigid.h, tasks/floating.c): their states by rigid index
	 * (from the case at the first step, or from a checkpoint: rigid_set), the poses their
	 * particles are at, the bodies' steps for the next body_motion, and every block's
	 * body_force sums (nbsum handles, plain StarPU data of this rank). */
	int nrigid, rigid_set;
	tide_rigid rigid[TIDE_MAX_FLOAT];
	tide_pose rigid_pose[TIDE_MAX_FLOAT];
	int nbsum;
	starpu_data_handle_t *bsum;
	tide_body_sums *bsum_host;
	struct tide_sinks *sinks;                  /* sink particles (NULL: none yet), sinks.h */
} tide_sim;

/* Floating bodies (tasks/floating.c): after the force pass of a stage (enum tide_stage) and its
 * reduction, the bodies' force and torque (body_force per block, summed in block order on every
 * rank) and one stage of their rigid integration; the host waits for the forces here.  Nothing
 * without floating bodies. */
void tide_sim_floating_stage(tide_sim *sim, int stage);
/* The floating bodies' steps from the poses their particles are at to their current states,
 * into M->F (body_motion's); the poses advance. */
void tide_sim_floating_steps(tide_sim *sim, tide_body_motion_arg *M);
/* Unregisters the body_force sums (tide_sim_free). */
void tide_sim_floating_free(tide_sim *sim);

/* Under mDBC noslip/freeslip: the prescribed moving bodies' rigid velocity fields at the step's
 * start into sim->P (wall_*, the walls' own velocity of sph_pair.h's tide_wall_velocity);
 * nwall = 0 otherwise (tasks/wall_velocity.c).  Before a step's force passes. */
void tide_sim_wall_velocities(tide_sim *sim);

/* Sink particles (tasks/sinks.c, include/tide/sinks.h): the sinks' gravity on the gas of a
 * step, submitted after the self-gravity and before the step reduction's combination; the
 * sinks' step, accretion and creation after the gas's drift (waits for the step); the
 * records' handles released (unregister) and the table freed (tide_sim_free). */
void tide_sim_sinks_gravity(tide_sim *sim);
void tide_sim_sinks_step(tide_sim *sim);
void tide_sim_sinks_release(tide_sim *sim);
void tide_sim_sinks_free(tide_sim *sim);

/* Ranks above which the time step's records are combined by recursive doubling (sph_sim's
 * dt_tree) rather than sent by every rank to every rank; and the number of doubling rounds,
 * floor(log2 nranks). */
#define TIDE_DT_TREE_MIN_RANKS 8
int tide_dt_tree_levels(int nranks);

/* Restricts every SPH codelet to the given workers (tide_codelet_restrict). */
void tide_sph_codelets_where(enum tide_where where);
/* Restricts the SPH codelet called name (its StarPU name, e.g. "body_force") to where; -1 if
 * no SPH codelet has that name.  For TIDE_CPU_CODELETS (src/cmd_run.c): pinning one codelet at
 * a time to the CPU workers of a GPU run finds which CUDA half makes a run differ. */
int tide_sph_codelet_where(const char *name, enum tide_where where);
/* The SPH codelets' names, comma-separated, into out (for messages). */
void tide_sph_codelet_names(char *out, size_t size);

/* Physics parameters and cell grid of a case. */
void tide_sim_params(const tide_case *c, tide_sph_params *P);
/* Activates the blocks' aux fields the case's scheme needs (block.h: tide_block_set_aux):
 * none for WCSPH.  tide_case_load calls it; so must anything that changes the scheme after. */
void tide_sim_set_aux(const tide_case *c);

/* Capacity of a block that starts with cnt particles (nb blocks, avg particles per block).
 * A run rebalances when a block or halo is 80 % full, so every block of several starts well
 * below that, with room for inflow between rebalances.  One block alone covers the domain and
 * can only lose particles: it gets a fixed margin, and its fill is not watched
 * (tide_sim_count).  GPU memory per particle is a figure users compare: that block costs its
 * 77 bytes per particle, not 96.  (Also the capacity of a host block built to become the
 * single block, src/host_blocks.c.) */
static inline uint32_t tide_sim_block_cap(uint32_t cnt, int nb, uint32_t avg, uint32_t halo_cap)
{
	if (nb == 1) return cnt + 1024;
	return cnt + cnt / 4 + 1024 + cnt / 4 + avg / 4 + 2 * halo_cap;
}

/* The halos each block packs, one per reader (include/tide/halo_cut.h, tasks/halo_cuts.c):
 * every block's cut, hcap and its neighbours' nb_halo, from the neighbour lists (nb, nb_face).
 * 0, or -1 after a message (lists not symmetric). */
int tide_sim_halo_cuts(tide_sim *sim);
/* Capacity of halo r of block b: halo_cap for a whole face, a cut halo its share of it. */
uint32_t tide_sim_halo_cap(const tide_sim *sim, int b, int r);
/* A simulation build's count of halo r of block b from its block's count and face counts
 * face6[6] (the synthetic lattice's product form). */
uint32_t tide_sim_halo_model_count(const tide_sim *sim, int b, int r, const uint32_t *face6,
                                   uint32_t count);

/* Splits the particles of `all` into about nblocks blocks as the case's decomposition says and
 * registers everything.  mpi: StarPU-MPI is in use (the program's runtime says; tasks do not
 * ask it), the ranks then being StarPU-MPI's world.  Under MPI every rank passes the same
 * particles; blocks belong to ranks as the case's block_owners says (include/tide/decomposition.h).
 * 0 or -1. */
int tide_sim_setup(tide_sim *sim, const tide_case *c, const tide_block_view *all, int nblocks,
                   int mpi);
/* tide_sim_setup, which takes *mem (from tide_host_block_build, holding `all`) as the host
 * replica of the single block when it can: *mem is then NULL, and `all` is that block's data
 * until the simulation is freed.  Otherwise *mem is left to the caller. */
int tide_sim_setup_take(tide_sim *sim, const tide_case *c, void **mem, const tide_block_view *all,
                        int nblocks, int mpi);
/* The same with given blocks (a restart): nblocks blocks of boxes `ranges` (an aligned grid in
 * block order, as tide_sim_setup makes), block b taking the next counts[b] particles of `all` in their order, capacities
 * caps[b] (NULL: computed), halo capacity halo_cap (0: computed) and owners (NULL: from the
 * case's block_owners, as tide_sim_setup; a checkpoint's on as many ranks).  0 or -1 (message). */
int tide_sim_setup_ranges(tide_sim *sim, const tide_case *c, const tide_block_view *all,
                          int nblocks, const tide_block_arg *ranges, const uint32_t *counts,
                          const uint32_t *caps, uint32_t halo_cap, const int *owners, int mpi);
/* The synthetic fluid box L (include/tide/lattice.h) split into blocks as tide_sim_setup splits
 * its particles, without them: counts and faces from the lattice, every block registered
 * without memory (a simulation build, whose tasks compute nothing).  0 or -1. */
struct tide_lattice;
int tide_sim_setup_lattice(tide_sim *sim, const tide_case *c, const struct tide_lattice *L,
                           int nblocks, int mpi);
/* Whether this rank's blocks fit: its largest task's data on each GPU it may run on, and what
 * main memory still has to hold (tasks/sph_memory.c).  0, or -1 after one sentence saying what
 * does not fit and what to do. */
int tide_sim_check_memory(const tide_sim *sim);
/* The bytes StarPU allocates on a memory node that holds all of this rank's SPH data (one GPU
 * per rank, the bench ladder's case), from the formulas the allocations use (tasks/
 * sph_memory.c): copies scratch buffers (the workers there that run the sort-based codelets:
 * one per GPU), suballoc whether StarPU's suballocator applies (a GPU, unless
 * STARPU_SUBALLOCATOR=0: tide_suballocator_on).  total is what starpu_memory_get_used should
 * show there after a step: the allocations above 4 MiB and the suballocator's 32 MiB chunks
 * that hold the others; the other fields are the allocations themselves by kind. */
typedef struct tide_node_bytes {
	double blocks;  /* particle blocks: capacity x bytes per particle (77 for WCSPH) */
	double cells;   /* cell tables (and the gas scheme's reach maps) */
	double halos;   /* edge (halo) and migrant buffers, own and received */
	double scratch; /* the sort scratch, copies of it */
	double records; /* the step reductions */
	double chunks;  /* the suballocator's chunks (holding every allocation <= 4 MiB): as few
	                 * as can hold them, which total counts */
	double chunks_max; /* as many as StarPU's first fit can need for them (sph_memory.c) */
	double total;
} tide_node_bytes;
void tide_sim_node_bytes(const tide_sim *sim, int copies, int suballoc, tide_node_bytes *nb);
int tide_suballocator_on(void);
/* The index lists of the sort scratch (tide_sort_scratch_bytes' list) for blocks of capacity up
 * to maxcap (tasks/sph_setup.c). */
size_t tide_sim_scratch_list(const tide_sim *sim, size_t maxcap);
/* Submits one time step and waits for its reduction (dt, health).  Returns 0, -1 if the step
 * went unphysical (message printed; the particles are those after the bad step), or -2 if
 * on_reduce stopped the run (it printed why). */
int tide_sim_step(tide_sim *sim);
/* Copies every particle into host memory on rank `root` (-1: on every rank), growing *mem and
 * *all as needed.  Collective: every rank calls it.  0 or -1. */
int tide_sim_gather(tide_sim *sim, int root, void **mem, tide_block_view *all);
/* The same, also giving each block's particle count on `root` (counts[nblocks]; NULL: none). */
int tide_sim_gather_blocks(tide_sim *sim, int root, void **mem, tide_block_view *all,
                           uint32_t *counts);
/* The particles and bytes (as MPI messages) that this rank's blocks' halos hold now, summed
 * over its blocks' faces (tasks/halo_stats.c): after a step, what its forces read.  Waits for
 * the halos: a measurement, not for the step loop. */
void tide_sim_halo_stats(tide_sim *sim, uint64_t *particles, uint64_t *bytes);
/* Particle count and fullest block or halo (count/capacity), from the last step's reduction. */
size_t tide_sim_count(const tide_sim *sim, double *max_fill);
/* Re-splits the blocks by the current particle positions (load balance, capacity).  On several
 * ranks no rank gathers the particles: the cuts come from cost projections summed over the ranks
 * and each particle goes from its old owner to its new one (TIDE_REBALANCE=gather: the gather,
 * the same blocks bit for bit). */
int tide_sim_rebalance(tide_sim *sim);
/* The same with the cuts placed by measured cost: block_time[b] is the time block b's tasks
 * took (any unit, the same on every rank); its particles share it.  fluid_old / fluid_new (NULL
 * or one entry per rank) receive the fluid particles each rank held before and holds after.
 * 0: redistributed; 1: the measured costs give the current cuts, nothing was moved; -1: failed. */
int tide_sim_rebalance_measured(tide_sim *sim, const double *block_time, uint32_t *fluid_old,
                                uint32_t *fluid_new);
void tide_sim_free(tide_sim *sim);
/* sim->mine and sim->near from the blocks' owners and neighbours (0, or -1: out of memory). */
int tide_sim_block_lists(tide_sim *sim);
void tide_sim_block_lists_free(tide_sim *sim);
/* 1 if block b is in sim->near (this rank submits its tasks that read neighbours). */
int tide_sim_block_near(const tide_sim *sim, int b);

/* The block whose box holds a point. */
int tide_sim_block_of(const tide_sim *sim, double x, double y, double z);

/* Submits cell_sort, halo_pack and sph_forces of every block into sim->red (the first part of
 * a step; with physics.self_gravity also its tasks), with the given codelets (NULL: tide's),
 * for tests that compare implementations. */
void tide_sim_submit_forces_with(tide_sim *sim, struct starpu_codelet *sort,
                                 struct starpu_codelet *halo, struct starpu_codelet *forces);

/* Submits cell_sort and halo_pack of every block: cell lists and halos of the particles as they
 * are now (between steps: tasks/gauge_tasks.c; --profile counts them as the gauges'). */
void tide_sim_submit_sort_halos(tide_sim *sim);

/* Self-gravity potential energy [J] of the particles now, sum m phi / 2 (a tree evaluation of
 * its own; waits for it).  0 without self-gravity. */
double tide_sim_self_gravity_energy(tide_sim *sim);

/* Collective.  The Jeans resolution check of a self-gravitating gas (include/tide/jeans.h,
 * tasks/gas_jeans.c): on rank 0, *out gets the least c_s^3 / sqrt(rho) of all particles, the
 * density there, the number of particles with c_s^3 / sqrt(rho) < k m_i (k: the threshold per
 * unit mass, m_i each particle's own) and the least (c_s^3 / sqrt(rho)) / m_i; waits for it.
 * 0, or -1 (not a self-gravitating gas run; *out empty). */
struct tide_jeans_min;
int tide_sim_jeans(tide_sim *sim, double k, struct tide_jeans_min *out);

/* Submits migrate_pack and migrate_unpack of every block (the last part of a step). */
void tide_sim_submit_migration(tide_sim *sim);

#endif
