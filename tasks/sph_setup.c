// SPDX-License-Identifier: LGPL-2.1-or-later
// The SPH data as StarPU handles: parameters from the case, the cell grid, the split of the
// domain into blocks (tasks/decomposition.c: slabs or a grid of boxes of about equal estimated
// cost), registration of every handle, gathering for output, and rebalancing.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "tide/advice.h"
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/decomposition.h"
#include "tide/lattice.h"
#include "rank_exchange.h"
#include "sph_gravity.h"
#include "tide/sph_interact.h"
#include "tide/sph_sim.h"
#include "tide/sps.h"
#include "tide/gas_math.h"
#include "tide/sink.h"

/* Every codelet of the SPH step (the gravity tree's are tasks/gravity.c's). */
static struct starpu_codelet *const sph_cls[] = {
	&tide_cell_sort_cl, &tide_halo_pack_cl, &tide_sph_forces_cl, &tide_dt_init_cl,
	&tide_dt_redux_cl, &tide_dt_combine_cl, &tide_integrate_cl, &tide_body_motion_cl,
	&tide_migrate_pack_cl, &tide_migrate_unpack_cl, &tide_sgrav_gather_cl,
	&tide_sgrav_unsort_cl, &tide_sgrav_apply_cl, &tide_snap_copy_cl, &tide_gauge_sample_cl,
	&tide_gauge_combine_cl, &tide_mdbc_ghost_cl, &tide_sps_tau_cl, &tide_gas_density_cl,
	&tide_gas_forces_cl, &tide_gas_integrate_cl, &tide_jeans_min_cl, &tide_body_force_cl,
	&tide_sink_gravity_cl, &tide_sink_accrete_cl, &tide_sink_region_cl};
#define N_SPH_CLS (sizeof sph_cls / sizeof *sph_cls)

void tide_sph_codelets_where(enum tide_where where)
{
	for (size_t i = 0; i < N_SPH_CLS; i++) tide_codelet_restrict(sph_cls[i], where);
}

int tide_sph_codelet_where(const char *name, enum tide_where where)
{
	for (size_t i = 0; i < N_SPH_CLS; i++)
		if (!strcmp(sph_cls[i]->name, name)) {
			tide_codelet_restrict(sph_cls[i], where);
			return 0;
		}
	return -1;
}

void tide_sph_codelet_names(char *out, size_t size)
{
	size_t k = 0;
	if (size) out[0] = 0;
	for (size_t i = 0; i < N_SPH_CLS && k < size; i++)
		k += (size_t)snprintf(out + k, size - k, "%s%s", i ? ", " : "", sph_cls[i]->name);
}

void tide_sim_set_aux(const tide_case *c)
{
	/* floating bodies: sph_forces tells a halo's floating particle by its id; under mDBC
	 * noslip/freeslip a moving body's too (its own velocity, sph_pair.h tide_wall_velocity) */
	int mirrored = c->boundary == TIDE_BOUNDARY_MDBC && c->mdbc_slip != TIDE_SLIP_VEL0;
	tide_block_set_halo_ids(c->nfloating > 0 || (mirrored && c->motion.nbody > 0));
	if (c->scheme == TIDE_SCHEME_GAS) /* h, u, 1/Omega, switch, last kick (gas_math.h); with
	                                   * sinks the potential too (sink.h) */
		tide_block_set_aux(c->sinks.on ? TIDE_SINK_NAUX : TIDE_GAS_NAUX, TIDE_GAS_HALO_FIELDS);
	else if (c->viscosity == TIDE_VISC_LAMINAR_SPS) /* tau and the gradient; halos carry tau (sps.h) */
		tide_block_set_aux(TIDE_SPS_NAUX, TIDE_SPS_HALO_FIELDS);
	else
		tide_block_set_aux(0, 0); /* WCSPH: no aux fields, 77 bytes per particle */
}

/* The constants of the gas scheme (physics.scheme: gas). */
static void gas_params(const tide_case *c, tide_gas_params *G)
{
	const tide_gas_case *k = &c->gas;
	G->eos = k->eos;
	G->gamma = (float)k->gamma;
	G->cs2 = (float)(k->cs * k->cs);
	G->rho_crit = (float)k->rho_crit;
	G->eta = (float)k->eta;
	G->h_tol = (float)k->h_tolerance;
	G->h_iter = k->h_iterations;
	G->h_max = (float)tide_case_gas_h_max(c);
	G->h_min = (float)k->h_min;
	G->knorm = (float)tide_kernel_alpha(c->kernel, c->dim, 1.0);
	G->alpha_visc = (float)k->alpha_visc;
	G->beta_visc = (float)k->beta_visc;
	G->alpha_cond = (float)k->alpha_cond;
	G->u_min = (float)k->u_min;
	/* physics.self_gravity.softening (docs/case-format.md); without self-gravity only the time
	 * step limit of a body force uses it, at the gas's largest h */
	G->eps_nbody = (float)(c->self_gravity.on ? tide_case_softening(c) : tide_case_gas_h_max(c));
}

/* TIDE_GAS_HALOS: "block" (the default, also when unset or empty: every halo from the largest
 * h of the two blocks it joins, include/tide/gas_halo.h) or "global" (every halo from the
 * step's largest h, as before: the reference the comparisons of tests/test_gas_halos.c use). */
static int gas_halos_per_block(void)
{
	const char *e = getenv("TIDE_GAS_HALOS");
	if (!e || !*e || !strcmp(e, "block")) return 1;
	if (!strcmp(e, "global")) return 0;
	static int warned;
	if (!warned++)
		fprintf(stderr, "tide: warning: TIDE_GAS_HALOS='%s' is neither 'block' nor 'global': "
		        "halos per block (the default).\n", e);
	return 1;
}

void tide_sim_params(const tide_case *c, tide_sph_params *P)
{
	memset(P, 0, sizeof *P);
	/* the gas scheme's cells have side 2 h_cell, and its halos carry as many cell layers as the
	 * support 2 h_max needs (gas_math.h); P->h is its h_max */
	int gas = c->scheme == TIDE_SCHEME_GAS;
	double h = gas ? tide_case_gas_h_max(c) : tide_case_h(c);
	P->dim = c->dim;
	P->kernel = c->kernel;
	P->diffusion = c->diffusion;
	P->h = (float)h;
	P->h2x4 = (float)(4.0 * h * h);
	P->aw = (float)tide_kernel_alpha(c->kernel, c->dim, h);
	P->af = (float)(tide_kernel_alpha(c->kernel, c->dim, h) / (h * h));
	P->mass[TIDE_FLUID] = P->mass[TIDE_BOUND] = (float)tide_case_mass(c);
	for (int k = 0; k < c->motion.nbody; k++)
		if (c->motion.body[k].rigid && P->nfloat < TIDE_MAX_FLOAT) {
			P->float_id0[P->nfloat] = c->motion.body[k].id0;
			P->float_id1[P->nfloat++] = c->motion.body[k].id1;
		}
	P->rho0 = (float)c->rho0;
	P->inv_rho0 = (float)(1.0 / c->rho0);
	P->eos = c->eos;
	P->boundary = c->boundary;
	P->mdbc_slip = c->mdbc_slip;
	/* isothermal = Tait with gamma 1 and B = rho0 c0^2: Fourtakas' hydrostatic density term
	 * (rhoh_g, 1/gamma) is then the isothermal one */
	int iso = c->eos == TIDE_EOS_ISOTHERMAL;
	double tait_b = iso ? c->rho0 * c->c0 * c->c0 : tide_case_tait_b(c);
	P->tait_b = (float)tait_b;
	P->gamma = iso ? 1.f : (float)c->gamma;
	P->c0 = (float)c->c0;
	P->visco = (float)c->visco;
	P->viscosity = c->viscosity;
	P->nu = (float)c->nu;
	/* SPS (sph_pair.h): nu_t = (C_s dp)^2 |S|, isotropic part 2/3 C_I dp^2 |S|^2 */
	P->sps_smag = (float)(c->sps_cs * c->dp * c->sps_cs * c->dp);
	P->sps_blin = (float)(2.0 / 3.0 * c->sps_ci * c->dp * c->dp);
	P->eta2 = (float)(0.01 * h * h);
	P->delta_hc0 = (float)(c->delta * h * c->c0);
	for (int d = 0; d < 3; d++) P->rhoh_g[d] = (float)(c->rho0 * c->gravity[d] / tait_b);
	for (int d = 0; d < 3; d++) {
		P->g[d] = (float)c->gravity[d];
		P->dom_lo[d] = c->domain.lo[d];
		P->dom_hi[d] = c->domain.hi[d];
	}
	P->cfl = (float)c->cfl;
	if (P->nfloat && c->boundary == TIDE_BOUNDARY_MDBC) {
		/* the contact of solid bodies under mDBC (sph_pair.h): kc = (c0 / dp)^2, gc = 2 sqrt(kc) */
		P->contact_d = (float)c->dp;
		P->contact_k = (float)(c->c0 * c->c0 / (c->dp * c->dp));
		P->contact_g = (float)(2.0 * c->c0 / c->dp);
	}
	P->scheme = c->scheme;
	if (gas) gas_params(c, &P->gas);

	tide_grid *g = &P->grid;
	double cell = 2.0 * tide_case_cell_h(c);
	g->periodic = c->periodic;
	g->halo = tide_case_halo_layers(c);
	g->halo_block = gas && gas_halos_per_block();
	g->cell = (float)cell;
	g->inv_cell = 1.0 / cell;
	for (int d = 0; d < 3; d++) {
		/* along a periodic axis: the whole cells in the period (>= 2, the case check), the last
		 * one stretched to the face by the clamp of tide_cell_of (so it holds every particle
		 * within 2h of the face), and a ghost layer beyond each face for the images */
		int gh = tide_ghost(g, d);
		g->origin[d] = c->domain.lo[d] - gh * cell;
		double len = c->domain.hi[d] - c->domain.lo[d];
		/* capped (a tiny dp in a large domain would overflow the int): such a grid is refused
		 * by its cell count (tide_decomp_validate) */
		g->n[d] = (c->dim == 2 && d == 1) ? 1 : (int)fmin(fmax(1.0, gh ? floor(len / cell)
		                                                              : ceil(len / cell)), 2e9) + 2 * gh;
	}
	/* slab axis (the only one a periodic case's decompositions may cut): the longest, among the
	 * periodic axes if there are any; the other two keep their order */
	int a0 = -1;
	for (int d = 0; d < 3; d++)
		if ((!g->periodic || tide_ghost(g, d)) && (a0 < 0 || g->n[d] > g->n[a0])) a0 = d;
	g->axis[0] = a0;
	g->axis[1] = a0 == 0 ? 1 : 0;
	g->axis[2] = a0 == 2 ? 1 : 2;
	g->plane = (uint32_t)g->n[g->axis[1]] * (uint32_t)g->n[g->axis[2]];
}

/* The block of a point for the cuts cut of the grid p (the ghost layers count with the first and
 * last blocks of their axis). */
static int block_of_cuts(const tide_grid *g, const int p[3], int *const cut[3], double x, double y,
                         double z)
{
	int k[3], i[3];
	tide_cell_k(g, x, y, z, k);
	for (int a = 0; a < 3; a++) {
		i[a] = 0;
		while (i[a] < p[a] - 1 && k[a] >= cut[a][i[a] + 1]) i[a]++;
	}
	return (i[0] * p[1] + i[1]) * p[2] + i[2];
}

int tide_sim_block_of(const tide_sim *sim, double x, double y, double z)
{
	return block_of_cuts(&sim->P.grid, sim->p, sim->cut, x, y, z);
}

/* Handles of a block: B, C, then its halo and migration buffers. */
/* MPI tags of a block: B, C, (2 .. 7 unused), M[6], R, then its halos H[26] */
#define TIDE_HALO_TAG0 15
#define TIDE_BLOCK_TAGS (TIDE_HALO_TAG0 + TIDE_MAX_NEIGHBOURS)

/* Registers the blocks of sim->blk[*].range.  counts == NULL: every particle of `all` goes to the
 * block of its cell (in the order of `all`); otherwise block b takes the next counts[b]
 * particles of `all`, in order (each must lie in the block's box).  caps == NULL / halo_cap
 * == 0: capacities are computed from the counts; otherwise they are the given ones. */
/* The whole split as the rebalance without a gather knows it (every rank alike): particles of
 * every block, the fullest face of any block (halo capacity), and all particles. */
typedef struct split_totals {
	const uint32_t *count;
	uint32_t maxface;
	size_t total;
	const int *owner;             /* the new blocks' owners, found from the summed costs */
	const uint32_t *face;         /* or NULL: every block's face counts (6 per block), modelled */
	int nohost;                   /* no block gets host memory (a simulation's modelled blocks) */
} split_totals;

/* 2^30: a particle weight (a float of 2/3 .. 1.5 times a cost) is an integer multiple of 2^-30
 * down to 2^-7, and 4e9 particles of weight 1.5 stay below 2^63.  Costs summed in this fixed
 * point are the same bits whatever the order of the sum: every rank, and the gathering and the
 * direct rebalance, place the same cuts and owners. */
#define COST_FIXED 1073741824.0

/* A particle's weight for cuts and owners: its estimated cost, or w[i] (measured). */
static int64_t cost_fixed(float w)
{
	return llround((double)w * COST_FIXED);
}

/* Whether the case gives blocks to ranks along the Hilbert curve (block_owners: hilbert; with one
 * rank or one block there is nothing to place). */
static int owners_by_curve(const tide_sim *sim)
{
	return sim->c->block_owners == TIDE_OWNERS_HILBERT && sim->size > 1 && sim->nblocks > 1;
}

/* The owners the case's block_owners gives blocks of these costs (cost unused for boxes). */
static void owners_of_costs(const tide_sim *sim, const double *cost, int *own)
{
	if (owners_by_curve(sim)) tide_decomp_owners_curve(sim->p, cost, sim->size, own);
	else
		for (int b = 0; b < sim->nblocks; b++) own[b] = tide_decomp_owner(sim->p, b, sim->size);
}

/* The owner of every block, by the case's block_owners: boxes of blocks (tide_decomp_owner), or
 * runs of equal cost along the Hilbert curve, a block's cost being its particles' weights (w[i],
 * or the estimate); `given` (a checkpoint's owners on as many ranks, or the direct rebalance's,
 * which summed the costs over the ranks) overrides both.  where[i]: particle i's block (one:
 * all in block 0).  partial: `all` holds this rank's particles only (no costs: blk[].cost 0). */
static int set_owners(tide_sim *sim, const tide_block_view *all, const int *where, int one,
                      const float *w, const int *given, int partial)
{
	int nb = sim->nblocks;
	int64_t *q = calloc((size_t)nb, sizeof *q);
	if (!q) return -1;
	for (uint32_t i = 0; i < all->count && !partial; i++)
		q[one ? 0 : where[i]] += cost_fixed(w ? w[i] : tide_decomp_cost(all->type[i]));
	for (int b = 0; b < nb; b++) sim->blk[b].cost = (double)q[b] / COST_FIXED;
	free(q);
	if (given) {
		for (int b = 0; b < nb; b++) {
			if (given[b] < 0 || given[b] >= sim->size) {
				fprintf(stderr, "tide: block %d is given to rank %d of %d.\n", b, given[b], sim->size);
				return -1;
			}
			sim->blk[b].owner = given[b];
		}
		return 0;
	}
	if (!owners_by_curve(sim) || partial) {
		for (int b = 0; b < nb; b++) sim->blk[b].owner = tide_decomp_owner(sim->p, b, sim->size);
		return 0;
	}
	double *cost = malloc(sizeof *cost * (size_t)nb);
	int *own = malloc(sizeof *own * (size_t)nb);
	if (!cost || !own) {
		free(cost); free(own);
		return -1;
	}
	for (int b = 0; b < nb; b++) cost[b] = sim->blk[b].cost;
	owners_of_costs(sim, cost, own);
	for (int b = 0; b < nb; b++) sim->blk[b].owner = own[b];
	free(cost); free(own);
	return 0;
}

/* Face slot f of block b: its migrant buffer. */
static void register_face(tide_sim *sim, tide_sim_block *k, int b, int f)
{
	tide_block_register(&k->M[f], -1, NULL, sim->halo_cap, 0);
	if (sim->mpi) starpu_mpi_data_register(k->M[f], sim->tag0 + TIDE_BLOCK_TAGS * b + 8 + f, k->owner);
}

/* Halo r of block b, for its r-th reader (include/tide/halo_cut.h), of capacity hcap[r]. */
static void register_halo(tide_sim *sim, tide_sim_block *k, int b, int r, const split_totals *tot,
                          const uint32_t *face, const uint32_t *cnt)
{
	uint32_t n0 = 0;
#ifdef TIDE_SIMGRID
	/* a simulation build's halo_pack computes nothing, so a halo keeps the count it is
	 * registered with: that of its region at the start (what halo_pack's first step gives),
	 * for messages of the real halos' size */
	const uint32_t *f6 = (tot && tot->face ? tot->face : face) + 6 * (size_t)b;
	n0 = tide_sim_halo_model_count(sim, b, r, f6, tot ? tot->count[b] : cnt[b]);
	if (n0 > k->hcap[r]) n0 = k->hcap[r];
#else
	(void)tot; (void)face; (void)cnt;
#endif
	tide_block_register_fields(&k->H[r], -1, NULL, k->hcap[r], n0, TIDE_HALO_FIELDS);
	if (sim->mpi)
		starpu_mpi_data_register(k->H[r], sim->tag0 + TIDE_BLOCK_TAGS * b + TIDE_HALO_TAG0 + r,
		                         k->owner);
}

/* Sparse registration (a simulation of the synthetic box, tide_sim_setup_lattice): a rank
 * registers only the handles its tasks name.  Its tasks are those of its near blocks
 * (block_lists.c), which name their block's handles and read their neighbours' halo and
 * migrant buffers of the face toward them; StarPU-MPI needs a handle only where a task or a
 * transfer of this rank touches it.  Registering every block on every rank was R^2 handles in
 * the one SMPI process (1.7 GB of 5.6 at 64 ranks of 16 M particles).  need[b]: NEED_BLOCK for
 * every handle of b but its halos, NEED_FACE(f) for its migrants of face slot f, bit r for its
 * halo r (0: none); a rank's own blocks register every halo. */
#define NEED_BLOCK (1ull << 63)
#define NEED_FACE(f) (1ull << (32 + (f)))
static uint64_t *sparse_needs(const tide_sim *sim)
{
	uint64_t *need = calloc((size_t)sim->nblocks, sizeof *need);
	if (!need) return NULL;
	for (int i = 0; i < sim->nnear; i++) {
		const tide_sim_block *k = &sim->blk[sim->near[i]];
		need[sim->near[i]] |= NEED_BLOCK;
		for (int j = 0; j < k->nnb; j++) {
			need[k->nb[j]] |= NEED_FACE(k->nb_slot[j]);
			/* a halo only where it is read (the executing rank of its reader's tasks, whose
			 * receive cache its writer invalidates) or written (which sends it): a near
			 * block's tasks on another rank name only those (sph_step.c skips the others),
			 * 26 halos per block where there were 6 faces */
			if (k->owner == sim->rank || sim->blk[k->nb[j]].owner == sim->rank)
				need[k->nb[j]] |= 1ull << k->nb_halo[j];
		}
	}
	return need;
}

/* The index lists the scratch must hold (tide_sort_scratch_bytes): halo_pack selects the
 * particles of a side face (faces 2..5) into a list of the block's capacity, migrate_unpack
 * those of a migrant buffer a block of a 2-D or 3-D split accepts into one of the buffer's; one
 * block alone, or slabs, need none. */
size_t tide_sim_scratch_list(const tide_sim *sim, size_t maxcap)
{
	size_t list = 0;
	for (int b = 0; b < sim->nblocks; b++) {
		const tide_sim_block *k = &sim->blk[b];
		int slot[6];
		tide_face_slots(&sim->P.grid, &k->range, slot);
		for (int f = 2; f < 6; f++)
			if (slot[f] >= 0 && maxcap > list) list = maxcap;
		if (tide_split_axes(k->range.split) > 1 && sim->halo_cap > list) list = sim->halo_cap;
	}
	return list;
}

static int register_all(tide_sim *sim, const tide_block_view *all, const uint32_t *counts,
                        const uint32_t *caps, uint32_t halo_cap, void **adopt, const split_totals *tot,
                        const float *w, const int *owners)
{
	const tide_sph_params *P = &sim->P;
	const tide_grid *g = &P->grid;
	int nb = sim->nblocks;
	uint32_t *cnt = calloc(nb, sizeof *cnt);
	uint32_t *face = calloc((size_t)nb * 6, sizeof *face);
	int one = nb == 1 && !counts; /* one block made from all: where[] is not needed */
	int *where = malloc(sizeof(int) * (all->count && !one ? all->count : 1));
	tide_block_arg *box = malloc(sizeof *box * (size_t)nb);
	uint64_t *need = NULL; /* sparse registration: the handles of each block this rank names */
	int ret = -1, adopted = 0;
	if (!cnt || !face || !where || !box) goto out;
	for (int b = 0; b < nb; b++) box[b] = sim->blk[b].range;
	/* the halos a block reads come from the blocks touching it only when every block is at
	 * least as wide as they may be deep (tide_halo_max; the decomposition makes them so) */
	int L = tide_halo_max(g);
	for (int b = 0; b < nb && L > 1; b++) {
		int lo[3], hi[3];
		tide_box_bounds(&box[b], lo, hi);
		for (int k = 0; k < 3; k++)
			if ((box[b].split >> k & 1) && hi[k] - lo[k] < L) {
				fprintf(stderr, "tide: block %d is %d cells of side 2 h_cell wide along %c, "
				        "narrower than the %d cell layers its halos need (the support 2 gas.h_max, "
				        "or mDBC's ghost nodes); use fewer blocks (gas: a smaller gas.h_max or a "
				        "larger gas.h_cell).\n", b,
				        hi[k] - lo[k], "xyz"[g->axis[k]], L);
				goto out;
			}
	}
	if (one) {
		/* one block: every particle is its, and it has no faces (no halos) but across a
		 * periodic axis (its own neighbour there) */
		cnt[0] = all->count;
	} else if (counts) {
		uint32_t i = 0;
		for (int b = 0; b < nb; b++) {
			cnt[b] = counts[b];
			for (uint32_t k = 0; k < counts[b]; k++, i++) {
				int c[3];
				if (i < all->count) tide_cell_k(g, all->x[i], all->y[i], all->z[i], c);
				if (i >= all->count || !tide_box_contains(&box[b], c)) {
					fprintf(stderr, "tide: particle %u (id %u) is not in the box of its "
					        "block %d.\n", i, i < all->count ? all->id[i] : 0, b);
					goto out;
				}
				where[i] = b;
			}
		}
		if (i != all->count) {
			fprintf(stderr, "tide: the block counts add up to %u particles, not %u.\n", i, all->count);
			goto out;
		}
	} else {
		for (uint32_t i = 0; i < all->count; i++) {
			where[i] = tide_sim_block_of(sim, all->x[i], all->y[i], all->z[i]);
			cnt[where[i]]++;
		}
	}
	/* particles on each face of each block: the halo capacity */
	for (uint32_t i = 0; i < all->count && (nb > 1 || g->periodic); i++) {
		int c[3], lo[3], hi[3], b = one ? 0 : where[i];
		tide_cell_k(g, all->x[i], all->y[i], all->z[i], c);
		tide_box_bounds(&box[b], lo, hi);
		for (int k = 0; k < 3; k++) {
			if (c[k] < lo[k] + L) face[6 * b + 2 * k]++;
			if (c[k] >= hi[k] - L) face[6 * b + 2 * k + 1]++;
		}
	}
	uint32_t maxface = 0;
	for (int f = 0; f < 6 * nb; f++)
		if (face[f] > maxface) maxface = face[f];
	if (set_owners(sim, all, where, one, w, tot ? tot->owner : owners, tot != NULL)) goto out;
	/* all holds only this rank's particles: the capacities come from the whole split */
	if (tot) {
		maxface = tot->maxface;
		memcpy(cnt, tot->count, sizeof *cnt * (size_t)nb);
	}

	/* Room to grow: blocks gain particles as the flow moves; the run rebalances before a
	 * block or a halo fills up (tide_sim_step checks). */
	/* two periodic axes: a face halo also holds the images of two rows (halo_pack.c) */
	sim->halo_cap = halo_cap ? halo_cap : (g->periodic == 3 ? 4 : 2) * maxface + 256;
	uint32_t avg = (uint32_t)((tot ? tot->total : all->count) / (uint32_t)nb);
	size_t maxcap = 1;
	for (int b = 0; b < nb; b++) {
		tide_sim_block *k = &sim->blk[b];
		uint32_t cap = caps ? caps[b] : tide_sim_block_cap(cnt[b], nb, avg, sim->halo_cap);
		if (cap < cnt[b]) {
			fprintf(stderr, "tide: block %d holds %u particles, more than its capacity %u.\n", b,
			        cnt[b], cap);
			goto out;
		}
		k->cap = cap;
		if (cap > maxcap) maxcap = cap;
		if (k->owner != sim->rank || (tot && tot->nohost)) continue;
		if (adopt && *adopt && nb == 1 && !counts && cap == all->cap && (void *)all->x == *adopt) {
			/* all was built as this block (tide_host_block_build): no copy */
			k->host = *adopt;
			*adopt = NULL;
			adopted = 1;
			continue;
		}
		k->host = tide_block_alloc_host(cap);
		if (!k->host) {
			fprintf(stderr, "tide: out of host memory for a block of %u particles%s.\n", cap,
			        TIDE_OOM_ADVICE);
			goto out;
		}
	}
	for (int b = 0; b < nb; b++) cnt[b] = adopted ? all->count : 0;
	for (uint32_t i = 0; i < all->count && !adopted; i++) {
		int b = one ? 0 : where[i];
		if (!sim->blk[b].host) {
			cnt[b]++;
			continue;
		}
		tide_block_view dst = tide_block_view_make(sim->blk[b].host, sim->blk[b].cap, 0);
		tide_copy_particle(&dst, cnt[b]++, all, i);
	}
	for (int b = 0; b < nb; b++) {
		tide_sim_block *k = &sim->blk[b];
		int slot[6], nbface[26];
		k->nface = tide_face_slots(g, &k->range, slot);
		k->nnb = tide_decomp_neighbours(g, box, nb, b, k->nb, nbface);
		for (int j = 0; j < k->nnb; j++) {
			int ns[6];
			tide_face_slots(g, &box[k->nb[j]], ns);
			k->nb_face[j] = nbface[j];
			k->nb_slot[j] = ns[nbface[j]];
			if (ns[nbface[j]] < 0) {
				fprintf(stderr, "tide: internal error: block %d has no face toward block %d.\n",
				        k->nb[j], b);
				goto out;
			}
		}
	}
	/* the halos each block packs, one per reader (halo_cut.h) */
	if (tide_sim_halo_cuts(sim)) goto out;
	/* the blocks this rank submits tasks for, from the owners and neighbours */
	if (tide_sim_block_lists(sim)) goto out;
	sim->sparse = tot && tot->nohost && sim->prune;
	if (sim->sparse && !(need = sparse_needs(sim))) goto out;
	for (int b = 0; b < nb; b++) {
		tide_sim_block *k = &sim->blk[b];
		k->B = k->C = k->R = NULL;
		memset(k->H, 0, sizeof k->H);
		memset(k->M, 0, sizeof k->M);
		if (need && !need[b]) continue; /* a far block: no task of this rank names it */
		if (need && !(need[b] & NEED_BLOCK)) {
			/* a neighbour of a near block: the halo and migrant buffers that block reads */
			for (int f = 0; f < k->nface; f++)
				if (need[b] & NEED_FACE(f)) register_face(sim, k, b, f);
			for (int r = 0; r < k->cut.n; r++)
				if (need[b] >> r & 1u) register_halo(sim, k, b, r, tot, face, cnt);
			continue;
		}
		if (tot && tot->nohost && k->owner == sim->rank) {
			/* a modelled block: StarPU reads a block only from a valid copy, so it gets one in
			 * main memory, address space of its size that no one touches (a simulation's
			 * tasks compute nothing): 16 M particles per rank cost no memory */
			k->virt = mmap(NULL, (size_t)k->cap * tide_block_bpp(), PROT_READ | PROT_WRITE,
			               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
			if (k->virt == MAP_FAILED) {
				k->virt = NULL;
				fprintf(stderr, "tide: no address space for a modelled block of %u particles.\n", k->cap);
				goto out;
			}
			tide_block_register(&k->B, STARPU_MAIN_RAM, k->virt, k->cap, tot->count[b]);
		} else if (k->host) tide_block_register(&k->B, STARPU_MAIN_RAM, k->host, k->cap, cnt[b]);
		else tide_block_register(&k->B, -1, NULL, k->cap, tot ? tot->count[b] : cnt[b]);
		starpu_vector_data_register(&k->C, -1, 0, tide_box_ncell(&k->range) + 1, sizeof(uint32_t));
		k->R = NULL;
		if (P->scheme == TIDE_SCHEME_GAS)
			starpu_vector_data_register(&k->R, -1, 0, tide_box_ncell(&k->range), sizeof(float));
		for (int f = 0; f < k->nface; f++) register_face(sim, k, b, f);
		for (int r = 0; r < k->cut.n; r++)
			if (!need || k->owner == sim->rank || need[b] >> r & 1u)
				register_halo(sim, k, b, r, tot, face, cnt);
		if (sim->mpi) {
			/* everything of a block lives on its owner; StarPU-MPI sends the halos and
			 * migrants a neighbour on another rank reads */
			int64_t t = sim->tag0 + TIDE_BLOCK_TAGS * b;
			starpu_mpi_data_register(k->B, t, k->owner);
			starpu_mpi_data_register(k->C, t + 1, k->owner);
			if (k->R) starpu_mpi_data_register(k->R, t + 14, k->owner);
		}
	}
	sim->mig_records = 0; /* the new migration buffers hold nothing yet (gas_halo.h) */
	/* in 8-byte elements: StarPU's vector count is 32-bit, and the scratch of blocks of a
	 * billion particles with side faces is 4 GB (the codelets take NX * ELEMSIZE bytes) */
	sim->scratch_bytes = (tide_sort_scratch_bytes(maxcap, tide_sim_scratch_list(sim, maxcap)) + 7) & ~(size_t)7;
	starpu_vector_data_register(&sim->scratch, -1, 0, (uint32_t)(sim->scratch_bytes / 8), 8);
	ret = 0;
out:
	free(need);
	free(cnt);
	free(face);
	free(where);
	free(box);
	return ret;
}

/* What both setups share before the split: parameters, grid check, block grid, MPI tags.
 * With boxes == NULL the grid comes from the case's decomposition and nblocks, otherwise from
 * the boxes (a restart). */
static int setup_begin(tide_sim *sim, const tide_case *c, int nblocks, const tide_block_arg *boxes,
                       int mpi)
{
	memset(sim, 0, sizeof *sim);
	sim->c = c;
	sim->mpi = mpi;
	sim->rank = sim->mpi ? starpu_mpi_world_rank() : 0;
	sim->size = sim->mpi ? starpu_mpi_world_size() : 1;
	tide_sim_params(c, &sim->P);
	sim->integrator = c->integrator;
	sim->verlet_steps = c->verlet_steps;
	const tide_grid *g = &sim->P.grid;
	double ncells = (double)g->n[0] * g->n[1] * g->n[2];
	if (ncells >= 4.0e9) {
		fprintf(stderr, "tide: %s: the domain holds %.3g cells of side 2h, more than the 4e9 "
		        "a 32-bit cell key allows; shrink 'domain' or raise 'dp'.\n", c->path, ncells);
		return -1;
	}
	sim->nblocks_wanted = nblocks;
	for (int k = 0; k < 3; k++) {
		sim->cut[k] = calloc((size_t)(nblocks > 0 ? nblocks : 1) + g->n[g->axis[k]] + 1, sizeof(int));
		if (!sim->cut[k]) return -1;
	}
	if (boxes) {
		if (tide_decomp_from_boxes(g, boxes, nblocks, sim->p, sim->cut)) {
			fprintf(stderr, "tide: the %d block boxes are not an aligned grid of the %dx%dx%d "
			        "cells.\n", nblocks, g->n[g->axis[0]], g->n[g->axis[1]], g->n[g->axis[2]]);
			return -1;
		}
	} else {
		char err[256];
		if (tide_decomp_grid(g, c->decomp, nblocks, sim->p, err, sizeof err)) {
			fprintf(stderr, "tide: %s: %s.\n", c->path, err);
			return -1;
		}
	}
	sim->nblocks = sim->p[0] * sim->p[1] * sim->p[2];
	sim->blk = calloc((size_t)sim->nblocks, sizeof *sim->blk);
	if (!sim->blk) return -1;
	if (sim->mpi) {
		sim->dt_levels = tide_dt_tree_levels(sim->size);
		sim->tag0 = starpu_mpi_tags_allocate(TIDE_BLOCK_TAGS * sim->nblocks + 3 * sim->size +
		                                     (sim->dt_levels + 1) * sim->size);
	}
	return 0;
}

int tide_dt_tree_levels(int nranks)
{
	int l = 0;
	while ((2 << l) <= nranks) l++;
	return l; /* floor(log2 nranks): the rounds among the largest power of two <= nranks */
}

/* The time step's combination across ranks: recursive doubling above a few ranks, where the
 * one hop of N - 1 messages per rank costs more than log2 N hops of one; TIDE_DT_REDUCTION
 * (all | tree) overrides the choice (the tests run both ways). */
static int dt_tree_wanted(int nranks, int rank)
{
	const char *v = getenv("TIDE_DT_REDUCTION");
	if (nranks < 2) return 0;
	if (v && !strcmp(v, "tree")) return 1;
	if (v && !strcmp(v, "all")) return 0;
	static int warned; /* once, not at every re-split of the blocks */
	if (v && *v && rank == 0 && !warned++)
		fprintf(stderr, "tide: warning: TIDE_DT_REDUCTION='%s' is neither 'all' nor 'tree': "
		        "choosing by the number of ranks.\n", v);
	return nranks > TIDE_DT_TREE_MIN_RANKS;
}

/* Whether this rank's tasks name rank q's record of level j of the recursive doubling
 * (tasks/rank_doubling.h): the rounds it submits are those of the pairs (me, me ^ 2^k), whose
 * round k reads level k of both and writes level k + 1 of both; level 0 is read by round 0 and
 * written by the fold of q + P into q (q = me, or me - P for a rank above P).  So level j holds
 * me, me ^ 2^j, me ^ 2^(j-1) and, at level 0, me - P: at most 3 records a level, where every
 * rank of the part[] records was registered at every level (all ranks, or in a sparse
 * registration some 37 at 1024 ranks: 370 handles a rank, each with StarPU-MPI's byte per rank). */
static int dt_tree_named(const tide_sim *sim, int j, int q)
{
	int me = sim->rank, P = 1 << sim->dt_levels;
	if (q == me || (me < P && q == (me ^ (1 << j)))) return 1;
	if (j > 0) return me < P && q == (me ^ (1 << (j - 1)));
	return me >= P && q == me - P;
}

/* The intermediate records of the recursive doubling (sph_sim.h): level 0 is the fold of the
 * ranks above the largest power of two into the ranks below it, levels 1 .. L-1 the rounds'
 * results (the last round writes all[q]).  Only the ones this rank's tasks name
 * (dt_tree_named) are registered; the tags stay those of a full registration. */
static int register_dt_tree(tide_sim *sim, int64_t t)
{
	size_t n = (size_t)sim->dt_levels * (size_t)sim->size;
	sim->tree = calloc(n, sizeof *sim->tree);
	sim->tree_host = calloc(n, sizeof *sim->tree_host);
	if (!sim->tree || !sim->tree_host) return -1;
	for (size_t i = 0; i < n; i++) {
		int q = (int)(i % (size_t)sim->size), j = (int)(i / (size_t)sim->size);
		if (!dt_tree_named(sim, j, q)) continue;
		tide_step_reduce_init(&sim->tree_host[i]);
		starpu_variable_data_register(&sim->tree[i], STARPU_MAIN_RAM, (uintptr_t)&sim->tree_host[i],
		                              sizeof(tide_step_reduce));
		starpu_mpi_data_register(sim->tree[i], t + (int64_t)i, q);
	}
	return 0;
}

/* The ranks whose reduction records this rank's tasks name under the recursive doubling
 * (sph_step.c's finish_reduction_tree): itself, its partner of every round and of the fold, and
 * the owners of its near blocks, whose forces reduce into their owner's record.  used[size]. */
static char *tree_ranks_used(const tide_sim *sim)
{
	int n = sim->size, me = sim->rank, P = 1 << sim->dt_levels;
	char *used = calloc((size_t)n, 1);
	if (!used) return NULL;
	used[me] = 1;
	for (int k = 0; k < sim->dt_levels && me < P; k++) used[me ^ (1 << k)] = 1;
	if (me + P < n) used[me + P] = 1;
	if (me >= P) used[me - P] = 1;
	for (int i = 0; i < sim->nnear; i++) used[sim->blk[sim->near[i]].owner] = 1;
	return used;
}

/* Rank r's reduction records (part[s][r]) and the global one combined on rank r (all[r]),
 * owned by r (sph_sim.h).  A sparse registration (with the recursive doubling, which names
 * O(log R) ranks' records where the one hop names all) registers the records of the ranks
 * tree_ranks_used gives only: R (3 + log2 R) handles per rank were another R^2 log R in the
 * one SMPI process. */
static int register_rank_reductions(tide_sim *sim)
{
	int64_t t = sim->tag0 + TIDE_BLOCK_TAGS * sim->nblocks;
	size_t n = (size_t)sim->size;
	sim->dt_tree = dt_tree_wanted(sim->size, sim->rank);
	char *used = sim->sparse && sim->dt_tree ? tree_ranks_used(sim) : NULL;
	if (sim->sparse && sim->dt_tree && !used) return -1;
	for (int s = 0; s < 2; s++) {
		sim->part[s] = calloc(n, sizeof *sim->part[s]);
		sim->part_host[s] = calloc(n, sizeof *sim->part_host[s]);
	}
	sim->all = calloc(n, sizeof *sim->all);
	sim->all_host = calloc(n, sizeof *sim->all_host);
	if (!sim->part[0] || !sim->part[1] || !sim->part_host[0] || !sim->part_host[1] || !sim->all ||
	    !sim->all_host) {
		free(used);
		return -1;
	}
	for (int r = 0; r < sim->size; r++) {
		if (used && !used[r]) {
			t += 3; /* the tags stay those of a full registration */
			continue;
		}
		for (int s = 0; s < 2; s++) {
			tide_step_reduce_init(&sim->part_host[s][r]);
			starpu_variable_data_register(&sim->part[s][r], STARPU_MAIN_RAM,
			                              (uintptr_t)&sim->part_host[s][r], sizeof(tide_step_reduce));
			starpu_data_set_reduction_methods(sim->part[s][r], &tide_dt_redux_cl, &tide_dt_init_cl);
			starpu_mpi_data_register(sim->part[s][r], t++, r);
		}
		tide_step_reduce_init(&sim->all_host[r]);
		starpu_variable_data_register(&sim->all[r], STARPU_MAIN_RAM, (uintptr_t)&sim->all_host[r],
		                              sizeof(tide_step_reduce));
		starpu_mpi_data_register(sim->all[r], t++, r);
	}
	sim->red = sim->all[sim->rank];
	sim->red2 = sim->part[1][sim->rank];
	int ret = sim->dt_tree ? register_dt_tree(sim, t) : 0;
	free(used);
	return ret;
}

/* What both setups share after the blocks: the step reductions, the self-gravity. */
static int setup_end(tide_sim *sim, size_t total)
{
	if (sim->mpi) {
		if (register_rank_reductions(sim)) return -1;
	} else {
		tide_step_reduce_init(&sim->red_host);
		tide_step_reduce_init(&sim->red2_host);
		starpu_variable_data_register(&sim->red, STARPU_MAIN_RAM, (uintptr_t)&sim->red_host,
		                              sizeof sim->red_host);
		starpu_variable_data_register(&sim->red2, STARPU_MAIN_RAM, (uintptr_t)&sim->red2_host,
		                              sizeof sim->red2_host);
		starpu_data_set_reduction_methods(sim->red, &tide_dt_redux_cl, &tide_dt_init_cl);
		starpu_data_set_reduction_methods(sim->red2, &tide_dt_redux_cl, &tide_dt_init_cl);
	}
	sim->n_total = total;
	sim->last.count = total;
	return tide_sph_gravity_init(sim);
}

/* Blocks of equal cost along every cut axis: estimated (w == NULL) or measured (weights). */
static int setup_weighted(tide_sim *sim, const tide_case *c, const tide_block_view *all,
                          int nblocks, const float *w, void **adopt, int mpi)
{
	if (setup_begin(sim, c, nblocks, NULL, mpi)) return -1;
	tide_decomp_cuts(&sim->P.grid, all, w, sim->p, sim->cut);
	for (int b = 0; b < sim->nblocks; b++) sim->blk[b].range = tide_decomp_box(sim->p, sim->cut, b);
	if (register_all(sim, all, NULL, NULL, 0, adopt, NULL, w, NULL)) return -1;
	return setup_end(sim, all->count);
}

int tide_sim_setup(tide_sim *sim, const tide_case *c, const tide_block_view *all, int nblocks,
                   int mpi)
{
	return setup_weighted(sim, c, all, nblocks, NULL, NULL, mpi);
}

int tide_sim_setup_take(tide_sim *sim, const tide_case *c, void **mem, const tide_block_view *all,
                        int nblocks, int mpi)
{
	return setup_weighted(sim, c, all, nblocks, NULL, mem, mpi);
}

int tide_sim_setup_ranges(tide_sim *sim, const tide_case *c, const tide_block_view *all,
                          int nblocks, const tide_block_arg *ranges, const uint32_t *counts,
                          const uint32_t *caps, uint32_t halo_cap, const int *owners, int mpi)
{
	if (nblocks < 1) {
		fprintf(stderr, "tide: %d blocks: at least one is needed.\n", nblocks);
		return -1;
	}
	if (setup_begin(sim, c, nblocks, ranges, mpi)) return -1;
	for (int b = 0; b < nblocks; b++) sim->blk[b].range = ranges[b];
	if (register_all(sim, all, counts, caps, halo_cap, NULL, NULL, NULL, owners)) return -1;
	return setup_end(sim, all->count);
}

int tide_sim_setup_lattice(tide_sim *sim, const tide_case *c, const tide_lattice *L, int nblocks,
                           int mpi)
{
	if (setup_begin(sim, c, nblocks, NULL, mpi)) return -1;
	int nb = sim->nblocks, ret = -1;
	const tide_grid *g = &sim->P.grid;
#ifdef TIDE_SIMGRID
	/* no particle exists, nothing reads a message's particles: their size alone is simulated */
	tide_block_messages_sized_only(1);
#endif
	tide_lattice_cuts(g, L, sim->p, sim->cut);
	tide_block_arg *box = malloc(sizeof *box * (size_t)nb);
	uint32_t *cnt = calloc((size_t)nb, sizeof *cnt), *face = calloc(6 * (size_t)nb, sizeof *face);
	int *own = malloc(sizeof *own * (size_t)nb);
	double *cost = malloc(sizeof *cost * (size_t)nb);
	if (!box || !cnt || !face || !own || !cost) goto out;
	for (int b = 0; b < nb; b++) box[b] = sim->blk[b].range = tide_decomp_box(sim->p, sim->cut, b);
	size_t total = tide_lattice_block_counts(g, L, box, nb, cnt, face);
	uint32_t maxface = 0;
	if (nb == 1 && !g->periodic) memset(face, 0, 6 * sizeof *face); /* no halos (register_all) */
	for (int f = 0; f < 6 * nb; f++)
		if (face[f] > maxface) maxface = face[f];
	for (int b = 0; b < nb; b++) cost[b] = (double)cnt[b] * tide_decomp_cost(TIDE_FLUID);
	owners_of_costs(sim, cost, own);
	split_totals tot = {cnt, maxface, total, own, face, 1};
	tide_block_view none = {0};
	if (register_all(sim, &none, NULL, NULL, 0, NULL, &tot, NULL, NULL)) goto out;
	for (int b = 0; b < nb; b++) sim->blk[b].cost = cost[b];
	ret = setup_end(sim, total);
out:
	free(box); free(cnt); free(face); free(own); free(cost);
	return ret;
}

size_t tide_sim_count(const tide_sim *sim, double *max_fill)
{
	/* one block can only lose particles (block_cap): its fill means nothing */
	if (max_fill) *max_fill = sim->nblocks > 1 ? sim->last.fill : 0;
	/* the step record counts in 32 bits: beyond, the count set up (no loss check) */
	return sim->n_total > UINT32_MAX ? sim->n_total : sim->last.count;
}

/* Brings every block to `root` (all ranks if -1) and acquires it there. */
static void acquire_blocks(tide_sim *sim, int root)
{
	for (int b = 0; b < sim->nblocks; b++) {
		starpu_data_handle_t h = sim->blk[b].B;
		if (sim->mpi) {
			if (root < 0) starpu_mpi_get_data_on_all_nodes_detached(MPI_COMM_WORLD, h);
			else starpu_mpi_get_data_on_node(MPI_COMM_WORLD, h, root);
		}
		if (root < 0 || root == sim->rank) starpu_data_acquire(h, STARPU_R);
	}
}

static tide_block_view ram_view(starpu_data_handle_t h)
{
	return tide_block_view_of(starpu_data_get_interface_on_node(h, STARPU_MAIN_RAM));
}

/* After a gather: every rank forgets the copies of the blocks it received (StarPU-MPI's cache).
 * A rank submits only the tasks of its own and neighbouring blocks (sph_step.c), so it does not
 * see the later writes to a far block and would take its stale copy as valid at the next gather
 * (and its owner, which does see them, would send one that nobody receives). */
static void forget_gathered(tide_sim *sim)
{
	for (int b = 0; sim->mpi && b < sim->nblocks; b++)
		starpu_mpi_cache_flush(MPI_COMM_WORLD, sim->blk[b].B);
}

static int gather_copy(tide_sim *sim, int root, void **mem, tide_block_view *all, uint32_t *counts);

/* A sparse registration (sph_sim.h) has no handle of a far block to move. */
static int refuse_sparse(const tide_sim *sim, const char *what)
{
	if (!sim->sparse) return 0;
	fprintf(stderr, "tide: a simulation of the synthetic box registers only the blocks each rank "
	        "touches, and cannot %s them (TIDE_PRUNE=0 registers every block).\n", what);
	return 1;
}

int tide_sim_gather_blocks(tide_sim *sim, int root, void **mem, tide_block_view *all,
                           uint32_t *counts)
{
	if (refuse_sparse(sim, "gather")) return -1;
	acquire_blocks(sim, root);
	int ret = root >= 0 && root != sim->rank ? 0 : gather_copy(sim, root, mem, all, counts);
	forget_gathered(sim);
	return ret;
}

/* The acquired blocks into *all, released one by one (root, or every rank with root -1). */
static int gather_copy(tide_sim *sim, int root, void **mem, tide_block_view *all, uint32_t *counts)
{
	(void)root;
	size_t n = 0;
	for (int b = 0; b < sim->nblocks; b++) n += ram_view(sim->blk[b].B).count;
	int ret = 0;
	if (!*mem || n > all->cap) {
		free(*mem);
		*mem = malloc((n ? n : 1) * tide_block_bpp());
		if (!*mem) {
			fprintf(stderr, "tide: out of host memory gathering %zu particles%s.\n", n,
			        TIDE_OOM_ADVICE);
			ret = -1;
		} else {
			*all = tide_block_view_make(*mem, (uint32_t)(n ? n : 1), 0);
		}
	}
	uint32_t k = 0;
	for (int b = 0; b < sim->nblocks; b++) {
		tide_block_view v = ram_view(sim->blk[b].B);
		if (counts) counts[b] = v.count;
		for (uint32_t i = 0; i < v.count && !ret; i++) tide_copy_particle(all, k++, &v, i);
		starpu_data_release(sim->blk[b].B);
	}
	all->count = k;
	return ret;
}

int tide_sim_gather(tide_sim *sim, int root, void **mem, tide_block_view *all)
{
	return tide_sim_gather_blocks(sim, root, mem, all, NULL);
}

static void unregister_all(tide_sim *sim)
{
	for (int b = 0; b < sim->nblocks; b++) {
		tide_sim_block *k = &sim->blk[b];
		/* a sparse registration left the handles no task of this rank names NULL */
		if (k->B) starpu_data_unregister(k->B);
		if (k->C) starpu_data_unregister(k->C);
		if (k->R) starpu_data_unregister(k->R);
		for (int r = 0; r < k->cut.n; r++)
			if (k->H[r]) starpu_data_unregister(k->H[r]);
		for (int f = 0; f < k->nface; f++)
			if (k->M[f]) starpu_data_unregister(k->M[f]);
		if (k->host) tide_block_free_host(k->host, k->cap);
		if (k->virt) munmap(k->virt, (size_t)k->cap * tide_block_bpp());
	}
	starpu_data_unregister(sim->scratch);
	if (sim->mpi) {
		for (int r = 0; r < sim->size; r++) {
			for (int s = 0; s < 2; s++)
				if (sim->part[s] && sim->part[s][r]) starpu_data_unregister(sim->part[s][r]);
			if (sim->all && sim->all[r]) starpu_data_unregister(sim->all[r]);
		}
		for (int s = 0; s < 2; s++) {
			free(sim->part[s]); free(sim->part_host[s]);
			sim->part[s] = NULL; sim->part_host[s] = NULL;
		}
		free(sim->all); free(sim->all_host);
		sim->all = NULL; sim->all_host = NULL;
		for (int i = 0; sim->tree && i < sim->dt_levels * sim->size; i++)
			if (sim->tree[i]) starpu_data_unregister(sim->tree[i]);
		free(sim->tree); free(sim->tree_host);
		sim->tree = NULL; sim->tree_host = NULL;
	} else {
		starpu_data_unregister(sim->red);
		starpu_data_unregister(sim->red2);
	}
	sim->red = sim->red2 = NULL;
	tide_sim_floating_free(sim);
	tide_sim_sinks_release(sim);
	tide_sph_gravity_fini(sim);
	if (sim->mpi) starpu_mpi_tags_free(sim->tag0);
	tide_sim_block_lists_free(sim);
	free(sim->blk);
	sim->blk = NULL;
	for (int k = 0; k < 3; k++) {
		free(sim->cut[k]);
		sim->cut[k] = NULL;
	}
}

void tide_sim_free(tide_sim *sim)
{
	if (sim->blk) unregister_all(sim);
	tide_sim_sinks_free(sim);
}

/* Whether the cuts placed by the weights w (same grid of blocks) are the current ones. */
static int same_cuts(const tide_sim *sim, const tide_block_view *all, const float *w)
{
	int *cut[3] = {NULL, NULL, NULL}, same = 1;
	for (int k = 0; k < 3; k++) {
		cut[k] = malloc(sizeof(int) * (size_t)(sim->p[k] + 1));
		if (!cut[k]) abort();
	}
	tide_decomp_cuts(&sim->P.grid, all, w, sim->p, cut);
	for (int k = 0; k < 3; k++)
		for (int j = 0; j <= sim->p[k]; j++) same &= cut[k][j] == sim->cut[k][j];
	for (int k = 0; k < 3; k++) free(cut[k]);
	return same;
}

/* What a rebalance carries over from the simulation it replaced. */
static void restore_after_rebalance(tide_sim *sim, const tide_sim *saved)
{
	sim->step = saved->step;
	sim->t = saved->t;
	sim->verlet_count = saved->verlet_count;
	sim->last = saved->last;
	sim->rebalances = saved->rebalances + 1;
	sim->on_reduce = saved->on_reduce; /* the step trace goes on */
	sim->on_reduce_arg = saved->on_reduce_arg;
	/* the floating bodies' states live on (their sums are registered again at the next step) */
	sim->nrigid = saved->nrigid;
	sim->rigid_set = saved->rigid_set;
	memcpy(sim->rigid, saved->rigid, sizeof sim->rigid);
	memcpy(sim->rigid_pose, saved->rigid_pose, sizeof sim->rigid_pose);
	sim->sinks = saved->sinks; /* the sink table lives on (its records: registered again) */
}

/* ---- the rebalance without a gather (several ranks) ----
 * Each rank keeps its particles until it knows where they go: the cost projected on the cells of
 * every key axis is summed over the ranks (tide_rank_allsum, in fixed point so that every rank
 * has the same bits and hence the same cuts), the cuts are placed from it as from all particles
 * (tide_decomp_cuts_projected), the new blocks' particle and face counts are summed the same way
 * (capacities), and every particle goes from its old owner straight to its new one
 * (tide_rank_exchange), between the pairs of ranks whose old and new blocks overlap, which both
 * sides know from the cuts.  Within a new block the particles keep the order the gather gave
 * them (by old block, then by place in it), so the run goes on exactly as after a gather. */


/* Whether the ranges [a0, a1) and [b0, b1) of cells of one axis share a cell, the first and last
 * range of each list reaching to the ends (ghost layers, clamped particles). */
static int ranges_meet(const int *ca, int pa, int ia, const int *cb, int pb, int ib)
{
	long a0 = ia == 0 ? -(1L << 40) : ca[ia], a1 = ia == pa - 1 ? 1L << 40 : ca[ia + 1];
	long b0 = ib == 0 ? -(1L << 40) : cb[ib], b1 = ib == pb - 1 ? 1L << 40 : cb[ib + 1];
	return a0 < b1 && b0 < a1;
}

/* For every block a of the cuts ca that `mine` selects, the ranks owning the blocks of the cuts cb
 * that meet it (the blocks of cb meeting a form a box of indices, found axis by axis): mark[owner
 * of b] = 1.  owner_b: the owner of each block of cb. */
static void mark_meeting(const int p[3], int *const ca[3], int *const cb[3], const unsigned char *mine,
                         const int *owner_b, unsigned char *mark)
{
	int nb = p[0] * p[1] * p[2];
	for (int a = 0; a < nb; a++) {
		if (!mine[a]) continue;
		int ia[3] = {a / (p[1] * p[2]), (a / p[2]) % p[1], a % p[2]}, j0[3], j1[3];
		for (int k = 0; k < 3; k++) {
			j0[k] = 0;
			while (j0[k] < p[k] - 1 && !ranges_meet(ca[k], p[k], ia[k], cb[k], p[k], j0[k])) j0[k]++;
			j1[k] = j0[k];
			while (j1[k] + 1 < p[k] && ranges_meet(ca[k], p[k], ia[k], cb[k], p[k], j1[k] + 1)) j1[k]++;
		}
		for (int x = j0[0]; x <= j1[0]; x++)
			for (int y = j0[1]; y <= j1[1]; y++)
				for (int z = j0[2]; z <= j1[2]; z++) mark[owner_b[(x * p[1] + y) * p[2] + z]] = 1;
	}
}

/* The packed particles one rank sends another: count, then the old block of each (uint32), then
 * the particles as a block of capacity count (tide_block_view_make). */
typedef struct parcel {
	uint32_t count;
	uint32_t *old;
	tide_block_view v;
	void *mem;
} parcel;

static void *parcel_alloc(parcel *pc, uint32_t n)
{
	size_t bytes = sizeof(uint32_t) * (1 + (size_t)n) + (size_t)n * tide_block_bpp();
	pc->mem = malloc(bytes);
	if (!pc->mem) return NULL;
	pc->count = n;
	*(uint32_t *)pc->mem = n;
	pc->old = (uint32_t *)pc->mem + 1;
	pc->v = tide_block_view_make(pc->old + n, n ? n : 1, 0);
	return pc->mem;
}

static size_t parcel_bytes(uint32_t n) { return sizeof(uint32_t) * (1 + (size_t)n) + (size_t)n * tide_block_bpp(); }

static void parcel_view(parcel *pc, void *mem)
{
	pc->mem = mem;
	pc->count = mem ? *(uint32_t *)mem : 0;
	pc->old = mem ? (uint32_t *)mem + 1 : NULL;
	pc->v = tide_block_view_make(pc->old + pc->count, pc->count ? pc->count : 1, pc->count);
}

/* The factor a block's measured time puts on its particles' estimated cost (1 without
 * measurements): measured / estimated over the mean, at most 1.5 either way: timings are noisy
 * (a task preempted on a shared core looks slow) and a bad window must not throw the cuts over;
 * a wider clamp let noise alone split the fluid 2640 / 560 over two ranks in test_balance. */
static double measured_factor(const double *block_time, const double *est, double mean, int b)
{
	if (!block_time) return 1.0;
	double f = est[b] > 0 && block_time[b] > 0 ? block_time[b] / est[b] / mean : 1.0;
	return f < 2.0 / 3.0 ? 2.0 / 3.0 : (f > 1.5 ? 1.5 : f);
}

static float particle_weight(uint32_t type, const double *block_time, double f)
{
	return block_time ? (float)(tide_decomp_cost(type) * f) : tide_decomp_cost(type);
}

/* The new blocks' owners (block_owners: hilbert): the weights of every rank's particles summed
 * per new block (fixed point: the same bits on every rank), then the curve's runs; boxes: as
 * tide_decomp_owner.  own[nb]. */
static int new_owners(tide_sim *sim, int *const newcut[3], const double *block_time,
                      const double *est, double mean, int *own)
{
	int nb = sim->nblocks;
	if (!owners_by_curve(sim)) {
		owners_of_costs(sim, NULL, own); /* boxes: no costs to sum */
		return 0;
	}
	int64_t *q = calloc((size_t)nb, sizeof *q);
	double *cost = calloc((size_t)nb, sizeof *cost);
	if (!q || !cost) {
		free(q); free(cost);
		return -1;
	}
	for (int b = 0; b < nb; b++) {
		if (sim->blk[b].owner != sim->rank) continue;
		tide_block_view v = ram_view(sim->blk[b].B);
		double f = measured_factor(block_time, est, mean, b);
		for (uint32_t i = 0; i < v.count; i++)
			q[block_of_cuts(&sim->P.grid, sim->p, newcut, v.x[i], v.y[i], v.z[i])] +=
			        cost_fixed(particle_weight(v.type[i], block_time, f));
	}
	int ret = tide_rank_allsum(q, (size_t)nb, sim->rank, sim->size);
	for (int b = 0; b < nb && !ret; b++) cost[b] = (double)q[b] / COST_FIXED;
	if (!ret) owners_of_costs(sim, cost, own);
	free(q); free(cost);
	return ret;
}

static int rebalance_direct(tide_sim *sim, const double *block_time, uint32_t *fluid_old,
                            uint32_t *fluid_new)
{
	const tide_grid *g = &sim->P.grid;
	int nb = sim->nblocks, me = sim->rank, size = sim->size, ret = -1;
	int n3 = g->n[g->axis[0]] + g->n[g->axis[1]] + g->n[g->axis[2]];
	/* the sums: est bits and fluid of the old blocks [2 nb], the projections [n3], then of the
	 * new blocks: counts [nb], faces [6 nb], fluid [nb], and the total [1] */
	size_t nnew = 8 * (size_t)nb + 1, nsum = 2 * (size_t)nb + (size_t)n3 + nnew;
	int64_t *sum = calloc(nsum, sizeof *sum);
	double *est = calloc((size_t)nb, sizeof *est), *proj = calloc((size_t)n3, sizeof *proj);
	int *newcut[3] = {NULL, NULL, NULL};
	parcel *out = calloc((size_t)size, sizeof *out), *in = calloc((size_t)size, sizeof *in);
	unsigned char *to = calloc(2 * (size_t)size, 1), *from = to + size;
	void **sendp = calloc(2 * (size_t)size, sizeof(void *)), **recvp = sendp + size;
	size_t *sendb = calloc(2 * (size_t)size, sizeof(size_t)), *recvb = sendb + size;
	uint32_t *newcount = calloc((size_t)nb, sizeof *newcount);
	int *own_new = calloc((size_t)nb, sizeof *own_new);
	if (!sum || !est || !proj || !out || !in || !to || !sendp || !sendb || !newcount || !own_new)
		goto out;
	for (int k = 0; k < 3; k++)
		if (!(newcut[k] = calloc((size_t)nb + g->n[g->axis[k]] + 1, sizeof(int)))) goto out;
	/* 1. this rank's blocks on the host; the estimated cost and fluid of every old block (one
	 * owner each: the sums carry its numbers, a double's bits included, unchanged) */
	for (int b = 0; b < nb; b++) {
		if (sim->blk[b].owner != me) continue;
		starpu_data_acquire(sim->blk[b].B, STARPU_R);
		tide_block_view v = ram_view(sim->blk[b].B);
		double e = 0;
		for (uint32_t i = 0; i < v.count; i++) {
			e += tide_decomp_cost(v.type[i]);
			sum[nb + b] += v.type[i] == TIDE_FLUID;
		}
		memcpy(&sum[b], &e, sizeof e);
	}
	if (tide_rank_allsum(sum, 2 * (size_t)nb, me, size)) goto out;
	double tsum = 0, esum = 0;
	for (int b = 0; b < nb; b++) {
		memcpy(&est[b], &sum[b], sizeof est[b]);
		if (fluid_old) fluid_old[sim->blk[b].owner] += (uint32_t)sum[nb + b];
		if (block_time) tsum += block_time[b];
		esum += est[b];
	}
	double mean = esum > 0 && tsum > 0 ? tsum / esum : 1.0;
	/* 2. the weights (as in rebalance) projected on the cells of each axis, summed */
	int64_t *pj = sum + 2 * nb;
	int off[3] = {0, g->n[g->axis[0]], g->n[g->axis[0]] + g->n[g->axis[1]]};
	for (int b = 0; b < nb; b++) {
		if (sim->blk[b].owner != me) continue;
		tide_block_view v = ram_view(sim->blk[b].B);
		double f = measured_factor(block_time, est, mean, b);
		for (uint32_t i = 0; i < v.count; i++) {
			int64_t q = cost_fixed(particle_weight(v.type[i], block_time, f));
			int c[3];
			tide_cell_k(g, v.x[i], v.y[i], v.z[i], c);
			for (int k = 0; k < 3; k++) pj[off[k] + c[k]] += q;
		}
	}
	if (tide_rank_allsum(pj, (size_t)n3, me, size)) goto out;
	for (int i = 0; i < n3; i++) proj[i] = (double)pj[i] / COST_FIXED;
	double *w3[3] = {proj + off[0], proj + off[1], proj + off[2]};
	tide_decomp_cuts_projected(g, w3, sim->p, newcut);
	if (new_owners(sim, newcut, block_time, est, mean, own_new)) goto out;
	int same = 1;
	for (int k = 0; k < 3; k++)
		for (int j = 0; j <= sim->p[k]; j++) same &= newcut[k][j] == sim->cut[k][j];
	for (int b = 0; b < nb; b++) same &= own_new[b] == sim->blk[b].owner;
	if (same && block_time) {
		/* the measured costs put the cuts where they are: nothing to move */
		for (int b = 0; b < nb; b++)
			if (sim->blk[b].owner == me) starpu_data_release(sim->blk[b].B);
		if (fluid_new && fluid_old) memcpy(fluid_new, fluid_old, sizeof *fluid_new * (size_t)size);
		ret = 1;
		goto out;
	}
	/* 3. who may send to whom: old blocks of one meeting new blocks of the other (a block's
	 * particles lie in its box, ghost layers counting with the end blocks) */
	int *own_old = malloc(sizeof(int) * (size_t)nb);
	unsigned char *mine_old = calloc((size_t)nb, 1), *mine_new = calloc((size_t)nb, 1);
	if (!own_old || !mine_old || !mine_new) {
		free(own_old); free(mine_old); free(mine_new);
		goto out;
	}
	for (int b = 0; b < nb; b++) {
		own_old[b] = sim->blk[b].owner;
		mine_old[b] = own_old[b] == me;
		mine_new[b] = own_new[b] == me;
	}
	mark_meeting(sim->p, sim->cut, newcut, mine_old, own_new, to);
	mark_meeting(sim->p, newcut, sim->cut, mine_new, own_old, from);
	free(own_old); free(mine_old); free(mine_new);
	/* 4. the new blocks' counts and faces (capacities, summed), and the parcels */
	uint32_t *nto = calloc((size_t)size, sizeof *nto);
	int64_t *cnt = pj + n3, *face = cnt + nb, *fluid = face + 6 * (size_t)nb, *total = fluid + nb;
	int L = tide_halo_max(g);
	if (!nto) goto out;
	for (int pass = 0; pass < 2; pass++) {
		for (int b = 0; b < nb; b++) {
			if (sim->blk[b].owner != me) continue;
			tide_block_view v = ram_view(sim->blk[b].B);
			for (uint32_t i = 0; i < v.count; i++) {
				int bn = block_of_cuts(g, sim->p, newcut, v.x[i], v.y[i], v.z[i]);
				int q = own_new[bn];
				if (pass == 0) {
					if (!to[q] && q != me) {
						fprintf(stderr, "tide: internal error: rebalance: particle id %u of block %d "
						        "lands in block %d of rank %d, which no cut let meet.\n", v.id[i], b, bn, q);
						abort();
					}
					nto[q]++;
					cnt[bn]++;
					fluid[bn] += v.type[i] == TIDE_FLUID;
					int c[3], lo[3], hi[3];
					tide_block_arg A = tide_decomp_box(sim->p, newcut, bn);
					tide_cell_k(g, v.x[i], v.y[i], v.z[i], c);
					tide_box_bounds(&A, lo, hi);
					for (int k = 0; k < 3; k++) {
						if (c[k] < lo[k] + L) face[6 * bn + 2 * k]++;
						if (c[k] >= hi[k] - L) face[6 * bn + 2 * k + 1]++;
					}
					continue;
				}
				parcel *pc = &out[q];
				pc->old[pc->v.count] = (uint32_t)b;
				tide_copy_particle(&pc->v, pc->v.count++, &v, i);
			}
		}
		if (pass == 0) {
			for (int q = 0; q < size; q++)
				if ((to[q] || q == me) && !parcel_alloc(&out[q], nto[q])) { free(nto); goto out; }
		}
	}
	free(nto);
	for (int b = 0; b < nb; b++)
		if (sim->blk[b].owner == me) starpu_data_release(sim->blk[b].B);
	for (int b = 0; b < nb; b++) *total += cnt[b];
	if (tide_rank_allsum(cnt, nnew, me, size)) goto out;
	/* 5. the parcels to their ranks */
	for (int q = 0; q < size; q++) {
		sendp[q] = out[q].mem;
		sendb[q] = out[q].mem ? parcel_bytes(out[q].count) : 0;
	}
	if (tide_rank_exchange(me, size, to, from, sendp, sendb, recvp, recvb)) goto out;
	for (int q = 0; q < size; q++) {
		if (q == me) { in[q] = out[q]; out[q].mem = NULL; continue; }
		parcel_view(&in[q], recvp[q]);
		recvp[q] = NULL;
	}
	/* 6. this rank's new particles in the gather's order: old block by old block, each from
	 * its one old owner's parcel, in which it is contiguous */
	uint32_t mine = 0, *at = calloc((size_t)size, sizeof *at);
	if (!at) goto out;
	for (int q = 0; q < size; q++) mine += in[q].count;
	void *mem = malloc((size_t)(mine ? mine : 1) * tide_block_bpp());
	if (!mem) { free(at); goto out; }
	tide_block_view all = tide_block_view_make(mem, mine ? mine : 1, 0);
	for (int b = 0; b < nb; b++) {
		parcel *pc = &in[sim->blk[b].owner];
		while (at[sim->blk[b].owner] < pc->count && pc->old[at[sim->blk[b].owner]] == (uint32_t)b)
			tide_copy_particle(&all, all.count++, &pc->v, at[sim->blk[b].owner]++);
	}
	free(at);
	if (all.count != mine) {
		fprintf(stderr, "tide: internal error: rebalance: %u of %u particles received in block order.\n",
		        all.count, mine);
		abort();
	}
	uint32_t maxface = 0;
	for (int f = 0; f < 6 * nb; f++)
		if ((uint32_t)face[f] > maxface) maxface = (uint32_t)face[f];
	for (int b = 0; b < nb; b++) newcount[b] = (uint32_t)cnt[b];
	split_totals tot = {newcount, maxface, (size_t)*total, own_new, NULL, 0};
	/* 7. the new blocks, registered as setup_weighted would, with these cuts */
	tide_sim saved = *sim;
	unregister_all(sim);
	int r = setup_begin(sim, saved.c, saved.nblocks_wanted, NULL, saved.mpi);
	if (!r) {
		for (int k = 0; k < 3; k++) memcpy(sim->cut[k], newcut[k], sizeof(int) * (size_t)(sim->p[k] + 1));
		for (int b = 0; b < sim->nblocks; b++) sim->blk[b].range = tide_decomp_box(sim->p, sim->cut, b);
		r = register_all(sim, &all, NULL, NULL, 0, NULL, &tot, NULL, NULL);
		if (!r) r = setup_end(sim, tot.total);
	}
	free(mem);
	if (!r && fluid_new)
		for (int b = 0; b < nb; b++) fluid_new[own_new[b]] += (uint32_t)fluid[b];
	restore_after_rebalance(sim, &saved);
	ret = r;
out:
	for (int q = 0; size > 0 && out && in && q < size; q++) { free(out[q].mem); free(in[q].mem); }
	for (int q = 0; recvp && q < size; q++) free(recvp[q]);
	for (int k = 0; k < 3; k++) free(newcut[k]);
	free(sum); free(est); free(proj); free(out); free(in); free(to); free(sendp);
	free(sendb); free(newcount); free(own_new);
	return ret;
}

/* TIDE_REBALANCE: direct (the default: rebalance_direct) or gather (every particle to every
 * rank, then the split as at the start: the reference the tests compare with). */
static int rebalance_gathers(int rank)
{
	const char *v = getenv("TIDE_REBALANCE");
	if (!v || !*v || !strcmp(v, "direct")) return 0;
	if (!strcmp(v, "gather")) return 1;
	if (rank == 0)
		fprintf(stderr, "tide: warning: TIDE_REBALANCE='%s' is neither 'direct' nor 'gather': "
		        "moving particles directly.\n", v);
	return 0;
}

/* Gathers every particle on every rank and splits them again (weights: see setup_weighted);
 * block_time (or NULL) turns the measured time of each old block into per-particle weights. */
static int rebalance(tide_sim *sim, const double *block_time, uint32_t *fluid_old,
                     uint32_t *fluid_new)
{
	if (refuse_sparse(sim, "rebalance")) return -1;
	if (sim->mpi && sim->size > 1 && !rebalance_gathers(sim->rank))
		return rebalance_direct(sim, block_time, fluid_old, fluid_new);
	void *mem = NULL;
	tide_block_view all;
	uint32_t *counts = calloc((size_t)sim->nblocks, sizeof *counts);
	float *w = NULL;
	if (!counts || tide_sim_gather_blocks(sim, -1, &mem, &all, counts)) {
		free(mem);
		free(counts);
		return -1;
	}
	if (block_time) {
		/* a block's particles share its measured time in proportion to their estimated
		 * cost: weight = estimate * (measured / estimated) of their block */
		w = malloc(sizeof *w * (all.count ? all.count : 1));
		double *est = calloc((size_t)sim->nblocks, sizeof *est), tsum = 0, esum = 0;
		if (!w || !est) abort();
		for (uint32_t i = 0, b = 0, k = 0; i < all.count; i++, k++) {
			while (k >= counts[b]) { k = 0; b++; }
			est[b] += tide_decomp_cost(all.type[i]);
		}
		for (int b = 0; b < sim->nblocks; b++) {
			tsum += block_time[b];
			esum += est[b];
		}
		double mean = esum > 0 && tsum > 0 ? tsum / esum : 1.0;
		for (uint32_t i = 0, b = 0, k = 0; i < all.count; i++, k++) {
			while (k >= counts[b]) { k = 0; b++; }
			w[i] = particle_weight(all.type[i], block_time, measured_factor(block_time, est, mean, b));
		}
		free(est);
	}
	if (fluid_old)
		for (uint32_t i = 0, b = 0, k = 0; i < all.count; i++, k++) {
			while (k >= counts[b]) { k = 0; b++; }
			fluid_old[sim->blk[b].owner] += all.type[i] == TIDE_FLUID;
		}
	if (block_time && same_cuts(sim, &all, w)) {
		/* the measured costs put the cuts where they are: nothing to redistribute */
		if (fluid_new && fluid_old)
			for (int r = 0; r < sim->size; r++) fluid_new[r] = fluid_old[r];
		free(mem);
		free(counts);
		free(w);
		return 1;
	}
	tide_sim saved = *sim;
	unregister_all(sim);
	int ret = setup_weighted(sim, saved.c, &all, saved.nblocks_wanted, w, NULL, saved.mpi);
	if (!ret && fluid_new)
		for (uint32_t i = 0; i < all.count; i++)
			fluid_new[sim->blk[tide_sim_block_of(sim, all.x[i], all.y[i], all.z[i])].owner] +=
			        all.type[i] == TIDE_FLUID;
	free(mem);
	free(counts);
	free(w);
	restore_after_rebalance(sim, &saved);
	return ret;
}

int tide_sim_rebalance(tide_sim *sim)
{
	return rebalance(sim, NULL, NULL, NULL);
}

int tide_sim_rebalance_measured(tide_sim *sim, const double *block_time, uint32_t *fluid_old,
                                uint32_t *fluid_new)
{
	return rebalance(sim, block_time, fluid_old, fluid_new);
}
