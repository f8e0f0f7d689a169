// SPDX-License-Identifier: LGPL-2.1-or-later
// Turbulent initial velocities (src/turbulence.h): the FFT against a direct transform, the
// measured power-spectrum slope of the grid field against the requested one, a purely solenoidal
// field divergence-free and a purely compressive one curl-free (spectrally), the natural mix's
// compressive share of 1/3, the particles' rms Mach number as requested, the seed (same seed,
// same field; another seed, another), and the particles' velocities independent of their order
// (every rank builds the whole set and applies the field to it: order is all that could differ).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test_util.h"
#include "turbulence.h"

static tide_turbulence turb(double slope, double zeta, int seed)
{
	return (tide_turbulence){.on = 1, .mach = 1, .slope = slope, .solenoidal = zeta, .seed = seed,
	                         .grid = 32};
}

/* The 3-D FFT of a small grid against the direct sum, and forward + inverse = n^3 identity. */
static void check_fft(void)
{
	int n = 4;
	size_t N = 64;
	double a[128], b[128];
	for (size_t q = 0; q < 2 * N; q++) a[q] = b[q] = sin(1.7 * q + 0.3) + 0.1 * q;
	tide_fft3(a, n, -1);
	double err = 0;
	for (int ki = 0; ki < n; ki++)
		for (int kj = 0; kj < n; kj++)
			for (int kk = 0; kk < n; kk++) {
				double re = 0, im = 0;
				for (int i = 0; i < n; i++)
					for (int j = 0; j < n; j++)
						for (int k = 0; k < n; k++) {
							double f = -2 * M_PI * (ki * i + kj * j + kk * k) / n;
							size_t q = 2 * ((size_t)(i * n + j) * n + k);
							re += b[q] * cos(f) - b[q + 1] * sin(f);
							im += b[q] * sin(f) + b[q + 1] * cos(f);
						}
				size_t q = 2 * ((size_t)(ki * n + kj) * n + kk);
				err = fmax(err, fmax(fabs(a[q] - re), fabs(a[q + 1] - im)));
			}
	CHECK(err < 1e-10, "FFT against the direct sum: largest error %g", err);
	tide_fft3(a, n, +1);
	err = 0;
	for (size_t q = 0; q < 2 * N; q++) err = fmax(err, fabs(a[q] / N - b[q]));
	CHECK(err < 1e-12, "forward + inverse FFT: largest error %g", err);
}

/* The field's transform: three complex grids. */
static void spectrum(const tide_turbulence *t, int n, double *f[3])
{
	size_t cells = (size_t)n * n * n;
	float *v[3];
	for (int c = 0; c < 3; c++) v[c] = malloc(cells * sizeof(float));
	CHECK(tide_turb_grid(t, n, v) == 0, "tide_turb_grid failed");
	for (int c = 0; c < 3; c++) {
		f[c] = calloc(2 * cells, sizeof(double));
		for (size_t q = 0; q < cells; q++) f[c][2 * q] = v[c][q];
		tide_fft3(f[c], n, -1);
		free(v[c]);
	}
}

static int wave(int i, int n) { return i < n / 2 ? i : i - n; }

/* Fitted slope of the shell-averaged power per mode against the shell's mean log k over the
 * shells 2 <= k <= n/2 - 2; the divergence and
 * curl shares sum |k.v|^2 / sum k^2 |v|^2 and sum |k x v|^2 / sum k^2 |v|^2. */
static void measure(const tide_turbulence *t, int n, double *slope, double *div, double *curl)
{
	double *f[3], sp[256] = {0}, cnt[256] = {0}, lk[256] = {0}, d2 = 0, c2 = 0, all = 0;
	spectrum(t, n, f);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			for (int k = 0; k < n; k++) {
				double kv[3] = {wave(i, n), wave(j, n), wave(k, n)};
				double kk = sqrt(kv[0] * kv[0] + kv[1] * kv[1] + kv[2] * kv[2]);
				size_t q = 2 * (((size_t)i * n + j) * n + k);
				double p = 0;
				for (int part = 0; part < 2; part++) {
					double v[3] = {f[0][q + part], f[1][q + part], f[2][q + part]};
					double dot = kv[0] * v[0] + kv[1] * v[1] + kv[2] * v[2];
					double cx = kv[1] * v[2] - kv[2] * v[1], cy = kv[2] * v[0] - kv[0] * v[2],
					       cz = kv[0] * v[1] - kv[1] * v[0];
					d2 += dot * dot;
					c2 += cx * cx + cy * cy + cz * cz;
					all += kk * kk * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
					p += v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
				}
				int shell = (int)lround(kk);
				sp[shell] += p;
				lk[shell] += kk > 0 ? log(kk) : 0;
				cnt[shell] += 1;
			}
	double sx = 0, sy = 0, sxx = 0, sxy = 0, m = 0;
	for (int s = 2; s <= n / 2 - 2; s++) { /* shells inside the sphere of modes k < n/2 */
		double x = lk[s] / cnt[s], y = log(sp[s] / cnt[s]);
		sx += x; sy += y; sxx += x * x; sxy += x * y; m++;
	}
	*slope = (m * sxy - sx * sy) / (m * sxx - sx * sx);
	*div = d2 / all;
	*curl = c2 / all;
	for (int c = 0; c < 3; c++) free(f[c]);
}

static void check_field(void)
{
	int n = 64;
	double slope, div, curl;
	tide_turbulence t = turb(-4, 0.5, 7);
	measure(&t, n, &slope, &div, &curl);
	printf("slope -4, zeta 0.5: measured slope %.3f, compressive share %.3f, solenoidal %.3f\n",
	       slope, div, curl);
	CHECK(fabs(slope + 4) < 0.1, "slope %g for the requested -4", slope);
	CHECK(fabs(div - 1.0 / 3.0) < 0.03, "natural mix: compressive share %g, expected 1/3", div);
	t = turb(-2, 1.0, 8);
	measure(&t, n, &slope, &div, &curl);
	printf("slope -2, zeta 1: measured slope %.3f, divergence share %.3g\n", slope, div);
	CHECK(fabs(slope + 2) < 0.1, "slope %g for the requested -2", slope);
	CHECK(div < 1e-10, "solenoidal field: divergence share %g", div);
	t = turb(-4, 0.0, 9);
	measure(&t, n, &slope, &div, &curl);
	printf("slope -4, zeta 0: measured slope %.3f, curl share %.3g\n", slope, curl);
	CHECK(fabs(slope + 4) < 0.1, "compressive: slope %g for the requested -4", slope);
	CHECK(curl < 1e-10, "compressive field: curl share %g", curl);
}

/* Particles on a lattice inside a ball of radius R. */
static size_t ball(double R, double a, double **p)
{
	size_t np = 0;
	int m = (int)(R / a);
	for (int pass = 0; pass < 2; pass++) {
		if (pass) for (int d = 0; d < 3; d++) p[d] = malloc(np * sizeof(double));
		np = 0;
		for (int i = -m; i <= m; i++)
			for (int j = -m; j <= m; j++)
				for (int k = -m; k <= m; k++) {
					if ((i * i + j * j + k * k) * a * a > R * R) continue;
					if (pass) { p[0][np] = 3 + i * a; p[1][np] = -1 + j * a; p[2][np] = k * a; }
					np++;
				}
	}
	return np;
}

static void check_particles(void)
{
	double *p[3];
	size_t np = ball(1.0, 0.08, p);
	float *v[3], *vh[3], *w[3];
	for (int c = 0; c < 3; c++) {
		v[c] = calloc(np, sizeof(float));
		vh[c] = calloc(np, sizeof(float));
		w[c] = calloc(np, sizeof(float));
	}
	tide_turbulence t = turb(-4, 0.5, 3);
	t.mach = 2.0;
	double cs = 0.5;
	CHECK(tide_turb_apply(&t, cs, np, p[0], p[1], p[2], v, vh) == 0, "apply failed");
	double v2 = 0, mean[3] = {0, 0, 0}, half = 0;
	for (size_t i = 0; i < np; i++)
		for (int c = 0; c < 3; c++) {
			v2 += (double)v[c][i] * v[c][i];
			mean[c] += v[c][i];
			half = fmax(half, fabs(vh[c][i] - v[c][i]));
		}
	double mach = sqrt(v2 / np) / cs, mv = sqrt(mean[0] * mean[0] + mean[1] * mean[1] + mean[2] * mean[2]) / np;
	printf("%zu particles: rms Mach %.7f (requested 2), |mean velocity| %.2g\n", np, mach, mv);
	CHECK(fabs(mach - 2.0) < 1e-5, "rms Mach %g, requested 2", mach);
	CHECK(mv < 1e-6, "mean velocity %g, expected 0", mv);
	CHECK(half == 0, "half-step velocities differ from the velocities by %g", half);

	/* the same seed again, the particles in reverse order (as another decomposition would
	 * hold them): the same velocity for each particle */
	double *r[3];
	for (int d = 0; d < 3; d++) {
		r[d] = malloc(np * sizeof(double));
		for (size_t i = 0; i < np; i++) r[d][i] = p[d][np - 1 - i];
	}
	CHECK(tide_turb_apply(&t, cs, np, r[0], r[1], r[2], w, NULL) == 0, "apply failed");
	double diff = 0;
	for (size_t i = 0; i < np; i++)
		for (int c = 0; c < 3; c++) diff = fmax(diff, fabs(w[c][np - 1 - i] - v[c][i]));
	printf("same seed, particles reversed: largest difference %.3g\n", diff);
	CHECK(diff < 1e-5, "same seed, reordered particles: velocities differ by %g", diff);

	/* another seed: another field (correlation with the first near zero) */
	t.seed = 4;
	for (int c = 0; c < 3; c++) memset(w[c], 0, np * sizeof(float));
	CHECK(tide_turb_apply(&t, cs, np, p[0], p[1], p[2], w, NULL) == 0, "apply failed");
	double dot = 0, ww = 0;
	for (size_t i = 0; i < np; i++)
		for (int c = 0; c < 3; c++) {
			dot += (double)v[c][i] * w[c][i];
			ww += (double)w[c][i] * w[c][i];
		}
	double corr = dot / sqrt(v2 * ww);
	printf("seed 3 against seed 4: correlation %.3f\n", corr);
	CHECK(fabs(corr) < 0.5, "seeds 3 and 4 give correlated fields (%g)", corr);
	for (int c = 0; c < 3; c++) {
		free(v[c]); free(vh[c]); free(w[c]); free(p[c]); free(r[c]);
	}
}

int main(void)
{
	check_fft();
	check_field();
	check_particles();
	if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
