// SPDX-License-Identifier: LGPL-2.1-or-later
// mdbc_ghost: under physics.boundary = mdbc, the density (and with physics.mdbc_slip noslip or
// freeslip the velocity) every boundary particle of a cell-sorted block takes from its ghost
// node (include/tide/mdbc.h), from the fluid of the block and of the halos sph_forces reads,
// written to the particle's rho (and vx, vy, vz).  Only fluid particles are read, so the writes
// never meet the reads.  The halos are packed again afterwards (tasks/sph_step.c), so
// sph_forces sees the new boundary values in every block and halo alike.
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/mdbc.h"
#include "tide/codelet_decl.h"

_Static_assert(TIDE_MDBC_MAX_SRC == TIDE_MAX_NEIGHBOURS, "mdbc.h's halo count");
_Static_assert(TIDE_CELL_ROWS_MAX_SRC == TIDE_MAX_NEIGHBOURS, "cell_rows.h's halo count");

/* The fluid particles of a cell-sorted block or halo, in the same order: a ghost's scan then
 * touches no boundary particle (walls hold about half of a wet ghost's candidates and all of a
 * dry one's: walls above the water, most of a dam break's; on the CPU those scans, with their
 * unpredictable type tests, cost more than the interpolation).  One allocation, freed by the
 * caller; own-block cell starts are renumbered into *fstart (ncell + 1) when start is given. */
static void *fluid_only(const tide_block_view *v, const uint32_t *start, uint32_t ncell,
                        tide_mdbc_src *out, uint32_t **fstart)
{
	size_t n = v->count ? v->count : 1, nc = start ? (size_t)ncell + 1 : 0;
	char *mem = malloc(n * (3 * sizeof(double) + 4 * sizeof(float) + sizeof(uint32_t) + 1) +
	                   nc * sizeof(uint32_t));
	if (!mem) return NULL;
	double *x = (double *)mem, *y = x + n, *z = y + n;
	float *vx = (float *)(z + n), *vy = vx + n, *vz = vy + n, *rho = vz + n;
	uint32_t *key = (uint32_t *)(rho + n), *fs = key + n;
	uint8_t *type = (uint8_t *)(fs + nc); /* last: the 4-byte arrays stay aligned */
	uint32_t m = 0, cell = 0;
	for (uint32_t i = 0; i < v->count; i++) {
		while (start && cell < ncell && start[cell] <= i) fs[cell++] = m;
		if (v->type[i] != TIDE_FLUID) continue;
		x[m] = v->x[i]; y[m] = v->y[i]; z[m] = v->z[i];
		vx[m] = v->vx[i]; vy[m] = v->vy[i]; vz[m] = v->vz[i];
		rho[m] = v->rho[i]; type[m] = TIDE_FLUID;
		if (!start) key[m] = tide_halo_keys(v)[i];
		m++;
	}
	while (start && cell <= ncell) fs[cell++] = m;
	/* a halo's keys; the block's cells are its renumbered starts */
	*out = (tide_mdbc_src){x, y, z, vx, vy, vz, rho, type, start ? NULL : key, m};
	if (fstart) *fstart = start ? fs : NULL;
	return mem;
}

static void mdbc_ghost_cpu(void *buffers[], void *cl_arg)
{
	tide_sph_params P;
	tide_block_arg A;
	int nh;
	tide_motion_ids M;
	starpu_codelet_unpack_args(cl_arg, &P, &A, &nh, &M, 0);
	STARPU_ASSERT(nh >= 0 && nh <= TIDE_MAX_NEIGHBOURS);
	tide_block_view v = tide_block_view_of(buffers[0]);
	const uint32_t *start = (const uint32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	uint32_t ncell = (uint32_t)STARPU_VECTOR_GET_NX(buffers[1]) - 1, *fstart = NULL;
	tide_mdbc_src own, halo[TIDE_MAX_NEIGHBOURS];
	void *mem[1 + TIDE_MAX_NEIGHBOURS] = {NULL};
	int ok = (mem[0] = fluid_only(&v, start, ncell, &own, &fstart)) != NULL;
	for (int h = 0; ok && h < nh; h++) {
		tide_block_view hv = tide_block_view_of(buffers[2 + h]);
		ok = (mem[1 + h] = fluid_only(&hv, NULL, 0, &halo[h], NULL)) != NULL;
	}
	STARPU_ASSERT_MSG(ok, "mdbc_ghost: out of memory for the fluid copy of a block");
	/* the velocity sums or not, as a constant in each loop */
	if (P.mdbc_slip == TIDE_SLIP_VEL0) {
		for (uint32_t i = 0; i < v.count; i++)
			if (v.type[i] != TIDE_FLUID) tide_mdbc_particle(&P, &A, &v, i, &own, fstart, halo, nh, 0, &M);
	} else {
		for (uint32_t i = 0; i < v.count; i++)
			if (v.type[i] != TIDE_FLUID) tide_mdbc_particle(&P, &A, &v, i, &own, fstart, halo, nh, 1, &M);
	}
	for (int h = 0; h <= nh; h++) free(mem[h]);
}

/* Buffers: block (RW), cell starts (R), then one halo (R) per neighbour, as sph_forces. */
TIDE_CODELET_VARIABLE(mdbc_ghost, mdbc_ghost_cpu, tide_mdbc_ghost_cuda);
