// SPDX-License-Identifier: LGPL-2.1-or-later
// tide run --pair-stats: the neighbour search's figures of the run's last state (the benchmarks
// print them beside the time per step: pair interactions per second), written by rank 0.
#include <stdio.h>
#include <stdlib.h>
#include "tide/gas_params.h"
#include "tide/pair_stats.h"
#include "log.h"
#include "pair_stats_csv.h"

/* Particles sampled at most: the means' spread is then below 0.1 % of a lattice's. */
#define PAIR_STATS_SAMPLE 200000

int tide_run_pair_stats(tide_sim *sim, const tide_case *c, const char *dir)
{
	if (c->scheme == TIDE_SCHEME_GAS) {
		/* the gas scheme's supports are each particle's own h: no one grid radius */
		if (sim->rank == 0) tide_info("--pair-stats: WCSPH runs only; the gas scheme has none\n");
		return 0;
	}
	void *mem = NULL;
	tide_block_view all;
	if (tide_sim_gather(sim, 0, &mem, &all)) return -1;
	int rc = 0;
	if (sim->rank == 0) {
		uint64_t n = all.count, stride = n > PAIR_STATS_SAMPLE ? n / PAIR_STATS_SAMPLE : 1;
		tide_pair_stats s;
		char path[4200];
		snprintf(path, sizeof path, "%s/pair_stats.csv", dir);
		FILE *f = NULL;
		if (tide_pair_stats_points(&sim->P.grid, sim->P.h2x4, all.x, all.y, all.z, n, stride, &s)) {
			fprintf(stderr, "tide: --pair-stats: out of memory for %llu particles.\n",
			        (unsigned long long)n);
			rc = -1;
		} else if (!(f = fopen(path, "w"))) {
			fprintf(stderr, "tide: cannot write %s.\n", path);
			rc = -1;
		} else {
			/* the symplectic scheme evaluates the forces twice a step (predictor, corrector) */
			int passes = c->integrator == TIDE_SYMPLECTIC ? 2 : 1;
			fprintf(f, "particles[-],sampled[-],candidates_per_particle[-],"
			           "neighbours_per_particle[-],force_passes_per_step[-]\n"
			           "%llu,%llu,%.6g,%.6g,%d\n", (unsigned long long)s.particles,
			        (unsigned long long)s.sampled, s.candidates, s.neighbours, passes);
			if (fclose(f)) { fprintf(stderr, "tide: cannot write %s.\n", path); rc = -1; }
			tide_info("pair search: %.1f candidates tested and %.1f neighbours per particle "
			          "(%llu of %llu particles sampled)\n", s.candidates, s.neighbours,
			          (unsigned long long)s.sampled, (unsigned long long)s.particles);
		}
	}
	free(mem);
	return rc;
}
