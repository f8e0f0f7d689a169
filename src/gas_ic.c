// SPDX-License-Identifier: LGPL-2.1-or-later
// Initial conditions of the gas scheme (gas_ic.h).
#include <math.h>
#include <stdlib.h>
#include "gas_ic.h"
#include "tide/block_interface.h"
#include "tide/case.h"
#include "tide/gas_math.h"

void tide_gas_ic_push(tide_block_view *v, const double p[3], const double vel[3], double rho,
                      double m, double u, double h)
{
	uint32_t i = v->count++;
	v->x[i] = p[0];
	v->y[i] = p[1];
	v->z[i] = p[2];
	float *vv[3] = {v->vx, v->vy, v->vz}, *vh[3] = {v->vx1, v->vy1, v->vz1};
	for (int k = 0; k < 3; k++) vv[k][i] = vh[k][i] = (float)vel[k]; /* the half-step velocity */
	v->rho[i] = (float)rho;
	v->ax[i] = v->ay[i] = v->az[i] = v->drho[i] = 0.f;
	v->id[i] = i;
	v->type[i] = TIDE_FLUID;
	v->TIDE_GAS_H[i] = (float)h;
	v->TIDE_GAS_U[i] = v->TIDE_GAS_UHALF[i] = (float)u;
	v->TIDE_GAS_FGRAD[i] = 1.f;
	v->TIDE_GAS_BALSARA[i] = 1.f;
	v->TIDE_GAS_DTK[i] = 0.f; /* no kick to close before the first step */
	v->TIDE_GAS_HDOT[i] = 0.f; /* no drift of h before it either */
	v->TIDE_GAS_MASS[i] = (float)m;
}

/* The points of the positions `g` (NULL: the cubic lattice) of mean spacing a filling the box
 * [lo, hi), passed to fn in a fixed order (every rank makes the same set).  The lattice has a
 * whole number of cells along each axis (at least one), its spacing snapped to fit; the glass
 * is tiled from lo in cubes of side a N^(1/3) (N its particles), cut at hi. */
typedef void (*point_fn)(void *ctx, const double p[3], const double a[3]);

static size_t fill_box(const double lo[3], const double hi[3], double a, const tide_glass *g,
                       point_fn fn, void *ctx)
{
	size_t cnt = 0;
	if (!g) {
		int n[3];
		double s[3];
		for (int k = 0; k < 3; k++) {
			n[k] = (int)lround((hi[k] - lo[k]) / a);
			if (n[k] < 1) n[k] = 1;
			s[k] = (hi[k] - lo[k]) / n[k];
		}
		for (int i = 0; i < n[0]; i++)
			for (int j = 0; j < n[1]; j++)
				for (int k = 0; k < n[2]; k++) {
					double p[3] = {lo[0] + (i + 0.5) * s[0], lo[1] + (j + 0.5) * s[1],
					               lo[2] + (k + 0.5) * s[2]};
					if (fn) fn(ctx, p, s);
					cnt++;
				}
		return cnt;
	}
	double T = a * cbrt((double)g->n), s[3] = {a, a, a};
	int nt[3];
	for (int k = 0; k < 3; k++) nt[k] = (int)ceil((hi[k] - lo[k]) / T - 1e-9);
	for (int i = 0; i < nt[0]; i++)
		for (int j = 0; j < nt[1]; j++)
			for (int k = 0; k < nt[2]; k++)
				for (uint32_t q = 0; q < g->n; q++) {
					int t[3] = {i, j, k}, in = 1;
					double p[3];
					for (int d = 0; d < 3; d++) {
						p[d] = lo[d] + (t[d] + g->p[3 * q + d]) * T;
						in &= p[d] < hi[d];
					}
					if (!in) continue;
					if (fn) fn(ctx, p, s);
					cnt++;
				}
	return cnt;
}

void tide_gas_ic_start(const tide_case *c, tide_block_view *v, size_t n)
{
	double m = tide_case_mass(c);
	for (size_t i = 0; i < n; i++) {
		double vel[3] = {v->vx[i], v->vy[i], v->vz[i]}, p[3] = {v->x[i], v->y[i], v->z[i]};
		double rho = v->rho[i] > 0 ? v->rho[i] : c->rho0;
		uint32_t id = v->id[i], type = v->type[i], k = v->count;
		v->count = (uint32_t)i;   /* tide_gas_ic_push writes slot count */
		tide_gas_ic_push(v, p, vel, rho, m, c->gas.u, c->gas.eta * pow(m / rho, 1.0 / c->dim));
		v->id[i] = id;
		v->type[i] = type;
		v->count = k;
	}
}

int tide_gas_ic_alloc(size_t n, uint32_t extra, void **mem, tide_block_view *v)
{
	uint32_t cap = (uint32_t)n + extra;
	*mem = tide_block_alloc_host(cap ? cap : 1);
	if (!*mem) return -1;
	*v = tide_block_view_make(*mem, cap ? cap : 1, 0);
	return 0;
}

/* ---- shock tube ---- */

typedef struct tube_ctx {
	const tide_gas_tube *t;
	tide_block_view *v;
	int side;
	double lo[3], hi[3], shift, vel[3], m, u, eta;
} tube_ctx;

static void tube_point(void *ctx, const double p0[3], const double a[3])
{
	tube_ctx *c = ctx;
	const tide_gas_tube *t = c->t;
	double p[3], vol = a[0] * a[1] * a[2], rho = c->m / vol;
	for (int d = 0; d < 3; d++) {
		p[d] = p0[d];
		if (d == t->axis || !c->shift) continue;
		p[d] += c->shift; /* wrapped: the tube is periodic across */
		if (p[d] >= c->hi[d]) p[d] -= c->hi[d] - c->lo[d];
	}
	uint32_t id = c->v->count;
	tide_gas_ic_push(c->v, p, c->vel, rho, c->m, c->u, c->eta * cbrt(vol));
	/* the outer layers of the tube's ends held fixed */
	double end = c->side ? c->hi[t->axis] - p[t->axis] : p[t->axis] - c->lo[t->axis];
	if (end < t->fixed * a[t->axis]) c->v->type[id] = TIDE_BOUND;
}

size_t tide_gas_ic_shock_tube(const tide_gas_tube *t, tide_block_view *v)
{
	size_t total = 0;
	for (int s = 0; s < 2; s++) {
		tube_ctx c = {.t = t, .v = v, .side = s, .m = t->m, .eta = t->eta,
		              .u = t->p[s] / ((t->gamma - 1.0) * t->rho[s])};
		for (int k = 0; k < 3; k++) {
			c.lo[k] = t->lo[k];
			c.hi[k] = t->hi[k];
		}
		(s ? c.lo : c.hi)[t->axis] = t->x0;
		c.vel[t->axis] = t->vel[s];
		/* half the left state's spacing across the tube (gas_ic.h; lattices only) */
		if (s == 1 && !t->glass) c.shift = 0.5 * cbrt(t->m / t->rho[0]);
		total += fill_box(c.lo, c.hi, cbrt(t->m / t->rho[s]), t->glass, v ? tube_point : NULL, &c);
	}
	return total;
}

/* ---- Sedov blast ---- */

typedef struct sedov_ctx {
	tide_gas_sedov *s;
	tide_block_view *v;
	double rin, e_hot;
	int hot;
} sedov_ctx;

static void sedov_point(void *ctx, const double p0[3], const double a[3])
{
	sedov_ctx *c = ctx;
	const tide_gas_sedov *s = c->s;
	(void)a;
	double p[3] = {p0[0] + s->centre[0], p0[1] + s->centre[1], p0[2] + s->centre[2]};
	int hot = p0[0] * p0[0] + p0[1] * p0[1] + p0[2] * p0[2] < c->rin * c->rin;
	c->hot += hot;
	if (!c->v) return;
	double vel[3] = {0, 0, 0};
	tide_gas_ic_push(c->v, p, vel, s->rho, s->m, s->u_bg + (hot ? c->e_hot : 0),
	                 s->eta * cbrt(s->m / s->rho));
}

size_t tide_gas_ic_sedov(tide_gas_sedov *s, tide_block_view *v)
{
	double a = cbrt(s->m / s->rho), lo[3], hi[3];
	int n = (int)lround(s->half / a);
	if (n < 1) n = 1;
	if (!s->glass) a = s->half / n; /* a whole number of cells from the centre to a face */
	for (int d = 0; d < 3; d++) {
		lo[d] = -s->half;
		hi[d] = s->half;
	}
	/* the hot particles: within r_inj, at least the 8 nearest the centre of a lattice */
	sedov_ctx c = {.s = s, .rin = fmax(s->r_inj, sqrt(3.0) * 0.5 * a * 1.0001)};
	size_t total = fill_box(lo, hi, a, s->glass, sedov_point, &c);
	s->ninj = c.hot;
	if (!v) return total;
	c.v = v;
	c.e_hot = s->E / (s->m * c.hot);
	c.hot = 0;
	fill_box(lo, hi, a, s->glass, sedov_point, &c);
	return total;
}

/* ---- spheres ---- */

typedef struct sphere_ctx {
	const tide_gas_sphere *s;
	tide_block_view *v;
	double m;
	size_t cnt;
	int background;
} sphere_ctx;

static void sphere_point(void *ctx, const double p0[3], const double a[3])
{
	sphere_ctx *c = ctx;
	const tide_gas_sphere *s = c->s;
	double p[3] = {p0[0], p0[1], p0[2]}, R = s->R, vel[3] = {0, 0, 0};
	double r = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
	if ((r >= R) != c->background) return;
	c->cnt++;
	if (!c->v) return;
	double rho = s->M / (4.0 / 3.0 * M_PI * R * R * R), u = s->u;
	if (c->background) {
		rho = c->m / (a[0] * a[1] * a[2]);
		u = s->u_out;
	} else if (s->evrard) {
		double f = sqrt(r / R); /* r' / r = (r / R)^(1/2) */
		for (int d = 0; d < 3; d++) p[d] *= f;
		rho = s->M / (2 * M_PI * R * R * r * f);
	}
	for (int d = 0; d < 3; d++) p[d] += s->centre[d];
	tide_gas_ic_push(c->v, p, vel, rho, c->m, u, s->eta * cbrt(c->m / rho));
}

/* The sphere's points (the cube [-R, R]^3 cut in n per side), or the top hat's background. */
static size_t sphere_fill(const tide_gas_sphere *s, tide_block_view *v, double m, int background)
{
	double r = background ? s->half : s->R, lo[3] = {-r, -r, -r}, hi[3] = {r, r, r};
	double a = background ? cbrt(m / s->rho_out) : 2.0 * s->R / s->n;
	sphere_ctx c = {.s = s, .v = v, .m = m, .background = background};
	fill_box(lo, hi, a, s->glass, sphere_point, &c);
	return c.cnt;
}

double tide_gas_ic_sphere_mass(const tide_gas_sphere *s)
{
	return s->M / (double)sphere_fill(s, NULL, 0, 0);
}

size_t tide_gas_ic_sphere(const tide_gas_sphere *s, tide_block_view *v)
{
	double m = tide_gas_ic_sphere_mass(s);
	size_t n = sphere_fill(s, v, m, 0);
	if (s->rho_out > 0) n += sphere_fill(s, v, m, 1);
	return n;
}
