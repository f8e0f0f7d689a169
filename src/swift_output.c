// SPDX-License-Identifier: LGPL-2.1-or-later
// A gas run's outputs as SWIFT/GADGET snapshots (src/swift_output.h): the staged blocks'
// fluid particles into the plain arrays of src/swift_io.c, which knows the layout.
#include <stdio.h>
#include <stdlib.h>
#include "nbody_swift.h"
#include "sinks_swift.h"
#include "swift_output.h"
#include "tide/gas_math.h"

tide_swift_units tide_swift_case_units(const tide_case *c)
{
	if (c->units == TIDE_UNITS_SI) return (tide_swift_units){100.0, 1000.0, 1.0, 1.0, 1.0};
	if (c->units == TIDE_UNITS_CGS) return (tide_swift_units){1.0, 1.0, 1.0, 1.0, 1.0};
	/* a cgs or SI case run in internal units (src/case_units.h): those, G = 1 or not */
	if (c->code_time > 0) return (tide_swift_units){c->code_length, c->code_mass, c->code_time, 1.0, 1.0};
	/* code units: G = 1 with the length and mass units of the particles' file, or cm and g */
	return tide_swift_units_g1(c->code_length > 0 ? c->code_length : 1.0,
	                           c->code_mass > 0 ? c->code_mass : 1.0);
}

typedef struct gas_arrays {
	uint64_t n;
	double *pos;
	float *vel, *mass, *u, *h, *rho;
	float *vh, *uh, *dtk;   /* the leapfrog's state: a run from the file goes on exactly */
	float *hdot;            /* and the h iteration's: its next first trial h (gas_math.h) */
	uint64_t *id;
} gas_arrays;

static void arrays_free(gas_arrays *a)
{
	free(a->pos); free(a->vel); free(a->mass); free(a->u); free(a->h); free(a->rho); free(a->id);
	free(a->vh); free(a->uh); free(a->dtk); free(a->hdot);
}

/* The fluid particles of the views, in view order.  0, or -1 (out of memory). */
static int arrays_of(const tide_block_view *v, int nv, gas_arrays *a)
{
	a->n = 0;
	for (int b = 0; b < nv; b++)
		for (uint32_t i = 0; i < v[b].count; i++) a->n += v[b].type[i] == TIDE_FLUID;
	size_t m = a->n ? (size_t)a->n : 1;
	a->pos = malloc(3 * m * sizeof(double));
	a->vel = malloc(3 * m * sizeof(float));
	a->mass = malloc(m * sizeof(float));
	a->u = malloc(m * sizeof(float));
	a->h = malloc(m * sizeof(float));
	a->rho = malloc(m * sizeof(float));
	a->id = malloc(m * sizeof(uint64_t));
	a->vh = malloc(3 * m * sizeof(float));
	a->uh = malloc(m * sizeof(float));
	a->dtk = malloc(m * sizeof(float));
	a->hdot = malloc(m * sizeof(float));
	if (!a->pos || !a->vel || !a->mass || !a->u || !a->h || !a->rho || !a->id || !a->vh ||
	    !a->uh || !a->dtk || !a->hdot)
		return -1;
	uint64_t k = 0;
	for (int b = 0; b < nv; b++) {
		const tide_block_view *w = &v[b];
		for (uint32_t i = 0; i < w->count; i++) {
			if (w->type[i] != TIDE_FLUID) continue;
			a->pos[3 * k] = w->x[i]; a->pos[3 * k + 1] = w->y[i]; a->pos[3 * k + 2] = w->z[i];
			a->vel[3 * k] = w->vx[i]; a->vel[3 * k + 1] = w->vy[i]; a->vel[3 * k + 2] = w->vz[i];
			a->mass[k] = w->TIDE_GAS_MASS[i];
			a->u[k] = w->TIDE_GAS_U[i];
			a->h[k] = w->TIDE_GAS_H[i];
			a->rho[k] = w->rho[i];
			a->vh[3 * k] = w->vx1[i]; a->vh[3 * k + 1] = w->vy1[i]; a->vh[3 * k + 2] = w->vz1[i];
			a->uh[k] = w->TIDE_GAS_UHALF[i];
			a->dtk[k] = w->TIDE_GAS_DTK[i];
			a->hdot[k] = w->TIDE_GAS_HDOT[i];
			a->id[k++] = w->id[i];
		}
	}
	return 0;
}

int tide_swift_output(const char *dir, int index, const tide_block_view *v, int nv,
                      const tide_case *c, double t, const tide_sink_state *sinks, int nsink,
                      MPI_Comm comm)
{
	char path[1100];
	snprintf(path, sizeof path, "%s/snapshot_%04d.hdf5", dir, index);
	gas_arrays a = {0};
	tide_swift_out types[TIDE_SWIFT_NTYPES] = {{0}};
	tide_nbody_swift nb = {0};   /* PartType1: the collisionless particles */
	int ok = arrays_of(v, nv, &a) == 0 && tide_nbody_swift_out(v, nv, &nb, &types[1]) == 0;
	int all = ok;
	if (comm != MPI_COMM_NULL) MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
	if (!all) {
		if (!ok) fprintf(stderr, "tide: cannot write %s: out of host memory for %llu particles.\n",
		                 path, (unsigned long long)a.n);
		arrays_free(&a);
		tide_nbody_swift_free(&nb);
		return 1;
	}
	tide_swift_header h = {.time = t, .periodic = c->periodic != 0, .units = tide_swift_case_units(c)};
	for (int k = 0; k < 3; k++) h.box[k] = c->domain.hi[k] - c->domain.lo[k];
	types[0] = (tide_swift_out){.n = a.n, .pos = a.pos, .vel = a.vel, .mass = a.mass, .id = a.id,
	                            .u = a.u, .h = a.h, .rho = a.rho, .vh = a.vh, .uh = a.uh,
	                            .dtk = a.dtk, .hdot = a.hdot};
	tide_sinks_swift sb;   /* PartType5 */
	tide_sinks_swift_out(sinks, nsink, &sb, &types[TIDE_SINK_SWIFT_TYPE]);
	int rc = comm != MPI_COMM_NULL ? tide_swift_write_ranks(path, &h, types, comm)
	                               : tide_swift_write(path, &h, types);
	arrays_free(&a);
	tide_nbody_swift_free(&nb);
	return rc;
}
