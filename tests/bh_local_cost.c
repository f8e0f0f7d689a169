// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU cost of the far field's operations (bh_interact.h) against one node-particle
// interaction, the unit of the walk tasks' work (a tool, not a test; gravity_synth.h's
// TIDE_SYNTH_W_M2L and TIDE_SYNTH_W_L2P): bh_m2l 8 nodes at a time, one per SIMD lane, as
// codelets/bh_walk.c's far_loop; bh_m2p_lane on 32 targets per node, as its multipole_loop;
// bh_l2p per particle.  Quadrupoles, the same x86-64-v3/default clones and FMA contraction as
// the walk.  Thread CPU time, the best of 20 passes (the machine may be shared).
// usage: bh_local_cost
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "tide/bh_interact.h"

#define N 4096
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CLONES __attribute__((target_clones("arch=x86-64-v3", "default"), optimize("fp-contract=fast")))
#else
#define CLONES
#endif

static double cpu_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct src {
	float x[N], y[N], z[N], m[N], q[6][N];
} src;

CLONES static void m2l(float F[BH_LOCAL_N][8], const src *restrict S)
{
	for (int j0 = 0; j0 < N; j0 += 8)
		for (int k = 0; k < 8; k++) {
			int j = j0 + k;
			bh_m2l(&F[0][k], 8, S->x[j], S->y[j], S->z[j], S->m[j], S->q[0][j], S->q[1][j],
			       S->q[2][j], S->q[3][j], S->q[4][j], S->q[5][j], 0.f, 1);
		}
}

CLONES static void m2p(float a[4][32], const float t[3][32], const src *restrict S)
{
	for (int j = 0; j < N; j++) {
		bh_quad q = {S->q[0][j], S->q[1][j], S->q[2][j], S->q[3][j], S->q[4][j], S->q[5][j]};
		for (int i = 0; i < 32; i++) {
			bh_acc f = bh_m2p_lane(S->x[j] - t[0][i], S->y[j] - t[1][i], S->z[j] - t[2][i], S->m[j],
			                       q, 0.f, 1);
			a[0][i] += f.ax; a[1][i] += f.ay; a[2][i] += f.az; a[3][i] += f.pot;
		}
	}
}

CLONES static void l2p(float *restrict out, const float *restrict L, const src *restrict P)
{
	for (int i = 0; i < N; i++) {
		bh_acc f = bh_l2p(L, P->x[i], P->y[i], P->z[i]);
		out[i] += f.ax + f.ay + f.az + f.pot;
	}
}

int main(void)
{
	static src S, P;
	static float F[BH_LOCAL_N][8], a[4][32], t[3][32], out[N];
	srand(7);
	for (int j = 0; j < N; j++) {
		S.x[j] = 3.f + (float)rand() / RAND_MAX; S.y[j] = (float)rand() / RAND_MAX;
		S.z[j] = (float)rand() / RAND_MAX; S.m[j] = 1.f;
		for (int k = 0; k < 6; k++) S.q[k][j] = 0.01f * (float)rand() / RAND_MAX;
		P.x[j] = 0.1f * (float)rand() / RAND_MAX; P.y[j] = 0.1f * (float)rand() / RAND_MAX;
		P.z[j] = 0.1f * (float)rand() / RAND_MAX;
	}
	for (int i = 0; i < 32; i++)
		for (int d = 0; d < 3; d++) t[d][i] = 0.1f * (float)rand() / RAND_MAX;
	double b[3] = {1e9, 1e9, 1e9};
	for (int r = 0; r < 20; r++) {
		double t0 = cpu_now();
		for (int k = 0; k < 50; k++) m2l(F, &S);
		double t1 = cpu_now();
		for (int k = 0; k < 5; k++) m2p(a, t, &S);
		double t2 = cpu_now();
		for (int k = 0; k < 50; k++) l2p(out, &F[0][0], &P);
		double t3 = cpu_now();
		b[0] = t1 - t0 < b[0] ? t1 - t0 : b[0];
		b[1] = t2 - t1 < b[1] ? t2 - t1 : b[1];
		b[2] = t3 - t2 < b[2] ? t3 - t2 : b[2];
	}
	double m2l_ns = b[0] / (50.0 * N) * 1e9, m2p_ns = b[1] / (5.0 * N * 32) * 1e9;
	double l2p_ns = b[2] / (50.0 * N) * 1e9;
	printf("bh_m2p_lane %.3f ns per node-particle interaction; bh_m2l %.2f ns per node = %.2f "
	       "interactions; bh_l2p %.2f ns per particle = %.2f interactions (checksum %g)\n", m2p_ns,
	       m2l_ns, m2l_ns / m2p_ns, l2p_ns, l2p_ns / m2p_ns,
	       (double)F[3][2] + a[0][3] + out[5]);
	return 0;
}
