// SPDX-License-Identifier: LGPL-2.1-or-later
// One SPH time step as StarPU tasks: the whole task graph of a step is in this file.
//
// per block b (a box of cells; its neighbours n are the blocks touching it, up to 26):
//   cell_sort(B[b])                       keys, radix sort, reorder, cell starts C[b]
//   halo_pack(B[b]) -> H[b][r]            one halo per reader r: the cells of b its support
//                                         reaches (include/tide/halo_cut.h: the boundary cell
//                                         layer of the face toward it, cut to a strip or a column
//                                         for an edge or corner neighbour; the gas scheme: as many
//                                         layers as the largest h of b and of the neighbours
//                                         reading the face needs, from their records in
//                                         M[n][f_nb], include/tide/gas_halo.h)
//   mdbc_ghost(B[b], C[b], H[n][r_b]...) with physics.boundary = mdbc: boundary particles'
//                                         densities from their ghosts (include/tide/mdbc.h),
//                                         then halo_pack again (the halos' boundary densities)
//   dt_init(red)                          (once; under MPI once per rank r, of part[r]) reset
//                                         of the step reduction
//   with physics.scheme = gas (include/tide/gas_math.h), in place of mdbc_ghost, sph_forces,
//   sps_tau and integrate:
//     gas_density(B[b], C[b], H[n][r_b]...)  h iteration, rho, grad-h factor, Balsara switch
//     halo_pack(B[b]) -> H[b][f]               again: the neighbours' new h, rho, ...
//     gas_forces(B[b], C[b], R[b], H[n][r_b]...) -> red   as sph_forces: a, du/dt, time step
//                                              (R: its reach map, work space)
//     the halos of the next step carry the layers the largest h of the two blocks they join
//     needs (migrate_pack's records; with TIDE_GAS_HALOS=global the step's: red.hmax)
//     (self-gravity, dt_combine as below)
//     gas_integrate(B[b], red)                 kick-drift-kick leapfrog
//   sph_forces(B[b], C[b], H[n][r_b]...) -> red (REDUX: CFL time step, health), reading of
//                                         each neighbour the halo it cut for b; under MPI into
//                                         part[owner of b]
//     or, split (TIDE_FORCES_SPLIT; by default where b has a neighbour on another rank,
//     include/tide/cell_split.h), the same bits in two tasks:
//     sph_forces(B[b], C[b]) -> red          the interior cells, no halo: runs while they travel
//     halo_fetch(H[n][r_b]), one per halo   on a GPU: nothing computed, each halo brought up
//                                            while the interior runs
//     sph_forces(B[b], C[b], H[n][r_b]...) -> red   the boundary cells
//   sps_tau(B[b])                         with physics.viscosity = laminar+sps: tau of every
//                                         particle from the gradient sph_forces just wrote, for
//                                         the next sph_forces (tau lags one force pass)
//   with physics.self_gravity (tasks/sph_gravity.c):
//     sgrav_gather(B[all]) -> bodies      every particle, its gather index kept for the way back
//     bh_build, bh_moments, bh_walk       the Barnes-Hut tree and field (tasks/gravity.c)
//     sgrav_unsort -> field in gather order
//     sgrav_apply(B[b]) -> red (REDUX)    a += field (fluid), CFL force limit of the new total
//   under MPI, per rank r:
//     dt_combine(part[0..N-1]) -> all[r]  every rank's record to every rank: one hop
//     or, above TIDE_DT_TREE_MIN_RANKS ranks, recursive doubling (finish_reduction_tree):
//     dt_combine(part[q], part[q+P]) -> tree[0][q]     fold of the ranks >= P = 2^floor(log2 N)
//     dt_combine(x[q], x[q^2^k]) -> tree[k+1][q]        rounds k = 0 .. L-1 (the last: all[q])
//     dt_combine(all[q-P]) -> all[q]                    back to the folded ranks
//   integrate(B[b], red)                  Verlet (or symplectic predictor ... corrector); under
//                                         MPI reading all[owner of b]
//   body_force(B[b]) -> S[b]              with floating bodies (tasks/floating.c), after each
//                                         force pass: the host sums S[] in block order and
//                                         integrates the bodies (include/tide/rigid.h)
//   body_motion(B[b], red)                with moving bodies (include/tide/motion.h), after each
//                                         integrate: their boundary particles to the stage's
//                                         time (and once before the first step: their
//                                         velocities at t = 0)
//   migrate_pack(B[b]) -> M[b][f]         particles that left the box, by the face they crossed
//   migrate_unpack(B[b], M[n][f_nb]...)   those of them inside b's box (not for a block without
//                                         neighbours: nothing to receive)
// The host then reads the reduction (the one value per step the algorithm needs: the global
// time step) to advance the clock and check the run is still physical.  With 1-D slabs a block
// has two faces and two neighbours: the multi-GPU paper's scheme.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "tide/cell_split.h"
#include "tide/codelets.h"
#include "tide/gas_math.h"   /* the gas halos' depth */
#include "tide/motion.h"
#include "rank_doubling.h"
#include "sph_gravity.h"
#include "tide/sph_sim.h"
#include "tide/step_profile.h"

/* Under MPI a task runs on the owner of the block it writes and StarPU-MPI moves what it reads
 * from other ranks (halos, migrants, the time step).  A rank submits only the tasks it runs or
 * feeds (sph_sim.h's mine[], near[]; StarPU-MPI needs no other rank's tasks): a task of block b
 * that touches b alone, on b's owner (MINE); one that reads b's neighbours' halos or migrants,
 * on b's owner and on the owners of those neighbours, who send them (NEAR).  The writers of
 * every halo and migrant buffer a rank receives are then in its NEAR loops too, so its
 * StarPU-MPI receive cache sees each of their writes and needs no flush.  The count of tasks
 * submitted (nsubmit) shows the pruning (TIDE_SUBMIT_COUNT, tests/prune_ranks). */
#define SUBMIT(sim, ...)                                                                    \
	do {                                                                                    \
		(sim)->nsubmit++;                                                               \
		STARPU_CHECK_RETURN_VALUE((sim)->mpi ? starpu_mpi_task_insert(MPI_COMM_WORLD, __VA_ARGS__) \
		                                     : starpu_task_insert(__VA_ARGS__),            \
		                          "task insert");                                        \
	} while (0)
#define FOR_MINE(sim, b) for (int i_ = 0, b; i_ < (sim)->nmine && ((b) = (sim)->mine[i_], 1); i_++)
#define FOR_NEAR(sim, b) for (int i_ = 0, b; i_ < (sim)->nnear && ((b) = (sim)->near[i_], 1); i_++)

/* With --profile, every task reports its execution and data-wait time to step_profile.c. */
#define PROFILE(kind) PROFILE_B(kind, -1)
/* ... and with the load balancer on, the time of block b's tasks (tasks/load_balance.c). */
#define PROFILE_B(kind, b) STARPU_CALLBACK_WITH_ARG_NFREE,                                     \
	tide_profile_enabled() || tide_profile_blocks_enabled() ? tide_profile_cb : NULL,         \
	tide_profile_arg(kind, b)

/* A task's data: fixed handles first, then a variable list (halos, face buffers). */
typedef struct data_list {
	struct starpu_data_descr d[3 + 2 * TIDE_MAX_NEIGHBOURS]; /* halo_pack: 3, halos, records */
	int n;
} data_list;

static void add(data_list *l, starpu_data_handle_t h, enum starpu_data_access_mode mode)
{
	l->d[l->n].handle = h;
	l->d[l->n].mode = mode;
	l->n++;
}

/* A halo of a neighbour: a sparse registration (a simulation, sph_setup.c's sparse_needs) left
 * NULL those this rank neither reads nor writes, and a task of a block it does not own names
 * only its own (StarPU-MPI: the executing rank names them all, the others need only the data
 * they send or whose cache they invalidate). */
static void add_halo(data_list *l, starpu_data_handle_t h, enum starpu_data_access_mode mode)
{
	if (!h) return;
	l->d[l->n].handle = h;
	l->d[l->n].mode = mode;
	l->n++;
}

/* The record a block's tasks reduce into in stage s (0: red, 1: red2) ... */
static starpu_data_handle_t red_into(const tide_sim *sim, int s, int owner)
{
	return sim->mpi ? sim->part[s][owner] : s ? sim->red2 : sim->red;
}

/* ... and the one they read the step's global result (the first stage's) from. */
static starpu_data_handle_t red_from(const tide_sim *sim, int owner)
{
	return sim->mpi ? sim->all[owner] : sim->red;
}

/* kind: the profile family the tasks count in (TIDE_K_SORT, TIDE_K_HALO; the gauges' own sort and
 * halos before their measurement: TIDE_K_GAUGES) */
static void submit_sort(tide_sim *sim, struct starpu_codelet *cl, int kind)
{
	FOR_MINE(sim, b) {
		tide_sim_block *k = &sim->blk[b];
		SUBMIT(sim, cl, STARPU_RW, k->B, STARPU_W, k->C,
		        STARPU_SCRATCH, sim->scratch, STARPU_VALUE, &sim->P, sizeof sim->P,
		        STARPU_VALUE, &k->range, sizeof k->range, STARPU_NAME, "cell_sort", PROFILE_B(kind, b), 0);
	}
}

/* The gas scheme's halos per block (include/tide/gas_halo.h): which face of b each neighbour
 * reads (the slot it names for b in its own list), and the migration buffer each neighbour sent
 * b, whose record (the neighbour's largest h) b's halo_pack reads.  Those buffers are already
 * on b's rank (migrate_unpack read them), and their next writer comes after the neighbours'
 * forces read b's halos: no message and no wait are added. */
static void halo_receivers(const tide_sim *sim, int b, data_list *l, tide_halo_recv *R)
{
	const tide_sim_block *k = &sim->blk[b];
	R->n = 0;
	/* none before the first migration after a registration: the global width then */
	if (!sim->P.grid.halo_block || !sim->mig_records) return;
	for (int j = 0; j < k->nnb; j++) {
		const tide_sim_block *o = &sim->blk[k->nb[j]];
		int s = -1;
		for (int i = 0; i < o->nnb && s < 0; i++)
			if (o->nb[i] == b) s = o->nb_slot[i];
		STARPU_ASSERT_MSG(s >= 0, "block %d is not a neighbour of its neighbour %d", b, k->nb[j]);
		R->slot[R->n++] = (signed char)s;
		add(l, o->M[k->nb_slot[j]], STARPU_R);
	}
}

static void submit_halos(tide_sim *sim, struct starpu_codelet *cl, int kind)
{
	FOR_NEAR(sim, b) {
		tide_sim_block *k = &sim->blk[b];
		/* no face, nothing to pack (a block alone); and under StarPU-MPI a task that writes
		 * nothing has no owner to run on */
		if (!k->nface) continue;
		data_list l = {.n = 0};
		tide_halo_recv R;
		add(&l, k->B, STARPU_R);
		add(&l, k->C, STARPU_R);
		add(&l, sim->scratch, STARPU_SCRATCH);
		for (int r = 0; r < k->cut.n; r++) add_halo(&l, k->H[r], STARPU_W);
		halo_receivers(sim, b, &l, &R);
		SUBMIT(sim, cl, STARPU_DATA_MODE_ARRAY, l.d, l.n, STARPU_VALUE, &sim->P, sizeof sim->P,
		        STARPU_VALUE, &k->range, sizeof k->range, STARPU_VALUE, &R, sizeof R,
		        STARPU_VALUE, &k->cut, sizeof k->cut, STARPU_NAME, "halo_pack",
		        PROFILE_B(kind, b), 0);
	}
}

/* A per-particle gather pass over every block, its own cells and its neighbours' halos (the
 * buffers of sph_forces without the reduction): mdbc_ghost, gas_density; `extra` (if not NULL)
 * is one more value for the codelet, after P, the box and the halo count. */
static void submit_gather(tide_sim *sim, struct starpu_codelet *cl, int kind, const void *extra,
                          size_t extra_size)
{
	FOR_NEAR(sim, b) {
		tide_sim_block *k = &sim->blk[b];
		data_list l = {.n = 0};
		for (int j = 0; j < k->nnb; j++) add_halo(&l, sim->blk[k->nb[j]].H[k->nb_halo[j]], STARPU_R);
		int nh = k->nnb;
		if (extra) {
			SUBMIT(sim, cl, STARPU_RW, k->B, STARPU_R, k->C,
			        STARPU_DATA_MODE_ARRAY, l.d, l.n, STARPU_VALUE, &sim->P, sizeof sim->P,
			        STARPU_VALUE, &k->range, sizeof k->range, STARPU_VALUE, &nh, sizeof nh,
			        STARPU_VALUE, extra, extra_size, STARPU_NAME, cl->name, PROFILE_B(kind, b), 0);
		} else {
			SUBMIT(sim, cl, STARPU_RW, k->B, STARPU_R, k->C,
			        STARPU_DATA_MODE_ARRAY, l.d, l.n, STARPU_VALUE, &sim->P, sizeof sim->P,
			        STARPU_VALUE, &k->range, sizeof k->range, STARPU_VALUE, &nh, sizeof nh,
			        STARPU_NAME, cl->name, PROFILE_B(kind, b), 0);
		}
	}
}

/* physics.boundary = mdbc: every block's boundary particles take their ghost densities, from the
 * same block and halos as the step's first sph_forces (once a step, before it, as DualSPHysics'
 * default: not again before the symplectic corrector, but see mdbc_before_corrector).  The caller packs the halos again, so
 * that they carry the new boundary densities too.  Returns 1 if it submitted anything. */
static int submit_mdbc(tide_sim *sim)
{
	if (sim->P.boundary != TIDE_BOUNDARY_MDBC) return 0;
	const tide_motion_table *T = &sim->c->motion;
	tide_motion_ids ids = {.n = T->nbody};
	for (int k = 0; k < T->nbody; k++) {
		ids.id0[k] = T->body[k].id0;
		ids.id1[k] = T->body[k].id1;
	}
	submit_gather(sim, &tide_mdbc_ghost_cl, TIDE_K_MDBC, &ids, sizeof ids);
	return 1;
}

/* Whether the ghost pass runs again before the symplectic corrector's force pass: under mDBC
 * noslip or freeslip with floating bodies (DualSPHysics' MdbcCorrector runs it there under its
 * slip modes 2 and 3).  Else the walls' mirrored velocities, from the step's start, are held
 * through the corrector while the fluid and the bodies have moved half a step: measured on
 * tests/data/floating_box.yaml under noslip, the fluid force on the box then oscillates at
 * ~200 Hz with a standard deviation of 283 N/m about its weight of 196 N/m, from the fixed
 * walls' mirror alone (2.7 N/m with this pass, as under vel0). */
static int mdbc_before_corrector(const tide_sim *sim)
{
	return sim->integrator == 1 && sim->P.boundary == TIDE_BOUNDARY_MDBC &&
	       sim->P.mdbc_slip != TIDE_SLIP_VEL0 && sim->c->nfloating > 0;
}

/* TIDE_FORCES_SPLIT (docs/commands.md): "auto" (the default, also when unset or empty) splits
 * the force task of a block with a neighbour on another rank, whose halos cross the network;
 * "on" every block with a neighbour; "off" none. */
enum { SPLIT_OFF, SPLIT_AUTO, SPLIT_ON };
static int forces_split_mode(const tide_sim *sim)
{
	const char *e = getenv("TIDE_FORCES_SPLIT"); /* read each time: the tests switch it */
	if (!e || !*e || !strcmp(e, "auto")) return SPLIT_AUTO;
	if (!strcmp(e, "on")) return SPLIT_ON;
	if (!strcmp(e, "off")) return SPLIT_OFF;
	static int warned;
	if (sim->rank == 0 && !warned++)
		fprintf(stderr, "tide: warning: TIDE_FORCES_SPLIT='%s' is none of 'auto', 'on', "
		        "'off': auto (blocks with a neighbour on another rank).\n", e);
	return SPLIT_AUTO;
}

/* Whether block b's WCSPH forces go in two tasks (include/tide/cell_split.h): the interior's,
 * which reads no halo and so can run while the halos travel, and the boundary's, with them.
 * Only where it may pay: a halo from another rank comes down from its GPU, across the network
 * and up again, while a halo of a block on the same rank is ready as soon as it is packed; and
 * only where the box has an interior. */
static int forces_split(const tide_sim *sim, const tide_sim_block *k, struct starpu_codelet *cl)
{
	if (cl == &tide_gas_forces_cl || !k->nnb) return 0;
	int mode = forces_split_mode(sim);
	if (mode == SPLIT_OFF) return 0;
	tide_block_arg I = tide_box_interior(&sim->P.grid, &k->range, TIDE_FORCES_REACH);
	if (!tide_box_ncell(&I)) return 0;
	if (mode == SPLIT_ON) return 1;
	for (int j = 0; sim->mpi && j < k->nnb; j++)
		if (sim->blk[k->nb[j]].owner != k->owner) return 1;
	return 0;
}

/* Whether a split block's halos go to the GPU ahead of its boundary forces (halo_fetch): where
 * the forces may run on a CUDA worker.  On the CPU the halos are in main memory already. */
static int halo_fetch_wanted(struct starpu_codelet *cl)
{
	if (!starpu_cuda_worker_get_count() || tide_codelet_where(cl) == TIDE_WHERE_CPU) return 0;
	tide_codelet_restrict(&tide_halo_fetch_cl, TIDE_WHERE_CUDA);
	return 1;
}

static void submit_forces(tide_sim *sim, int s, struct starpu_codelet *cl)
{
	/* each rank its own record; the one-hop combination reads every rank's on every rank, and
	 * so its receive caches must see every reset */
	for (int r = 0; r < (sim->mpi ? sim->size : 1); r++)
		if (!sim->prune || !sim->dt_tree || r == sim->rank)
			SUBMIT(sim, &tide_dt_init_cl, STARPU_W, red_into(sim, s, r), STARPU_NAME, "dt_init",
			       PROFILE(TIDE_K_DT), 0);
	FOR_NEAR(sim, b) {
		tide_sim_block *k = &sim->blk[b];
		data_list l = {.n = 0};
		if (cl == &tide_gas_forces_cl) add(&l, k->R, STARPU_W); /* its reach map */
		for (int j = 0; j < k->nnb; j++) add_halo(&l, sim->blk[k->nb[j]].H[k->nb_halo[j]], STARPU_R);
		int nh = k->nnb, part = TIDE_CELLS_ALL, none = 0;
		if (forces_split(sim, k, cl)) {
			/* the interior first, of the block alone: its owner's task only (no other rank
			 * feeds it); then the boundary's, as the unsplit task */
			part = TIDE_CELLS_INTERIOR;
			if (!sim->mpi || k->owner == sim->rank)
				SUBMIT(sim, cl, STARPU_RW, k->B, STARPU_R, k->C,
				       STARPU_REDUX, red_into(sim, s, k->owner), STARPU_VALUE, &sim->P,
				       sizeof sim->P, STARPU_VALUE, &k->range, sizeof k->range,
				       STARPU_VALUE, &none, sizeof none, STARPU_VALUE, &part, sizeof part,
				       STARPU_NAME, "sph_forces_interior", PROFILE_B(TIDE_K_FORCES, b), 0);
			/* the halos onto the GPU while the interior runs, on the block's owner: one task
			 * per halo, so that each goes up as soon as it has come (one task of all the
			 * halos is ready, and starts their uploads, only once the last has come: in the
			 * simulation of 128 GPUs of 3.9 M particles its 26 halos then went up after the
			 * interior's end, 5.3 ms of the boundary forces' wait) */
			if (halo_fetch_wanted(cl))
				for (int j = 0; j < l.n; j++)
					SUBMIT(sim, &tide_halo_fetch_cl, STARPU_DATA_MODE_ARRAY, &l.d[j], 1,
					       STARPU_EXECUTE_ON_NODE, k->owner, STARPU_NAME, "halo_fetch", 0);
			part = TIDE_CELLS_BOUNDARY;
		}
		SUBMIT(sim, cl, STARPU_RW, k->B, STARPU_R, k->C,
		        STARPU_REDUX, red_into(sim, s, k->owner), STARPU_DATA_MODE_ARRAY, l.d, l.n,
		        STARPU_VALUE, &sim->P, sizeof sim->P, STARPU_VALUE, &k->range, sizeof k->range,
		        STARPU_VALUE, &nh, sizeof nh, STARPU_VALUE, &part, sizeof part,
		        STARPU_NAME, part == TIDE_CELLS_ALL ? cl->name : "sph_forces_boundary",
		        PROFILE_B(TIDE_K_FORCES, b), 0);
	}
}

/* physics.viscosity = laminar+sps: every block's SPS stress from the velocity gradient of the
 * force pass just submitted (include/tide/sps.h), read by the next pass and its halos. */
static void submit_sps_tau(tide_sim *sim)
{
	if (sim->P.viscosity != TIDE_VISC_LAMINAR_SPS) return;
	FOR_MINE(sim, b)
		SUBMIT(sim, &tide_sps_tau_cl, STARPU_RW, sim->blk[b].B, STARPU_VALUE, &sim->P,
		       sizeof sim->P, STARPU_NAME, "sps_tau", PROFILE_B(TIDE_K_SPS, b), 0);
}

/* out = combine(a, b) (b may be NULL: a copy), on out's owner. */
static void submit_combine(tide_sim *sim, starpu_data_handle_t out, starpu_data_handle_t a,
                           starpu_data_handle_t b)
{
	struct starpu_data_descr d[3] = {{out, STARPU_W}, {a, STARPU_R}, {b, STARPU_R}};
	SUBMIT(sim, &tide_dt_combine_cl, STARPU_DATA_MODE_ARRAY, d, b ? 3 : 2,
	       STARPU_NAME, "dt_combine", PROFILE(TIDE_K_DT), 0);
}

/* Recursive doubling (sph_sim.h's dt_tree): with P the largest power of two <= N, ranks P ..
 * N-1 first fold their record into rank q - P, then in round k every rank q < P combines its
 * record with that of q xor 2^k, so that after L = log2 P rounds each holds all N records, and
 * ranks >= P get the result back from q - P: log2 N + 2 messages per rank at most, where the
 * one-hop exchange takes N - 1.  Every combination is a min, max or integer sum (the step
 * record), so the result is the same bits in any order.
 *
 * A rank submits only the combinations it runs or feeds (StarPU-MPI needs no other rank's
 * tasks to post its sends and receives), in the same order on every rank: O(log N) tasks per
 * rank and step where all of them would be O(N log N).  The schedule: tasks/rank_doubling.h. */
static starpu_data_handle_t dt_tree_in(const tide_sim *sim, int k, int q)
{
	int n = sim->size, P = 1 << sim->dt_levels;
	if (k > 0) return sim->tree[(size_t)k * (size_t)n + (size_t)q];
	return q + P < n ? sim->tree[q] : sim->part[0][q]; /* after the fold */
}

/* A record received from another rank: its owner rewrites it next step in a task this rank
 * does not submit, so StarPU-MPI's receive cache here must forget it (or the next step would
 * read the old value without receiving the new). */
static void received(starpu_data_handle_t h)
{
	starpu_mpi_cache_flush(MPI_COMM_WORLD, h);
}

/* The fold: ranks q and q + P, on q. */
static void tree_fold(void *ctx, int q)
{
	tide_sim *sim = ctx;
	int P = 1 << sim->dt_levels;
	submit_combine(sim, sim->tree[q], sim->part[0][q], sim->part[0][q + P]);
	if (sim->rank == q) received(sim->part[0][q + P]);
}

/* Round k's combination on rank q: its record with that of q xor 2^k. */
static void tree_round(void *ctx, int k, int q)
{
	tide_sim *sim = ctx;
	int o = q ^ (1 << k);
	starpu_data_handle_t out = k == sim->dt_levels - 1 ? sim->all[q] : dt_tree_in(sim, k + 1, q);
	submit_combine(sim, out, dt_tree_in(sim, k, q), dt_tree_in(sim, k, o));
	if (sim->rank == q) received(dt_tree_in(sim, k, o));
}

/* The result back to folded rank q, from q - P. */
static void tree_back(void *ctx, int q)
{
	tide_sim *sim = ctx;
	int P = 1 << sim->dt_levels;
	submit_combine(sim, sim->all[q], sim->all[q - P], NULL);
	if (sim->rank == q) received(sim->all[q - P]);
}

static void finish_reduction_tree(tide_sim *sim)
{
	tide_doubling d = {sim, tree_fold, tree_round, tree_back};
	tide_doubling_submit(&d, sim->rank, sim->size, sim->dt_levels);
}

/* After the last contribution to the first stage's reduction (sph_forces, sgrav_apply): under
 * MPI every rank combines all ranks' records into its own copy of the result. */
static void finish_reduction(tide_sim *sim)
{
	if (!sim->mpi) return;
	if (sim->dt_tree) {
		finish_reduction_tree(sim);
		return;
	}
	struct starpu_data_descr *d = malloc(sizeof *d * (size_t)(1 + sim->size));
	STARPU_ASSERT_MSG(d, "out of memory");
	for (int q = 0; q < sim->size; q++) d[1 + q] = (struct starpu_data_descr){sim->part[0][q], STARPU_R};
	for (int r = 0; r < sim->size; r++) {
		d[0] = (struct starpu_data_descr){sim->all[r], STARPU_W};
		SUBMIT(sim, &tide_dt_combine_cl, STARPU_DATA_MODE_ARRAY, d, 1 + sim->size,
		       STARPU_NAME, "dt_combine", PROFILE(TIDE_K_DT), 0);
	}
	free(d);
}

static void submit_integrate(tide_sim *sim, int stage)
{
	tide_integrate_arg I = {.stage = stage};
	FOR_MINE(sim, b) {
		tide_sim_block *k = &sim->blk[b];
		SUBMIT(sim, &tide_integrate_cl, STARPU_RW, k->B, STARPU_R, red_from(sim, k->owner),
		        STARPU_VALUE, &sim->P, sizeof sim->P, STARPU_VALUE, &I, sizeof I,
		        STARPU_NAME, "integrate", PROFILE_B(TIDE_K_INTEGRATE, b), 0);
	}
}

/* The moving bodies' particles over the stage [t + f_old dt, t + f_new dt] of this step (t: its
 * start; f_old = f_new = 0: their velocities at t alone).  Their velocities are the rigid
 * motion's, except in the symplectic predictor under mDBC noslip/freeslip when the ghost pass
 * runs once a step: there they keep its mirror v_b through the step, as the fixed walls do; the
 * corrector's end sets the rigid velocity, which the next ghost pass mirrors about (with
 * mdbc_before_corrector, the predictor's rigid velocity is mirrored about before the
 * corrector). */
static void submit_body_motion(tide_sim *sim, double f_old, double f_new)
{
	if (!sim->c->motion.nbody) return;
	tide_body_motion_arg M = {.T = sim->c->motion, .t = sim->t, .f_old = f_old, .f_new = f_new};
	M.set_vel = !(sim->integrator == 1 && f_new == 0.5 && sim->P.boundary == TIDE_BOUNDARY_MDBC &&
	              sim->P.mdbc_slip != TIDE_SLIP_VEL0 && !mdbc_before_corrector(sim));
	tide_sim_floating_steps(sim, &M);
	FOR_MINE(sim, b) {
		tide_sim_block *k = &sim->blk[b];
		SUBMIT(sim, &tide_body_motion_cl, STARPU_RW, k->B, STARPU_R, red_from(sim, k->owner),
		       STARPU_VALUE, &sim->P, sizeof sim->P, STARPU_VALUE, &M, sizeof M,
		       STARPU_NAME, "body_motion", PROFILE_B(TIDE_K_INTEGRATE, b), 0);
	}
}

/* This rank's blocks' particles into its bodies, then the tree and its field (Morton order;
 * with several ranks the essential-node exchange adds the other ranks' part).  The gather and
 * sgrav_unsort are this rank's own tasks: they touch only its blocks and its solver. */
static void submit_gravity_field(tide_sim *sim, tide_sph_gravity *sg)
{
	int nb = sg->nown;
	struct starpu_data_descr *d = malloc(sizeof *d * (size_t)(3 + nb));
	STARPU_ASSERT_MSG(d, "out of memory");
	d[0] = (struct starpu_data_descr){sg->g.hbody, STARPU_W};
	d[1] = (struct starpu_data_descr){sg->g.hvel, STARPU_W};
	d[2] = (struct starpu_data_descr){sg->offs, STARPU_W};
	for (int j = 0; j < nb; j++) d[3 + j] = (struct starpu_data_descr){sim->blk[sg->own[j]].B, STARPU_R};
	STARPU_CHECK_RETURN_VALUE(starpu_task_insert(&tide_sgrav_gather_cl, STARPU_DATA_MODE_ARRAY, d,
	                          3 + nb, STARPU_VALUE, &sg->gather, sizeof sg->gather, STARPU_NAME,
	                          "sgrav_gather", PROFILE(TIDE_K_SELF_GRAVITY), 0), "task insert");
	free(d);
	tide_gravity_submit_forces(&sg->g);
}

/* Self-gravity after sph_forces, into the step reduction red (see the head of the file). */
static void submit_self_gravity(tide_sim *sim, int s)
{
	tide_sph_gravity *sg = sim->grav;
	if (!sg) return;
	tide_sph_gravity_prepare(sim);
	submit_gravity_field(sim, sg);
	int np = sg->g.nparts;
	struct starpu_data_descr d[2 + TIDE_SGRAV_MAX_PARTS];
	d[0] = (struct starpu_data_descr){sg->g.hvel, STARPU_R};
	d[1] = (struct starpu_data_descr){sg->accg, STARPU_W};
	for (int p = 0; p < np; p++) d[2 + p] = (struct starpu_data_descr){sg->g.hacc[p], STARPU_R};
	STARPU_CHECK_RETURN_VALUE(starpu_task_insert(&tide_sgrav_unsort_cl, STARPU_DATA_MODE_ARRAY, d,
	                          2 + np, STARPU_VALUE, &sg->unsort, sizeof sg->unsort, STARPU_NAME,
	                          "sgrav_unsort", PROFILE(TIDE_K_SELF_GRAVITY), 0), "task insert");
	/* each rank its own blocks, with its own field */
	FOR_MINE(sim, b) {
		int q = sim->blk[b].owner, lb = sg->lidx[b];
		SUBMIT(sim, &tide_sgrav_apply_cl, STARPU_RW,
		       sim->blk[b].B, STARPU_R, sg->mpi ? sg->accg_r[q] : sg->accg, STARPU_R,
		       sg->mpi ? sg->offs_r[q] : sg->offs, STARPU_REDUX, red_into(sim, s, q),
		       STARPU_VALUE, &sim->P, sizeof sim->P, STARPU_VALUE, &lb, sizeof lb,
		       STARPU_NAME, "sgrav_apply", PROFILE_B(TIDE_K_SELF_GRAVITY, b), 0);
	}
}

double tide_sim_self_gravity_energy(tide_sim *sim)
{
	tide_sph_gravity *sg = sim->grav;
	if (!sg) return 0.0;
	tide_sph_gravity_prepare(sim);
	submit_gravity_field(sim, sg);
	/* the walk's potential is per unit mass, G included, without self-energy; padding bodies
	 * have mass 0 */
	tide_gravity_acquire(&sg->g);
	double e = 0;
	for (uint32_t i = 0; i < sg->n; i++) e += 0.5 * (double)sg->body[i].m * sg->acc[i].pot;
	tide_gravity_release(&sg->g);
	if (!sg->mpi) return e;
	double *all = malloc(sizeof(double) * (size_t)sg->size), total = 0;
	STARPU_ASSERT_MSG(all, "out of memory");
	tide_gravity_gather_values(&sg->g, 0, &e, 1, all);
	for (int q = 0; sim->rank == 0 && q < sg->size; q++) total += all[q];
	free(all);
	return total;
}

void tide_sim_submit_migration(tide_sim *sim)
{
	FOR_NEAR(sim, b) {
		tide_sim_block *k = &sim->blk[b];
		data_list l = {.n = 0};
		add(&l, k->B, STARPU_RW);
		add(&l, sim->scratch, STARPU_SCRATCH);
		for (int f = 0; f < k->nface; f++) add(&l, k->M[f], STARPU_W);
		SUBMIT(sim, &tide_migrate_pack_cl, STARPU_DATA_MODE_ARRAY, l.d, l.n,
		        STARPU_VALUE, &sim->P, sizeof sim->P, STARPU_VALUE, &k->range, sizeof k->range,
		        STARPU_NAME, "migrate_pack", PROFILE_B(TIDE_K_MIG_PACK, b), 0);
	}
	FOR_NEAR(sim, b) {
		tide_sim_block *k = &sim->blk[b];
		/* a block without neighbours (one block on one GPU, the default) receives nothing: its
		 * unpack would be a task per step that does nothing (issue 20's host overhead) */
		if (k->nnb == 0) continue;
		data_list l = {.n = 0};
		tide_unpack_arg U = {.nsrc = k->nnb};
		add(&l, k->B, STARPU_RW);
		add(&l, sim->scratch, STARPU_SCRATCH);
		for (int j = 0; j < k->nnb; j++) {
			add(&l, sim->blk[k->nb[j]].M[k->nb_slot[j]], STARPU_R);
			U.src[j] = sim->blk[k->nb[j]].range;
		}
		SUBMIT(sim, &tide_migrate_unpack_cl, STARPU_DATA_MODE_ARRAY, l.d, l.n,
		        STARPU_VALUE, &sim->P, sizeof sim->P, STARPU_VALUE, &k->range, sizeof k->range,
		        STARPU_VALUE, &U, sizeof U, STARPU_NAME, "migrate_unpack",
		        PROFILE_B(TIDE_K_MIG_UNPACK, b), 0);
	}
	sim->mig_records = 1;
}

void tide_sim_submit_sort_halos(tide_sim *sim)
{
	submit_sort(sim, &tide_cell_sort_cl, TIDE_K_GAUGES);
	submit_halos(sim, &tide_halo_pack_cl, TIDE_K_GAUGES);
}

/* physics.scheme = gas (include/tide/gas_math.h): the density pass with its h iteration
 * between two packings of the halos (the forces read the neighbours' new h, rho, 1/Omega and
 * switch), then the forces into the step reduction. */
static void submit_gas_forces(tide_sim *sim)
{
	submit_sort(sim, &tide_cell_sort_cl, TIDE_K_SORT);
	submit_halos(sim, &tide_halo_pack_cl, TIDE_K_HALO);
	submit_gather(sim, &tide_gas_density_cl, TIDE_K_GAS_DENSITY, NULL, 0);
	submit_halos(sim, &tide_halo_pack_cl, TIDE_K_HALO);
	submit_forces(sim, 0, &tide_gas_forces_cl);
	submit_self_gravity(sim, 0);
	tide_sim_sinks_gravity(sim); /* with sinks: their pull, into the reduction (tasks/sinks.c) */
	finish_reduction(sim);
}

static void submit_gas_integrate(tide_sim *sim)
{
	FOR_MINE(sim, b) {
		tide_sim_block *k = &sim->blk[b];
		SUBMIT(sim, &tide_gas_integrate_cl, STARPU_RW, k->B, STARPU_R, red_from(sim, k->owner),
		        STARPU_VALUE, &sim->P, sizeof sim->P, STARPU_NAME, "gas_integrate",
		        PROFILE_B(TIDE_K_INTEGRATE, b), 0);
	}
}

void tide_sim_submit_forces_with(tide_sim *sim, struct starpu_codelet *sort,
                                 struct starpu_codelet *halo, struct starpu_codelet *forces)
{
	if (sim->P.scheme == TIDE_SCHEME_GAS) {
		submit_gas_forces(sim);
		return;
	}
	tide_sim_wall_velocities(sim); /* the walls' own velocities at t (noslip/freeslip) */
	submit_sort(sim, sort ? sort : &tide_cell_sort_cl, TIDE_K_SORT);
	submit_halos(sim, halo ? halo : &tide_halo_pack_cl, TIDE_K_HALO);
	if (submit_mdbc(sim)) submit_halos(sim, halo ? halo : &tide_halo_pack_cl, TIDE_K_HALO);
	submit_forces(sim, 0, forces ? forces : &tide_sph_forces_cl);
	submit_sps_tau(sim);
	submit_self_gravity(sim, 0);
	finish_reduction(sim);
}

/* The stop conditions of a weakly compressible run: NaN/Inf anywhere, density beyond the range
 * the Tait equation is meant for, or a time step collapsing.  The isothermal equation of state
 * is for compressible fluid (a self-gravitating sphere contracts by design): its only density
 * limit is that it stays positive. */
static int check_health(const tide_sim *sim, const tide_step_reduce *r)
{
	float rho0 = sim->P.rho0;
	/* named as the run names it afterwards: the step just done, the time it reached */
	long step = sim->step + 1;
	double t = sim->t + (isfinite(r->dt) ? r->dt : 0);
	/* a gas (like an isothermal fluid) is compressible by design: no density range or speed
	 * limit, its density positivity is in nbad (gas_math.h) */
	int gas = sim->P.scheme == TIDE_SCHEME_GAS;
	int iso = sim->P.eos == TIDE_EOS_ISOTHERMAL || gas;
	char what[320];
	if (r->nbad)
		snprintf(what, sizeof what, "%u particles have non-finite density or acceleration",
		         r->nbad);
	else if (iso && r->rho_min <= 0.f && r->rho_max > 0.f)
		snprintf(what, sizeof what, "fluid density reached %.6g kg/m^3, not positive",
		         r->rho_min);
	else if (!iso && (r->rho_max > 1.5f * rho0 || (r->rho_min < 0.5f * rho0 && r->rho_min < r->rho_max)))
		snprintf(what, sizeof what, "fluid density reached [%.6g, %.6g] kg/m^3, outside [0.5, "
		         "1.5] rho0 = %.6g", r->rho_min, r->rho_max, rho0);
	else if (!iso && !(r->vmax <= sim->P.c0))
		/* weakly compressible only: an isothermal gas may well flow supersonically */
		snprintf(what, sizeof what, "the fastest fluid particle moves at %.3g m/s, faster than "
		         "the speed of sound c0 = %.3g m/s (the velocities are exploding, or c0 is too "
		         "small for this flow: weakly compressible SPH needs speeds well below c0)",
		         r->vmax, sim->P.c0);
	else if (!(r->dt > 1e-12f) || !isfinite(r->dt))
		snprintf(what, sizeof what, "the time step collapsed to %.3g s", r->dt);
	else
		return 0;
	if (sim->rank == 0)
		fprintf(stderr, "%stide: step %ld (t = %.6g s): %s; the run has gone unphysical (try a "
		        "smaller physics.cfl%s%s, e.g. --set physics.cfl=0.1).\n",
		        isatty(1) ? "\n" : "", step, t, what, gas ? "" : " or a larger physics.",
		        gas ? "" : iso ? "cs_iso" : "coefsound");
	return -1;
}

/* TIDE_SUBMIT_COUNT=1: every rank prints the tasks it submitted in the step (SUBMIT's), so that
 * a test can check a rank submits those of its own and neighbouring blocks only. */
static void report_submitted(tide_sim *sim)
{
	static int on = -1;
	if (on < 0) {
		const char *e = getenv("TIDE_SUBMIT_COUNT");
		on = e && *e && *e != '0';
	}
	if (on)
		fprintf(stderr, "tide: submitted rank %d step %ld tasks %ld mine %d near %d blocks %d "
		        "us %.0f\n", sim->rank, sim->step + 1, sim->nsubmit, sim->nmine, sim->nnear,
		        sim->nblocks, sim->submit_us);
	sim->nsubmit = 0;
}

int tide_sim_step(tide_sim *sim)
{
	double t0 = starpu_timing_now();
	if (sim->step == 0) submit_body_motion(sim, 0.0, 0.0);
	tide_sim_submit_forces_with(sim, NULL, NULL, NULL);
	if (sim->P.scheme == TIDE_SCHEME_GAS) {
		submit_gas_integrate(sim);
	} else if (sim->integrator == 0) {
		/* DualSPHysics' Verlet: an Euler step every verlet_steps steps decouples the chains */
		int euler = sim->verlet_count >= sim->verlet_steps;
		submit_integrate(sim, euler ? TIDE_STAGE_EULER : TIDE_STAGE_VERLET);
		tide_sim_floating_stage(sim, euler ? TIDE_STAGE_EULER : TIDE_STAGE_VERLET);
		submit_body_motion(sim, 0.0, 1.0);
		sim->verlet_count = euler ? 0 : sim->verlet_count + 1;
	} else {
		submit_integrate(sim, TIDE_STAGE_SYMP_PRED);
		tide_sim_floating_stage(sim, TIDE_STAGE_SYMP_PRED);
		submit_body_motion(sim, 0.0, 0.5);
		if (mdbc_before_corrector(sim)) {
			/* the ghosts read the fluid's half-step halos */
			submit_halos(sim, &tide_halo_pack_cl, TIDE_K_HALO);
			submit_mdbc(sim);
		}
		submit_halos(sim, &tide_halo_pack_cl, TIDE_K_HALO);
		submit_forces(sim, 1, &tide_sph_forces_cl);
		submit_sps_tau(sim);
		submit_self_gravity(sim, 1);
		/* no dt_combine of red2: nothing reads it (the corrector steps by the predictor's
		 * time step, and the host checks the first pass), so no rank waits for the others */
		submit_integrate(sim, TIDE_STAGE_SYMP_CORR);
		tide_sim_floating_stage(sim, TIDE_STAGE_SYMP_CORR);
		submit_body_motion(sim, 0.5, 1.0);
	}
	tide_sim_submit_migration(sim);
	if (sim->P.scheme == TIDE_SCHEME_GAS) tide_sim_sinks_step(sim); /* tasks/sinks.c */

	sim->submit_us = starpu_timing_now() - t0;
	/* under MPI red is this rank's copy of the global record: nothing to fetch */
	starpu_data_acquire(sim->red, STARPU_R);
	tide_step_reduce r = *(tide_step_reduce *)starpu_variable_get_local_ptr(sim->red);
	starpu_data_release(sim->red);
	if (sim->on_reduce && sim->on_reduce(sim->on_reduce_arg, sim->step, &r)) return -2;
	sim->last = r;
	/* the gas scheme's halos follow its largest h (include/tide/gas_math.h) */
	if (sim->P.scheme == TIDE_SCHEME_GAS) sim->P.grid.halo_now = tide_gas_halo_depth(&sim->P.grid, r.hmax);
	int bad = check_health(sim, &r);
	report_submitted(sim);
	sim->t += r.dt;
	sim->step++;
	return bad;
}
