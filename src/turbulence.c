// SPDX-License-Identifier: LGPL-2.1-or-later
// Turbulent initial velocities (turbulence.h).  The field's Fourier transforms are FFTW's.
#include <fftw3.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "turbulence.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

void tide_fft3(double *a, int n, int sign)
{
	/* interleaved (re, im) doubles are FFTW's fftw_complex; FFTW_FORWARD is the sign -1, and
	 * neither direction is normalised, as turbulence.h documents */
	fftw_complex *c = (fftw_complex *)(void *)a;
	fftw_plan p = fftw_plan_dft_3d(n, n, n, c, c, sign < 0 ? FFTW_FORWARD : FFTW_BACKWARD,
	                               FFTW_ESTIMATE);
	fftw_execute(p);
	fftw_destroy_plan(p);
}

/* A counter-based hash (splitmix64's finaliser) of the seed and a mode's wave vector. */
static uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double unit(uint64_t *st) /* (0, 1) */
{
	*st = mix(*st);
	return ((double)(*st >> 11) + 0.5) * 0x1.0p-53;
}

/* Six standard normal numbers (Box-Muller) for mode (kx, ky, kz) of seed. */
static void mode_normals(int seed, int kx, int ky, int kz, double g[6])
{
	uint64_t st = mix((uint64_t)(uint32_t)seed ^ mix(((uint64_t)(uint16_t)kx << 32) |
	                  ((uint64_t)(uint16_t)ky << 16) | (uint64_t)(uint16_t)kz));
	for (int i = 0; i < 6; i += 2) {
		double r = sqrt(-2.0 * log(unit(&st))), f = 2.0 * M_PI * unit(&st);
		g[i] = r * cos(f);
		g[i + 1] = r * sin(f);
	}
}

int tide_turb_grid(const tide_turbulence *t, int n, float *v[3])
{
	if (n < 4 || (n & (n - 1))) return -1;
	size_t N = (size_t)n, cells = N * N * N;
	double *a[3];
	for (int c = 0; c < 3; c++) {
		a[c] = calloc(2 * cells, sizeof(double));
		if (!a[c]) {
			for (int d = 0; d < c; d++) free(a[d]);
			return -1;
		}
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			for (int k = 0; k < n; k++) {
				int kv[3] = {i < n / 2 ? i : i - n, j < n / 2 ? j : j - n, k < n / 2 ? k : k - n};
				double k2 = (double)kv[0] * kv[0] + (double)kv[1] * kv[1] + (double)kv[2] * kv[2];
				double kk = sqrt(k2);
				if (kk < 1.0 || kk >= n / 2) continue; /* no mean flow, nothing at Nyquist */
				double g[6], amp = pow(kk, 0.5 * t->slope) / sqrt(2.0);
				mode_normals(t->seed, kv[0], kv[1], kv[2], g);
				/* projection: zeta (I - kk/k^2) + (1 - zeta) kk/k^2 on the real and imaginary
				 * parts alike (the projector is real and even in k: the real part of the
				 * inverse transform keeps it) */
				double dr = 0, di = 0;
				for (int c = 0; c < 3; c++) {
					dr += kv[c] * g[c];
					di += kv[c] * g[3 + c];
				}
				size_t at = 2 * (((size_t)i * N + j) * N + k);
				for (int c = 0; c < 3; c++) {
					double par_r = kv[c] * dr / k2, par_i = kv[c] * di / k2;
					a[c][at] = amp * (t->solenoidal * (g[c] - par_r) + (1 - t->solenoidal) * par_r);
					a[c][at + 1] = amp * (t->solenoidal * (g[3 + c] - par_i) +
					                      (1 - t->solenoidal) * par_i);
				}
			}
	for (int c = 0; c < 3; c++) {
		tide_fft3(a[c], n, +1);
		for (size_t q = 0; q < cells; q++) v[c][q] = (float)a[c][2 * q];
		free(a[c]);
	}
	return 0;
}

/* Trilinear value of the periodic grid g (n^3 over the unit box) at s in [0, 1)^3 units. */
static double trilinear(const float *g, int n, const double s[3])
{
	int i0[3];
	double f[3];
	for (int d = 0; d < 3; d++) {
		double u = s[d] * n;
		double fl = floor(u);
		f[d] = u - fl;
		i0[d] = ((int)fl % n + n) % n;
	}
	double sum = 0;
	for (int c = 0; c < 8; c++) {
		double w = 1;
		size_t idx = 0;
		for (int d = 0; d < 3; d++) {
			int up = (c >> d) & 1;
			w *= up ? f[d] : 1 - f[d];
			idx = idx * (size_t)n + (size_t)((i0[d] + up) % n);
		}
		sum += w * g[idx];
	}
	return sum;
}

int tide_turb_apply(const tide_turbulence *t, double cs, size_t np, const double *x,
                    const double *y, const double *z, float *vel[3], float *vhalf[3])
{
	if (!np) return 0;
	int n = t->grid;
	size_t cells = (size_t)n * n * n;
	float *g[3] = {malloc(cells * sizeof(float)), malloc(cells * sizeof(float)),
	               malloc(cells * sizeof(float))};
	double *dv = malloc(3 * np * sizeof(double));
	int bad = !g[0] || !g[1] || !g[2] || !dv || tide_turb_grid(t, n, g);
	if (!bad) {
		/* the cube around the particles' bounding box, a cell wider than it so that the
		 * box's opposite faces are not one point of the periodic field */
		double lo[3] = {x[0], y[0], z[0]}, hi[3] = {x[0], y[0], z[0]};
		const double *p[3] = {x, y, z};
		for (size_t i = 0; i < np; i++)
			for (int d = 0; d < 3; d++) {
				lo[d] = fmin(lo[d], p[d][i]);
				hi[d] = fmax(hi[d], p[d][i]);
			}
		double L = fmax(fmax(hi[0] - lo[0], hi[1] - lo[1]), hi[2] - lo[2]);
		L = L > 0 ? L * (1.0 + 1.0 / n) : 1.0;
		double mean[3] = {0, 0, 0}, v2 = 0;
		for (size_t i = 0; i < np; i++) {
			double s[3];
			for (int d = 0; d < 3; d++) s[d] = (p[d][i] - lo[d]) / L;
			for (int c = 0; c < 3; c++) {
				dv[3 * i + c] = trilinear(g[c], n, s);
				mean[c] += dv[3 * i + c];
			}
		}
		for (int c = 0; c < 3; c++) mean[c] /= (double)np;
		for (size_t i = 0; i < np; i++)
			for (int c = 0; c < 3; c++) {
				dv[3 * i + c] -= mean[c];
				v2 += dv[3 * i + c] * dv[3 * i + c];
			}
		double scale = v2 > 0 ? t->mach * cs / sqrt(v2 / (double)np) : 0;
		for (size_t i = 0; i < np; i++)
			for (int c = 0; c < 3; c++) {
				vel[c][i] += (float)(scale * dv[3 * i + c]);
				if (vhalf) vhalf[c][i] = vel[c][i];
			}
	}
	for (int c = 0; c < 3; c++) free(g[c]);
	free(dv);
	return bad ? -1 : 0;
}
