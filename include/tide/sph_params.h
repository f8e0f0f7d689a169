/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Parameters every SPH codelet receives (by value, as a StarPU cl_arg), the cell grid, and the
 * per-step reduction record.  Shared by C and CUDA. */
#ifndef TIDE_SPH_PARAMS_H
#define TIDE_SPH_PARAMS_H
#include <stdint.h>
#include "tide/hd.h"

/* Uniform grid of cubic cells of side 2h over the domain.  A particle's cell key orders cells
 * with the slab axis slowest (axis[0]), so each layer of cells across the slab axis is one
 * contiguous key range: a block is a range of layers, and its edge (the particles within 2h of
 * a face) is its first or last layer — contiguous in a cell-sorted block. */
typedef struct tide_grid {
	double origin[3];
	double inv_cell;
	float cell;
	int n[3];        /* cells along x, y, z */
	int axis[3];     /* axis[0] slowest in the key: the slab axis */
	uint32_t plane;  /* cells per layer: n[axis[1]] * n[axis[2]] */
} tide_grid;

TIDE_HD int tide_clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

/* Cell coordinates of a point (clamped into the grid). */
TIDE_HD void tide_cell_of(const tide_grid *g, double x, double y, double z, int c[3])
{
	double p[3] = {x, y, z};
	for (int a = 0; a < 3; a++) {
		double f = (p[a] - g->origin[a]) * g->inv_cell;
		int v = f < 0.0 ? -1 : (int)f;
		c[a] = tide_clampi(v, 0, g->n[a] - 1);
	}
}

TIDE_HD uint32_t tide_cell_key(const tide_grid *g, const int c[3])
{
	return ((uint32_t)c[g->axis[0]] * (uint32_t)g->n[g->axis[1]] + (uint32_t)c[g->axis[1]]) *
	               (uint32_t)g->n[g->axis[2]] + (uint32_t)c[g->axis[2]];
}

/* Key of a point's cell relative to a block's first cell `base`, clamped to the block's ncell
 * cells (migration keeps every particle inside its block's layers; the clamp is for safety). */
TIDE_HD uint32_t tide_local_key(const tide_grid *g, double x, double y, double z, uint32_t base,
                                uint32_t ncell)
{
	int c[3];
	tide_cell_of(g, x, y, z, c);
	uint32_t gk = tide_cell_key(g, c);
	uint32_t k = gk < base ? 0 : gk - base;
	return k < ncell ? k : ncell - 1;
}

/* Bits a radix sort needs for keys up to maxval. */
TIDE_HD unsigned tide_key_bits(uint32_t maxval)
{
	unsigned b = 0;
	while (b < 32 && (maxval >> b) != 0) b++;
	return b;
}

TIDE_HD int tide_layer_of(const tide_grid *g, double x, double y, double z)
{
	int c[3];
	tide_cell_of(g, x, y, z, c);
	return c[g->axis[0]];
}

/* Physics constants, in the single precision the interaction kernels use. */
typedef struct tide_sph_params {
	tide_grid grid;
	double dom_lo[3], dom_hi[3];  /* particles leaving this box are removed */
	int dim, kernel, diffusion;
	float h, h2x4;            /* h, (2h)^2 */
	float aw, af;             /* kernel alpha and alpha/h^2 (see sph_kernel.h) */
	float mass[2];            /* per enum tide_ptype */
	float rho0, inv_rho0, tait_b, gamma, c0;
	float visco, eta2;        /* Monaghan alpha; eta^2 = 0.01 h^2 */
	float delta_hc0;          /* delta * h * c0 for density diffusion */
	float rhoh_k;             /* Fourtakas: rho0 * |g| / B */
	float g[3];
	float cfl;
} tide_sph_params;

/* What every step reduces over all particles (min/max/sum), read by the host once per step. */
typedef struct tide_step_reduce {
	float dt;        /* CFL time step limit [s] (min) */
	float vmax;      /* largest fluid speed [m/s] (max) */
	float rho_min, rho_max;   /* fluid density range (min / max) */
	float fill;      /* fullest block or halo: count / capacity (max) */
	uint32_t nbad;   /* particles with non-finite acceleration or density (sum) */
	uint32_t count;  /* particles (sum): the host learns the total without touching blocks */
	uint32_t pad;
} tide_step_reduce;

TIDE_HD void tide_step_reduce_init(tide_step_reduce *r)
{
	r->dt = 3.0e38f;
	r->vmax = 0.f;
	r->rho_min = 3.0e38f;
	r->rho_max = 0.f;
	r->fill = 0.f;
	r->nbad = 0;
	r->count = 0;
	r->pad = 0;
}

/* Combines b into a (the redux operation). */
TIDE_HD void tide_step_reduce_combine(tide_step_reduce *a, const tide_step_reduce *b)
{
	if (b->dt < a->dt) a->dt = b->dt;
	if (b->vmax > a->vmax) a->vmax = b->vmax;
	if (b->rho_min < a->rho_min) a->rho_min = b->rho_min;
	if (b->rho_max > a->rho_max) a->rho_max = b->rho_max;
	if (b->fill > a->fill) a->fill = b->fill;
	a->nbad += b->nbad;
	a->count += b->count;
}

/* Fill of a block and of the two halos it reads. */
TIDE_HD float tide_fill_of(uint32_t n, uint32_t cap, uint32_t nlo, uint32_t caplo, uint32_t nhi,
                           uint32_t caphi)
{
	float f = (float)n / (float)cap;
	if (caplo > 1 && (float)nlo / (float)caplo > f) f = (float)nlo / (float)caplo;
	if (caphi > 1 && (float)nhi / (float)caphi > f) f = (float)nhi / (float)caphi;
	return f;
}

/* Which block a codelet works on: its range of cell layers [l0, l1). */
typedef struct tide_block_arg {
	int l0, l1;
} tide_block_arg;

#endif
