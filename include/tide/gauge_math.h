/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Gauges as sums over particles, written once for the host (src/gauges.c: tide probe, the
 * brute-force tests) and the gauge_sample codelet (CPU and CUDA), so every path measures with
 * the same formulas.
 *
 * Every gauge is built from sums that are additive over particles, hence over blocks and ranks:
 *   at a point r:  sum_j V_j W(r - r_j) over fluid j (the fluid fraction), the same over boundary
 *                  j, and over fluid j: sum p_j V_j W, sum v_j V_j W, the count within 2h;
 *                  V_j = m_j / rho_j.  Shepard: f(r) = sum f_j V_j W / sum V_j W.
 *   per obstacle:  the force of the fluid on its boundary particles (tide_gauge_pair_force);
 *   surge front:   max x of fluid particles with >= 2 other fluid particles within 1.5 dp (a max).
 * A height gauge is a vertical line sampled every dz <= dp/2 from z0 up: the host turns the
 * summed profile into a height (tide_gauge_profile_height). */
#ifndef TIDE_GAUGE_MATH_H
#define TIDE_GAUGE_MATH_H
#include <math.h>
#include <stdint.h>
#include "tide/hd.h"
#include "tide/block.h"
#include "tide/sph_interact.h"
#include "tide/sph_kernel.h"
#include "tide/gas_math.h"

#define TIDE_GAUGE_MAX_LINES 16
#define TIDE_GAUGE_MAX_POINTS 32   /* pressure points, then velocity points */
#define TIDE_GAUGE_MAX_OBST 16
/* Most samples of all lines together (2 doubles each in the result). */
#define TIDE_GAUGE_MAX_SAMPLES (1 << 20)

/* What one measurement needs (passed by value to the codelet). */
typedef struct tide_gauge_arg {
	int dim;
	int nline, nz;             /* lines (x, y) sampled at z0 + k dz, k < nz */
	double line[TIDE_GAUGE_MAX_LINES][2];
	double z0, dz;
	int npoint;
	double point[TIDE_GAUGE_MAX_POINTS][3];
	int nobst;                 /* obstacle boxes (the case's, in its order) */
	double obst_lo[TIDE_GAUGE_MAX_OBST][3], obst_hi[TIDE_GAUGE_MAX_OBST][3];
	uint32_t obst_id[TIDE_GAUGE_MAX_OBST][2];  /* a moving obstacle's particle ids [id0, id1)
	                                            * (motion.h); 0, 0: a fixed one (its box) */
	int front;                 /* 1: measure the surge front */
	double front_r;            /* its neighbour radius, 1.5 dp */
} tide_gauge_arg;

/* Layout of the result (doubles): [0] the front's max x (TIDE_GAUGE_NONE: no such particle),
 * then 2 per line sample (fluid, boundary fraction), TIDE_GAUGE_PT per point, 3 per obstacle. */
#define TIDE_GAUGE_NONE (-1e300)
enum { TIDE_GAUGE_PT_VW, TIDE_GAUGE_PT_PVW, TIDE_GAUGE_PT_VX, TIDE_GAUGE_PT_VY, TIDE_GAUGE_PT_VZ,
       TIDE_GAUGE_PT_N, TIDE_GAUGE_PT };
TIDE_HD size_t tide_gauge_sample_at(const tide_gauge_arg *G, int l, int k)
{
	return 1 + 2 * ((size_t)l * (size_t)G->nz + (size_t)k);
}
TIDE_HD size_t tide_gauge_point_at(const tide_gauge_arg *G, int p)
{
	return 1 + 2 * (size_t)G->nline * (size_t)G->nz + TIDE_GAUGE_PT * (size_t)p;
}
TIDE_HD size_t tide_gauge_obst_at(const tide_gauge_arg *G, int m)
{
	return tide_gauge_point_at(G, G->npoint) + 3 * (size_t)m;
}
TIDE_HD size_t tide_gauge_len(const tide_gauge_arg *G) { return tide_gauge_obst_at(G, G->nobst); }
/* A block's result vector: the result, then room for the CUDA half's partial obstacle forces
 * (TIDE_GAUGE_FORCE_PARTS thread blocks, added in a fixed order: deterministic). */
#define TIDE_GAUGE_FORCE_PARTS 256
TIDE_HD size_t tide_gauge_block_len(const tide_gauge_arg *G)
{
	return tide_gauge_len(G) + (size_t)TIDE_GAUGE_FORCE_PARTS * 3 * (size_t)G->nobst;
}

/* Position of sample k of line l (2-D: y = 0). */
TIDE_HD void tide_gauge_sample_pos(const tide_gauge_arg *G, int l, int k, double r[3])
{
	r[0] = G->line[l][0];
	r[1] = G->dim == 3 ? G->line[l][1] : 0.0;
	r[2] = G->z0 + (double)k * G->dz;
}

/* V_j W(|r - r_j|) for a particle of mass m and density rho at squared distance r2 (< (2h)^2),
 * kernel normalisation aw = tide_kernel_alpha(kernel, dim, h). */
TIDE_HD double tide_gauge_vw(int kernel, double aw, double h, double r2, double m, double rho)
{
	return m / rho * aw * (double)tide_kernel_w(kernel, (float)(sqrt(r2) / h));
}

/* The equation of state in double precision (the step's single-precision tide_pressure loses
 * digits to the cancellation near rho0), from the codelets' parameters so that the host sums
 * (tide probe) and the codelets give the same value for a particle. */
TIDE_HD double tide_gauge_eos(const tide_sph_params *P, double rho)
{
	double c0 = (double)P->c0, rho0 = (double)P->rho0;
	if (P->eos == TIDE_EOS_ISOTHERMAL) return c0 * c0 * (rho - rho0);
	return (double)P->tait_b * (pow(rho / rho0, (double)P->gamma) - 1.0);
}

/* The obstacle boundary particle `id` at p belongs to, or -1 (a tank wall or an STL solid).  A
 * moving obstacle (issue 22): its particles' id range, as body_motion finds them.  A fixed one:
 * the same rule as the case builder (src/case_build.c): obstacle particles lie strictly inside
 * their box, tank wall particles outside the tank's inner box, and the earlier obstacle owns an
 * overlap; fixed boundary particles never move, so membership needs no per-particle field. */
TIDE_HD int tide_gauge_obstacle_of(const tide_gauge_arg *G, uint32_t id, double x, double y, double z)
{
	double p[3] = {x, y, z};
	for (int m = 0; m < G->nobst; m++)
		if (G->obst_id[m][1] > G->obst_id[m][0] && id >= G->obst_id[m][0] && id < G->obst_id[m][1])
			return m;
	for (int m = 0; m < G->nobst; m++) {
		if (G->obst_id[m][1] > G->obst_id[m][0]) continue;
		int in = 1;
		for (int a = 0; a < 3 && in; a++) {
			if (G->dim == 2 && a == 1) continue;
			double lo = G->obst_lo[m][a], hi = G->obst_hi[m][a];
			double eps = 1e-9 * (1 + fabs(lo) + fabs(hi));
			in = p[a] > lo + eps && p[a] < hi - eps;
		}
		if (in) return m;
	}
	return -1;
}

/* Force [N] (2-D: per metre of width) of fluid particle f on boundary particle b, with
 * d = r_f - r_b (r2 = |d|^2 < (2h)^2).  DBC: boundary particles take part in the fluid's momentum
 * equation only through their pressure (and the artificial viscosity); their own acceleration
 * is never computed.  The fluid's momentum lost to b is the opposite of the pair force b exerts
 * on f in sph_forces (tide_pair with f as the particle and b as the neighbour), so the sum over
 * an obstacle's particles is the force the fluid exerts on the obstacle (pressure and viscous
 * parts, the obstacle's own weight and its support excluded): what a load cell holding a fixed
 * obstacle reads.  Summing m a over boundary particles is no alternative here: a boundary
 * particle's acceleration is not part of the scheme. */
TIDE_HD void tide_gauge_pair_force(const tide_sph_params *P, float fvx, float fvy, float fvz,
                                   float frho, float dx, float dy, float dz, float r2, float bvx,
                                   float bvy, float bvz, float brho, double F[3])
{
	tide_pi pi;
	pi.x = pi.y = pi.z = 0.0;
	pi.vx = fvx; pi.vy = fvy; pi.vz = fvz; pi.rho = frho;
	pi.p_over_rho2 = tide_p_over_rho2(P, frho);
	pi.c = tide_sound(P, frho);
	pi.fluid = 1;
	tide_acc a = {0.f, 0.f, 0.f, 0.f, 0.f};
	tide_pair(P, &pi, dx, dy, dz, r2, bvx, bvy, bvz, brho, TIDE_BOUND, tide_p_over_rho2(P, brho),
	          tide_sound(P, brho), &a);
	double mf = (double)P->mass[TIDE_FLUID];
	F[0] -= mf * (double)a.ax;
	F[1] -= mf * (double)a.ay;
	F[2] -= mf * (double)a.az;
}

/* Height modes of a line (case key gauges.mode). */
enum tide_gauge_mode { TIDE_GAUGE_COLUMN = 0, TIDE_GAUGE_HIGHEST = 1 };

/* The one "profile -> height" formula.  fluid[k], bound[k]: the fluid and boundary fractions at
 * z0 + k dz (k < nz).
 *   column : the top of the continuous column standing on the floor, as a wave probe reads it:
 *            going up from the bottom, the first level where the filled fraction (fluid plus
 *            boundary, so that the floor or an obstacle under the line is where the column
 *            starts) falls below 1/2 after having reached it; airborne splash above is ignored.
 *   highest: the highest level where the fluid fraction reaches 1/2 (the DualSPHysics
 *            MeasureTool convention; splash counts).
 * The crossing of 1/2 is interpolated linearly between the two samples around it, so the
 * height moves smoothly rather than in steps of dz.  0 when the line holds nothing that
 * reaches 1/2. */
TIDE_HD double tide_gauge_profile_height(const double *fluid, const double *bound, int nz,
                                         double z0, double dz, int mode)
{
	const double half = 0.5;
	if (mode == TIDE_GAUGE_HIGHEST) {
		for (int k = nz - 1; k >= 0; k--) {
			if (fluid[k] < half) continue;
			if (k == nz - 1) return z0 + k * dz;
			double f0 = fluid[k], f1 = fluid[k + 1];
			return z0 + (k + (f0 - half) / (f0 - f1)) * dz;
		}
		return 0.0;
	}
	int k = 0;
	while (k < nz && fluid[k] + bound[k] < half) k++;   /* below the lowest water or wall */
	if (k == nz) return 0.0;
	for (; k + 1 < nz; k++) {
		double f0 = fluid[k] + bound[k], f1 = fluid[k + 1] + bound[k + 1];
		if (f1 < half) return z0 + (k + (f0 - half) / (f0 - f1)) * dz;
	}
	return z0 + (nz - 1) * dz;
}

/* Cell coordinates in key order of the point r, not clamped (far points stay far). */
TIDE_HD void tide_gauge_cell_k(const tide_grid *g, const double r[3], int k[3])
{
	for (int j = 0; j < 3; j++) {
		int a = g->axis[j];
		double f = (r[a] - g->origin[a]) * g->inv_cell;
		if (f < -4.0) f = -4.0;
		if (f > (double)g->n[a] + 4.0) f = (double)g->n[a] + 4.0;
		k[j] = (int)floor(f);
	}
}

/* Cells of the box A whose particles may lie within `reach` cells of cell k: [lo, hi] on each
 * key axis, the range clamped into the box (a particle outside its box by a cell is kept in the
 * box's edge cell by cell_sort, sph_params.h tide_local_key).  0: none. */
TIDE_HD int tide_gauge_cell_range(const tide_block_arg *A, const int k[3], int reach, int lo[3],
                                  int hi[3])
{
	int blo[3], bhi[3];
	tide_box_bounds(A, blo, bhi);
	for (int j = 0; j < 3; j++) {
		/* the edge cells also hold particles up to one cell outside the box */
		if (k[j] + reach < blo[j] - 1 || k[j] - reach > bhi[j]) return 0;
		lo[j] = tide_clampi(k[j] - reach, blo[j], bhi[j] - 1);
		hi[j] = tide_clampi(k[j] + reach, blo[j], bhi[j] - 1);
	}
	return 1;
}

/* Sums at point r over the particles of a cell-sorted block (cell starts cs of box A). */
typedef struct tide_gauge_sums {
	double vw_f, vw_b, pvw, vvw[3], n;
} tide_gauge_sums;

TIDE_HD void tide_gauge_point_sums_add(const tide_sph_params *P, const tide_block_view *v,
                                       const uint32_t *cs, const tide_block_arg *A,
                                       const double r[3], tide_gauge_sums *s)
{
	const tide_grid *g = &P->grid;
	/* the gas scheme: each particle's own h and mass, its own equation of state, and supports
	 * as wide as the halos carry (tide_halo_layers); WCSPH: one h, one ring of cells */
	const int gas = P->scheme == TIDE_SCHEME_GAS;
	int k[3], lo[3], hi[3], kk[3];
	tide_gauge_cell_k(g, r, k);
	if (!tide_gauge_cell_range(A, k, gas ? tide_halo_layers(g) : 1, lo, hi)) return;
	double h = (double)P->h, aw = (double)P->aw;
	for (kk[0] = lo[0]; kk[0] <= hi[0]; kk[0]++)
		for (kk[1] = lo[1]; kk[1] <= hi[1]; kk[1]++)
			for (kk[2] = lo[2]; kk[2] <= hi[2]; kk[2]++) {
				uint32_t c = tide_box_index(A, kk);
				for (uint32_t j = cs[c]; j < cs[c + 1]; j++) {
					if (v->type[j] == TIDE_NBODY) continue; /* collisionless: not the gas */
					double dx = r[0] - v->x[j], dy = P->dim == 3 ? r[1] - v->y[j] : 0.0;
					double dz = r[2] - v->z[j], r2 = dx * dx + dy * dy + dz * dz;
					int fluid = v->type[j] == TIDE_FLUID;
					double hj = h, awj = aw, m = (double)P->mass[fluid ? 0 : 1], p;
					if (gas) {
						hj = (double)v->TIDE_GAS_H[j];
						if (!(hj > 0.0)) continue;
						awj = tide_kernel_alpha(P->kernel, P->dim, hj);
						m = (double)v->TIDE_GAS_MASS[j];
					}
					if (r2 >= 4.0 * hj * hj) continue;
					double vw = tide_gauge_vw(P->kernel, awj, hj, r2, m, (double)v->rho[j]);
					if (!fluid) { s->vw_b += vw; continue; }
					p = gas ? (double)tide_gas_pressure(&P->gas, v->rho[j], v->TIDE_GAS_U[j])
					        : tide_gauge_eos(P, (double)v->rho[j]);
					s->vw_f += vw;
					s->pvw += p * vw;
					s->vvw[0] += (double)v->vx[j] * vw;
					s->vvw[1] += (double)v->vy[j] * vw;
					s->vvw[2] += (double)v->vz[j] * vw;
					s->n += 1.0;
				}
			}
}

/* The sums at r and, along a periodic axis (case key periodic), at its images r -+ L: the
 * particles across a periodic face count at their minimum-image distance (L >= 4h: none twice). */
TIDE_HD void tide_gauge_point_sums(const tide_sph_params *P, const tide_block_view *v,
                                   const uint32_t *cs, const tide_block_arg *A, const double r[3],
                                   tide_gauge_sums *s)
{
	s->vw_f = s->vw_b = s->pvw = s->vvw[0] = s->vvw[1] = s->vvw[2] = s->n = 0.0;
	int px = tide_ghost(&P->grid, 0), py = tide_ghost(&P->grid, 1);
	for (int sy = -py; sy <= py; sy++)
		for (int sx = -px; sx <= px; sx++) {
			double q[3] = {r[0] + sx * (P->dom_hi[0] - P->dom_lo[0]),
			               r[1] + sy * (P->dom_hi[1] - P->dom_lo[1]), r[2]};
			tide_gauge_point_sums_add(P, v, cs, A, q, s);
		}
}

/* A point's sums into the result. */
TIDE_HD void tide_gauge_point_out(const tide_gauge_arg *G, int p, const tide_gauge_sums *s,
                                  double *out)
{
	double *o = out + tide_gauge_point_at(G, p);
	o[TIDE_GAUGE_PT_VW] = s->vw_f;
	o[TIDE_GAUGE_PT_PVW] = s->pvw;
	o[TIDE_GAUGE_PT_VX] = s->vvw[0];
	o[TIDE_GAUGE_PT_VY] = s->vvw[1];
	o[TIDE_GAUGE_PT_VZ] = s->vvw[2];
	o[TIDE_GAUGE_PT_N] = s->n;
}

/* Particles of global cell kk (key order) in a halo (sorted by its global keys): [*s, *e). */
TIDE_HD void tide_gauge_cell_span(const tide_grid *g, const tide_block_view *v, const int kk[3],
                                  uint32_t *s, uint32_t *e)
{
	uint32_t key = ((uint32_t)kk[0] * (uint32_t)g->n[g->axis[1]] + (uint32_t)kk[1]) *
	                       (uint32_t)g->n[g->axis[2]] + (uint32_t)kk[2];
	const uint32_t *keys = tide_halo_keys(v);
	*s = tide_lower_bound(keys, v->count, key);
	*e = *s + tide_lower_bound(keys + *s, v->count - *s, key + 1);
}

/* Whether cell kk (key order) lies in the grid. */
TIDE_HD int tide_gauge_cell_in_grid(const tide_grid *g, const int kk[3])
{
	for (int j = 0; j < 3; j++)
		if (kk[j] < 0 || kk[j] >= g->n[g->axis[j]]) return 0;
	return 1;
}

/* Visits the particles of the own block and of the halos near particle i of the own block (the
 * cells within `reach` cells of its cell, own cells from the cell starts, halo cells outside the
 * box by binary search of the halos' sorted global keys): the body of TIDE_GAUGE_NEAR runs with
 * `src` (the view) and `j` (the index) set (the body is the last, variadic argument: it may
 * hold commas).  Used by the front and the obstacle forces. */
#define TIDE_GAUGE_NEAR(P, v, cs, A, halo, nh, i, reach, ...)                                   \
	do {                                                                                    \
		const tide_grid *g_ = &(P)->grid;                                               \
		int k_[3], kk_[3];                                                              \
		tide_key_cell(g_, tide_box_key(g_, (A), tide_sorted_cell((cs), tide_box_ncell(A), (i))), k_); \
		for (kk_[0] = k_[0] - (reach); kk_[0] <= k_[0] + (reach); kk_[0]++)             \
			for (kk_[1] = k_[1] - (reach); kk_[1] <= k_[1] + (reach); kk_[1]++)     \
				for (kk_[2] = k_[2] - (reach); kk_[2] <= k_[2] + (reach); kk_[2]++) { \
					if (!tide_gauge_cell_in_grid(g_, kk_)) continue;        \
					if (tide_box_contains((A), kk_)) {                      \
						uint32_t c_ = tide_box_index((A), kk_);         \
						const tide_block_view *src = (v);               \
						for (uint32_t j = (cs)[c_]; j < (cs)[c_ + 1]; j++) __VA_ARGS__ \
						continue;                                       \
					}                                                       \
					for (int q_ = 0; q_ < (nh); q_++) {                     \
						const tide_block_view *src = &(halo)[q_];       \
						uint32_t s_, e_;                                \
						tide_gauge_cell_span(g_, src, kk_, &s_, &e_);   \
						for (uint32_t j = s_; j < e_; j++) __VA_ARGS__  \
					}                                                       \
				}                                                               \
	} while (0)

/* Cells to search around a particle for neighbours within radius r. */
TIDE_HD int tide_gauge_reach(const tide_grid *g, double r)
{
	int n = (int)ceil(r * g->inv_cell - 1e-9);
	return n < 1 ? 1 : n;
}

/* 1 when fluid particle i of the block counts for the surge front: >= 2 other fluid particles
 * within front_r. */
TIDE_HD int tide_gauge_front_ok(const tide_sph_params *P, const tide_gauge_arg *G,
                                const tide_block_view *v, const uint32_t *cs,
                                const tide_block_arg *A, const tide_block_view *halo, int nh,
                                uint32_t i)
{
	int n = 0;
	double r2max = G->front_r * G->front_r;
	int reach = tide_gauge_reach(&P->grid, G->front_r);
	TIDE_GAUGE_NEAR(P, v, cs, A, halo, nh, i, reach, {
		if (src == v && j == i) continue;
		if (src->type[j] != TIDE_FLUID) continue;
		double dx = v->x[i] - src->x[j], dy = G->dim == 3 ? v->y[i] - src->y[j] : 0.0;
		double dz = v->z[i] - src->z[j];
		if (dx * dx + dy * dy + dz * dz < r2max && ++n >= 2) return 1;
	});
	return 0;
}

/* Force of the fluid (own block and halos) on boundary particle i of the block, added to F. */
TIDE_HD void tide_gauge_particle_force(const tide_sph_params *P, const tide_block_view *v,
                                       const uint32_t *cs, const tide_block_arg *A,
                                       const tide_block_view *halo, int nh, uint32_t i,
                                       double F[3])
{
	float r2max = P->h2x4;
	TIDE_GAUGE_NEAR(P, v, cs, A, halo, nh, i, 1, {
		if (src->type[j] != TIDE_FLUID) continue;
		float dx = (float)(src->x[j] - v->x[i]);
		float dy = P->dim == 3 ? (float)(src->y[j] - v->y[i]) : 0.f;
		float dz = (float)(src->z[j] - v->z[i]);
		float r2 = dx * dx + dy * dy + dz * dz;
		if (r2 >= r2max) continue;
		tide_gauge_pair_force(P, src->vx[j], src->vy[j], src->vz[j], src->rho[j], dx, dy, dz, r2,
		                      v->vx[i], v->vy[i], v->vz[i], v->rho[i], F);
	});
}

#endif
