// SPDX-License-Identifier: LGPL-2.1-or-later
// The time step's combination across ranks (codelets/dt_combine.*, include/tide/dt_where.h):
//  - dt_combine on the CPU: the ranks' records folded into one equal to the brute force of
//    every field (the smallest time step and density, the largest speed, density, fill and h
//    found by sorting; the counts summed modulo 2^32), for 1, 2, 3 and 9 records;
//  - recursive doubling as tasks/sph_step.c runs it (8 ranks, 3 rounds of pairs, each rank
//    combining its record with that of rank q xor 2^k): every rank ends with the one-hop
//    combination's bits;
//  - the choice of TIDE_DT_WHERE (tide_dt_where_choose): auto on a CPU worker wherever the rank
//    has one, forced kinds a rank lacks refused, unknown values taken as auto;
//  - with --cuda (dt_combine_cuda; SKIP without a GPU): the CUDA half gives the CPU half's bytes
//    for the same records, special values included (NaN, infinities, subnormals, signed zeros),
//    one task of 9 records and the doubling's rounds; then the doubling with its rounds
//    alternating between the CPU and the GPU, as records do when one rank combines on a CPU
//    worker and its partner on a GPU.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "tide/codelet_decl.h"
#include "tide/codelets.h"
#include "tide/dt_where.h"
#include "tide/sph_params.h"
#include "test_cuda_mode.h"
#include "test_util.h"

#define MAXREC 9

static uint32_t rng = 12345u;
static uint32_t next_u32(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}
static float uniform(float lo, float hi) { return lo + (hi - lo) * (float)(next_u32() >> 8) / 16777216.0f; }

/* a record of ordinary values (no ties between records but by chance) */
static void ordinary(tide_step_reduce *r)
{
	r->dt = uniform(1e-6f, 1e-3f);
	r->vmax = uniform(0.f, 40.f);
	r->rho_min = uniform(900.f, 1000.f);
	r->rho_max = uniform(1000.f, 1100.f);
	r->fill = uniform(0.f, 1.f);
	r->nbad = next_u32() % 3 ? 0 : next_u32();
	r->count = next_u32();
	r->hmax = uniform(0.01f, 0.02f);
}

/* a record of special values: what a field may hold when a run goes wrong */
static void special(tide_step_reduce *r, int k)
{
	static const float v[] = {NAN, INFINITY, -INFINITY, 1e-40f, -1e-40f, 0.f, -0.f, 3.0e38f, 1.f};
	const int nv = (int)(sizeof v / sizeof *v);
	r->dt = v[k % nv];
	r->vmax = v[(k + 1) % nv];
	r->rho_min = v[(k + 2) % nv];
	r->rho_max = v[(k + 3) % nv];
	r->fill = v[(k + 4) % nv];
	r->hmax = v[(k + 5) % nv];
	r->nbad = 0xffffffffu - (uint32_t)k;
	r->count = 0x80000000u + (uint32_t)k;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

/* field f (byte offset) of n records, sorted; the smallest (lo) or largest */
static float extreme(const tide_step_reduce *r, int n, size_t off, int lo, float init)
{
	float v[MAXREC + 1];
	v[0] = init; /* tide_step_reduce_init's value: the combination starts from it */
	for (int i = 0; i < n; i++) memcpy(&v[1 + i], (const char *)&r[i] + off, sizeof(float));
	qsort(v, (size_t)n + 1, sizeof *v, cmp_float);
	return lo ? v[0] : v[n];
}

static tide_step_reduce brute_force(const tide_step_reduce *r, int n)
{
	tide_step_reduce e;
	memset(&e, 0, sizeof e);
	e.dt = extreme(r, n, offsetof(tide_step_reduce, dt), 1, 3.0e38f);
	e.vmax = extreme(r, n, offsetof(tide_step_reduce, vmax), 0, 0.f);
	e.rho_min = extreme(r, n, offsetof(tide_step_reduce, rho_min), 1, 3.0e38f);
	e.rho_max = extreme(r, n, offsetof(tide_step_reduce, rho_max), 0, 0.f);
	e.fill = extreme(r, n, offsetof(tide_step_reduce, fill), 0, 0.f);
	e.hmax = extreme(r, n, offsetof(tide_step_reduce, hmax), 0, 0.f);
	uint64_t bad = 0, count = 0;
	for (int i = 0; i < n; i++) {
		bad += r[i].nbad;
		count += r[i].count;
	}
	e.nbad = (uint32_t)(bad & 0xffffffffu);
	e.count = (uint32_t)(count & 0xffffffffu);
	return e;
}

/* out = dt_combine(in[0..n-1]) as one task on the workers `where`; 0 or StarPU's error */
static int combine(tide_step_reduce *out, const tide_step_reduce *in, int n, enum tide_where where)
{
	tide_step_reduce rec[MAXREC + 1];
	starpu_data_handle_t h[MAXREC + 1];
	struct starpu_data_descr d[MAXREC + 1];
	memset(&rec[0], 0xa5, sizeof rec[0]); /* the result must not depend on what out held */
	memcpy(&rec[1], in, (size_t)n * sizeof *in);
	for (int i = 0; i <= n; i++) {
		starpu_variable_data_register(&h[i], STARPU_MAIN_RAM, (uintptr_t)&rec[i], sizeof rec[i]);
		d[i] = (struct starpu_data_descr){h[i], i ? STARPU_R : STARPU_W};
	}
	tide_codelet_restrict(&tide_dt_combine_cl, where);
	int rc = starpu_task_insert(&tide_dt_combine_cl, STARPU_DATA_MODE_ARRAY, d, n + 1, 0);
	starpu_task_wait_for_all();
	for (int i = 0; i <= n; i++) starpu_data_unregister(h[i]);
	tide_codelet_restrict(&tide_dt_combine_cl, TIDE_WHERE_ANY);
	*out = rec[0];
	return rc;
}

/* Recursive doubling over 8 ranks' records x[], in place: round k, x[q] = combine(x[q],
 * x[q ^ 2^k]) for every q (all of a round from the records before it); round k on the
 * workers where[k]. */
static int doubling(tide_step_reduce x[8], const enum tide_where where[3])
{
	for (int k = 0; k < 3; k++) {
		tide_step_reduce y[8];
		for (int q = 0; q < 8; q++) {
			tide_step_reduce pair[2] = {x[q], x[q ^ (1 << k)]};
			if (combine(&y[q], pair, 2, where[k])) return -1;
		}
		memcpy(x, y, sizeof y);
	}
	return 0;
}

static int same_bytes(const tide_step_reduce *a, const tide_step_reduce *b)
{
	return !memcmp(a, b, sizeof *a);
}

static void print_record(const char *what, const tide_step_reduce *r)
{
	printf("  %s: dt %.9g vmax %.9g rho %.9g..%.9g fill %.9g hmax %.9g nbad %u count %u\n", what,
	       (double)r->dt, (double)r->vmax, (double)r->rho_min, (double)r->rho_max, (double)r->fill,
	       (double)r->hmax, r->nbad, r->count);
}

static void test_cpu(void)
{
	static const int ns[] = {1, 2, 3, 9};
	for (size_t t = 0; t < sizeof ns / sizeof *ns; t++) {
		int n = ns[t];
		tide_step_reduce in[MAXREC], got;
		for (int i = 0; i < n; i++) ordinary(&in[i]);
		CHECK(combine(&got, in, n, TIDE_WHERE_CPU) == 0, "CPU task of %d records", n);
		tide_step_reduce want = brute_force(in, n);
		CHECK(same_bytes(&got, &want), "%d records: the CPU combination is not the brute force's", n);
		if (!same_bytes(&got, &want)) {
			print_record("combined", &got);
			print_record("brute force", &want);
		}
	}
	printf("dt_combine on the CPU: 1, 2, 3 and 9 records equal to the brute force of every field\n");
	tide_step_reduce x[8], all;
	for (int q = 0; q < 8; q++) ordinary(&x[q]);
	CHECK(combine(&all, x, 8, TIDE_WHERE_CPU) == 0, "one-hop task");
	enum tide_where cpu3[3] = {TIDE_WHERE_CPU, TIDE_WHERE_CPU, TIDE_WHERE_CPU};
	CHECK(doubling(x, cpu3) == 0, "doubling tasks");
	int equal = 0;
	for (int q = 0; q < 8; q++) equal += same_bytes(&x[q], &all);
	CHECK(equal == 8, "recursive doubling: %d of 8 ranks hold the one-hop combination's bits", equal);
	printf("recursive doubling of 8 records on the CPU: %d of 8 ranks end with the one-hop bits\n", equal);
}

static void test_choice(void)
{
	int unknown;
	CHECK(tide_dt_where_mode_of(NULL, &unknown) == TIDE_DT_AUTO && !unknown, "unset: auto");
	CHECK(tide_dt_where_mode_of("", &unknown) == TIDE_DT_AUTO && !unknown, "empty: auto");
	CHECK(tide_dt_where_mode_of("cpu", &unknown) == TIDE_DT_CPU && !unknown, "cpu");
	CHECK(tide_dt_where_mode_of("cuda", &unknown) == TIDE_DT_CUDA && !unknown, "cuda");
	CHECK(tide_dt_where_mode_of("gpu", &unknown) == TIDE_DT_AUTO && unknown, "gpu: unknown, auto");
	static const struct {
		tide_dt_where_mode mode;
		int ncpu, ncuda, rc, keep;
		enum tide_where where;
	} c[] = {
		{TIDE_DT_AUTO, 1, 1, 0, 0, TIDE_WHERE_CPU},   /* a GPU rank with its one CPU worker */
		{TIDE_DT_AUTO, 0, 1, 0, 1, TIDE_WHERE_ANY},   /* no CPU worker: as the other codelets */
		{TIDE_DT_AUTO, 3, 0, 0, 0, TIDE_WHERE_CPU},   /* a CPU rank */
		{TIDE_DT_CPU, 1, 1, 0, 0, TIDE_WHERE_CPU},
		{TIDE_DT_CPU, 0, 1, -1, 0, TIDE_WHERE_ANY},   /* forced where there is none */
		{TIDE_DT_CUDA, 1, 1, 0, 0, TIDE_WHERE_CUDA},
		{TIDE_DT_CUDA, 2, 0, -1, 0, TIDE_WHERE_ANY},
	};
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		enum tide_where w;
		int keep;
		char err[256] = "";
		int rc = tide_dt_where_choose(c[i].mode, c[i].ncpu, c[i].ncuda, &w, &keep, err, sizeof err);
		CHECK(rc == c[i].rc, "case %zu: returned %d, expected %d", i, rc, c[i].rc);
		if (rc) {
			CHECK(strstr(err, "TIDE_DT_WHERE=") != NULL, "case %zu: the message names the variable: %s", i, err);
			continue;
		}
		CHECK(keep == c[i].keep, "case %zu: keep %d, expected %d", i, keep, c[i].keep);
		if (!keep) CHECK(w == c[i].where, "case %zu: where %d, expected %d", i, (int)w, (int)c[i].where);
	}
	printf("TIDE_DT_WHERE: %zu choices as documented\n", sizeof c / sizeof *c);
}

static void test_cuda(void)
{
	tide_step_reduce in[MAXREC], a, b;
	int differ = 0, cases = 0;
	for (int s = 0; s < 12; s++) {
		/* 9 records, some of them of special values (s = 0: none) */
		for (int i = 0; i < MAXREC; i++) {
			if (s && (i + s) % 3 == 0) special(&in[i], i + s);
			else ordinary(&in[i]);
		}
		CHECK(combine(&a, in, MAXREC, TIDE_WHERE_CPU) == 0, "CPU task");
		CHECK(combine(&b, in, MAXREC, TIDE_WHERE_CUDA) == 0, "CUDA task");
		cases++;
		if (!same_bytes(&a, &b)) {
			differ++;
			print_record("CPU", &a);
			print_record("CUDA", &b);
		}
	}
	CHECK(differ == 0, "%d of %d sets of 9 records combined differently on the CPU and the GPU", differ, cases);
	printf("dt_combine_cuda: %d of %d sets of 9 records (special values in 11) with the CPU's bytes\n",
	       cases - differ, cases);
	/* the doubling: all rounds on the GPU, and rounds alternating between the two */
	tide_step_reduce x[8], y[8], z[8];
	for (int q = 0; q < 8; q++) {
		if (q % 3 == 1) special(&x[q], q);
		else ordinary(&x[q]);
	}
	memcpy(y, x, sizeof x);
	memcpy(z, x, sizeof x);
	enum tide_where cpu3[3] = {TIDE_WHERE_CPU, TIDE_WHERE_CPU, TIDE_WHERE_CPU};
	enum tide_where cuda3[3] = {TIDE_WHERE_CUDA, TIDE_WHERE_CUDA, TIDE_WHERE_CUDA};
	enum tide_where mixed[3] = {TIDE_WHERE_CUDA, TIDE_WHERE_CPU, TIDE_WHERE_CUDA};
	CHECK(doubling(x, cpu3) == 0 && doubling(y, cuda3) == 0 && doubling(z, mixed) == 0, "doubling tasks");
	int eq_cuda = 0, eq_mixed = 0;
	for (int q = 0; q < 8; q++) {
		eq_cuda += same_bytes(&x[q], &y[q]);
		eq_mixed += same_bytes(&x[q], &z[q]);
	}
	CHECK(eq_cuda == 8 && eq_mixed == 8, "doubling: %d (GPU) and %d (mixed) of 8 ranks with the CPU's bits",
	      eq_cuda, eq_mixed);
	printf("recursive doubling of 8 records: on the GPU %d of 8, rounds mixed %d of 8 ranks with the CPU's bits\n",
	       eq_cuda, eq_mixed);
}

int main(int argc, char **argv)
{
	int cuda = test_cuda_requested(argc, argv);
	if (starpu_init(NULL) != 0) {
		fprintf(stderr, "StarPU init failed\n");
		return 77;
	}
	if (cuda && test_cuda_missing("dt_combine_cuda")) {
		starpu_shutdown();
		return TEST_SKIP;
	}
	if (cuda) {
		test_cuda();
	} else {
		test_cpu();
		test_choice();
	}
	starpu_shutdown();
	if (failures) {
		printf("test_dt_combine: %d check(s) FAILED\n", failures);
		return 1;
	}
	printf("test_dt_combine: all checks passed\n");
	return 0;
}
