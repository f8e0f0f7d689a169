/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One Barnes–Hut force evaluation as StarPU tasks (tasks/gravity.c), used by tide gravity,
 * tide nbody and the tests.  The caller owns the particle arrays; while registered they belong
 * to StarPU, and after tide_gravity_fini they hold the Morton-sorted particles, and acc their
 * accelerations and potentials.
 *
 * Several ranks (the same graph, tasks/gravity.c; particles moved between ranks outside it,
 * tasks/gravity_ranks.c): each rank holds its share of the particles (a
 * contiguous range of their global Morton order) and its own tree; every rank's virtual root is
 * sent to all, each rank sends every other rank the essential nodes of its tree for that rank's
 * box, and each rank adds the field of the nodes it received to that of its own tree. */
#ifndef TIDE_BH_GRAVITY_H
#define TIDE_BH_GRAVITY_H
#include <string.h>
#include <starpu.h>
#include "tide/bh_codelets.h"
#include "tide/codelet_decl.h"

#define TIDE_GRAVITY_MAX_PARTS 64

/* Where the gravity tasks run: enum tide_where of codelet_decl.h. */

typedef struct tide_gravity {
	uint32_t n;
	int nparts;                 /* walk tasks, each on a contiguous range of sorted particles */
	bh_params P;
	bh_body *body;              /* n (at least 1) */
	float *vel;                 /* 4 n floats: vx, vy, vz, spare; permuted with the bodies */
	bh_acc *acc;                /* n: ax, ay, az, potential (Morton order) */
	bh_range part[TIDE_GRAVITY_MAX_PARTS];
	starpu_data_handle_t hbody, hvel, hcells, hmeta, hgroups, hmom, hbscr, hwscr;
	starpu_data_handle_t hacc[TIDE_GRAVITY_MAX_PARTS];
	struct starpu_codelet build_cl, moments_cl, walk_cl, kick_cl, drift_cl;
	bh_cell universe;              /* shared root of the ranks' trees (half 0: none) */
	int leaf;                      /* the build's split threshold (tide_bh_leaf) */
	/* several ranks (tide_gravity_init_ranks; mpi = 0 otherwise) */
	int mpi, rank, size;
	uint32_t *counts;              /* particles of every rank */
	int64_t tag0;                  /* MPI tags, see tasks/gravity_tags.h */
	starpu_data_handle_t *rtree;   /* [5 size]: bodies, cells, moments, meta, velocities of every rank
	                                * (another rank's: one handle for all five, see init_ranks) */
	starpu_data_handle_t *hvroot;  /* [size]: virtual roots (registered where first named) */
	starpu_data_handle_t *hlet_out; /* [size]: essential nodes of this rank for rank q */
	starpu_data_handle_t *hlet_in;  /* [size]: essential nodes of rank q for this rank */
	unsigned char *let_reg;        /* [size]: hlet_out[q], hlet_in[q] registered (at first use) */
	starpu_data_handle_t hescr;
	int let_whole_tree;            /* tests: send whole trees (must not change the forces) */
	/* The coarse tree for far ranks (tasks/gravity.c, "Near and far ranks"): rank r is near
	 * rank s when their particle boxes are closer than far_nu times the largest side of s's;
	 * s sends near ranks their own essential nodes and all far ones one coarse tree.
	 * far_nu < 0: every rank gets its own essential nodes (all-to-all). */
	double far_nu;
	int nbox;                      /* boxes of each rank's cover (TIDE_GRAVITY_BOXES, bh_vroot_cover) */
	int fill;                      /* tide_bh_group_fill of the build: how the groups were cut */
	starpu_data_handle_t *hcoarse; /* [size]: coarse tree of rank q */
	/* The virtual roots of the near/far exchange gathered by recursive doubling (tasks/gravity.c,
	 * "Virtual roots by recursive doubling"; vgather = 0: each sent to every rank). */
	int vgather;
	int vg_levels;                 /* its rounds: floor(log2 size) */
	starpu_data_handle_t *hvg;     /* [(vg_levels + 1) size]: rank q's block after k rounds at
	                                * k size + q, registered where first named (NULL before) */
	bh_vroot *vr;                  /* [size]: the virtual roots of the last evaluation (host) */
	unsigned char *sent;           /* [size]: what this rank sent q by the last evaluation
	                                * (TIDE_LET_NONE, _NODES, _COARSE) */
	struct starpu_codelet vroot_cl, essential_cl, walk_let_cl, walk_sets_cl, vgather_cl;
	/* the walks over received sets: TIDE_GRAVITY_LET_WALK_SETS (one bh_walk_sets task per part
	 * over them all) or _EACH (one bh_walk_let per set and part); TIDE_GRAVITY_LET_WALK */
	int let_walk;
	/* the walks over received sets: their far nodes in local expansions with theta_l = far
	 * theta (bh_far2), 0: every node on every particle; TIDE_GRAVITY_FAR_FIELD */
	float far;
	int let_sets, let_tasks;       /* the last evaluation's received sets and walk tasks over them */
	/* tide_gravity_time_walks: execution time of this rank's walk tasks, [0] over its own tree,
	 * [1] over the essential nodes received, summed since timing was turned on [ns] */
	int time_walks, profiling_was; /* profiling_was: StarPU's status before, restored at off */
	int64_t walk_ns[2];
	/* The synthetic uniform domain (tide_gravity_init_synthetic; NULL otherwise): the walk and
	 * exchange tasks get their work as flops, the size of their performance models
	 * (tide_perfmodel_size), from its virtual tree, in real runs and simulated ones alike; a
	 * simulation build also takes the essential nodes' counts and the virtual roots from it. */
	const struct tide_gravity_synth *syn;
	double syn_own;                /* interactions per particle over the own tree */
	double syn_let_parts[2];       /* over the received sets, per particle: interactions (nodes
	                                * and particles on each particle) and far nodes expanded
	                                * (tide_gravity_synth_walk_parts) */
	double syn_coarse[2];          /* cells, particles of this rank's coarse tree */
	double *syn_io;                /* [6 size]: per rank q, the cells and particles this rank sends
	                                * q (its essential nodes), those q sends it (its nodes or its
	                                * coarse tree), and the interactions per particle with them and
	                                * the kind (TIDE_LET_*) q sends */
} tide_gravity;

/* Turns on (1) or off (0) the timing of the walk tasks from StarPU's profiling information
 * (which it enables, and at off puts back as it was, e.g. STARPU_PROFILING=1), and zeroes walk_ns when turning it on: what share of a rank's
 * walk goes to the essential nodes of other ranks. */
void tide_gravity_time_walks(tide_gravity *g, int on);

/* Walk tasks per rank when the caller leaves it to tide (nparts <= 0): without a GPU, four per
 * CPU worker (ncpu); on a GPU one, and with several ranks n / TIDE_GRAVITY_PART_BODIES, from 1
 * to TIDE_GRAVITY_RANK_PARTS: the exchange's tasks, at a higher priority, then wait for one part
 * of the own walk at most (tasks/gravity.c, docs/gravity.md "Priorities"). */
#define TIDE_GRAVITY_PART_BODIES 4000000u
#define TIDE_GRAVITY_RANK_PARTS 4
int tide_gravity_auto_parts(int gpu, int ncpu, int ranks, uint32_t n);
/* Registers the arrays.  nparts <= 0: tide_gravity_auto_parts for one rank. */
void tide_gravity_init(tide_gravity *g, bh_body *body, float *vel, bh_acc *acc, uint32_t n,
                       bh_params P, int nparts, enum tide_where where);
/* Several ranks: this rank's counts[rank] particles; counts[q] for every rank q, the same on all
 * ranks; box: lo x, y, z, hi x, y, z of all particles of all ranks (NULL: unknown), from which
 * the ranks' trees take a common root (bh_root_within).  Called by every rank in the same order
 * (it allocates MPI tags).  mpi: StarPU-MPI is in use (the caller's runtime says), the ranks
 * being its world.  Without MPI (or on one rank) the same as tide_gravity_init. */
void tide_gravity_init_ranks(tide_gravity *g, bh_body *body, float *vel, bh_acc *acc,
                             const uint32_t *counts, const float *box, bh_params P, int nparts,
                             enum tide_where where, int mpi);
/* The same for the synthetic domain syn (include/tide/gravity_synth.h; its size is the ranks'
 * count, 1 without MPI): syn->n_rank particles per rank in body, vel, acc, which a simulation
 * build never touches (the caller may give untouched address space); the walk and exchange
 * tasks carry their modelled work as flops; in a simulation build the essential nodes' counts
 * and the virtual roots are the model's (the exchange near/far from TIDE_GRAVITY_FAR_MIN_RANKS
 * ranks, as a real run).  box: as tide_gravity_init_ranks' (a real run's particles), NULL for
 * the synthetic cube [-1, 1]^3.  syn must outlive g. */
struct tide_gravity_synth;
void tide_gravity_init_synthetic(tide_gravity *g, const struct tide_gravity_synth *syn,
                                 bh_body *body, float *vel, bh_acc *acc, const float *box,
                                 bh_params P, int nparts, enum tide_where where, int mpi);
/* The bounding box lo x, y, z, hi x, y, z of n particles (zeros for none). */
void bh_bounding_box(const bh_body *b, uint32_t n, float box[6]);
/* Submit the three steps of one force evaluation (asynchronous).  With several ranks the walk
 * also sends the virtual roots and the essential nodes, and adds the received nodes' field. */
void tide_gravity_submit_build(tide_gravity *g);
void tide_gravity_submit_moments(tide_gravity *g);
void tide_gravity_submit_walk(tide_gravity *g);
/* The three in order: one whole force evaluation. */
void tide_gravity_submit_forces(tide_gravity *g);
/* Leapfrog parts: v += a dt (from the last walk), x += v dt. */
void tide_gravity_submit_kick(tide_gravity *g, float dt);
void tide_gravity_submit_drift(tide_gravity *g, float dt);
/* Number of cells and groups of the last build (waits for it). */
void tide_gravity_tree_size(tide_gravity *g, int32_t *ncells, int32_t *ngroups);
/* Makes body, vel and acc valid on the host until tide_gravity_release (mode STARPU_R, or
 * STARPU_RW to change them). */
void tide_gravity_acquire(tide_gravity *g);
void tide_gravity_acquire_mode(tide_gravity *g, enum starpu_data_access_mode mode);
void tide_gravity_release(tide_gravity *g);
void tide_gravity_fini(tide_gravity *g);
/* Waits for the submitted tasks (and, with several ranks, for every rank's communications). */
void tide_gravity_wait(tide_gravity *g);

/* Several ranks: every rank's particles collected on rank root (StarPU-MPI gather), rank after
 * rank, each in its current order; on root body, vel and acc hold sum(counts) entries (any of
 * them may be NULL), elsewhere they are not used.  tide_gravity_scatter is the reverse: root
 * sends each rank counts[q] particles from the arrays.  Called by all ranks; synchronous. */
void tide_gravity_gather(tide_gravity *g, int root, bh_body *body, float *vel, bh_acc *acc);
void tide_gravity_scatter(tide_gravity *g, int root, const bh_body *body, const float *vel,
                          const bh_acc *acc);
/* k numbers of every rank collected on root: all[k q .. k q + k) = rank q's mine[] (on root). */
void tide_gravity_gather_values(tide_gravity *g, int root, const double *mine, int k, double *all);
/* Essential nodes this rank sent to rank q by the last evaluation (0 for itself; waits). */
void tide_gravity_let_sent(tide_gravity *g, int q, uint32_t *ncells, uint32_t *nparts);
/* What this rank sent rank q by the last evaluation: its essential nodes for q's box, its coarse
 * tree (q is far), or nothing (q itself, or one of the two has no particles, coarse mode). */
enum { TIDE_LET_NONE, TIDE_LET_NODES, TIDE_LET_COARSE };
int tide_gravity_let_kind(const tide_gravity *g, int q);
/* The value of TIDE_GRAVITY_FAR for size ranks: far_nu (< 0: all-to-all); a value that is
 * neither "all", "auto" nor a number in [0, 1e6] gets a warning on rank 0 and the automatic
 * choice (coarse trees from TIDE_GRAVITY_FAR_MIN_RANKS ranks, nu = 1; in a simulation build,
 * TIDE_SIMGRID, all-to-all: the choice reads the virtual roots, which a simulation never computes). */
#define TIDE_GRAVITY_FAR_MIN_RANKS 8
/* The value of TIDE_GRAVITY_BOXES: how many boxes (1 .. BH_VROOT_BOXES, the default) cover each
 * rank's particles for the choice of the essential nodes it receives (bh_vroot_cover); another
 * value gets a warning on rank 0 and the default. */
int tide_gravity_boxes_choice(const char *v, int rank);
double tide_gravity_far_choice(const char *v, int size, int rank);
/* The value of TIDE_GRAVITY_VROOTS for size ranks: 1 when the near/far exchange gathers the
 * virtual roots by recursive doubling (log2 size rounds of one message per rank), 0 when each
 * rank sends its own to every rank (size - 1 messages).  "tree" or "all" forces one; unset or
 * "auto": the recursive doubling above TIDE_GRAVITY_VGATHER_MIN_RANKS ranks; another value gets
 * a warning on rank 0 and the automatic choice.  Only the near/far exchange reads every virtual
 * root (the all-to-all one sends each to the ranks that choose nodes against it). */
#define TIDE_GRAVITY_VGATHER_MIN_RANKS 8
int tide_gravity_vroots_choice(const char *v, int size, int rank);
/* Messages and bytes of virtual roots rank q sends per evaluation of the near/far exchange
 * (0 with the all-to-all exchange, whose essential-node tasks move them pair by pair). */
void tide_gravity_vroot_sent(const tide_gravity *g, int q, int *msgs, double *bytes);
/* TIDE_GRAVITY_LET_WALK: "sets" (default, also unset or empty) or "each"; anything else: a
 * warning on rank 0 and "sets". */
enum { TIDE_GRAVITY_LET_WALK_SETS = 0, TIDE_GRAVITY_LET_WALK_EACH = 1 };
int tide_gravity_let_walk_choice(const char *v, int rank);
/* TIDE_GRAVITY_FAR_FIELD: how the walks over received sets take the accepted nodes far from a
 * walk group (tide_gravity.far, bh_far2): "local" (default, also unset or empty: local expansions
 * with theta_l = TIDE_GRAVITY_FAR_RATIO theta), a number in (0, 1] (that ratio), or "direct"
 * (each node on each particle, as before); anything else: a warning on rank 0 and "local".
 * Returns the ratio, 0 for direct.  Why a ratio of theta: the expansion's error (~4 theta_l^3
 * at most per node, relative) then stays a fixed fraction of the tree's own (~theta^3 per node
 * for quadrupoles): theta_l 0.12 at theta 0.6, 0.02 at 0.1.  Why 0.2 (test_bh_let's far_field,
 * uniform cube of 5e4 on 4 ranks, theta 0.6, quadrupoles: the 99th percentile of the relative
 * difference from the direct walk): ratio 0.25 3.9e-4, 0.2 1.1e-4, 0.15 3.3e-5, 0.1 1.5e-7,
 * against the tree's own error of 9.0e-4 (a uniform cube's net forces are small against each
 * node's: the worst case for relative errors; Plummer 2e4: 5.3e-5, 1.3e-5, 2.9e-6, 4.0e-7). */
#define TIDE_GRAVITY_FAR_RATIO 0.2f
float tide_gravity_far_field_choice(const char *v, int rank);

/* The particle's index in the input, carried in the spare fourth velocity component (bits, not a
 * number: the build moves it with the particle and nothing computes with it). */
static inline void bh_set_id(float *vel4, uint32_t id) { memcpy(&vel4[3], &id, sizeof id); }
static inline uint32_t bh_get_id(const float *vel4)
{
	uint32_t id;
	memcpy(&id, &vel4[3], sizeof id);
	return id;
}

/* The split of n particles over size ranks: counts[q] = n(q+1)/size - nq/size, and order[] the
 * particle indices in the Morton order of the root cube of all of them (ties by index), so that
 * rank q takes order[n q / size ...] — a contiguous, compact piece of space. */
void bh_split_morton(const bh_body *b, uint32_t n, int size, uint32_t *order, uint32_t *counts);
/* This rank's share of n particles that every rank holds alike: its range of bh_split_morton,
 * copied to new arrays (at least one element each, acc zeroed) with each particle's input index
 * set by bh_set_id.  counts: size entries.  Returns -1 when out of memory. */
int bh_take_share(const bh_body *b, const float *vel, uint32_t n, int rank, int size,
                  bh_body **body_out, float **vel_out, bh_acc **acc_out, uint32_t *counts);

/* Double-precision direct sum for the particles sample[0..ns) of body[0..n) (tasks over
 * sample chunks, on CPU or GPU); out: 4 doubles per sample.  Synchronous. */
void tide_gravity_direct(const bh_body *body, uint32_t n, const uint32_t *sample, uint32_t ns,
                         bh_params P, double *out, enum tide_where where);
/* The same with each body's softening from vel (4 floats per body, bh_body_eps) when P.soft_h:
 * pairs take bh_soft2 of their two softenings, as the tree's walk does. */
void tide_gravity_direct_soft(const bh_body *body, const float *vel, uint32_t n,
                              const uint32_t *sample, uint32_t ns, bh_params P, double *out,
                              enum tide_where where);

/* Relative acceleration errors |a_tree - a_direct| / |a_direct| of the samples: median, 99th
 * percentile and maximum. */
typedef struct tide_gravity_err {
	double median, p99, max, pot_p99;
} tide_gravity_err;
tide_gravity_err tide_gravity_errors(const bh_acc *acc, const uint32_t *sample, uint32_t ns,
                                     const double *ref);
#endif
