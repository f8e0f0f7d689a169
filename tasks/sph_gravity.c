// SPDX-License-Identifier: LGPL-2.1-or-later
// The data of the SPH self-gravity (tasks/sph_gravity.h): one Barnes-Hut solver per rank
// (tasks/gravity.c, and tasks/gravity_ranks.c for the essential nodes other ranks need) whose
// bodies are all particles of the rank's blocks, the field in gather order and the blocks'
// offsets.  The tasks are submitted in tasks/sph_step.c.
//
// Bodies: no step may need a particle count on the host before its tasks run, so a gather has
// room for more particles than it sees and fills the rest with massless bodies.
//  * one rank: room for the particle count of the last step's reduction.  Particles only leave
//    (through the domain's faces), so a gather sees at most that many; when the count drops the
//    bodies are registered again (a rare event: a self-gravitating case has a domain far larger
//    than its fluid).
//  * several ranks: particles also move between ranks, which no reduction counts, and every
//    rank must know every rank's body count (tide_gravity_init_ranks); the room is the
//    capacity of the rank's blocks or the particle count, whichever is less, known everywhere
//    and fixed until the blocks are made again.  The massless bodies cost walk time (they sit on real ones, so the tree stays
//    the same shape), not accuracy.
#include <stdio.h>
#include <stdlib.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "sph_gravity.h"
#include "tide/sph_sim.h"

/* The gravity tasks go where the SPH tasks go (on the GPU alone by default on a GPU machine,
 * tide_sph_codelets_where), so that the bodies never leave the device. */
static enum tide_where where_of_sph(void) { return tide_codelet_where(&tide_sgrav_apply_cl); }

/* counts: every rank's bodies (several ranks), or NULL (one rank: n) */
static int register_bodies(tide_sph_gravity *sg, uint32_t n, const uint32_t *counts,
                           const float *box)
{
	size_t m = n ? n : 1;
	sg->body = malloc(m * sizeof *sg->body);
	sg->vel = malloc(4 * m * sizeof *sg->vel);
	sg->acc = malloc(m * sizeof *sg->acc);
	if (!sg->body || !sg->vel || !sg->acc) {
		fprintf(stderr, "tide: out of host memory for the self-gravity of %u particles.\n", n);
		free(sg->body); free(sg->vel); free(sg->acc);
		sg->body = NULL; sg->vel = NULL; sg->acc = NULL;
		return -1;
	}
	if (counts)
		tide_gravity_init_ranks(&sg->g, sg->body, sg->vel, sg->acc, counts, box, sg->bp, 0,
		                        sg->where, sg->mpi);
	else tide_gravity_init(&sg->g, sg->body, sg->vel, sg->acc, n, sg->bp, 0, sg->where);
	starpu_vector_data_register(&sg->accg, -1, 0, (uint32_t)m, sizeof(bh_acc));
	sg->n = n;
	sg->gather.n = n;
	sg->unsort.nparts = sg->g.nparts;
	for (int p = 0; p < sg->g.nparts; p++) {
		sg->unsort.r0[p] = sg->g.part[p].r0;
		sg->unsort.r1[p] = sg->g.part[p].r1;
	}
	return 0;
}

static void unregister_bodies(tide_sph_gravity *sg)
{
	if (!sg->body) return;
	tide_gravity_fini(&sg->g);
	starpu_data_unregister_no_coherency(sg->accg);
	free(sg->body); free(sg->vel); free(sg->acc);
	sg->body = NULL; sg->vel = NULL; sg->acc = NULL;
}

/* Several ranks: every rank's field and offsets as StarPU-MPI data, so that each block's
 * sgrav_apply (submitted by all ranks, run by the block's owner) can name its owner's. */
static void register_ranks(tide_sph_gravity *sg, const uint32_t *counts, const int *nown)
{
	sg->accg_r = calloc((size_t)sg->size, sizeof *sg->accg_r);
	sg->offs_r = calloc((size_t)sg->size, sizeof *sg->offs_r);
	if (!sg->accg_r || !sg->offs_r) abort();
	sg->tag0 = starpu_mpi_tags_allocate(2 * (int64_t)sg->size);
	for (int q = 0; q < sg->size; q++) {
		if (q == sg->rank) {
			sg->accg_r[q] = sg->accg;
			sg->offs_r[q] = sg->offs;
		} else {
			starpu_vector_data_register(&sg->accg_r[q], -1, 0, counts[q] ? counts[q] : 1,
			                            sizeof(bh_acc));
			starpu_vector_data_register(&sg->offs_r[q], -1, 0, (uint32_t)nown[q] + 1,
			                            sizeof(uint32_t));
		}
		starpu_mpi_data_register(sg->accg_r[q], sg->tag0 + 2 * q, q);
		starpu_mpi_data_register(sg->offs_r[q], sg->tag0 + 2 * q + 1, q);
	}
}

int tide_sph_gravity_init(tide_sim *sim)
{
	sim->grav = NULL;
	const tide_case *c = sim->c;
	if (!c->self_gravity.on) return 0;
	tide_sph_gravity *sg = calloc(1, sizeof *sg);
	uint32_t *counts = calloc((size_t)sim->size, sizeof *counts);
	int *nown = calloc((size_t)sim->size, sizeof *nown);
	if (!sg || !counts || !nown) abort();
	sg->mpi = sim->mpi && sim->size > 1;
	sg->rank = sim->rank;
	sg->size = sim->size;
	sg->bp.theta = (float)c->self_gravity.theta;
	sg->bp.eps = (float)tide_case_softening(c);
	sg->bp.G = (float)c->self_gravity.G;
	sg->bp.quadrupole = c->self_gravity.quadrupole;
	/* softening tied to h (gas only: the water scheme's particles have no h of their own) */
	if (c->scheme == TIDE_SCHEME_GAS && c->self_gravity.h_factor > 0) {
		sg->bp.soft_h = 1;
		sg->gather.h_factor = (float)c->self_gravity.h_factor;
		sg->gather.eps_nbody = sim->P.gas.eps_nbody;   /* collisionless particles: fixed */
	}
	sg->where = where_of_sph();
	sg->own = malloc(sizeof(int) * (size_t)sim->nblocks);
	sg->lidx = malloc(sizeof(int) * (size_t)sim->nblocks);
	if (!sg->own || !sg->lidx) abort();
	for (int b = 0; b < sim->nblocks; b++) {
		int q = sim->blk[b].owner;
		sg->lidx[b] = nown[q]++;
		counts[q] += sim->blk[b].cap;
		if (q == sim->rank) sg->own[sg->nown++] = b;
	}
	/* nor can a rank hold more than all the particles */
	for (int q = 0; q < sim->size; q++)
		if (counts[q] > sim->n_total) counts[q] = (uint32_t)sim->n_total;
	float box[6];
	for (int d = 0; d < 3; d++) {
		sg->gather.centre[d] = 0.5 * (c->domain.lo[d] + c->domain.hi[d]);
		/* the domain as the ranks' common root (bodies are relative to its centre) */
		box[d] = (float)(c->domain.lo[d] - sg->gather.centre[d]);
		box[3 + d] = (float)(c->domain.hi[d] - sg->gather.centre[d]);
	}
	/* the gas scheme's particles carry their own masses (gas_math.h: TIDE_GAS_MASS) */
	sg->gather.mass = sim->P.scheme == TIDE_SCHEME_GAS ? -1.f : sim->P.mass[TIDE_FLUID];
	sg->gather.nblocks = sg->nown;
	starpu_vector_data_register(&sg->offs, -1, 0, (uint32_t)sg->nown + 1, sizeof(uint32_t));
	int ret = sg->mpi ? register_bodies(sg, counts[sim->rank], counts, box)
	                  : register_bodies(sg, (uint32_t)sim->n_total, NULL, NULL);
	if (ret) {
		starpu_data_unregister_no_coherency(sg->offs);
		free(sg->own); free(sg->lidx); free(sg); free(counts); free(nown);
		return -1;
	}
	if (sg->mpi) register_ranks(sg, counts, nown);
	free(counts);
	free(nown);
	sim->grav = sg;
	return 0;
}

void tide_sph_gravity_prepare(tide_sim *sim)
{
	tide_sph_gravity *sg = sim->grav;
	if (!sg || sg->mpi || sim->last.count == sg->n) return;
	unregister_bodies(sg);
	if (register_bodies(sg, sim->last.count, NULL, NULL)) abort(); /* message printed */
}

void tide_sph_gravity_fini(tide_sim *sim)
{
	tide_sph_gravity *sg = sim->grav;
	if (!sg) return;
	unregister_bodies(sg);   /* waits for every rank's exchange of this evaluation */
	if (sg->mpi) {
		for (int q = 0; q < sg->size; q++) {
			if (q == sg->rank) continue;
			starpu_data_unregister_no_coherency(sg->accg_r[q]);
			starpu_data_unregister_no_coherency(sg->offs_r[q]);
		}
		starpu_mpi_tags_free(sg->tag0);
		free(sg->accg_r);
		free(sg->offs_r);
	}
	starpu_data_unregister_no_coherency(sg->offs);
	free(sg->own);
	free(sg->lidx);
	free(sg);
	sim->grav = NULL;
}
