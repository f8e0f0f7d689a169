// SPDX-License-Identifier: LGPL-2.1-or-later
// The data of the SPH self-gravity (include/tide/sph_gravity.h): one Barnes-Hut solver
// (tasks/gravity.c) whose bodies are all particles of all blocks, the field in gather order and
// the blocks' offsets.  The tasks are submitted in tasks/sph_step.c.
//
// The body count is the particle count.  Particles only leave (through the domain's faces), so
// between two counts the gather sees at most n particles and pads the rest with massless bodies;
// the next step's count is smaller and the bodies are registered again (a rare event: a
// self-gravitating case has a domain far larger than its fluid).
#include <stdio.h>
#include <stdlib.h>
#include <starpu.h>
#include "tide/sph_gravity.h"
#include "tide/sph_sim.h"

/* The gravity tasks go where the SPH tasks go (on the GPU alone by default on a GPU machine,
 * tide_sph_codelets_where), so that the bodies never leave the device. */
static enum tide_gravity_where where_of_sph(void)
{
	uint32_t w = tide_sgrav_apply_cl.where;
	if (w == STARPU_CUDA) return TIDE_WHERE_CUDA;
	if (w == STARPU_CPU) return TIDE_WHERE_CPU;
	return TIDE_WHERE_ANY;
}

static int register_bodies(tide_sph_gravity *sg, uint32_t n)
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
	tide_gravity_init(&sg->g, sg->body, sg->vel, sg->acc, n, sg->bp, 0, sg->where);
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

int tide_sph_gravity_init(tide_sim *sim)
{
	sim->grav = NULL;
	const tide_case *c = sim->c;
	if (!c->self_gravity.on) return 0;
	if (sim->mpi) {
		if (sim->rank == 0) fprintf(stderr, "tide: %s: key 'physics.self_gravity': self-gravity runs on one rank for "
		        "now (this run has %d under StarPU-MPI); allowed: a run without mpirun.\n", c->path,
		        sim->size);
		return -1;
	}
	tide_sph_gravity *sg = calloc(1, sizeof *sg);
	if (!sg) return -1;
	sg->bp.theta = (float)c->self_gravity.theta;
	sg->bp.eps = (float)tide_case_softening(c);
	sg->bp.G = (float)c->self_gravity.G;
	sg->bp.quadrupole = c->self_gravity.quadrupole;
	sg->where = where_of_sph();
	for (int d = 0; d < 3; d++)
		sg->gather.centre[d] = 0.5 * (c->domain.lo[d] + c->domain.hi[d]);
	sg->gather.mass = sim->P.mass[TIDE_FLUID];
	sg->gather.nblocks = sim->nblocks;
	starpu_vector_data_register(&sg->offs, -1, 0, (uint32_t)sim->nblocks + 1, sizeof(uint32_t));
	if (register_bodies(sg, (uint32_t)sim->n_total)) {
		starpu_data_unregister_no_coherency(sg->offs);
		free(sg);
		return -1;
	}
	sim->grav = sg;
	return 0;
}

void tide_sph_gravity_prepare(tide_sim *sim)
{
	tide_sph_gravity *sg = sim->grav;
	if (!sg || sim->last.count == sg->n) return;
	unregister_bodies(sg);
	if (register_bodies(sg, sim->last.count)) abort(); /* message printed; nothing to go on with */
}

void tide_sph_gravity_fini(tide_sim *sim)
{
	tide_sph_gravity *sg = sim->grav;
	if (!sg) return;
	unregister_bodies(sg);
	starpu_data_unregister_no_coherency(sg->offs);
	free(sg);
	sim->grav = NULL;
}
