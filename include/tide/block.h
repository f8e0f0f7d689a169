/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Particle block: the unit of data of tide's task graph.
 *
 * A block is one spatial piece of the domain holding its particles as structure of arrays in a
 * single allocation of `cap` particles: every field is an array of `cap` elements placed one after
 * the other, doubles first so every array is naturally aligned.  `count` <= `cap` particles are in
 * use; the count changes at run time (migration) and travels with the data: the StarPU interface
 * (interfaces/block_interface.c) copies and packs only the used part of every field.
 *
 * Halo and migration buffers are blocks too. */
#ifndef TIDE_BLOCK_H
#define TIDE_BLOCK_H
#include <stddef.h>
#include <stdint.h>
#include "tide/hd.h"

/* What a particle is (the type field of blocks and particle sets). */
enum tide_ptype { TIDE_FLUID = 0, TIDE_BOUND = 1 };

/* Field table: name, C type, components. Order = layout order (8-byte fields first). */
#define TIDE_BLOCK_FIELDS(X) \
	X(x, double) X(y, double) X(z, double)           /* position [m] */            \
	X(vx, float) X(vy, float) X(vz, float)           /* velocity [m/s] */          \
	X(rho, float)                                    /* density [kg/m^3] */        \
	X(vx1, float) X(vy1, float) X(vz1, float)        /* Verlet: velocity at n-1 */ \
	X(rho1, float)                                   /* Verlet: density at n-1 */  \
	X(ax, float) X(ay, float) X(az, float)           /* acceleration [m/s^2] */    \
	X(drho, float)                                   /* density rate [kg/m^3/s] */ \
	X(id, uint32_t)                                  /* particle id */             \
	X(type, uint32_t)                                /* enum tide_ptype */         \
	X(key, uint32_t)                                 /* cell key (cell_sort) */

#define TIDE_X_SIZE(name, T) + sizeof(T)
/* Bytes per particle of a block. */
#define TIDE_BLOCK_BPP (0 TIDE_BLOCK_FIELDS(TIDE_X_SIZE))
#define TIDE_BLOCK_NFIELDS (0 TIDE_BLOCK_FIELDS(TIDE_X_ONE))
#define TIDE_X_ONE(name, T) + 1

/* Field numbers, in layout order: TIDE_F_x, TIDE_F_y, ... */
enum tide_block_field_number {
#define TIDE_X_ENUM(name, T) TIDE_F_##name,
	TIDE_BLOCK_FIELDS(TIDE_X_ENUM)
#undef TIDE_X_ENUM
};

/* Field masks (bit f: field number f).  A block's handle carries one: the fields whose values
 * its copies between memory nodes and its MPI messages move (block_interface.c). */
#define TIDE_FIELD_BIT(name) (1u << TIDE_F_##name)
#define TIDE_ALL_FIELDS ((1u << TIDE_BLOCK_NFIELDS) - 1u)
/* What sph_forces reads of a neighbour's halo (CPU and CUDA): 48 of the 84 bytes per particle.
 * The Verlet fields, the work space and the id are never read there, so halos leave them out. */
#define TIDE_HALO_FIELDS                                                                        \
	(TIDE_FIELD_BIT(x) | TIDE_FIELD_BIT(y) | TIDE_FIELD_BIT(z) | TIDE_FIELD_BIT(vx) |       \
	 TIDE_FIELD_BIT(vy) | TIDE_FIELD_BIT(vz) | TIDE_FIELD_BIT(rho) | TIDE_FIELD_BIT(type) | \
	 TIDE_FIELD_BIT(key))

/* Work space inside the block.  ax, ay, az and drho hold values only from sph_forces to
 * integrate; between integrate and the next step's sph_forces nothing reads them.  cell_sort and
 * migrate_pack, which run in that interval with the block in RW mode, use these four arrays
 * (contiguous, cap elements each: 4 * cap uint32 values) as their work space instead of a
 * scratch buffer of the same size, which saves about a fifth of the GPU memory.  Every copy of
 * particles between buffers on the GPU skips them (tide_block_field_is_work). */
#define TIDE_BLOCK_WORK_WORDS 4 /* uint32 values per unit of capacity */
static inline int tide_block_field_is_work(int f)
{
	return f >= TIDE_F_ax && f <= TIDE_F_drho;
}

/* Pointers into one replica of a block. */
typedef struct tide_block_view {
	uint32_t count, cap;
#define TIDE_X_PTR(name, T) T *name;
	TIDE_BLOCK_FIELDS(TIDE_X_PTR)
#undef TIDE_X_PTR
} tide_block_view;

TIDE_HD tide_block_view tide_block_view_make(void *base, uint32_t cap, uint32_t count)
{
	tide_block_view v;
	char *p = (char *)base;
	v.count = count;
	v.cap = cap;
#define TIDE_X_SET(name, T) v.name = (T *)p; p += (size_t)cap * sizeof(T);
	TIDE_BLOCK_FIELDS(TIDE_X_SET)
#undef TIDE_X_SET
	return v;
}

/* Element size and offset (per unit of capacity) of field number f, for per-field copies.
 * Host only. */
static inline void tide_block_field(int f, size_t *elem, size_t *offset_per_cap)
{
	static const size_t sizes[] = {
#define TIDE_X_SZ(name, T) sizeof(T),
		TIDE_BLOCK_FIELDS(TIDE_X_SZ)
#undef TIDE_X_SZ
	};
	size_t off = 0;
	for (int i = 0; i < f; i++) off += sizes[i];
	*elem = sizes[f];
	*offset_per_cap = off;
}

/* Bytes per particle of the fields in mask. */
static inline size_t tide_fields_bpp(uint32_t mask)
{
	size_t bpp = 0, elem, off;
	for (int f = 0; f < TIDE_BLOCK_NFIELDS; f++) {
		tide_block_field(f, &elem, &off);
		if (mask >> f & 1u) bpp += elem;
	}
	return bpp;
}

#endif
