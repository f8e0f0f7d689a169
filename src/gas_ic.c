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
	v->key[i] = 0;
	v->TIDE_GAS_H[i] = (float)h;
	v->TIDE_GAS_U[i] = v->TIDE_GAS_UHALF[i] = (float)u;
	v->TIDE_GAS_FGRAD[i] = 1.f;
	v->TIDE_GAS_BALSARA[i] = 1.f;
	v->TIDE_GAS_DTK[i] = 0.f; /* no kick to close before the first step */
	v->TIDE_GAS_MASS[i] = (float)m;
}

/* Cells of the lattice of spacing a across [lo, hi) along each axis (at least one). */
static void lattice_counts(const double lo[3], const double hi[3], double a, int n[3])
{
	for (int k = 0; k < 3; k++) {
		n[k] = (int)lround((hi[k] - lo[k]) / a);
		if (n[k] < 1) n[k] = 1;
	}
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

int tide_gas_ic_shock_tube(const tide_gas_tube *t, uint32_t extra, void **mem, tide_block_view *v)
{
	double box[2][2][3];
	int n[2][3];
	size_t total = 0;
	for (int s = 0; s < 2; s++) {
		for (int k = 0; k < 3; k++) {
			box[s][0][k] = t->lo[k];
			box[s][1][k] = t->hi[k];
		}
		box[s][s ? 0 : 1][t->axis] = t->x0;
		lattice_counts(box[s][0], box[s][1], cbrt(t->m / t->rho[s]), n[s]);
		total += (size_t)n[s][0] * n[s][1] * n[s][2];
	}
	uint32_t cap = (uint32_t)total + extra;
	*mem = tide_block_alloc_host(cap);
	if (!*mem) return -1;
	*v = tide_block_view_make(*mem, cap, 0);
	double shift = 0; /* half the left state's spacing across the tube (below) */
	for (int s = 0; s < 2; s++) {
		double a[3], vol = 1;
		for (int k = 0; k < 3; k++) {
			a[k] = (box[s][1][k] - box[s][0][k]) / n[s][k];
			vol *= a[k];
		}
		double rho = t->m / vol, u = t->p[s] / ((t->gamma - 1.0) * t->rho[s]);
		if (s == 1) shift = 0.5 * cbrt(t->m / t->rho[0]);
		double h = t->eta * cbrt(vol), vel[3] = {0, 0, 0};
		vel[t->axis] = t->vel[s];
		for (int i = 0; i < n[s][0]; i++)
			for (int j = 0; j < n[s][1]; j++)
				for (int k = 0; k < n[s][2]; k++) {
					int c[3] = {i, j, k};
					double p[3];
					for (int d = 0; d < 3; d++) {
						p[d] = box[s][0][d] + (c[d] + 0.5) * a[d];
						if (d == t->axis || !shift) continue;
						p[d] += shift; /* wrapped: the tube is periodic across */
						if (p[d] >= box[s][1][d]) p[d] -= box[s][1][d] - box[s][0][d];
					}
					tide_gas_ic_push(v, p, vel, rho, t->m, u, h);
				}
	}
	return 0;
}

int tide_gas_ic_sedov(double half, double m, double rho, double u_bg, double E, double r_inj,
                      double eta, void **mem, tide_block_view *v)
{
	int n = (int)lround(half / cbrt(m / rho));
	if (n < 1) n = 1;
	double a = half / n, vel[3] = {0, 0, 0}, h = eta * cbrt(m / rho);
	double rin = fmax(r_inj, sqrt(3.0) * 0.5 * a * 1.0001);
	uint32_t cap = (uint32_t)(8 * (size_t)n * n * n);
	*mem = tide_block_alloc_host(cap);
	if (!*mem) return -1;
	*v = tide_block_view_make(*mem, cap, 0);
	int ninj = 0;
	for (int pass = 0; pass < 2; pass++) /* count the hot particles, then place them all */
		for (int i = -n; i < n; i++)
			for (int j = -n; j < n; j++)
				for (int k = -n; k < n; k++) {
					double p[3] = {(i + 0.5) * a, (j + 0.5) * a, (k + 0.5) * a};
					int hot = p[0] * p[0] + p[1] * p[1] + p[2] * p[2] < rin * rin;
					if (pass == 0) { ninj += hot; continue; }
					tide_gas_ic_push(v, p, vel, rho, m, hot ? u_bg + E / (m * ninj) : u_bg, h);
				}
	return ninj;
}

int tide_gas_ic_evrard(int n, double R, double M, double u, double eta, void **mem,
                       tide_block_view *v, uint32_t *np)
{
	double b = 2.0 * R / n, vel[3] = {0, 0, 0};
	uint32_t cnt = 0;
	for (int pass = 0; pass < 2; pass++) {
		double m = cnt ? M / cnt : 0;
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				for (int k = 0; k < n; k++) {
					double p[3] = {-R + (i + 0.5) * b, -R + (j + 0.5) * b, -R + (k + 0.5) * b};
					double r = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
					if (r >= R) continue;
					if (pass == 0) { cnt++; continue; }
					double s = sqrt(r / R); /* r' / r = (r / R)^(1/2) */
					for (int d = 0; d < 3; d++) p[d] *= s;
					double rho = M / (2 * 3.14159265358979323846 * R * R * r * s);
					tide_gas_ic_push(v, p, vel, rho, m, u, eta * cbrt(m / rho));
				}
		if (pass == 0) {
			*mem = tide_block_alloc_host(cnt);
			if (!*mem) return -1;
			*v = tide_block_view_make(*mem, cnt, 0);
		}
	}
	*np = cnt;
	return 0;
}
