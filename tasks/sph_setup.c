// SPDX-License-Identifier: LGPL-2.1-or-later
// The SPH data as StarPU handles: parameters from the case, the cell grid, the split of the
// domain into blocks (slabs of cell layers along the longest axis, each holding about the same
// number of particles), registration of every handle, gathering for output, and rebalancing.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "tide/log.h"
#include "tide/block_interface.h"
#include "tide/runtime.h"
#include "tide/codelets.h"
#include "tide/sph_interact.h"
#include "tide/sph_sim.h"

void tide_sph_codelets_where(uint32_t where)
{
	struct starpu_codelet *cls[] = {&tide_cell_sort_cl, &tide_halo_pack_cl, &tide_sph_forces_cl,
	                                &tide_sph_forces_mpi_cl, &tide_dt_init_cl, &tide_dt_redux_cl,
	                                &tide_integrate_cl, &tide_migrate_pack_cl,
	                                &tide_migrate_unpack_cl};
	for (size_t i = 0; i < sizeof cls / sizeof *cls; i++) cls[i]->where = where;
}

void tide_sim_params(const tide_case *c, tide_sph_params *P)
{
	memset(P, 0, sizeof *P);
	double h = tide_case_h(c);
	P->dim = c->dim;
	P->kernel = c->kernel;
	P->diffusion = c->diffusion;
	P->h = (float)h;
	P->h2x4 = (float)(4.0 * h * h);
	P->aw = (float)tide_kernel_alpha(c->kernel, c->dim, h);
	P->af = (float)(tide_kernel_alpha(c->kernel, c->dim, h) / (h * h));
	P->mass[TIDE_FLUID] = P->mass[TIDE_BOUND] = (float)tide_case_mass(c);
	P->rho0 = (float)c->rho0;
	P->inv_rho0 = (float)(1.0 / c->rho0);
	P->tait_b = (float)tide_case_tait_b(c);
	P->gamma = (float)c->gamma;
	P->c0 = (float)c->c0;
	P->visco = (float)c->visco;
	P->eta2 = (float)(0.01 * h * h);
	P->delta_hc0 = (float)(c->delta * h * c->c0);
	double gmag = sqrt(c->gravity[0] * c->gravity[0] + c->gravity[1] * c->gravity[1] +
	                   c->gravity[2] * c->gravity[2]);
	P->rhoh_k = (float)(c->rho0 * gmag / tide_case_tait_b(c));
	for (int d = 0; d < 3; d++) {
		P->g[d] = (float)c->gravity[d];
		P->dom_lo[d] = c->domain.lo[d];
		P->dom_hi[d] = c->domain.hi[d];
	}
	P->cfl = (float)c->cfl;

	tide_grid *g = &P->grid;
	double cell = 2.0 * h;
	g->cell = (float)cell;
	g->inv_cell = 1.0 / cell;
	for (int d = 0; d < 3; d++) {
		g->origin[d] = c->domain.lo[d];
		double len = c->domain.hi[d] - c->domain.lo[d];
		g->n[d] = (c->dim == 2 && d == 1) ? 1 : (int)fmax(1.0, ceil(len / cell));
	}
	/* slab axis: the longest; the other two keep their order */
	int a0 = 0;
	for (int d = 1; d < 3; d++)
		if (g->n[d] > g->n[a0]) a0 = d;
	g->axis[0] = a0;
	g->axis[1] = a0 == 0 ? 1 : 0;
	g->axis[2] = a0 == 2 ? 1 : 2;
	g->plane = (uint32_t)g->n[g->axis[1]] * (uint32_t)g->n[g->axis[2]];
}

int tide_host_block_from_set(const tide_particle_set *s, void **mem, tide_block_view *v)
{
	uint32_t cap = (uint32_t)(s->n ? s->n : 1);
	*mem = malloc((size_t)cap * TIDE_BLOCK_BPP);
	if (!*mem) {
		fprintf(stderr, "tide: out of host memory for %zu particles%s.\n", s->n, TIDE_OOM_ADVICE);
		return -1;
	}
	*v = tide_block_view_make(*mem, cap, (uint32_t)s->n);
	for (size_t i = 0; i < s->n; i++) {
		v->x[i] = s->x[i]; v->y[i] = s->y[i]; v->z[i] = s->z[i];
		v->vx[i] = v->vx1[i] = s->vx[i];
		v->vy[i] = v->vy1[i] = s->vy[i];
		v->vz[i] = v->vz1[i] = s->vz[i];
		v->rho[i] = v->rho1[i] = s->rho[i];
		v->ax[i] = v->ay[i] = v->az[i] = v->drho[i] = 0.f;
		v->id[i] = s->id[i];
		v->type[i] = s->type[i];
		v->key[i] = 0;
	}
	return 0;
}

void tide_set_view_of_block(const tide_block_view *v, tide_particle_set *s)
{
	memset(s, 0, sizeof *s);
	s->n = s->cap = v->count;
	s->x = v->x; s->y = v->y; s->z = v->z;
	s->vx = v->vx; s->vy = v->vy; s->vz = v->vz;
	s->rho = v->rho; s->id = v->id; s->type = v->type;
}

/* Layer ranges with about equal particle counts, each at least one layer. */
/* Relative cost of a fluid and a boundary particle in a step, for splitting the blocks. */
#define TIDE_COST_FLUID 4
#define TIDE_COST_BOUND 1

static void split_layers(const tide_sph_params *P, const uint32_t *per_layer, int nb,
                         tide_block_arg *r)
{
	int n0 = P->grid.n[P->grid.axis[0]];
	double total = 0;
	for (int l = 0; l < n0; l++) total += per_layer[l];
	int l = 0;
	double acc = 0;
	for (int b = 0; b < nb; b++) {
		r[b].l0 = l;
		double target = total * (b + 1) / nb;
		int must_leave = nb - 1 - b; /* layers the remaining blocks need */
		while (l < n0 - must_leave && (l == r[b].l0 || acc + per_layer[l] * 0.5 <= target)) {
			acc += per_layer[l];
			l++;
		}
		if (b == nb - 1) l = n0;
		r[b].l1 = l;
	}
}

/* Registers the blocks of sim->blk[*].range.  counts == NULL: every particle of `all` goes to the
 * block of its cell layer (in the order of `all`); otherwise block b takes the next counts[b]
 * particles of `all`, in order (each must lie in the block's layers).  caps == NULL / halo_cap
 * == 0: capacities are computed from the counts; otherwise they are the given ones. */
static int register_all(tide_sim *sim, const tide_block_view *all, const uint32_t *counts,
                        const uint32_t *caps, uint32_t halo_cap)
{
	const tide_sph_params *P = &sim->P;
	int nb = sim->nblocks, n0 = P->grid.n[P->grid.axis[0]];
	uint32_t *cnt = calloc(nb, sizeof *cnt);
	uint32_t *per_layer = calloc((size_t)n0, sizeof *per_layer);
	int *owner = malloc(sizeof(int) * (size_t)n0);
	int ret = -1;
	if (!cnt || !per_layer || !owner) goto out;
	for (int b = 0; b < nb; b++)
		for (int l = sim->blk[b].range.l0; l < sim->blk[b].range.l1; l++) owner[l] = b;
	for (uint32_t i = 0; i < all->count; i++)
		per_layer[tide_layer_of(&P->grid, all->x[i], all->y[i], all->z[i])]++;
	if (counts) {
		uint32_t i = 0;
		for (int b = 0; b < nb; b++) {
			cnt[b] = counts[b];
			for (uint32_t k = 0; k < counts[b]; k++, i++) {
				int l = i < all->count ? tide_layer_of(&P->grid, all->x[i], all->y[i], all->z[i]) : -1;
				if (l < sim->blk[b].range.l0 || l >= sim->blk[b].range.l1) {
					fprintf(stderr, "tide: particle %u (id %u) is not in the cell layers [%d, %d) "
					        "of its block %d.\n", i, i < all->count ? all->id[i] : 0,
					        sim->blk[b].range.l0, sim->blk[b].range.l1, b);
					goto out;
				}
			}
		}
		if (i != all->count) {
			fprintf(stderr, "tide: the block counts add up to %u particles, not %u.\n", i, all->count);
			goto out;
		}
	} else {
		for (uint32_t i = 0; i < all->count; i++)
			cnt[owner[tide_layer_of(&P->grid, all->x[i], all->y[i], all->z[i])]]++;
	}

	/* Room to grow: blocks gain particles as the flow moves; the run rebalances before a
	 * block or a halo fills up (tide_sim_step checks). */
	uint32_t maxlayer = 0;
	for (int l = 0; l < n0; l++)
		if (per_layer[l] > maxlayer) maxlayer = per_layer[l];
	sim->halo_cap = halo_cap ? halo_cap : 2 * maxlayer + 256;
	uint32_t avg = (uint32_t)(all->count / (uint32_t)nb);
	size_t maxcap = 1;
	for (int b = 0; b < nb; b++) {
		tide_sim_block *k = &sim->blk[b];
		uint32_t cap = caps ? caps[b] : cnt[b] + cnt[b] / 2 + avg / 4 + 2 * sim->halo_cap + 1024;
		if (cap < cnt[b]) {
			fprintf(stderr, "tide: block %d holds %u particles, more than its capacity %u.\n", b,
			        cnt[b], cap);
			goto out;
		}
		k->cap = cap;
		k->owner = (int)((long)b * sim->size / nb);
		if (cap > maxcap) maxcap = cap;
		if (k->owner != sim->rank) continue;
		k->host = tide_block_alloc_host(cap);
		if (!k->host) {
			fprintf(stderr, "tide: out of host memory for a block of %u particles%s.\n", cap,
			        TIDE_OOM_ADVICE);
			goto out;
		}
	}
	for (int b = 0; b < nb; b++) cnt[b] = 0;
	for (uint32_t i = 0, kb = 0; i < all->count; i++) {
		int b;
		if (counts) {
			while (cnt[kb] == counts[kb]) kb++;
			b = (int)kb;
		} else {
			b = owner[tide_layer_of(&P->grid, all->x[i], all->y[i], all->z[i])];
		}
		if (!sim->blk[b].host) {
			cnt[b]++;
			continue;
		}
		tide_block_view dst = tide_block_view_make(sim->blk[b].host, sim->blk[b].cap, 0);
		tide_copy_particle(&dst, cnt[b]++, all, i);
	}
	for (int b = 0; b < nb; b++) {
		tide_sim_block *k = &sim->blk[b];
		uint32_t ncell = (uint32_t)(k->range.l1 - k->range.l0) * P->grid.plane;
		if (k->host) tide_block_register(&k->B, STARPU_MAIN_RAM, k->host, k->cap, cnt[b]);
		else tide_block_register(&k->B, -1, NULL, k->cap, cnt[b]);
		starpu_vector_data_register(&k->C, -1, 0, ncell + 1, sizeof(uint32_t));
		tide_block_register(&k->HL, -1, NULL, sim->halo_cap, 0);
		tide_block_register(&k->HR, -1, NULL, sim->halo_cap, 0);
		tide_block_register(&k->ML, -1, NULL, sim->halo_cap, 0);
		tide_block_register(&k->MR, -1, NULL, sim->halo_cap, 0);
		if (sim->mpi) {
			/* everything of a block lives on its owner; StarPU-MPI sends the halos and
			 * migrants a neighbour on another rank reads */
			starpu_data_handle_t hs[6] = {k->B, k->C, k->HL, k->HR, k->ML, k->MR};
			for (int j = 0; j < 6; j++)
				starpu_mpi_data_register(hs[j], sim->tag0 + 6 * b + j, k->owner);
		}
	}
	starpu_vector_data_register(&sim->scratch, -1, 0, tide_sort_scratch_bytes(maxcap), 1);
	ret = 0;
out:
	free(cnt);
	free(per_layer);
	free(owner);
	return ret;
}

/* What both setups share before the split: parameters, grid check, block table, MPI tags. */
static int setup_begin(tide_sim *sim, const tide_case *c, int nblocks)
{
	memset(sim, 0, sizeof *sim);
	sim->c = c;
	sim->mpi = tide_runtime_uses_mpi();
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
	int n0 = g->n[g->axis[0]];
	sim->nblocks_wanted = nblocks;
	sim->nblocks = nblocks < 1 ? 1 : (nblocks > n0 ? n0 : nblocks);
	sim->blk = calloc((size_t)sim->nblocks, sizeof *sim->blk);
	if (!sim->blk) return -1;
	if (sim->mpi) sim->tag0 = starpu_mpi_tags_allocate(6 * sim->nblocks + 4);
	return 0;
}

/* What both setups share after the blocks: zero-particle halos and the step reductions. */
static void setup_end(tide_sim *sim, const tide_block_view *all)
{
	for (int k = 0; k < 2; k++) {
		sim->empty_mem[k] = tide_block_alloc_host(1);
		tide_block_register(k ? &sim->empty_hi : &sim->empty_lo, STARPU_MAIN_RAM,
		                    sim->empty_mem[k], 1, 0);
	}
	tide_step_reduce_init(&sim->red_host);
	tide_step_reduce_init(&sim->red2_host);
	starpu_variable_data_register(&sim->red, STARPU_MAIN_RAM, (uintptr_t)&sim->red_host,
	                              sizeof sim->red_host);
	starpu_variable_data_register(&sim->red2, STARPU_MAIN_RAM, (uintptr_t)&sim->red2_host,
	                              sizeof sim->red2_host);
	starpu_data_set_reduction_methods(sim->red, &tide_dt_redux_cl, &tide_dt_init_cl);
	starpu_data_set_reduction_methods(sim->red2, &tide_dt_redux_cl, &tide_dt_init_cl);
	if (sim->mpi) {
		/* the reductions are owned by rank 0 and sent to all; zero-particle halos exist on
		 * every rank */
		int64_t t = sim->tag0 + 6 * sim->nblocks;
		starpu_mpi_data_register(sim->red, t, 0);
		starpu_mpi_data_register(sim->red2, t + 1, 0);
		starpu_mpi_data_register(sim->empty_lo, t + 2, STARPU_MPI_PER_NODE);
		starpu_mpi_data_register(sim->empty_hi, t + 3, STARPU_MPI_PER_NODE);
	}
	sim->n_total = all->count;
	sim->last.count = all->count;
}

int tide_sim_setup(tide_sim *sim, const tide_case *c, const tide_block_view *all, int nblocks)
{
	if (setup_begin(sim, c, nblocks)) return -1;
	const tide_grid *g = &sim->P.grid;
	int n0 = g->n[g->axis[0]];
	uint32_t *per_layer = calloc((size_t)n0, sizeof *per_layer);
	tide_block_arg *r = malloc(sizeof *r * (size_t)sim->nblocks);
	if (!per_layer || !r) return -1;
	/* blocks of equal cost rather than equal count: a fixed-wall boundary particle only
	 * interacts with fluid neighbours, so it costs a fraction of a fluid particle */
	for (uint32_t i = 0; i < all->count; i++)
		per_layer[tide_layer_of(g, all->x[i], all->y[i], all->z[i])] +=
		        all->type[i] == TIDE_FLUID ? TIDE_COST_FLUID : TIDE_COST_BOUND;
	split_layers(&sim->P, per_layer, sim->nblocks, r);
	for (int b = 0; b < sim->nblocks; b++) sim->blk[b].range = r[b];
	free(per_layer);
	free(r);
	if (register_all(sim, all, NULL, NULL, 0)) return -1;
	setup_end(sim, all);
	return 0;
}

int tide_sim_setup_ranges(tide_sim *sim, const tide_case *c, const tide_block_view *all,
                          int nblocks, const tide_block_arg *ranges, const uint32_t *counts,
                          const uint32_t *caps, uint32_t halo_cap)
{
	if (setup_begin(sim, c, nblocks)) return -1;
	int n0 = sim->P.grid.n[sim->P.grid.axis[0]];
	if (sim->nblocks != nblocks) {
		fprintf(stderr, "tide: %d blocks asked for a grid of %d cell layers.\n", nblocks, n0);
		return -1;
	}
	for (int b = 0; b < nblocks; b++) {
		if (ranges[b].l0 != (b ? ranges[b - 1].l1 : 0) || ranges[b].l1 <= ranges[b].l0 ||
		    (b == nblocks - 1 && ranges[b].l1 != n0)) {
			fprintf(stderr, "tide: the block layer ranges do not tile the %d cell layers "
			        "(block %d: [%d, %d)).\n", n0, b, ranges[b].l0, ranges[b].l1);
			return -1;
		}
		sim->blk[b].range = ranges[b];
	}
	if (register_all(sim, all, counts, caps, halo_cap)) return -1;
	setup_end(sim, all);
	return 0;
}

size_t tide_sim_count(const tide_sim *sim, double *max_fill)
{
	if (max_fill) *max_fill = sim->last.fill;
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
		*mem = malloc((n ? n : 1) * TIDE_BLOCK_BPP);
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
		starpu_data_unregister(k->HL);
		starpu_data_unregister(k->HR);
		starpu_data_unregister(k->ML);
		starpu_data_unregister(k->MR);
		if (k->host) tide_block_free_host(k->host, k->cap);
	}
	starpu_data_unregister(sim->scratch);
	starpu_data_unregister(sim->empty_lo);
	starpu_data_unregister(sim->empty_hi);
	for (int k = 0; k < 2; k++) tide_block_free_host(sim->empty_mem[k], 1);
	starpu_data_unregister(sim->red);
	starpu_data_unregister(sim->red2);
	if (sim->mpi) starpu_mpi_tags_free(sim->tag0);
	free(sim->blk);
	sim->blk = NULL;
}

void tide_sim_free(tide_sim *sim)
{
	if (sim->blk) unregister_all(sim);
}

int tide_sim_rebalance(tide_sim *sim)
{
	/* every rank gets every particle and splits them again the same way */
	void *mem = NULL;
	tide_block_view all;
	if (tide_sim_gather(sim, -1, &mem, &all)) {
		free(mem);
		return -1;
	}
	tide_sim saved = *sim;
	unregister_all(sim);
	int ret = tide_sim_setup(sim, saved.c, &all, saved.nblocks_wanted);
	free(mem);
	sim->step = saved.step;
	sim->t = saved.t;
	sim->verlet_count = saved.verlet_count;
	sim->last = saved.last;
	sim->rebalances = saved.rebalances + 1;
	return ret;
}
