// SPDX-License-Identifier: LGPL-2.1-or-later
// Barnes–Hut forces against a double-precision direct sum: Plummer and uniform distributions
// (99th percentile of |a_tree - a_direct|/|a_direct| at most 1e-3 at theta = 0.5 with monopoles,
// smaller with quadrupoles, decreasing with theta), degenerate inputs (no particle, one
// particle, coincident particles, all particles on a line).  With --cuda (the test bh_cuda) only
// the CUDA codelets against the CPU ones on the same input; without a CUDA worker that test exits
// 77 (SKIP).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "tide/bh_gravity.h"
#include "bh_ic.h"
#include "test_cuda_mode.h"

static int failures;
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

typedef struct run {
	bh_body *body; /* sorted after the run */
	bh_acc *acc;
	uint32_t *id;  /* input index of each sorted particle */
	int32_t ncells, ngroups;
} run;

/* One force evaluation of a copy of the input on the given workers. */
static run evaluate_parts(const bh_body *in, uint32_t n, bh_params P, enum tide_where where,
                          int nparts)
{
	uint32_t m = n ? n : 1;
	run r;
	r.body = malloc(sizeof(bh_body) * m);
	r.acc = calloc(m, sizeof(bh_acc));
	r.id = malloc(sizeof(uint32_t) * m);
	float *vel = calloc(4 * (size_t)m, sizeof(float));
	memcpy(r.body, in, sizeof(bh_body) * n);
	for (uint32_t i = 0; i < n; i++) vel[4 * i] = (float)i; /* to check the permutation */
	tide_gravity g;
	tide_gravity_init(&g, r.body, vel, r.acc, n, P, nparts, where);
	tide_gravity_submit_forces(&g);
	starpu_task_wait_for_all();
	tide_gravity_tree_size(&g, &r.ncells, &r.ngroups);
	tide_gravity_fini(&g);
	/* the bodies were permuted together with the velocities */
	int bad = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t o = (uint32_t)vel[4 * i];
		r.id[i] = o;
		if (o >= n || in[o].x != r.body[i].x || in[o].m != r.body[i].m) bad++;
	}
	EXPECT(!bad, "%d particles lost or changed by the sort", bad);
	free(vel);
	return r;
}

static run evaluate(const bh_body *in, uint32_t n, bh_params P, enum tide_where where)
{
	return evaluate_parts(in, n, P, where, 0);
}

static void free_run(run *r) { free(r->body); free(r->acc); free(r->id); }

static uint32_t *sample_of(uint32_t n, uint32_t ns)
{
	uint32_t *s = malloc(sizeof(uint32_t) * (ns ? ns : 1));
	for (uint32_t k = 0; k < ns; k++) s[k] = (uint32_t)(((uint64_t)k * n) / ns);
	return s;
}

static tide_gravity_err accuracy(const char *what, const bh_body *in, uint32_t n, float theta,
                                 int quad, uint32_t ns)
{
	bh_params P = {.theta = theta, .eps = 0.f, .G = 1.f, .quadrupole = quad};
	run r = evaluate(in, n, P, TIDE_WHERE_CPU);
	uint32_t *s = sample_of(n, ns);
	double *ref = malloc(sizeof(double) * 4 * ns);
	tide_gravity_direct(r.body, n, s, ns, P, ref, TIDE_WHERE_CPU);
	tide_gravity_err e = tide_gravity_errors(r.acc, s, ns, ref);
	printf("  %-8s N %6u theta %.2f %-10s: median %.2e  99%% %.2e  max %.2e  (pot 99%% %.2e)\n",
	       what, n, theta, quad ? "quadrupole" : "monopole", e.median, e.p99, e.max, e.pot_p99);
	free(s); free(ref); free_run(&r);
	return e;
}

static void accuracy_suite(enum bh_dist d, uint32_t n)
{
	bh_body *b = malloc(sizeof(bh_body) * n);
	float *v = malloc(16 * (size_t)n);
	bh_ic_make(d, n, 7, b, v);
	const char *name = bh_dist_name(d);
	tide_gravity_err m3 = accuracy(name, b, n, 0.3f, 0, 1000);
	tide_gravity_err m5 = accuracy(name, b, n, 0.5f, 0, 1000);
	tide_gravity_err m7 = accuracy(name, b, n, 0.7f, 0, 1000);
	tide_gravity_err q5 = accuracy(name, b, n, 0.5f, 1, 1000);
	EXPECT(m5.p99 <= 1e-3, "%s: monopole theta 0.5 99th percentile %.2e > 1e-3", name, m5.p99);
	EXPECT(q5.p99 < m5.p99 && q5.median < m5.median,
	       "%s: quadrupoles not better than monopoles at theta 0.5", name);
	EXPECT(m3.p99 < m5.p99 && m5.p99 < m7.p99 && m3.median < m5.median && m5.median < m7.median,
	       "%s: error does not decrease with theta", name);
	free(b); free(v);
}

/* Degenerate inputs: exact answers where they exist, the direct sum elsewhere. */
static void degenerate(void)
{
	bh_params P = {.theta = 0.5f, .eps = 0.f, .G = 1.f, .quadrupole = 1};
	run r = evaluate(NULL, 0, P, TIDE_WHERE_CPU);
	EXPECT(r.ncells == 1 && r.ngroups == 0, "no particle: %d cells, %d groups", r.ncells, r.ngroups);
	free_run(&r);

	bh_body one = {0.3f, -2.f, 7.f, 2.f};
	r = evaluate(&one, 1, P, TIDE_WHERE_CPU);
	EXPECT(r.acc[0].ax == 0 && r.acc[0].ay == 0 && r.acc[0].az == 0 && r.acc[0].pot == 0,
	       "one particle: a = (%g %g %g), pot %g", r.acc[0].ax, r.acc[0].ay, r.acc[0].az, r.acc[0].pot);
	free_run(&r);

	/* 1000 coincident particles, softened: no force, potential -(N-1) m / eps each */
	uint32_t n = 1000;
	bh_body *b = malloc(sizeof(bh_body) * 4 * n);
	for (uint32_t i = 0; i < n; i++) b[i] = (bh_body){1.5f, 1.5f, -0.5f, 1.f / n};
	P.eps = 0.01f;
	r = evaluate(b, n, P, TIDE_WHERE_CPU);
	double pot = -(double)(n - 1) / n / 0.01, worst = 0;
	int finite = 1;
	for (uint32_t i = 0; i < n; i++) {
		finite &= isfinite(r.acc[i].ax) && isfinite(r.acc[i].pot);
		double e = fabs(r.acc[i].ax) + fabs(r.acc[i].ay) + fabs(r.acc[i].az) +
		           fabs(r.acc[i].pot - pot) / fabs(pot);
		worst = e > worst ? e : worst;
	}
	EXPECT(finite && worst < 1e-5, "coincident particles: error %.2e (finite %d)", worst, finite);
	printf("  coincident: %d cells (deepest leaf), %d groups, error %.1e\n", r.ncells, r.ngroups, worst);
	free_run(&r);

	/* two clumps of coincident particles and a line: against the direct sum */
	for (int kind = 0; kind < 2; kind++) {
		n = kind ? 4000 : 2 * 700;
		for (uint32_t i = 0; i < n; i++) {
			if (kind) b[i] = (bh_body){-1.f + 2.f * (float)i / n, 0.25f, 0.25f, 1.f / n};
			else b[i] = (bh_body){i < 700 ? 0.f : 1.f, 0.f, i < 700 ? 0.f : 0.5f, 1.f / n};
		}
		P.eps = kind ? 0.f : 0.01f;
		r = evaluate(b, n, P, TIDE_WHERE_CPU);
		uint32_t *s = sample_of(n, 200);
		double *ref = malloc(sizeof(double) * 800);
		tide_gravity_direct(r.body, n, s, 200, P, ref, TIDE_WHERE_CPU);
		/* on a line the field vanishes at the middle: errors relative to the rms field */
		double rms = 0, worst = 0;
		for (int k = 0; k < 200; k++)
			rms += ref[4 * k] * ref[4 * k] + ref[4 * k + 1] * ref[4 * k + 1] + ref[4 * k + 2] * ref[4 * k + 2];
		rms = sqrt(rms / 200);
		for (int k = 0; k < 200; k++) {
			const bh_acc *a = &r.acc[s[k]];
			double e = sqrt(pow(a->ax - ref[4 * k], 2) + pow(a->ay - ref[4 * k + 1], 2) +
			                pow(a->az - ref[4 * k + 2], 2)) / rms;
			worst = isfinite(e) && e > worst ? e : (isfinite(e) ? worst : INFINITY);
		}
		printf("  %s: %d cells, max |da| / rms |a| %.2e\n", kind ? "line" : "two clumps", r.ncells,
		       worst);
		EXPECT(worst < 1e-3, "%s: max error %.2e of the rms field", kind ? "line" : "clumps", worst);
		free(s); free(ref); free_run(&r);
	}
	free(b);
}

/* The CPU walk split into tasks that cut groups (7 parts) must give exactly the forces of one
 * task: a group's box, and so its interaction lists, do not depend on where a task's range ends. */
static void parts_invariance(void)
{
	uint32_t n = 30000;
	bh_body *b = malloc(sizeof(bh_body) * n);
	float *v = malloc(16 * (size_t)n);
	bh_ic_make(BH_DIST_PLUMMER, n, 5, b, v);
	bh_params P = {.theta = 0.6f, .eps = 0.f, .G = 1.f, .quadrupole = 1};
	run one = evaluate_parts(b, n, P, TIDE_WHERE_CPU, 1), seven = evaluate_parts(b, n, P, TIDE_WHERE_CPU, 7);
	uint32_t differ = 0;
	for (uint32_t i = 0; i < n; i++)
		differ += memcmp(&one.acc[i], &seven.acc[i], sizeof(bh_acc)) != 0 || one.id[i] != seven.id[i];
	printf("  walk in 1 and 7 tasks: %u of %u particles differ\n", differ, n);
	EXPECT(differ == 0, "the walk in 7 tasks changed the field of %u particles", differ);
	free_run(&one); free_run(&seven); free(b); free(v);
}

/* The CUDA codelets must build the same tree and give the same forces up to rounding. */
static void cpu_vs_cuda(enum bh_dist d, uint32_t n, float theta, int quad, float eps)
{
	bh_body *b = malloc(sizeof(bh_body) * (n ? n : 1));
	float *v = malloc(16 * (size_t)(n ? n : 1));
	bh_ic_make(d, n, 11, b, v);
	bh_params P = {.theta = theta, .eps = eps, .G = 1.f, .quadrupole = quad};
	run c = evaluate(b, n, P, TIDE_WHERE_CPU), g = evaluate(b, n, P, TIDE_WHERE_CUDA);
	/* Both walks make the same interaction lists (same tree, same groups, bh_accept rounded
	 * alike), so the forces differ by rounding only: the GPU's approximate 1/sqrt (~2 ulp) and
	 * the summation order.  Differences relative to the larger of the particle's own field and
	 * the rms field: without softening a close pair's field can be 1000x the rms, and 2 ulp of
	 * it would read as 1e-3 of the rms; the rms covers a uniform cube's centre, where the field
	 * vanishes.  Particles are matched by input index, so that a different Morton order shows
	 * as such and not as different forces. */
	double worst = 0, rms = 0;
	int same_order = 1;
	for (uint32_t i = 0; i < n; i++)
		rms += (double)c.acc[i].ax * c.acc[i].ax + (double)c.acc[i].ay * c.acc[i].ay +
		       (double)c.acc[i].az * c.acc[i].az;
	rms = n ? sqrt(rms / n) : 1;
	if (!(rms > 0)) rms = 1;
	uint32_t *where_g = malloc(sizeof(uint32_t) * (n ? n : 1));
	for (uint32_t i = 0; i < n; i++) where_g[g.id[i]] = i;
	for (uint32_t i = 0; i < n; i++) {
		same_order &= c.id[i] == g.id[i];
		const bh_acc *ga = &g.acc[where_g[c.id[i]]];
		double dx = c.acc[i].ax - ga->ax, dy = c.acc[i].ay - ga->ay, dz = c.acc[i].az - ga->az;
		double own = sqrt((double)c.acc[i].ax * c.acc[i].ax + (double)c.acc[i].ay * c.acc[i].ay +
		                  (double)c.acc[i].az * c.acc[i].az);
		double e = sqrt(dx * dx + dy * dy + dz * dz) / (own > rms ? own : rms);
		worst = e > worst || !isfinite(e) ? e : worst;
	}
	free(where_g);
	printf("  CUDA vs CPU %s N %u theta %.2f %s: cells %d/%d groups %d/%d, max |da| / max(|a|, rms) %.2e\n",
	       bh_dist_name(d), n, theta, quad ? "quad" : "mono", c.ncells, g.ncells, c.ngroups,
	       g.ngroups, worst);
	EXPECT(same_order && c.ncells == g.ncells && c.ngroups == g.ngroups,
	       "CUDA tree differs (order %d, cells %d/%d, groups %d/%d)", same_order, c.ncells,
	       g.ncells, c.ngroups, g.ngroups);
	EXPECT(worst < 1e-4, "CUDA forces differ from the CPU ones by %.2e of max(|a|, rms)", worst);
	free_run(&c); free_run(&g); free(b); free(v);
}

int main(int argc, char **argv)
{
	int cuda = test_cuda_requested(argc, argv);
	if (starpu_init(NULL) != 0) { fprintf(stderr, "StarPU init failed\n"); return 77; }
	if (cuda && test_cuda_missing("bh_cuda")) { starpu_shutdown(); return TEST_SKIP; }
	printf("bh test: %u CPU, %u CUDA workers\n", starpu_cpu_worker_get_count(),
	       starpu_cuda_worker_get_count());
	if (cuda) {
		cpu_vs_cuda(BH_DIST_PLUMMER, 0, 0.5f, 1, 0.f);
		cpu_vs_cuda(BH_DIST_PLUMMER, 1, 0.5f, 1, 0.f);
		cpu_vs_cuda(BH_DIST_PLUMMER, 33, 0.5f, 1, 0.f);
		cpu_vs_cuda(BH_DIST_PLUMMER, 100000, 0.5f, 0, 0.f);
		cpu_vs_cuda(BH_DIST_PLUMMER, 100000, 0.6f, 1, 0.01f);
		cpu_vs_cuda(BH_DIST_UNIFORM, 300000, 0.75f, 1, 0.f);
		starpu_shutdown();
		if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
		printf("bh_cuda: all cases pass (the CUDA trees and forces are the CPU ones)\n");
		return 0;
	}
	degenerate();
	parts_invariance();
	/* the range, 1e4-1e5, at both ends and in between */
	accuracy_suite(BH_DIST_PLUMMER, 10000);
	accuracy_suite(BH_DIST_PLUMMER, 20000);
	accuracy_suite(BH_DIST_PLUMMER, 100000);
	accuracy_suite(BH_DIST_UNIFORM, 10000);
	accuracy_suite(BH_DIST_UNIFORM, 50000);
	accuracy_suite(BH_DIST_UNIFORM, 100000);
	{
		uint32_t n = 100000;
		bh_body *b = malloc(sizeof(bh_body) * n);
		float *v = malloc(16 * (size_t)n);
		bh_ic_make(BH_DIST_PLUMMER, n, 3, b, v);
		tide_gravity_err e = accuracy("plummer", b, n, 0.5f, 0, 500);
		EXPECT(e.p99 <= 1e-3, "plummer 1e5: monopole theta 0.5 99th percentile %.2e", e.p99);
		free(b); free(v);
	}
	starpu_shutdown();
	if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
	printf("bh: all cases pass (CPU; the CUDA half is bh_cuda)\n");
	return 0;
}
