/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Parameters every SPH codelet receives (by value, as a StarPU cl_arg), the cell grid, and the
 * per-step reduction record.  Shared by C and CUDA. */
#ifndef TIDE_SPH_PARAMS_H
#define TIDE_SPH_PARAMS_H
#include <stdint.h>
#include "tide/hd.h"
#include "tide/gas_params.h"

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
	/* Bit d: axis d (x, y, z) is periodic.  The grid then has one ghost cell layer beyond each
	 * face (cells 0 and n[d] - 1): particles live in cells 1 .. n[d] - 2 (the last of them
	 * reaches to the face, which the clamp of tide_cell_of makes up to two cells wide), the
	 * blocks' boxes leave the ghost layers out, and halos across a periodic face carry the
	 * images of the particles on the other side (positions shifted by the period L) keyed in
	 * the ghost layer. */
	int periodic;
	/* Cell layers the halos are made for: their capacity, and every block at least as wide
	 * (the gas scheme: ceil(h_max / h_cell), the largest support; WCSPH and a zeroed grid:
	 * one).  halo_now: the layers they carry this step (the gas scheme: from the largest h of
	 * the last step, tide_gas_halo_depth; 0: halo).  Read through tide_halo_max and
	 * tide_halo_layers. */
	int halo, halo_now;
	/* The gas scheme's halos per block (gas_math.h, tide_gas_pair_layers): halo_block 1 when
	 * every halo takes its width from the largest h of the two blocks it joins (the blocks'
	 * hmax records, block_interface.h) rather than from the step's global largest h; 0 with
	 * TIDE_GAS_HALOS=global.  halo_own: inside a gas codelet, the layers its own block's
	 * supports may reach this step (0: tide_halo_layers; tide_halo_own), while halo_now there is
	 * the widest halo it reads. */
	int halo_block, halo_own;
} tide_grid;

/* Cell layers the halos are made for (>= 1). */
TIDE_HD int tide_halo_max(const tide_grid *g) { return g->halo > 1 ? g->halo : 1; }

/* Cell layers a block's halos carry this step and its gathers read beyond its box (>= 1). */
TIDE_HD int tide_halo_layers(const tide_grid *g)
{
	int m = tide_halo_max(g);
	return g->halo_now > 0 && g->halo_now < m ? g->halo_now : m;
}

/* Cell layers the supports of a block's own particles may reach this step (>= 1): halo_own
 * where a gas codelet set it from its block's record, else tide_halo_layers. */
TIDE_HD int tide_halo_own(const tide_grid *g)
{
	int L = tide_halo_layers(g);
	return g->halo_own > 0 && g->halo_own < L ? g->halo_own : L;
}

/* Ghost layers of axis d (1 when periodic, else 0). */
TIDE_HD int tide_ghost(const tide_grid *g, int d) { return (g->periodic >> d) & 1; }

TIDE_HD int tide_clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

/* Cell coordinates of a point (clamped into the grid; along a periodic axis into the real
 * cells, so that no particle is ever in a ghost layer, not even one a rounding puts there). */
TIDE_HD void tide_cell_of(const tide_grid *g, double x, double y, double z, int c[3])
{
	double p[3] = {x, y, z};
	for (int a = 0; a < 3; a++) {
		double f = (p[a] - g->origin[a]) * g->inv_cell;
		int v = f < 0.0 ? -1 : (int)f, gh = tide_ghost(g, a);
		c[a] = tide_clampi(v, gh, g->n[a] - 1 - gh);
	}
}

TIDE_HD uint32_t tide_cell_key(const tide_grid *g, const int c[3])
{
	return ((uint32_t)c[g->axis[0]] * (uint32_t)g->n[g->axis[1]] + (uint32_t)c[g->axis[1]]) *
	               (uint32_t)g->n[g->axis[2]] + (uint32_t)c[g->axis[2]];
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

/* Equation of state (tide_pressure, tide_sound in sph_interact.h; case key physics.eos):
 * Tait p = B ((rho/rho0)^gamma - 1), or isothermal p = cs_iso^2 (rho - rho0) with c0 = cs_iso. */
enum tide_eos { TIDE_EOS_TAIT = 0, TIDE_EOS_ISOTHERMAL = 1 };

/* Boundary condition of the boundary particles (case key physics.boundary): DBC (their density
 * from the continuity equation) or mDBC (English et al. 2021: from their ghost node, mdbc.h). */
enum tide_boundary { TIDE_BOUNDARY_DBC = 0, TIDE_BOUNDARY_MDBC = 1 };
/* The velocity mDBC gives boundary particles (case key physics.mdbc_slip; mdbc.h): their own
 * (DualSPHysics' SlipMode 1, "DBC vel=0", its default), the no-slip mirror of the fluid's at the
 * ghost node (SlipMode 2) or its free-slip mirror (SlipMode 3). */
enum tide_mdbc_slip { TIDE_SLIP_VEL0 = 0, TIDE_SLIP_NOSLIP = 1, TIDE_SLIP_FREESLIP = 2 };
/* Viscosity of the momentum equation (case key physics.viscosity; sph_pair.h): Monaghan's
 * artificial viscosity (alpha = physics.visco), or the laminar viscous term of Lo & Shao 2002
 * (Morris 1997's form, DualSPHysics' ViscoLaminar) with the kinematic viscosity physics.nu,
 * alone or with the SPS turbulence closure added (DualSPHysics' ViscoLaminarSPS; include/tide/sps.h). */
enum tide_viscosity { TIDE_VISC_ARTIFICIAL = 0, TIDE_VISC_LAMINAR = 1, TIDE_VISC_LAMINAR_SPS = 2 };

#define TIDE_MAX_FLOAT 8   /* floating bodies of a case (tide_sph_params.float_id0) */
#define TIDE_MAX_WALL 16   /* prescribed moving bodies (= TIDE_MOTION_MAX_BODIES, motion.h) */

/* Physics constants, in the single precision the interaction kernels use. */
typedef struct tide_sph_params {
	tide_grid grid;
	double dom_lo[3], dom_hi[3];  /* particles leaving this box are removed */
	int dim, kernel, diffusion;
	int eos;                  /* enum tide_eos */
	int boundary;             /* enum tide_boundary */
	int mdbc_slip;            /* enum tide_mdbc_slip */
	float h, h2x4;            /* h, (2h)^2 */
	float aw, af;             /* kernel alpha and alpha/h^2 (see sph_kernel.h) */
	float mass[2];            /* per enum tide_ptype */
	float rho0, inv_rho0, tait_b, gamma, c0;   /* isothermal: B = rho0 c0^2, gamma = 1 */
	float visco, eta2;        /* Monaghan alpha; eta^2 = 0.01 h^2 */
	int viscosity;            /* enum tide_viscosity */
	float nu;                 /* kinematic viscosity [m^2/s] (laminar) */
	float sps_smag, sps_blin; /* laminar+sps: (C_s dp)^2 and 2/3 C_I dp^2 (sph_pair.h) */
	float delta_hc0;          /* delta * h * c0 for density diffusion */
	float rhoh_g[3];          /* Fourtakas: rho0 g / B (the gravity vector's) */
	float g[3];
	float cfl;
	int scheme;               /* enum tide_scheme (gas_params.h) */
	tide_gas_params gas;      /* physics.scheme = gas: its constants (gas_math.h) */
	/* Floating bodies (issue 22, include/tide/rigid.h): their particles' id ranges
	 * [float_id0[k], float_id1[k]).  Here rather than a particle type or an extra codelet value:
	 * every particle codelet already gets these params by value, a new type would need every
	 * `type == TIDE_BOUND` test of the program (readers, gauges, mDBC) audited, and a plain run
	 * has nfloat = 0, so tide_is_floating costs it one compare per boundary particle. */
	int nfloat;
	uint32_t float_id0[TIDE_MAX_FLOAT], float_id1[TIDE_MAX_FLOAT];
	/* Under mDBC: the contact between a floating particle and a boundary particle of another
	 * body (sph_pair.h, tide_contact_*): stiffness kc [1/s^2], damping gc [1/s] and contact
	 * distance dc = dp [m] (0 when there is no floating body or under DBC). */
	float contact_k, contact_g, contact_d;
	/* Under mDBC noslip/freeslip (tide_walls_mirrored, sph_pair.h): the prescribed moving
	 * bodies' rigid velocity fields v(x) = u0 + w x (x - c), their particles' own velocity,
	 * which the continuity equation reads while their vx, vy, vz hold the ghost pass's mirror
	 * (tide_wall_velocity).  Set by the host before each step's force passes (tasks/
	 * wall_velocity.c) from the motion at the step's start, the time the ghost pass mirrors
	 * about; nwall = 0 in every other run.  A table of at most TIDE_MAX_WALL bodies (= the
	 * motion table's) rather than a velocity per particle: fixed walls' own velocity is zero
	 * and a floating body's particles are never mirrored, so no particle field is needed. */
	int nwall;
	uint32_t wall_id0[TIDE_MAX_WALL], wall_id1[TIDE_MAX_WALL];
	float wall_u0[TIDE_MAX_WALL][3], wall_w[TIDE_MAX_WALL][3], wall_c[TIDE_MAX_WALL][3];
} tide_sph_params;

/* The floating body (0 .. nfloat - 1) particle id belongs to, or -1. */
TIDE_HD int tide_floating_index(const tide_sph_params *P, uint32_t id)
{
	for (int k = 0; k < P->nfloat; k++)
		if (id >= P->float_id0[k] && id < P->float_id1[k]) return k;
	return -1;
}

TIDE_HD int tide_is_floating(const tide_sph_params *P, uint32_t id)
{
	return tide_floating_index(P, id) >= 0;
}

/* What every step reduces over all particles (min/max/sum), read by the host once per step. */
typedef struct tide_step_reduce {
	float dt;        /* CFL time step limit [s] (min) */
	float vmax;      /* largest fluid speed [m/s] (max) */
	float rho_min, rho_max;   /* fluid density range (min / max) */
	float fill;      /* fullest block or halo: count / capacity (max) */
	uint32_t nbad;   /* particles with non-finite acceleration or density (sum) */
	uint32_t count;  /* particles (sum): the host learns the total without touching blocks */
	float hmax;      /* largest smoothing length (the gas scheme; max) */
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
	r->hmax = 0.f;
}

/* Combines b into a (the redux operation). */
TIDE_HD void tide_step_reduce_combine(tide_step_reduce *a, const tide_step_reduce *b)
{
	if (b->dt < a->dt) a->dt = b->dt;
	if (b->vmax > a->vmax) a->vmax = b->vmax;
	if (b->rho_min < a->rho_min) a->rho_min = b->rho_min;
	if (b->rho_max > a->rho_max) a->rho_max = b->rho_max;
	if (b->fill > a->fill) a->fill = b->fill;
	if (b->hmax > a->hmax) a->hmax = b->hmax;
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

/* Which block a codelet works on: a box of cells, in key order — cell layers [l0, l1) along
 * axis[0], [lo1, hi1) along axis[1], [lo2, hi2) along axis[2].  A slab of the 1-D decomposition
 * spans the whole grid along axis[1] and axis[2].  `split` has bit k set when the decomposition
 * cuts axis[k]: those faces of a block have halos and migration buffers (the same for every
 * block of a run). */
typedef struct tide_block_arg {
	int l0, l1;
	int lo1, hi1, lo2, hi2;
	int split;
} tide_block_arg;

/* Cell coordinates in key order (k[0] along axis[0] ...) of a point, clamped into the grid. */
TIDE_HD void tide_cell_k(const tide_grid *g, double x, double y, double z, int k[3])
{
	int c[3];
	tide_cell_of(g, x, y, z, c);
	for (int j = 0; j < 3; j++) k[j] = c[g->axis[j]];
}

/* The same from a global cell key. */
TIDE_HD void tide_key_cell(const tide_grid *g, uint32_t key, int k[3])
{
	uint32_t n1 = (uint32_t)g->n[g->axis[1]], n2 = (uint32_t)g->n[g->axis[2]];
	k[2] = (int)(key % n2);
	key /= n2;
	k[1] = (int)(key % n1);
	k[0] = (int)(key / n1);
}

TIDE_HD void tide_box_bounds(const tide_block_arg *A, int lo[3], int hi[3])
{
	lo[0] = A->l0; hi[0] = A->l1;
	lo[1] = A->lo1; hi[1] = A->hi1;
	lo[2] = A->lo2; hi[2] = A->hi2;
}

TIDE_HD uint32_t tide_box_ncell(const tide_block_arg *A)
{
	return (uint32_t)(A->l1 - A->l0) * (uint32_t)(A->hi1 - A->lo1) * (uint32_t)(A->hi2 - A->lo2);
}

TIDE_HD int tide_box_contains(const tide_block_arg *A, const int k[3])
{
	return k[0] >= A->l0 && k[0] < A->l1 && k[1] >= A->lo1 && k[1] < A->hi1 && k[2] >= A->lo2 &&
	       k[2] < A->hi2;
}

/* Index of cell k (inside the box) in the box's own key order: the cells of a box sort like
 * their global keys, so a block sorted by it is sorted by global key too. */
TIDE_HD uint32_t tide_box_index(const tide_block_arg *A, const int k[3])
{
	return ((uint32_t)(k[0] - A->l0) * (uint32_t)(A->hi1 - A->lo1) + (uint32_t)(k[1] - A->lo1)) *
	               (uint32_t)(A->hi2 - A->lo2) + (uint32_t)(k[2] - A->lo2);
}

/* Global key of the box's local cell `local`. */
TIDE_HD uint32_t tide_box_key(const tide_grid *g, const tide_block_arg *A, uint32_t local)
{
	uint32_t w1 = (uint32_t)(A->hi1 - A->lo1), w2 = (uint32_t)(A->hi2 - A->lo2);
	int k[3];
	k[2] = A->lo2 + (int)(local % w2);
	local /= w2;
	k[1] = A->lo1 + (int)(local % w1);
	k[0] = A->l0 + (int)(local / w1);
	return ((uint32_t)k[0] * (uint32_t)g->n[g->axis[1]] + (uint32_t)k[1]) *
	               (uint32_t)g->n[g->axis[2]] + (uint32_t)k[2];
}

/* Local cell of a point in its block, clamped into the box (migration keeps every particle in
 * its block's box, or one cell out for a particle that moved more than a cell in a step: the
 * clamp keeps it in the block until the next migration moves it on). */
TIDE_HD uint32_t tide_local_key(const tide_grid *g, double x, double y, double z,
                                const tide_block_arg *A)
{
	int k[3], lo[3], hi[3];
	tide_cell_k(g, x, y, z, k);
	tide_box_bounds(A, lo, hi);
	for (int j = 0; j < 3; j++) k[j] = tide_clampi(k[j], lo[j], hi[j] - 1);
	return tide_box_index(A, k);
}

/* The box grown by n cells on every side, inside the grid. */
TIDE_HD tide_block_arg tide_box_grow_by(const tide_grid *g, const tide_block_arg *A, int n)
{
	tide_block_arg E = *A;
	int n0 = g->n[g->axis[0]], n1 = g->n[g->axis[1]], n2 = g->n[g->axis[2]];
	E.l0 = A->l0 > n ? A->l0 - n : 0;
	E.l1 = A->l1 + n < n0 ? A->l1 + n : n0;
	E.lo1 = A->lo1 > n ? A->lo1 - n : 0;
	E.hi1 = A->hi1 + n < n1 ? A->hi1 + n : n1;
	E.lo2 = A->lo2 > n ? A->lo2 - n : 0;
	E.hi2 = A->hi2 + n < n2 ? A->hi2 + n : n2;
	return E;
}

/* The box grown by one cell on every side, inside the grid: the cells a block's forces read
 * (WCSPH), and where a migrant one cell out of a box may be. */
TIDE_HD tide_block_arg tide_box_grow(const tide_grid *g, const tide_block_arg *A)
{
	return tide_box_grow_by(g, A, 1);
}

/* Number of axes the decomposition cuts. */
TIDE_HD int tide_split_axes(int split)
{
	return (split & 1) + ((split >> 1) & 1) + ((split >> 2) & 1);
}

/* The faces of a block that have neighbours — face f = 2 k + side of key axis k, side 0 low and
 * 1 high — on a split axis and not on the grid's edge (a periodic axis is always split, and its
 * blocks' boxes stop short of the ghost layers, so every face of it has a neighbour).  slot[f] numbers them 0, 1, ... in face
 * order (-1: no neighbour): a block's halo and migration buffers come in that order.  Returns
 * how many there are. */
TIDE_HD int tide_face_slots(const tide_grid *g, const tide_block_arg *A, int slot[6])
{
	int lo[3], hi[3], n = 0;
	tide_box_bounds(A, lo, hi);
	for (int k = 0; k < 3; k++) {
		int cut = (A->split >> k) & 1;
		slot[2 * k] = cut && lo[k] > 0 ? n++ : -1;
		slot[2 * k + 1] = cut && hi[k] < g->n[g->axis[k]] ? n++ : -1;
	}
	return n;
}

/* The edge of face f = 2 k + side of box A that its halo carries: the cell layers first ..
 * first + n - 1 along key axis k (L of them, at most the box's width) ... */
TIDE_HD void tide_face_layers_n(const tide_block_arg *A, int f, int L, int *first, int *n)
{
	int lo[3], hi[3], k = f / 2;
	tide_box_bounds(A, lo, hi);
	*n = L < hi[k] - lo[k] ? L : hi[k] - lo[k];
	*first = f % 2 ? hi[k] - *n : lo[k];
}

/* ... with L = tide_halo_layers, the same for every face. */
TIDE_HD void tide_face_layers(const tide_grid *g, const tide_block_arg *A, int f, int *first, int *n)
{
	tide_face_layers_n(A, f, tide_halo_layers(g), first, n);
}

/* Is face f = 2 k + side of box A a periodic face (the box touches the ghost layer there)? */
TIDE_HD int tide_face_periodic(const tide_grid *g, const tide_block_arg *A, int f)
{
	int k = f / 2, d = g->axis[k], lo[3], hi[3];
	if (!tide_ghost(g, d)) return 0;
	tide_box_bounds(A, lo, hi);
	return f % 2 ? hi[k] == g->n[d] - 1 : lo[k] == 1;
}

/* The periodic image, for the halo of periodic face f, of a particle of the box's edge layer
 * there: its position shifted by the period L along the face's axis (+L for the low face: the
 * readers lie beyond the high face), its key moved into the ghost layer on the readers' side.
 * The other key coordinates stay, so a halo sorted by key stays sorted. */
TIDE_HD void tide_periodic_image(const tide_grid *g, int f, double L, double *x, double *y,
                                 double *z, uint32_t *key)
{
	int k = f / 2, d = g->axis[k], kc[3], c[3];
	double *p[3] = {x, y, z};
	*p[d] += f % 2 ? -L : L;
	tide_key_cell(g, *key, kc);
	kc[k] = f % 2 ? 0 : g->n[d] - 1;
	for (int j = 0; j < 3; j++) c[g->axis[j]] = kc[j];
	*key = tide_cell_key(g, c);
}

#endif
