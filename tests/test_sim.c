// SPDX-License-Identifier: LGPL-2.1-or-later
// The whole step (tasks/sph_step.c: sort, halos, forces, integration, migration) through the
// tide_sim API on the shipped Martin & Moyce dam break (cases/dambreak2d.yaml at dp = 0.01):
//  (a) after NSTEPS = 600 steps (t ~ 0.06 s) with 4 blocks, the ids are exactly 0..n-1, each
//      once (no particle lost or duplicated by migration; the particle mass is constant, so
//      this is mass conservation);
//  (b) 1 block and 4 blocks give the same positions within 1e-6 m after those steps;
//  (c) boundary particles have not moved at all (bitwise equal positions, zero velocity);
//  (d) a tide_sim_rebalance after 300 steps keeps the ids and the run continues to the same
//      state as the uninterrupted 4-block run (same tolerance as (b));
//  (e) tide_sim_count right after a rebalance (what tide run's output does when an output time
//      falls on a rebalance step) works and counts every particle.
// 600 rather than 200 steps so that the front has moved ~3 cm (almost a cell of 2h = 4 cm) and
// particles have migrated between blocks; the flow must actually move, or (b) and (d) would
// prove nothing, and both are asserted.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/case.h"
#include "tide/sph_sim.h"
#include "runtime.h"
#include "test_case_block.h"

static int failures;
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

#define NSTEPS 600

/* Final state of a run, by particle id. */
typedef struct state {
	uint32_t n;
	double *x, *y, *z;
	float *vx, *vy, *vz;
	uint32_t *type;
	double t;
	long step;
	int ok;
	uint32_t migrated;   /* particles whose block differs from their initial one */
	uint32_t crossed;    /* ... in the same layers of axis[0]: they crossed a face of another axis */
} state;

static void state_alloc(state *s, uint32_t n)
{
	memset(s, 0, sizeof *s);
	s->n = n;
	s->x = calloc(n, sizeof(double)); s->y = calloc(n, sizeof(double));
	s->z = calloc(n, sizeof(double));
	s->vx = calloc(n, sizeof(float)); s->vy = calloc(n, sizeof(float));
	s->vz = calloc(n, sizeof(float));
	s->type = calloc(n, sizeof(uint32_t));
}

static void state_free(state *s)
{
	free(s->x); free(s->y); free(s->z); free(s->vx); free(s->vy); free(s->vz); free(s->type);
}

/* Gathers the simulation and checks that the ids are exactly 0..n0-1; fills s by id. */
static int gather_check(tide_sim *sim, uint32_t n0, const char *what, state *s, int count)
{
	/* count: through tide_sim_count (what tide run does), else the gather alone */
	size_t n = count ? tide_sim_count(sim, NULL) : n0;
	EXPECT(n == n0, "%s: %zu particles in the blocks, expected %u (%+ld)", what, n, n0,
	       (long)n - (long)n0);
	void *mem = NULL;
	tide_block_view v;
	if (tide_sim_gather(sim, 0, &mem, &v)) { free(mem); return -1; }
	char *seen = calloc(n0, 1);
	uint32_t bad = 0, dup = 0, missing = 0;
	for (uint32_t i = 0; i < v.count; i++) {
		uint32_t id = v.id[i];
		if (id >= n0) { bad++; continue; }
		if (seen[id]) { dup++; continue; }
		seen[id] = 1;
		s->x[id] = v.x[i]; s->y[id] = v.y[i]; s->z[id] = v.z[i];
		s->vx[id] = v.vx[i]; s->vy[id] = v.vy[i]; s->vz[id] = v.vz[i];
		s->type[id] = v.type[i];
	}
	for (uint32_t id = 0; id < n0; id++) missing += !seen[id];
	EXPECT(v.count == n0 && !bad && !dup && !missing, "%s: gathered %u particles: %u ids out of "
	       "range, %u duplicated, %u of 0..%u missing", what, v.count, bad, dup, missing, n0 - 1);
	free(seen);
	free(mem);
	return (bad || dup || missing) ? -1 : 0;
}

/* Runs NSTEPS steps with nblocks, optionally rebalancing after rebalance_at steps. */
static void run(const tide_case *c, const tide_block_view *all, int nblocks, int rebalance_at,
                const char *what, state *s)
{
	tide_sim sim;
	s->ok = 0;
	if (tide_sim_setup(&sim, c, all, nblocks, tide_runtime_uses_mpi())) {
		EXPECT(0, "%s: tide_sim_setup failed", what);
		return;
	}
	EXPECT(sim.nblocks == nblocks, "%s: %d blocks, asked for %d", what, sim.nblocks, nblocks);
	for (int k = 0; k < NSTEPS; k++) {
		if (k == rebalance_at) {
			char w[128];
			snprintf(w, sizeof w, "%s, before the rebalance at step %d", what, k);
			gather_check(&sim, all->count, w, s, 1);
			int ret = tide_sim_rebalance(&sim);
			EXPECT(ret == 0, "%s: tide_sim_rebalance failed at step %d", what, k);
			if (ret) return;
			EXPECT(sim.step == k && sim.rebalances == 1 && sim.nblocks == nblocks,
			       "%s: after the rebalance: step %ld (expected %d), %d rebalances, %d blocks",
			       what, sim.step, k, sim.rebalances, sim.nblocks);
			snprintf(w, sizeof w, "%s, just after the rebalance at step %d", what, k);
			gather_check(&sim, all->count, w, s, 0);   /* tide_sim_count: see the end */
		}
		if (tide_sim_step(&sim)) {
			EXPECT(0, "%s: step %d went unphysical", what, k);
			tide_sim_free(&sim);
			return;
		}
	}
	s->t = sim.t;
	s->step = sim.step;
	s->ok = gather_check(&sim, all->count, what, s, 1) == 0;
	/* how many particles migration has moved to another block */
	s->migrated = s->crossed = 0;
	for (uint32_t i = 0; i < all->count && s->ok; i++) {
		uint32_t id = all->id[i];
		int b0 = tide_sim_block_of(&sim, all->x[i], all->y[i], all->z[i]);
		int b1 = tide_sim_block_of(&sim, s->x[id], s->y[id], s->z[id]);
		s->migrated += b0 != b1;
		s->crossed += b0 != b1 && sim.blk[b0].range.l0 == sim.blk[b1].range.l0;
	}
	tide_sim_free(&sim);
}

/* Largest distance between the positions of two states, and where. */
static double max_dist(const state *a, const state *b, uint32_t *where)
{
	double worst = 0;
	*where = 0;
	for (uint32_t i = 0; i < a->n; i++) {
		double dx = a->x[i] - b->x[i], dy = a->y[i] - b->y[i], dz = a->z[i] - b->z[i];
		double d = sqrt(dx * dx + dy * dy + dz * dz);
		if (!(d <= worst)) { worst = d; *where = i; }
	}
	return worst;
}

int main(int argc, char **argv)
{
	const char *root = argc > 1 ? argv[1] : ".";
	char path[1024];
	snprintf(path, sizeof path, "%s/cases/dambreak2d.yaml", root);
	tide_case c;
	void *mem;
	tide_block_view all;
	size_t nb0;
	if (test_case_block(path, 0.01, &c, &mem, &all, &nb0)) return 1;
	uint32_t n0 = all.count;

	if (starpu_init(NULL) != 0) { fprintf(stderr, "StarPU init failed\n"); return 77; }
	printf("sim test: %s, %u particles (%zu boundary), %u CPU + %u CUDA workers\n", path, n0,
	       nb0, starpu_cpu_worker_get_count(), starpu_cuda_worker_get_count());

	/* the initial state, by id (ids are 0..n-1 at creation) */
	state s0, s1, s4, sr, sb, sbr;
	state_alloc(&s0, n0);
	for (uint32_t i = 0; i < n0; i++) {
		uint32_t id = all.id[i];
		s0.x[id] = all.x[i]; s0.y[id] = all.y[i]; s0.z[id] = all.z[i];
		s0.type[id] = all.type[i];
	}
	state_alloc(&s1, n0);
	state_alloc(&s4, n0);
	state_alloc(&sr, n0);
	state_alloc(&sb, n0);
	state_alloc(&sbr, n0);
	double w0 = starpu_timing_now();
	run(&c, &all, 1, -1, "1 block", &s1);
	double w1 = starpu_timing_now();
	run(&c, &all, 4, -1, "4 blocks", &s4);
	double w2 = starpu_timing_now();
	run(&c, &all, 4, NSTEPS / 2, "4 blocks with a rebalance", &sr);
	printf("runs of %d steps: 1 block %.1f s, 4 blocks %.1f s, 4 blocks + rebalance %.1f s\n",
	       NSTEPS, (w1 - w0) * 1e-6, (w2 - w1) * 1e-6, (starpu_timing_now() - w2) * 1e-6);
	/* a 2-D grid of boxes: 2 x 2, and 4 x 3 (blocks with 8 neighbours, corner crossings) with a
	 * rebalance half way */
	tide_case cb = c;
	snprintf(cb.decomp, sizeof cb.decomp, "2x1x2");
	run(&cb, &all, 4, -1, "2x2 boxes", &sb);
	snprintf(cb.decomp, sizeof cb.decomp, "4x1x3");
	run(&cb, &all, 12, NSTEPS / 2, "4x3 boxes with a rebalance", &sbr);

	if (s1.ok && s4.ok && sr.ok && sb.ok && sbr.ok) {
		printf("after %ld steps: t = %.6g s (1 block), %.6g s (4 blocks), %.6g s (rebalanced)\n",
		       s4.step, s1.t, s4.t, sr.t);
		/* the flow has moved: the fluid front has advanced and fluid particles have fallen */
		double front0 = 0, front = 0, moved = 0;
		for (uint32_t i = 0; i < n0; i++) {
			if (s0.type[i] != TIDE_FLUID) continue;
			if (s0.x[i] > front0) front0 = s0.x[i];
			if (s4.x[i] > front) front = s4.x[i];
			double d = hypot(s4.x[i] - s0.x[i], s4.z[i] - s0.z[i]);
			if (d > moved) moved = d;
		}
		printf("fluid front %.4f -> %.4f m, largest fluid displacement %.3g m\n", front0, front,
		       moved);
		printf("particles now in another block than at the start: %u (4 blocks)\n", s4.migrated);
		EXPECT(s4.migrated > 0, "no particle changed block in the 4-block run: migration is "
		       "not exercised");
		EXPECT(moved > 1e-3, "the fluid has hardly moved in %d steps (largest displacement %.3g m): "
		       "the comparisons below would prove nothing", NSTEPS, moved);

		/* (b) 1 vs 4 blocks.  Both runs evaluate the same pairs with the same float formulas
		 * and reduce the global dt with a min (exact); only the order in which a particle's
		 * neighbours are summed may differ, once migration has appended particles to a block
		 * in another order than in the single block (the cell sort keeps the order within a
		 * cell).  Each such reordering changes an acceleration in its last float bits (~1e-7
		 * of the pair terms), and the differences then grow with the flow: measured here,
		 * positions are bitwise equal up to ~400 steps, 2e-8 m apart at 600 steps and 2e-7 m
		 * at 1000.  1e-6 m is thus well above rounding (and leaves room for CUDA's fused
		 * multiply-adds) and far below any real error: a neighbour missing from one sum
		 * changes an acceleration by O(10-100 m/s^2), i.e. positions by ~1e-3..1e-2 m over
		 * these 0.06 s. */
		uint32_t w;
		double d14 = max_dist(&s1, &s4, &w);
		EXPECT(d14 <= 1e-6, "1 block and 4 blocks differ by %.3g m after %d steps (limit 1e-6 m) "
		       "at particle %u: (%.9f, %.9f) vs (%.9f, %.9f)", d14, NSTEPS, w, s1.x[w], s1.z[w],
		       s4.x[w], s4.z[w]);
		/* the global dt is a min over particles of float expressions of their accelerations, so
		 * the same rounding-level differences reach the clock: each step's dt is a float
		 * (relative ulp 6e-8), and a one-ulp change in a few of the steps moves the sum by
		 * ~1e-7 (measured with the CUDA codelets on the H200: 2.05e-7).  1e-6 is ~16 float ulps
		 * of the clock; a wrong force changes dt by percents. */
		EXPECT(fabs(s1.t - s4.t) <= 1e-6 * s4.t, "1 block and 4 blocks reached different times "
		       "%.9g and %.9g s (relative difference %.3g, limit 1e-6)", s1.t, s4.t,
		       fabs(s1.t - s4.t) / s4.t);
		printf("(b) 1 vs 4 blocks: largest position difference %.3g m\n", d14);

		/* (e) boxes: the same pairs as the slabs, so the same tolerance */
		printf("particles that crossed a face between boxes of the same x layers: %u (2x2), "
		       "%u (4x3)\n", sb.crossed, sbr.crossed);
		EXPECT(sb.crossed > 0 && sbr.crossed > 0, "no particle crossed a face along z in the "
		       "box runs (%u, %u): migration between boxes is not exercised", sb.crossed,
		       sbr.crossed);
		double d1b = max_dist(&s1, &sb, &w), d1br = max_dist(&s1, &sbr, &w);
		EXPECT(d1b <= 1e-6 && fabs(s1.t - sb.t) <= 1e-6 * s1.t, "1 block and 2x2 boxes differ by "
		       "%.3g m (limit 1e-6 m), t = %.9g vs %.9g s", d1b, s1.t, sb.t);
		EXPECT(d1br <= 1e-6 && fabs(s1.t - sbr.t) <= 1e-6 * s1.t, "1 block and 4x3 boxes differ "
		       "by %.3g m (limit 1e-6 m), t = %.9g vs %.9g s", d1br, s1.t, sbr.t);
		printf("(e) 1 block vs 2x2 boxes: %.3g m, vs 4x3 boxes (rebalanced): %.3g m\n", d1b, d1br);

		/* (d) the rebalanced run continues as the uninterrupted one */
		double d4r = max_dist(&s4, &sr, &w);
		EXPECT(d4r <= 1e-6 && fabs(sr.t - s4.t) <= 1e-6 * s4.t, "the rebalanced run differs from the 4-block run by "
		       "%.3g m (limit 1e-6 m) at particle %u, t = %.9g vs %.9g s", d4r, w, sr.t, s4.t);
		printf("(d) rebalanced vs 4 blocks: largest position difference %.3g m\n", d4r);

		/* (c) boundary particles never move, and nothing changes type */
		const state *runs[5] = {&s1, &s4, &sr, &sb, &sbr};
		const char *names[5] = {"1 block", "4 blocks", "rebalanced", "2x2 boxes", "4x3 boxes"};
		for (int k = 0; k < 5; k++) {
			const state *s = runs[k];
			uint32_t moved_b = 0, vel_b = 0, retyped = 0, off_plane = 0, first = 0;
			for (uint32_t i = 0; i < n0; i++) {
				if (s->type[i] != s0.type[i]) retyped++;
				if (s->y[i] != 0.0 || s->vy[i] != 0.f) off_plane++;
				if (s0.type[i] != TIDE_BOUND) continue;
				if (s->x[i] != s0.x[i] || s->y[i] != s0.y[i] || s->z[i] != s0.z[i]) {
					if (!moved_b) first = i;
					moved_b++;
				}
				if (s->vx[i] != 0.f || s->vy[i] != 0.f || s->vz[i] != 0.f) vel_b++;
			}
			EXPECT(!moved_b, "%s: %u boundary particles moved, e.g. id %u from (%.17g, %.17g) to "
			       "(%.17g, %.17g)", names[k], moved_b, first, s0.x[first], s0.z[first],
			       s->x[first], s->z[first]);
			EXPECT(!vel_b, "%s: %u boundary particles have a nonzero velocity", names[k], vel_b);
			EXPECT(!retyped, "%s: %u particles changed type", names[k], retyped);
			EXPECT(!off_plane, "%s: %u particles left the 2-D plane y = 0", names[k], off_plane);
		}
		printf("(a) ids 0..%u each present once in every run; (c) %zu boundary particles checked\n",
		       n0 - 1, nb0);
	} else {
		EXPECT(0, "a run failed (1 block %s, 4 blocks %s, rebalanced %s, 2x2 boxes %s, 4x3 boxes "
		       "%s)", s1.ok ? "ok" : "failed", s4.ok ? "ok" : "failed", sr.ok ? "ok" : "failed",
		       sb.ok ? "ok" : "failed", sbr.ok ? "ok" : "failed");
	}
	state_free(&s0); state_free(&s1); state_free(&s4); state_free(&sr);
	state_free(&sb); state_free(&sbr);

	/* Last, because a failure aborts: tide run calls tide_sim_count (through its output)
	 * right after a rebalance when an output time falls on a rebalance step. */
	printf("tide_sim_count right after tide_sim_rebalance (as tide run does when an output "
	       "falls on a rebalance step)...\n");
	fflush(stdout);
	fprintf(stderr, "(a StarPU assertion 'handle ... is not initialized' below means "
	        "tide_sim_count reads halo handles that the rebalance re-registered and no task has "
	        "written yet)\n");
	tide_sim sim;
	if (tide_sim_setup(&sim, &c, &all, 4, tide_runtime_uses_mpi()) == 0) {
		int ret = tide_sim_step(&sim);
		ret = ret ? ret : tide_sim_rebalance(&sim);
		EXPECT(ret == 0, "one step + rebalance failed");
		if (!ret) {
			size_t n = tide_sim_count(&sim, NULL);
			EXPECT(n == n0, "tide_sim_count after a rebalance: %zu particles, expected %u", n, n0);
			ret = tide_sim_step(&sim);
			EXPECT(ret == 0, "the step after the rebalance failed");
			n = tide_sim_count(&sim, NULL);
			EXPECT(n == n0, "tide_sim_count one step after a rebalance: %zu particles, expected "
			       "%u", n, n0);
		}
		tide_sim_free(&sim);
	} else {
		EXPECT(0, "tide_sim_setup failed");
	}
	free(mem);
	starpu_shutdown();
	if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
	printf("sim: all checks pass\n");
	return 0;
}
