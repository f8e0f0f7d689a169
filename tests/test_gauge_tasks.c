// SPDX-License-Identifier: LGPL-2.1-or-later
// The gauge codelets (tasks/gauge_tasks.c, CPU workers) against a brute-force O(N^2) evaluation
// on the host, written here from the definitions: for every sample of every height line, every
// pressure/velocity point, the front and the fluid force on every obstacle, on a dam break that
// has run a few steps against an obstacle, on 1, 2 and 4 blocks (slabs, and a 2 x 2 grid of
// boxes whose halos meet at corners), 2-D and 3-D.  Before any step the particles are the same
// whatever the blocks: there the measurements of every block count must agree.
// With --cuda (meson: gauge_tasks_cuda): the CUDA half against the CPU half on the same state;
// exits 77 (skipped) without a CUDA worker.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "tide/codelet_decl.h"
#include "tide/codelets.h"
#include "tide/gauge_tasks.h"
#include "output.h"
#include "runtime.h"
#include "tide/sph_interact.h"
#include "test_case_block.h"
#include "test_cuda_mode.h"
#include "test_util.h"

static const char *case2d =
	"dim: 2\ndp: 0.02\ntank: {lo: [0, 0], hi: [1.2, 0.6], open_top: true, layers: 3}\n"
	"fluid:\n  - {lo: [0, 0], hi: [0.4, 0.4]}\n  - {lo: [0.4, 0], hi: [1.2, 0.1]}\n"
	"obstacles:\n  - {lo: [0.6, 0], hi: [0.7, 0.16]}\n  - {lo: [0.9, 0.04], hi: [1.0, 0.08]}\n"
	"time: {end: 1, output: 0.1}\n"
	"gauges:\n  forces: true\n  surge_front: {a: 0.4}\n"
	"  height:\n    - {at: [0.2]}\n    - {at: [0.41], mode: highest}\n    - {at: [0.65]}\n"
	"  pressure:\n    - {at: [0.2, 0.1]}\n    - {at: [0.401, 0.05]}\n"
	"  velocity:\n    - {at: [0.399, 0.2]}\n    - {at: [1.1, 0.5]}\n";

static const char *case3d =
	"dim: 3\ndp: 0.04\ntank: {lo: [0, 0, 0], hi: [0.8, 0.32, 0.4], open_top: true, layers: 2}\n"
	"fluid:\n  - {lo: [0, 0, 0], hi: [0.32, 0.32, 0.28]}\n  - {lo: [0.32, 0, 0], hi: [0.8, 0.32, 0.08]}\n"
	"obstacles:\n  - {lo: [0.48, 0.12, 0], hi: [0.56, 0.2, 0.12]}\n"
	"time: {end: 1, output: 0.1}\n"
	"gauges:\n  forces: true\n  surge_front: {a: 0.32}\n"
	"  height:\n    - {at: [0.16, 0.16]}\n    - {at: [0.3, 0.1], mode: highest}\n"
	"  pressure:\n    - {at: [0.16, 0.16, 0.1]}\n"
	"  velocity:\n    - {at: [0.3, 0.2, 0.2]}\n";

/* ---- the brute-force reference ---- */

static void brute(const tide_sph_params *P, const tide_gauge_arg *G, const tide_particle_set *s,
                  double *out)
{
	size_t len = tide_gauge_len(G);
	memset(out, 0, sizeof *out * len);
	double h = P->h, aw = P->aw, r2max = 4.0 * h * h;
	int npos = G->nline * G->nz + G->npoint;
	for (int q = 0; q < npos; q++) {
		double r[3];
		int line = q < G->nline * G->nz;
		if (line) tide_gauge_sample_pos(G, q / G->nz, q % G->nz, r);
		else memcpy(r, G->point[q - G->nline * G->nz], sizeof r);
		double vf = 0, vb = 0, pv = 0, vv[3] = {0, 0, 0}, n = 0;
		for (size_t j = 0; j < s->n; j++) {
			double dx = r[0] - s->x[j], dy = G->dim == 3 ? r[1] - s->y[j] : 0.0;
			double dz = r[2] - s->z[j], r2 = dx * dx + dy * dy + dz * dz;
			if (r2 >= r2max) continue;
			double w = aw * (double)tide_kernel_w(P->kernel, (float)(sqrt(r2) / h));
			double vw = (double)P->mass[s->type[j]] / (double)s->rho[j] * w;
			if (s->type[j] != TIDE_FLUID) { vb += vw; continue; }
			vf += vw;
			/* Tait in double: B ((rho/rho0)^gamma - 1) */
			pv += (double)P->tait_b * (pow((double)s->rho[j] / P->rho0, P->gamma) - 1.0) * vw;
			vv[0] += s->vx[j] * vw; vv[1] += s->vy[j] * vw; vv[2] += s->vz[j] * vw;
			n += 1;
		}
		if (line) {
			size_t at = tide_gauge_sample_at(G, q / G->nz, q % G->nz);
			out[at] = vf;
			out[at + 1] = vb;
		} else {
			double *o = out + tide_gauge_point_at(G, q - G->nline * G->nz);
			o[0] = vf; o[1] = pv; o[2] = vv[0]; o[3] = vv[1]; o[4] = vv[2]; o[5] = n;
		}
	}
	out[0] = TIDE_GAUGE_NONE;
	for (size_t i = 0; i < s->n; i++) {
		if (s->type[i] != TIDE_FLUID) continue;
		int n = 0;
		for (size_t j = 0; j < s->n; j++) {
			if (j == i || s->type[j] != TIDE_FLUID) continue;
			double dx = s->x[i] - s->x[j], dy = G->dim == 3 ? s->y[i] - s->y[j] : 0.0;
			double dz = s->z[i] - s->z[j];
			n += dx * dx + dy * dy + dz * dz < G->front_r * G->front_r;
		}
		if (n >= 2 && s->x[i] > out[0]) out[0] = s->x[i];
	}
	/* the fluid's force on an obstacle: minus the pair force its particles exert on the fluid
	 * (tide_pair with the fluid particle as i), times the fluid particle's mass */
	for (size_t b = 0; b < s->n; b++) {
		if (s->type[b] != TIDE_BOUND) continue;
		int m = -1;
		for (int k = 0; k < G->nobst && m < 0; k++) {
			int in = 1;
			for (int a = 0; a < 3; a++) {
				double p = a == 0 ? s->x[b] : a == 1 ? s->y[b] : s->z[b];
				if (G->dim == 2 && a == 1) continue;
				in = in && p > G->obst_lo[k][a] + 1e-9 && p < G->obst_hi[k][a] - 1e-9;
			}
			if (in) m = k;
		}
		if (m < 0) continue;
		for (size_t f = 0; f < s->n; f++) {
			if (s->type[f] != TIDE_FLUID) continue;
			float dx = (float)(s->x[f] - s->x[b]), dz = (float)(s->z[f] - s->z[b]);
			float dy = G->dim == 3 ? (float)(s->y[f] - s->y[b]) : 0.f;
			float r2 = dx * dx + dy * dy + dz * dz;
			if (r2 >= P->h2x4) continue;
			tide_pi pi = {0, 0, 0, s->vx[f], s->vy[f], s->vz[f], s->rho[f],
			              tide_p_over_rho2(P, s->rho[f]), tide_sound(P, s->rho[f]), 1};
			tide_acc a = {0, 0, 0, 0, 0};
			tide_pair(P, &pi, dx, dy, dz, r2, s->vx[b], s->vy[b], s->vz[b], s->rho[b], TIDE_BOUND,
			          tide_p_over_rho2(P, s->rho[b]), tide_sound(P, s->rho[b]), &a);
			double *o = out + tide_gauge_obst_at(G, m);
			o[0] -= P->mass[TIDE_FLUID] * (double)a.ax;
			o[1] -= P->mass[TIDE_FLUID] * (double)a.ay;
			o[2] -= P->mass[TIDE_FLUID] * (double)a.az;
		}
	}
}

/* Largest |a - b| over the result, relative to the largest |b| of its part (fractions, point
 * sums, forces), the front exactly. */
static double compare(const tide_gauge_arg *G, const double *a, const double *b, const char *what,
                      double tol)
{
	size_t parts[4] = {1, tide_gauge_point_at(G, 0), tide_gauge_obst_at(G, 0), tide_gauge_len(G)};
	double worst = 0;
	CHECK(a[0] == b[0], "%s: front %.17g, reference %.17g", what, a[0], b[0]);
	for (int p = 0; p < 3; p++) {
		double scale = 1e-30;
		for (size_t e = parts[p]; e < parts[p + 1]; e++) scale = fmax(scale, fabs(b[e]));
		for (size_t e = parts[p]; e < parts[p + 1]; e++) {
			double d = fabs(a[e] - b[e]) / scale;
			if (d > worst) worst = d;
			if (d > tol) {
				CHECK(0, "%s: element %zu (part %d) %.17g, reference %.17g", what, e, p, a[e], b[e]);
				return worst;
			}
		}
	}
	return worst;
}

/* Some fluid near every gauge (the test must not pass on zeros). */
static void nonzero(const tide_gauge_arg *G, const double *r, const char *what)
{
	for (int l = 0; l < G->nline; l++) {
		double mx = 0;
		for (int k = 0; k < G->nz; k++)
			mx = fmax(mx, r[tide_gauge_sample_at(G, l, k)] + r[tide_gauge_sample_at(G, l, k) + 1]);
		CHECK(mx > 0.5, "%s: line %d has no water or wall (max fraction %g)", what, l, mx);
	}
	CHECK(r[tide_gauge_point_at(G, 0) + TIDE_GAUGE_PT_N] > 3, "%s: no fluid at point 0", what);
	for (int m = 0; m < G->nobst; m++)
		CHECK(fabs(r[tide_gauge_obst_at(G, m) + 2]) > 1e-3, "%s: no force on obstacle %d", what, m);
	CHECK(r[0] > 0, "%s: no front", what);
}

typedef struct run_case {
	tide_case c;
	void *mem;
	tide_block_view all;
	tide_gauge_arg G;
} run_case;

static int load(run_case *rc, const char *text, const char *name)
{
	const char *path = tmp_path(name);
	FILE *f = fopen(path, "w");
	if (!f) return -1;
	fputs(text, f);
	fclose(f);
	if (test_case_block(path, 0, &rc->c, &rc->mem, &rc->all, NULL)) return -1;
	return tide_gauge_arg_of_case(&rc->c, &rc->G);
}

/* nb blocks (decomp: NULL = the case's slabs): the measurement before any step (into first),
 * then after `steps` steps against the brute force. */
static void check_blocks(run_case *rc, int nb, const char *decomp, int steps, double *first)
{
	tide_case c = rc->c;
	if (decomp) snprintf(c.decomp, sizeof c.decomp, "%s", decomp);
	char what[96];
	snprintf(what, sizeof what, "%d-D, %d blocks%s%s", c.dim, nb, decomp ? " " : "",
	         decomp ? decomp : "");
	tide_sim sim;
	if (tide_sim_setup(&sim, &c, &rc->all, nb, tide_runtime_uses_mpi())) { CHECK(0, "%s: setup failed", what); return; }
	tide_gauge_tasks t;
	CHECK(tide_gauge_tasks_init(&t, &rc->G) == 0, "init");
	size_t len = tide_gauge_len(&rc->G);
	const double *r = tide_gauge_tasks_measure(&t, &sim);
	double *ref = malloc(sizeof *ref * len);
	if (first[0] == 0) memcpy(first, r, sizeof *first * len);
	else {
		double d = compare(&rc->G, r, first, what, 1e-12);
		printf("  %s at t = 0: = the first block count's within %.2g\n", what, d);
	}
	for (int k = 0; k < steps; k++) CHECK(tide_sim_step(&sim) == 0, "%s: step %d", what, k);
	r = tide_gauge_tasks_measure(&t, &sim);
	void *mem = NULL;
	tide_block_view v;
	CHECK(tide_sim_gather(&sim, 0, &mem, &v) == 0, "gather");
	tide_particle_set s;
	tide_set_view_of_block(&v, &s);
	tide_sim_params(&c, &sim.P);
	brute(&sim.P, &rc->G, &s, ref);
	nonzero(&rc->G, ref, what);
	double d = compare(&rc->G, r, ref, what, 1e-9);
	printf("  %s after %d steps (t = %.4g s, %u particles): codelets = brute force within %.2g\n",
	       what, steps, sim.t, v.count, d);
	free(mem);
	free(ref);
	tide_gauge_tasks_free(&t);
	tide_sim_free(&sim);
}

/* CUDA half against CPU half, nb blocks, after some steps. */
static void check_cuda(run_case *rc, int steps)
{
	tide_sim sim;
	if (tide_sim_setup(&sim, &rc->c, &rc->all, 2, tide_runtime_uses_mpi())) { CHECK(0, "setup failed"); return; }
	for (int k = 0; k < steps; k++) CHECK(tide_sim_step(&sim) == 0, "step %d", k);
	size_t len = tide_gauge_len(&rc->G);
	double *cpu = malloc(sizeof *cpu * len);
	tide_gauge_tasks t;
	CHECK(tide_gauge_tasks_init(&t, &rc->G) == 0, "init");
	tide_codelet_restrict(&tide_gauge_sample_cl, TIDE_WHERE_CPU);
	memcpy(cpu, tide_gauge_tasks_measure(&t, &sim), sizeof *cpu * len);
	tide_codelet_restrict(&tide_gauge_sample_cl, TIDE_WHERE_CUDA);
	const double *gpu = tide_gauge_tasks_measure(&t, &sim);
	nonzero(&rc->G, cpu, "CPU");
	/* the GPU's pair physics uses its fast division and square root (sph_interact.h) */
	double d = compare(&rc->G, gpu, cpu, "CUDA vs CPU", 1e-5);
	printf("  %d-D: CUDA = CPU within %.2g\n", rc->c.dim, d);
	tide_codelet_restrict(&tide_gauge_sample_cl, TIDE_WHERE_ANY);
	free(cpu);
	tide_gauge_tasks_free(&t);
	tide_sim_free(&sim);
}

int main(int argc, char **argv)
{
	int cuda = test_cuda_requested(argc, argv);
	if (test_tmpdir_create("gauge_tasks")) return 1;
	run_case r2, r3;
	if (load(&r2, case2d, "c2.yaml") || load(&r3, case3d, "c3.yaml")) return 1;
	if (starpu_init(NULL) != 0) { fprintf(stderr, "StarPU init failed\n"); return 77; }
	printf("gauge tasks: %u CPU + %u CUDA workers\n", starpu_cpu_worker_get_count(),
	       starpu_cuda_worker_get_count());
	if (cuda) {
		if (test_cuda_missing("gauge_tasks_cuda")) {
			starpu_shutdown();
			nftw(tmpdir, test_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
			return TEST_SKIP;
		}
		check_cuda(&r2, 20);
		check_cuda(&r3, 10);
	} else {
		double *f2 = calloc(tide_gauge_len(&r2.G), sizeof *f2);
		double *f3 = calloc(tide_gauge_len(&r3.G), sizeof *f3);
		check_blocks(&r2, 1, NULL, 30, f2);
		check_blocks(&r2, 2, NULL, 30, f2);
		check_blocks(&r2, 4, "2x1x2", 30, f2);
		check_blocks(&r3, 1, NULL, 10, f3);
		check_blocks(&r3, 4, "2x2x1", 10, f3);
		free(f2);
		free(f3);
	}
	starpu_shutdown();
	return test_finish("gauge_tasks");
}
