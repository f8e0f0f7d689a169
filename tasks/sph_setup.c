// SPDX-License-Identifier: LGPL-2.1-or-later
// The SPH data as StarPU handles: parameters from the case, the cell grid, the split of the
// domain into blocks (tasks/decomposition.c: slabs or a grid of boxes of about equal estimated
// cost), registration of every handle, gathering for output, and rebalancing.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "tide/advice.h"
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/decomposition.h"
#include "sph_gravity.h"
#include "tide/sph_interact.h"
#include "tide/sph_sim.h"
#include "tide/sps.h"
#include "tide/gas_math.h"
#include "tide/sink.h"

void tide_sph_codelets_where(enum tide_where where)
{
	struct starpu_codelet *cls[] = {&tide_cell_sort_cl, &tide_halo_pack_cl, &tide_sph_forces_cl,
	                                &tide_dt_init_cl, &tide_dt_redux_cl, &tide_dt_combine_cl,
	                                &tide_integrate_cl, &tide_body_motion_cl, &tide_migrate_pack_cl,
	                                &tide_migrate_unpack_cl, &tide_sgrav_gather_cl,
	                                &tide_sgrav_unsort_cl, &tide_sgrav_apply_cl, &tide_snap_copy_cl,
	                                &tide_gauge_sample_cl, &tide_gauge_combine_cl, &tide_mdbc_ghost_cl,
	                                &tide_sps_tau_cl, &tide_gas_density_cl, &tide_gas_forces_cl,
	                                &tide_gas_integrate_cl, &tide_jeans_min_cl, &tide_body_force_cl,
	                                &tide_sink_gravity_cl, &tide_sink_accrete_cl, &tide_sink_region_cl};
	for (size_t i = 0; i < sizeof cls / sizeof *cls; i++) tide_codelet_restrict(cls[i], where);
}

void tide_sim_set_aux(const tide_case *c)
{
	/* floating bodies: sph_forces tells a halo's floating particle by its id */
	tide_block_set_halo_ids(c->nfloating > 0);
	if (c->scheme == TIDE_SCHEME_GAS) /* h, u, 1/Omega, switch, last kick (gas_math.h); with
	                                   * sinks the potential too (sink.h) */
		tide_block_set_aux(c->sinks.on ? TIDE_SINK_NAUX : TIDE_GAS_NAUX, TIDE_GAS_HALO_FIELDS);
	else if (c->viscosity == TIDE_VISC_LAMINAR_SPS) /* tau and the gradient; halos carry tau (sps.h) */
		tide_block_set_aux(TIDE_SPS_NAUX, TIDE_SPS_HALO_FIELDS);
	else
		tide_block_set_aux(0, 0); /* WCSPH: no aux fields, 84 bytes per particle */
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
	P->scheme = c->scheme;
	if (gas) gas_params(c, &P->gas);

	tide_grid *g = &P->grid;
	double cell = 2.0 * tide_case_cell_h(c);
	g->periodic = c->periodic;
	g->halo = tide_case_halo_layers(c);
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

int tide_sim_block_of(const tide_sim *sim, double x, double y, double z)
{
	int k[3], i[3];
	tide_cell_k(&sim->P.grid, x, y, z, k);
	for (int a = 0; a < 3; a++) {
		i[a] = 0;
		while (i[a] < sim->p[a] - 1 && k[a] >= sim->cut[a][i[a] + 1]) i[a]++;
	}
	return (i[0] * sim->p[1] + i[1]) * sim->p[2] + i[2];
}

/* Handles of a block: B, C, then its halo and migration buffers. */
#define TIDE_BLOCK_TAGS 15

/* Registers the blocks of sim->blk[*].range.  counts == NULL: every particle of `all` goes to the
 * block of its cell (in the order of `all`); otherwise block b takes the next counts[b]
 * particles of `all`, in order (each must lie in the block's box).  caps == NULL / halo_cap
 * == 0: capacities are computed from the counts; otherwise they are the given ones. */
static int register_all(tide_sim *sim, const tide_block_view *all, const uint32_t *counts,
                        const uint32_t *caps, uint32_t halo_cap, void **adopt)
{
	const tide_sph_params *P = &sim->P;
	const tide_grid *g = &P->grid;
	int nb = sim->nblocks;
	uint32_t *cnt = calloc(nb, sizeof *cnt);
	uint32_t *face = calloc((size_t)nb * 6, sizeof *face);
	int one = nb == 1 && !counts; /* one block made from all: where[] is not needed */
	int *where = malloc(sizeof(int) * (all->count && !one ? all->count : 1));
	tide_block_arg *box = malloc(sizeof *box * (size_t)nb);
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
				        "narrower than the %d cell layers its halos need (the support 2 gas.h_max); "
				        "use fewer blocks, a smaller gas.h_max or a larger gas.h_cell.\n", b,
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

	/* Room to grow: blocks gain particles as the flow moves; the run rebalances before a
	 * block or a halo fills up (tide_sim_step checks). */
	/* two periodic axes: a face halo also holds the images of two rows (halo_pack.c) */
	sim->halo_cap = halo_cap ? halo_cap : (g->periodic == 3 ? 4 : 2) * maxface + 256;
	uint32_t avg = (uint32_t)(all->count / (uint32_t)nb);
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
		k->owner = tide_decomp_owner(sim->p, b, sim->size);
		if (cap > maxcap) maxcap = cap;
		if (k->owner != sim->rank) continue;
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
			k->nb_slot[j] = ns[nbface[j]];
			if (ns[nbface[j]] < 0) {
				fprintf(stderr, "tide: internal error: block %d has no face toward block %d.\n",
				        k->nb[j], b);
				goto out;
			}
		}
		if (k->host) tide_block_register(&k->B, STARPU_MAIN_RAM, k->host, k->cap, cnt[b]);
		else tide_block_register(&k->B, -1, NULL, k->cap, cnt[b]);
		starpu_vector_data_register(&k->C, -1, 0, tide_box_ncell(&k->range) + 1, sizeof(uint32_t));
		k->R = NULL;
		if (P->scheme == TIDE_SCHEME_GAS)
			starpu_vector_data_register(&k->R, -1, 0, tide_box_ncell(&k->range), sizeof(float));
		for (int f = 0; f < k->nface; f++) {
			uint32_t n0 = 0;
#ifdef TIDE_SIMGRID
			/* a simulation build's halo_pack computes nothing, so a halo keeps the count it is
			 * registered with: that of its face at the start (what halo_pack's first step
			 * gives), for messages of the real halos' size */
			for (int fi = 0; fi < 6; fi++)
				if (slot[fi] == f) n0 = face[6 * b + fi];
#endif
			tide_block_register_fields(&k->H[f], -1, NULL, sim->halo_cap, n0, TIDE_HALO_FIELDS);
			tide_block_register(&k->M[f], -1, NULL, sim->halo_cap, 0);
		}
		if (sim->mpi) {
			/* everything of a block lives on its owner; StarPU-MPI sends the halos and
			 * migrants a neighbour on another rank reads */
			int64_t t = sim->tag0 + TIDE_BLOCK_TAGS * b;
			starpu_mpi_data_register(k->B, t, k->owner);
			starpu_mpi_data_register(k->C, t + 1, k->owner);
			if (k->R) starpu_mpi_data_register(k->R, t + 14, k->owner);
			for (int f = 0; f < k->nface; f++) {
				starpu_mpi_data_register(k->H[f], t + 2 + f, k->owner);
				starpu_mpi_data_register(k->M[f], t + 8 + f, k->owner);
			}
		}
	}
	/* in 8-byte elements: StarPU's vector count is 32-bit, and the scratch of a block of a
	 * billion particles is 8 GB (the codelets take NX * ELEMSIZE bytes) */
	starpu_vector_data_register(&sim->scratch, -1, 0,
	                            (uint32_t)((tide_sort_scratch_bytes(maxcap) + 7) / 8), 8);
	ret = 0;
out:
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

/* The intermediate records of the recursive doubling (sph_sim.h): level 0 is the fold of the
 * ranks above the largest power of two into the ranks below it, levels 1 .. L-1 the rounds'
 * results (the last round writes all[q]). */
static int register_dt_tree(tide_sim *sim, int64_t t)
{
	size_t n = (size_t)sim->dt_levels * (size_t)sim->size;
	sim->tree = calloc(n, sizeof *sim->tree);
	sim->tree_host = calloc(n, sizeof *sim->tree_host);
	if (!sim->tree || !sim->tree_host) return -1;
	for (size_t i = 0; i < n; i++) {
		int q = (int)(i % (size_t)sim->size);
		tide_step_reduce_init(&sim->tree_host[i]);
		starpu_variable_data_register(&sim->tree[i], STARPU_MAIN_RAM, (uintptr_t)&sim->tree_host[i],
		                              sizeof(tide_step_reduce));
		starpu_mpi_data_register(sim->tree[i], t + (int64_t)i, q);
	}
	return 0;
}

/* Rank r's reduction records (part[s][r]) and the global one combined on rank r (all[r]),
 * owned by r (sph_sim.h). */
static int register_rank_reductions(tide_sim *sim)
{
	int64_t t = sim->tag0 + TIDE_BLOCK_TAGS * sim->nblocks;
	size_t n = (size_t)sim->size;
	for (int s = 0; s < 2; s++) {
		sim->part[s] = calloc(n, sizeof *sim->part[s]);
		sim->part_host[s] = calloc(n, sizeof *sim->part_host[s]);
	}
	sim->all = calloc(n, sizeof *sim->all);
	sim->all_host = calloc(n, sizeof *sim->all_host);
	if (!sim->part[0] || !sim->part[1] || !sim->part_host[0] || !sim->part_host[1] || !sim->all ||
	    !sim->all_host)
		return -1;
	for (int r = 0; r < sim->size; r++) {
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
	sim->dt_tree = dt_tree_wanted(sim->size, sim->rank);
	return sim->dt_tree ? register_dt_tree(sim, t) : 0;
}

/* What both setups share after the blocks: the step reductions, the self-gravity. */
static int setup_end(tide_sim *sim, const tide_block_view *all)
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
	sim->n_total = all->count;
	sim->last.count = all->count;
	return tide_sph_gravity_init(sim);
}

/* Blocks of equal cost along every cut axis: estimated (w == NULL) or measured (weights). */
static int setup_weighted(tide_sim *sim, const tide_case *c, const tide_block_view *all,
                          int nblocks, const float *w, void **adopt, int mpi)
{
	if (setup_begin(sim, c, nblocks, NULL, mpi)) return -1;
	tide_decomp_cuts(&sim->P.grid, all, w, sim->p, sim->cut);
	for (int b = 0; b < sim->nblocks; b++) sim->blk[b].range = tide_decomp_box(sim->p, sim->cut, b);
	if (register_all(sim, all, NULL, NULL, 0, adopt)) return -1;
	return setup_end(sim, all);
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
                          const uint32_t *caps, uint32_t halo_cap, int mpi)
{
	if (nblocks < 1) {
		fprintf(stderr, "tide: %d blocks: at least one is needed.\n", nblocks);
		return -1;
	}
	if (setup_begin(sim, c, nblocks, ranges, mpi)) return -1;
	for (int b = 0; b < nblocks; b++) sim->blk[b].range = ranges[b];
	if (register_all(sim, all, counts, caps, halo_cap, NULL)) return -1;
	return setup_end(sim, all);
}

size_t tide_sim_count(const tide_sim *sim, double *max_fill)
{
	/* one block can only lose particles (block_cap): its fill means nothing */
	if (max_fill) *max_fill = sim->nblocks > 1 ? sim->last.fill : 0;
	return sim->last.count;
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

int tide_sim_gather_blocks(tide_sim *sim, int root, void **mem, tide_block_view *all,
                           uint32_t *counts)
{
	acquire_blocks(sim, root);
	if (root >= 0 && root != sim->rank) return 0;
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
		starpu_data_unregister(k->B);
		starpu_data_unregister(k->C);
		if (k->R) starpu_data_unregister(k->R);
		for (int f = 0; f < k->nface; f++) {
			starpu_data_unregister(k->H[f]);
			starpu_data_unregister(k->M[f]);
		}
		if (k->host) tide_block_free_host(k->host, k->cap);
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
			starpu_data_unregister(sim->tree[i]);
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

/* Gathers every particle on every rank and splits them again (weights: see setup_weighted);
 * block_time (or NULL) turns the measured time of each old block into per-particle weights. */
static int rebalance(tide_sim *sim, const double *block_time, uint32_t *fluid_old,
                     uint32_t *fluid_new)
{
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
			double f = est[b] > 0 && block_time[b] > 0 ? block_time[b] / est[b] / mean : 1.0;
			/* at most a factor 1.5 either way of the estimate: timings are noisy (a task
			 * preempted on a shared core looks slow) and a bad window must not throw the
			 * cuts over; a wider clamp let noise alone split the fluid 2640 / 560 over two
			 * ranks in test_balance */
			f = f < 2.0 / 3.0 ? 2.0 / 3.0 : (f > 1.5 ? 1.5 : f);
			w[i] = (float)(tide_decomp_cost(all.type[i]) * f);
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
	sim->step = saved.step;
	sim->t = saved.t;
	sim->verlet_count = saved.verlet_count;
	sim->last = saved.last;
	sim->rebalances = saved.rebalances + 1;
	sim->on_reduce = saved.on_reduce; /* the step trace goes on */
	sim->on_reduce_arg = saved.on_reduce_arg;
	/* the floating bodies' states live on (their sums are registered again at the next step) */
	sim->nrigid = saved.nrigid;
	sim->rigid_set = saved.rigid_set;
	memcpy(sim->rigid, saved.rigid, sizeof sim->rigid);
	memcpy(sim->rigid_pose, saved.rigid_pose, sizeof sim->rigid_pose);
	sim->sinks = saved.sinks; /* the sink table lives on (its records: registered again) */
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
