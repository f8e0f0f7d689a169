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

/* What a particle is (the type field of blocks and particle sets).  TIDE_NBODY: a collisionless
 * particle of a gas run (dark matter, stars: SWIFT's PartType1), which only gravity moves
 * (gas_math.h says how the gas passes leave it out). */
enum tide_ptype { TIDE_FLUID = 0, TIDE_BOUND = 1, TIDE_NBODY = 2 };

/* Field table: name, C type.  Order = field numbers; in memory the arrays follow this order
 * (8-byte fields first) except type, the one 1-byte field, whose array is the last of the
 * allocation, after the active aux fields (tide_block_offset): so every other array starts at a
 * multiple of 4 bytes whatever cap is, and aux floats stay aligned after 76 bytes of base
 * fields.  A uint8_t type saves 3 of the 84 bytes per particle the block had with a uint32_t
 * one (GPU memory, issue 20); checkpoints still store it as a uint32_t (src/checkpoint.c).
 * There is no cell key per particle: a cell-sorted block's cell starts tell each particle's cell
 * (tide_sorted_cell), and a halo, which has no cell table, keeps its keys in an array it does not
 * otherwise carry (TIDE_HALO_KEY below): 4 more of the GPU's bytes per particle saved. */
#define TIDE_BLOCK_FIELDS(X) \
	X(x, double) X(y, double) X(z, double)           /* position [m] */            \
	X(vx, float) X(vy, float) X(vz, float)           /* velocity [m/s] */          \
	X(rho, float)                                    /* density [kg/m^3] */        \
	X(vx1, float) X(vy1, float) X(vz1, float)        /* Verlet: velocity at n-1 */ \
	X(rho1, float)                                   /* Verlet: density at n-1 */  \
	X(ax, float) X(ay, float) X(az, float)           /* acceleration [m/s^2] */    \
	X(drho, float)                                   /* density rate [kg/m^3/s] */ \
	X(id, uint32_t)                                  /* particle id */             \
	X(type, uint8_t)                                 /* enum tide_ptype */

/* Optional per-particle fields, after the base fields: a run activates a prefix aux0 ..
 * aux(naux-1) of them (naux 0..12, set once at setup from the case: tide_block_set_aux); plain
 * WCSPH runs have naux = 0, so their 77 bytes per particle do not change.  They come after the
 * base fields' 4- and 8-byte arrays (whose layout is the same whatever naux is) and before the
 * type array (whose offset is 76 + 4 naux bytes per unit of capacity).  A scheme gives them
 * meaning by aliases (TIDE_GAS_H, TIDE_SPS_TAU_XX, ...), as TIDE_BN_X below does for the Verlet
 * fields.  Pointers to inactive aux fields (k >= naux) point at or past the type array and are
 * never dereferenced. */
#define TIDE_BLOCK_AUX_FIELDS(X)                                                         \
	X(aux0, float) X(aux1, float) X(aux2, float) X(aux3, float) X(aux4, float)       \
	X(aux5, float) X(aux6, float) X(aux7, float) X(aux8, float) X(aux9, float)       \
	X(aux10, float) X(aux11, float)
#define TIDE_BLOCK_MAX_AUX 12

#define TIDE_X_SIZE(name, T) + sizeof(T)
/* Bytes per particle of the base fields (the whole block when naux = 0). */
#define TIDE_BLOCK_BPP (0 TIDE_BLOCK_FIELDS(TIDE_X_SIZE))
/* Base fields; with the aux fields, at most TIDE_BLOCK_MAX_FIELDS (field masks fit 32 bits). */
#define TIDE_BLOCK_NFIELDS (0 TIDE_BLOCK_FIELDS(TIDE_X_ONE))
#define TIDE_BLOCK_MAX_FIELDS (TIDE_BLOCK_NFIELDS + TIDE_BLOCK_MAX_AUX)
#define TIDE_X_ONE(name, T) + 1

/* Field numbers, in layout order: TIDE_F_x, TIDE_F_y, ..., TIDE_F_type, TIDE_F_aux0, ... */
enum tide_block_field_number {
#define TIDE_X_ENUM(name, T) TIDE_F_##name,
	TIDE_BLOCK_FIELDS(TIDE_X_ENUM)
	TIDE_BLOCK_AUX_FIELDS(TIDE_X_ENUM)
#undef TIDE_X_ENUM
};

#ifdef __cplusplus
extern "C" {
#endif
/* The run's aux fields (interfaces/block_aux.c), host only.  tide_block_set_aux: naux active
 * aux fields, halo_aux the mask of those the scheme's neighbour pass reads in a halo (bits of
 * TIDE_F_aux0 ..); called once, before any block is allocated or registered. */
void tide_block_set_aux(unsigned naux, uint32_t halo_aux);
/* Whether halos carry the particle ids too: with floating bodies, whose particles sph_forces
 * tells by id (a halo's floating particle must not pass for a wall).  Set with the aux fields. */
void tide_block_set_halo_ids(int on);
unsigned tide_block_naux(void);
/* Fields of a particle in this run (TIDE_BLOCK_NFIELDS + naux) and its bytes (77 + 4 naux). */
int tide_block_nfields(void);
size_t tide_block_bpp(void);
uint32_t tide_block_all_fields(void);
uint32_t tide_block_halo_fields(void);
#ifdef __cplusplus
}
#endif

/* Field masks (bit f: field number f).  A block's handle carries one: the fields whose values
 * its copies between memory nodes and its MPI messages move (block_interface.c). */
#define TIDE_FIELD_BIT(name) (1u << TIDE_F_##name)
#define TIDE_BASE_FIELDS ((1u << TIDE_BLOCK_NFIELDS) - 1u)
/* Every field of the run: the base fields and the active aux fields (run-dependent). */
#define TIDE_ALL_FIELDS tide_block_all_fields()
/* A halo's cell keys.  A halo (or any buffer the neighbour passes read as a source) has no cell
 * table, so it keeps its particles' global cell keys, in key order, which the readers search
 * (tide_lower_bound).  They live in its vx1 array: halos never carry the Verlet fields, whose
 * arrays every halo buffer has (it is a block).  halo_pack writes them (the cell of each packed
 * particle, from the block's cell starts); a block's own vx1 is never a key. */
#define TIDE_HALO_KEY vx1
#define TIDE_F_HALO_KEY TIDE_F_vx1
/* What sph_forces reads of a neighbour's halo (CPU and CUDA): 45 bytes per particle.  The
 * Verlet fields (but vx1, the keys) and the work space are never read there, nor the id unless
 * floating bodies need it (tide_block_set_halo_ids), so halos leave them out. */
#define TIDE_HALO_BASE_FIELDS                                                                   \
	(TIDE_FIELD_BIT(x) | TIDE_FIELD_BIT(y) | TIDE_FIELD_BIT(z) | TIDE_FIELD_BIT(vx) |       \
	 TIDE_FIELD_BIT(vy) | TIDE_FIELD_BIT(vz) | TIDE_FIELD_BIT(rho) | TIDE_FIELD_BIT(type) | \
	 TIDE_FIELD_BIT(vx1) /* TIDE_HALO_KEY */)
/* A halo's mask in this run: the base halo fields and the aux fields the scheme reads there. */
#define TIDE_HALO_FIELDS tide_block_halo_fields()

/* Boundary normals.  A boundary particle never integrates its velocity, so its Verlet fields
 * vx1, vy1, vz1 hold its normal n_b instead (no extra bytes per particle): the vector from the
 * particle INTO the fluid side, of length the particle's distance to the boundary surface (for
 * lattice walls the surface lies dp/2 beyond the outermost layer's centres); the mDBC ghost node
 * is x_b + 2 n_b.  Every copy of a block (sort, migration, checkpoints) moves them with the
 * other fields.  Halos leave them out (sph_forces and mdbc_ghost read only their own block's). */
#define TIDE_BN_X vx1
#define TIDE_BN_Y vy1
#define TIDE_BN_Z vz1

/* Work space inside the block.  ax, ay, az and drho hold values only from sph_forces to
 * integrate; between integrate and the next step's sph_forces nothing reads them.  cell_sort,
 * migrate_pack and sink_accrete, which run in that interval with the block in RW mode, use these
 * four arrays (contiguous, cap elements each: 4 * cap uint32 values) as their work space instead
 * of a scratch buffer of the same size, which saves about a fifth of the GPU memory.  Every copy
 * of particles between buffers on the GPU skips them (tide_block_field_is_work). */
#define TIDE_BLOCK_WORK_WORDS 4 /* uint32 values per unit of capacity */
static inline int tide_block_field_is_work(int f)
{
	return f >= TIDE_F_ax && f <= TIDE_F_drho;
}

/* cell_sort's use of the work space (CPU and CUDA halves alike): the radix sort's keys in ka/kb
 * and particle indices in ia/ib, double-buffered.  Once the sorted keys have been turned into
 * the key field and the cell starts, only the permutation (in ia or ib) is still needed, so the
 * two key arrays, 8 * cap contiguous bytes, take each field in turn while the fields are
 * reordered (`gather`): no gather buffer of 8 bytes per particle in the scratch, 8 of the GPU's
 * 95 bytes per particle before (bench/results/cpu-2core/gpu_memory.md).  gather is only 4-byte
 * aligned (it starts 52 cap bytes into the block): 8-byte fields go through it as pairs of
 * 4-byte words. */
typedef struct tide_sort_space {
	uint32_t *ka, *kb, *ia, *ib;
	void *gather;
} tide_sort_space;


/* Pointers into one replica of a block. */
typedef struct tide_block_view {
	uint32_t count, cap;
	uint32_t naux; /* active aux fields (the run's): what tide_copy_particle copies of them */
#define TIDE_X_PTR(name, T) T *name;
	TIDE_BLOCK_FIELDS(TIDE_X_PTR)
	TIDE_BLOCK_AUX_FIELDS(TIDE_X_PTR)
#undef TIDE_X_PTR
} tide_block_view;

TIDE_HD uint32_t *tide_halo_keys(const tide_block_view *v)
{
	return (uint32_t *)v->TIDE_HALO_KEY;
}

/* The cell of particle i of a cell-sorted block: the index c in its box with start[c] <= i <
 * start[c + 1] (start: the ncell + 1 cell starts cell_sort made).  A particle keeps this cell
 * until the next sort, wherever it moves meanwhile. */
TIDE_HD uint32_t tide_sorted_cell(const uint32_t *start, uint32_t ncell, uint32_t i)
{
	uint32_t lo = 0, hi = ncell; /* start[lo] <= i < start[hi] */
	while (hi - lo > 1) {
		uint32_t m = lo + (hi - lo) / 2;
		if (start[m] <= i) lo = m;
		else hi = m;
	}
	return lo;
}

/* Element size and offset per unit of capacity of field number f (base or aux) in a block of a
 * run with naux aux fields: the arrays in field-number order, but type's last (see
 * TIDE_BLOCK_FIELDS).  Host only. */
static inline size_t tide_block_offset(int f, unsigned naux, size_t *elem)
{
	const size_t sizes[] = {
#define TIDE_X_SZ(name, T) sizeof(T),
		TIDE_BLOCK_FIELDS(TIDE_X_SZ)
		TIDE_BLOCK_AUX_FIELDS(TIDE_X_SZ)
#undef TIDE_X_SZ
	};
	size_t off = 0;
	if (elem) *elem = sizes[f];
	if (f == TIDE_F_type) { /* after the other base fields and the active aux fields */
		for (int i = 0; i < TIDE_BLOCK_NFIELDS; i++)
			if (i != TIDE_F_type) off += sizes[i];
		return off + naux * sizeof(float);
	}
	for (int i = 0; i < f; i++)
		if (i != TIDE_F_type) off += sizes[i];
	return off;
}

/* A view of a block of capacity cap at base.  Host only (kernels get views by value); the
 * aux pointers are laid out whatever naux is, only the active ones are ever read. */
static inline tide_block_view tide_block_view_make(void *base, uint32_t cap, uint32_t count)
{
	tide_block_view v;
	char *p = (char *)base;
	v.count = count;
	v.cap = cap;
	v.naux = tide_block_naux();
	/* one pass (a view is made per buffer of every task): the base fields but type, the aux
	 * fields, and type after the active ones (tide_block_offset, which the test aux_fields
	 * compares with this) */
#define TIDE_X_SET(name, T) \
	if (TIDE_F_##name != TIDE_F_type) { v.name = (T *)p; p += (size_t)cap * sizeof(T); }
	TIDE_BLOCK_FIELDS(TIDE_X_SET)
	v.type = (uint8_t *)(p + (size_t)cap * v.naux * sizeof(float));
	TIDE_BLOCK_AUX_FIELDS(TIDE_X_SET)
#undef TIDE_X_SET
	return v;
}

/* cell_sort's arrays in the work space of view v (see tide_sort_space above). */
static inline tide_sort_space tide_block_sort_space(const tide_block_view *v)
{
	uint32_t *w = (uint32_t *)v->ax;
	size_t cap = v->cap;
	tide_sort_space s = {w, w + cap, w + 2 * cap, w + 3 * cap, w};
	return s;
}

/* Element size and offset (per unit of capacity) of field number f (base or aux) in this run's
 * blocks, for per-field copies.  Host only. */
static inline void tide_block_field(int f, size_t *elem, size_t *offset_per_cap)
{
	*offset_per_cap = tide_block_offset(f, tide_block_naux(), elem);
}

/* Bytes per particle of the fields in mask. */
static inline size_t tide_fields_bpp(uint32_t mask)
{
	size_t bpp = 0, elem, off;
	for (int f = 0; f < TIDE_BLOCK_MAX_FIELDS; f++) {
		tide_block_field(f, &elem, &off);
		if (mask >> f & 1u) bpp += elem;
	}
	return bpp;
}

#endif
