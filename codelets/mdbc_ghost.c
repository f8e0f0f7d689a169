// SPDX-License-Identifier: LGPL-2.1-or-later
// mdbc_ghost: under physics.boundary = mdbc, the density every boundary particle of a cell-sorted
// block takes from its ghost node (include/tide/mdbc.h), from the fluid of the block and of the
// halos sph_forces reads, written to the particle's rho (only fluid densities are read, so the
// writes never meet the reads).  The halos are packed again afterwards (tasks/sph_step.c), so
// sph_forces sees the new boundary densities in every block and halo alike.
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/mdbc.h"
#include "tide/codelet_decl.h"

_Static_assert(TIDE_MDBC_MAX_SRC == TIDE_MAX_NEIGHBOURS, "mdbc.h's halo count");

/* The fluid particles of a cell-sorted block or halo, in the same order: a ghost's scan then
 * touches no boundary particle (the walls around a ghost hold about half of its candidates, far
 * more in small or wall-dominated cases).  Owned arrays freed by fluid_free; own-block cell
 * starts are renumbered into *fstart (ncell + 1) when start is given. */
typedef struct fluid_copy {
	double *x, *y, *z;
	float *rho;
	uint32_t *type, *key, *fstart;
} fluid_copy;

static void fluid_free(fluid_copy *f)
{
	free(f->x); free(f->y); free(f->z); free(f->rho); free(f->type); free(f->key); free(f->fstart);
}

static int fluid_only(const tide_block_view *v, const uint32_t *start, uint32_t ncell, fluid_copy *f,
                      tide_mdbc_src *out)
{
	size_t n = v->count ? v->count : 1;
	memset(f, 0, sizeof *f);
	f->x = malloc(n * sizeof(double)); f->y = malloc(n * sizeof(double)); f->z = malloc(n * sizeof(double));
	f->rho = malloc(n * sizeof(float)); f->type = calloc(n, sizeof(uint32_t)); f->key = malloc(n * sizeof(uint32_t));
	if (start) f->fstart = malloc(((size_t)ncell + 1) * sizeof(uint32_t));
	if (!f->x || !f->y || !f->z || !f->rho || !f->type || !f->key || (start && !f->fstart)) {
		fluid_free(f);
		return -1;
	}
	uint32_t m = 0, cell = 0;
	for (uint32_t i = 0; i < v->count; i++) {
		while (start && cell < ncell && start[cell] <= i) f->fstart[cell++] = m;
		if (v->type[i] != TIDE_FLUID) continue;
		f->x[m] = v->x[i]; f->y[m] = v->y[i]; f->z[m] = v->z[i];
		f->rho[m] = v->rho[i]; f->key[m] = v->key[i];
		m++;
	}
	while (start && cell <= ncell) f->fstart[cell++] = m;
	*out = (tide_mdbc_src){f->x, f->y, f->z, f->rho, f->type, f->key, m};
	return 0;
}

static void mdbc_ghost_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	int nh;
	starpu_codelet_unpack_args(cl_arg, &P, &A, &nh);
	STARPU_ASSERT(nh >= 0 && nh <= TIDE_MAX_NEIGHBOURS);
	tide_block_view v = tide_block_view_of(buffers[0]);
	const uint32_t *start = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	uint32_t ncell = (uint32_t)STARPU_VECTOR_GET_NX(buffers[1]) - 1;
	tide_mdbc_src own, halo[TIDE_MAX_NEIGHBOURS];
	fluid_copy fo, fh[TIDE_MAX_NEIGHBOURS];
	int nok = 0, ok = fluid_only(&v, start, ncell, &fo, &own) == 0;
	for (; ok && nok < nh; nok++) {
		tide_block_view hv = tide_block_view_of(buffers[2 + nok]);
		ok = fluid_only(&hv, NULL, 0, &fh[nok], &halo[nok]) == 0;
		if (!ok) break;
	}
	STARPU_ASSERT_MSG(ok, "mdbc_ghost: out of memory for the fluid copy of a block");
	for (uint32_t i = 0; i < v.count; i++) {
		if (v.type[i] == TIDE_FLUID) continue;
		const float nb[3] = {v.TIDE_BN_X[i], v.TIDE_BN_Y[i], v.TIDE_BN_Z[i]};
		double xb[3] = {v.x[i], v.y[i], v.z[i]};
		v.rho[i] = tide_mdbc_particle(&P, &A, &own, fo.fstart, halo, nh, nb, xb, v.rho[i]);
	}
	fluid_free(&fo);
	for (int h = 0; h < nok; h++) fluid_free(&fh[h]);
}

/* Buffers: block (RW), cell starts (R), then one halo (R) per neighbour, as sph_forces. */
TIDE_CODELET_VARIABLE(mdbc_ghost, mdbc_ghost_cpu, tide_mdbc_ghost_cuda);
