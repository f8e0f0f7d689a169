// SPDX-License-Identifier: LGPL-2.1-or-later
// Gravity initial conditions: Plummer sphere (equilibrium), uniform cube, cold uniform ball.
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bh_ic.h"

static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}
static double urand(uint64_t *s) { return ((next(s) >> 11) + 0.5) / 9007199254740992.0; }

/* Uniform direction times r. */
static void on_sphere(uint64_t *s, double r, double out[3])
{
	double z = 2 * urand(s) - 1, ph = 2 * M_PI * urand(s), q = sqrt(1 - z * z);
	out[0] = r * q * cos(ph); out[1] = r * q * sin(ph); out[2] = r * z;
}

int bh_dist_parse(const char *name, enum bh_dist *d)
{
	if (!strcmp(name, "plummer")) *d = BH_DIST_PLUMMER;
	else if (!strcmp(name, "uniform")) *d = BH_DIST_UNIFORM;
	else if (!strcmp(name, "sphere")) *d = BH_DIST_SPHERE;
	else return -1;
	return 0;
}

const char *bh_dist_name(enum bh_dist d)
{
	return d == BH_DIST_PLUMMER ? "plummer" : d == BH_DIST_UNIFORM ? "uniform" : "sphere";
}

double bh_plummer_rhalf(void) { return 1.0 / sqrt(pow(2.0, 2.0 / 3.0) - 1.0); }
double bh_sphere_tff(void) { return sqrt(3 * M_PI / (32 * (1.0 / (4.0 / 3.0 * M_PI)))); }

int bh_ic_make(enum bh_dist d, uint32_t n, uint64_t seed, bh_body *body, float *vel)
{
	uint64_t s = seed * 0x2545f4914f6cdd1dull + 12345;
	double cm[6] = {0, 0, 0, 0, 0, 0}, m = n ? 1.0 / n : 0;
	double *pv = malloc(sizeof(double) * 6 * (n ? n : 1));
	if (!pv) return -1;
	for (uint32_t i = 0; i < n; i++) {
		double x[3], v[3] = {0, 0, 0};
		if (d == BH_DIST_PLUMMER) {
			double X;
			do X = urand(&s); while (X > 0.999);
			double r = 1.0 / sqrt(pow(X, -2.0 / 3.0) - 1.0);
			on_sphere(&s, r, x);
			/* q = v/v_esc from g(q) = q² (1-q²)^3.5 by rejection (max 0.1) */
			double q, y;
			do { q = urand(&s); y = 0.1 * urand(&s); } while (y > q * q * pow(1 - q * q, 3.5));
			on_sphere(&s, q * sqrt(2.0) * pow(1 + r * r, -0.25), v);
		} else if (d == BH_DIST_UNIFORM) {
			for (int k = 0; k < 3; k++) x[k] = 2 * urand(&s) - 1;
		} else {
			do for (int k = 0; k < 3; k++) x[k] = 2 * urand(&s) - 1;
			while (x[0] * x[0] + x[1] * x[1] + x[2] * x[2] > 1);
		}
		for (int k = 0; k < 3; k++) { pv[6 * i + k] = x[k]; pv[6 * i + 3 + k] = v[k]; }
		for (int k = 0; k < 3; k++) { cm[k] += m * x[k]; cm[3 + k] += m * v[k]; }
	}
	for (uint32_t i = 0; i < n; i++) {
		body[i].x = (float)(pv[6 * i + 0] - cm[0]);
		body[i].y = (float)(pv[6 * i + 1] - cm[1]);
		body[i].z = (float)(pv[6 * i + 2] - cm[2]);
		body[i].m = (float)m;
		for (int k = 0; k < 3; k++) vel[4 * i + k] = (float)(pv[6 * i + 3 + k] - cm[3 + k]);
		vel[4 * i + 3] = 0.f;
	}
	free(pv);
	return 0;
}

static int cmp_pair(const void *a, const void *b)
{
	double x = ((const double *)a)[0], y = ((const double *)b)[0];
	return (x > y) - (x < y);
}

void bh_lagrange_radii(const bh_body *body, uint32_t n, const double *fr, int nf, double *r)
{
	double c[3] = {0, 0, 0}, mt = 0;
	for (uint32_t i = 0; i < n; i++) {
		c[0] += (double)body[i].m * body[i].x; c[1] += (double)body[i].m * body[i].y;
		c[2] += (double)body[i].m * body[i].z; mt += body[i].m;
	}
	for (int k = 0; k < 3 && mt > 0; k++) c[k] /= mt;
	double *rm = malloc(sizeof(double) * 2 * (n ? n : 1));
	if (!rm) { /* no memory for the sorted copy: the radii are unknown, not wrong */
		for (int f = 0; f < nf; f++) r[f] = NAN;
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		double dx = body[i].x - c[0], dy = body[i].y - c[1], dz = body[i].z - c[2];
		rm[2 * i] = sqrt(dx * dx + dy * dy + dz * dz);
		rm[2 * i + 1] = body[i].m;
	}
	qsort(rm, n, 2 * sizeof(double), cmp_pair);
	for (int f = 0; f < nf; f++) {
		double acc = 0;
		r[f] = 0;
		for (uint32_t i = 0; i < n; i++) {
			acc += rm[2 * i + 1];
			if (acc >= fr[f] * mt) { r[f] = rm[2 * i]; break; }
		}
	}
	free(rm);
}
