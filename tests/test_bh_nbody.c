// SPDX-License-Identifier: LGPL-2.1-or-later
// N-body physics on the Barnes–Hut forces (CPU): a Plummer sphere stays in equilibrium (10, 50
// and 90 % Lagrangian radii within a few percent over four half-mass crossing times, energy drift
// bounded, momentum conserved), and a cold uniform ball collapses at the free-fall time
// sqrt(3 pi / (32 G rho)) within 5 % (time of the smallest half-mass radius).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <starpu.h>
#include "bh_nbody.h"

static int failures;
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static void plummer(const char *dir)
{
	char csv[4096];
	snprintf(csv, sizeof csv, "%s/bh_nbody_plummer.csv", dir);
	bh_nbody_opts o = {.dist = BH_DIST_PLUMMER, .n = 3000, .seed = 5, .dt = 0.025, .t_end = 10,
	                   .out_every = 40, .P = {.theta = 0.7f, .eps = 0.05f, .G = 1.f, .quadrupole = 1},
	                   .where = TIDE_WHERE_CPU, .csv = csv};
	bh_nbody_diag d[64];
	int nd = 0;
	EXPECT(bh_nbody_run(&o, d, 64, &nd) == 0 && nd >= 2, "plummer run failed");
	if (nd < 2) return;
	/* half-mass crossing time r50 / sigma, sigma² = 2 E_kin / M */
	double tcr = d[0].r50 / sqrt(2 * d[0].ekin);
	double w10 = 0, w50 = 0, w90 = 0, wE = 0, wp = 0;
	for (int k = 0; k < nd; k++) {
		w10 = fmax(w10, fabs(d[k].r10 / d[0].r10 - 1));
		w50 = fmax(w50, fabs(d[k].r50 / d[0].r50 - 1));
		w90 = fmax(w90, fabs(d[k].r90 / d[0].r90 - 1));
		wE = fmax(wE, fabs(d[k].etot / d[0].etot - 1));
		wp = fmax(wp, sqrt(d[k].p[0] * d[k].p[0] + d[k].p[1] * d[k].p[1] + d[k].p[2] * d[k].p[2]));
	}
	printf("plummer N %u, t_end %.1f = %.1f crossing times: largest change of r10 %.1f%%, "
	       "r50 %.1f%%, r90 %.1f%%; |dE/E| %.1e, |p| %.1e\n", o.n, o.t_end, o.t_end / tcr,
	       100 * w10, 100 * w50, 100 * w90, wE, wp);
	EXPECT(o.t_end / tcr > 3, "run shorter than 3 crossing times (%.2f)", o.t_end / tcr);
	EXPECT(w10 < 0.08 && w50 < 0.05 && w90 < 0.08, "Lagrangian radii drift: %.3f %.3f %.3f", w10, w50, w90);
	EXPECT(wE < 1e-3, "energy drift %.2e", wE);
	EXPECT(wp < 1e-4, "momentum %.2e", wp);
}

static void collapse(const char *dir)
{
	char csv[4096];
	snprintf(csv, sizeof csv, "%s/bh_nbody_collapse.csv", dir);
	bh_nbody_opts o = {.dist = BH_DIST_SPHERE, .n = 3000, .seed = 9, .dt = 0.004, .t_end = 1.4,
	                   .out_every = 2, .P = {.theta = 0.7f, .eps = 0.01f, .G = 1.f, .quadrupole = 1},
	                   .where = TIDE_WHERE_CPU, .csv = csv};
	bh_nbody_diag d[256];
	int nd = 0;
	EXPECT(bh_nbody_run(&o, d, 256, &nd) == 0 && nd >= 2, "collapse run failed");
	int kmin = 0;
	for (int k = 1; k < nd; k++) if (d[k].r50 < d[kmin].r50) kmin = k;
	double tff = bh_sphere_tff(), t = d[kmin].t;
	printf("cold collapse N %u: smallest half-mass radius %.4f at t = %.4f, t_ff = %.4f (%.1f%%)\n",
	       o.n, d[kmin].r50, t, tff, 100 * (t / tff - 1));
	EXPECT(fabs(t / tff - 1) < 0.05, "collapse at %.4f, free-fall time %.4f", t, tff);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 2 ? argv[2] : ".";
	if (starpu_init(NULL) != 0) { fprintf(stderr, "StarPU init failed\n"); return 77; }
	plummer(dir);
	collapse(dir);
	starpu_shutdown();
	if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
	printf("bh_nbody: all cases pass\n");
	return 0;
}
