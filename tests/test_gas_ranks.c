// SPDX-License-Identifier: LGPL-2.1-or-later
// The gas scheme on several ranks (run by test_gas_ranks.sh on 1 and on 2 or 4 ranks): a small
// Sedov blast (16^3 particles, src/gas_ic.c) on 3 blocks (or the second argument's count; halos
// two cell layers deep, gas_math.h), or with a third argument "two" the two regions of
// test_gas_case.h (whose halos per block, gas_halo.h, are narrower than one width), for 20 whole
// steps (sort, halos, the
// h iteration, the halos again, forces, the time-step reduction across ranks, kick-drift,
// migration).  Rank 0 writes every particle's position, velocity, density, h and u by id, in
// C's exact hexadecimal floats, to the file named by the argument: the runs on 1 and N ranks
// must write the same file (every block computes the same sums from the same halos whichever
// rank owns it, and the global time step is a minimum).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/case.h"
#include "tide/gas_math.h"
#include "tide/sph_sim.h"
#include "case_load.h"
#include "gas_ic.h"
#include "runtime.h"
#include "test_gas_case.h"

int main(int argc, char **argv)
{
	tide_runtime rt;
	if (tide_runtime_init(&argc, &argv, NULL, &rt)) return 77;
	if (argc < 2) { fprintf(stderr, "usage: test_gas_ranks OUT [BLOCKS [sedov|two]]\n"); return 2; }
	int nblocks = argc > 2 && atoi(argv[2]) > 0 ? atoi(argv[2]) : 3;
	int two = argc > 3 && !strcmp(argv[3], "two");
	const int nhalf = 8;
	double half = 0.5, a = half / nhalf, m = a * a * a;
	tide_case c;
	void *mem = NULL;
	tide_block_view all;
	if (two) {
		/* two regions of different h: halos per block narrower than one global width */
		if (test_gas_two_regions(&c, 0.1, &mem, &all)) return 1;
	} else {
		test_gas_case(&c, "gas_ranks", a, 1.6 * 1.2 * a, half + 0.2);
		tide_sim_set_aux(&c);
		tide_gas_sedov sd = {.half = half, .m = m, .rho = 1.0, .u_bg = 1e-5, .E = 1.0, .eta = 1.2};
		if (tide_gas_ic_alloc(tide_gas_ic_sedov(&sd, NULL), 0, &mem, &all)) return 1;
		tide_gas_ic_sedov(&sd, &all);
	}
	tide_sim sim;
	if (tide_sim_setup(&sim, &c, &all, nblocks, tide_runtime_uses_mpi())) return 1;
	int bad = 0;
	for (int s = 0; s < 20 && !bad; s++) bad = tide_sim_step(&sim);
	/* what the halos of this rank's blocks hold after the last step (gas_halo.h: per block, or
	 * one global width with TIDE_GAS_HALOS=global) */
	uint64_t hn = 0, hb = 0;
	if (!bad) tide_sim_halo_stats(&sim, &hn, &hb);
	void *gm = NULL;
	tide_block_view g;
	int ret = bad || tide_sim_gather(&sim, 0, &gm, &g) != 0;
	if (!ret && rt.rank == 0) {
		uint32_t *at = malloc(sizeof(uint32_t) * all.count);
		FILE *f = fopen(argv[1], "w");
		ret = !at || !f || g.count != all.count;
		for (uint32_t i = 0; !ret && i < g.count; i++) at[g.id[i]] = i;
		fprintf(f, "t %a steps %ld n %u\n", sim.t, sim.step, g.count);
		for (uint32_t k = 0; !ret && k < g.count; k++) {
			uint32_t i = at[k];
			fprintf(f, "%u %a %a %a %a %a %a %a %a %a\n", k, g.x[i], g.y[i], g.z[i], (double)g.vx[i],
			        (double)g.vy[i], (double)g.vz[i], (double)g.rho[i], (double)g.TIDE_GAS_H[i],
			        (double)g.TIDE_GAS_U[i]);
		}
		if (f) fclose(f);
		free(at);
		printf("gas_ranks: %d rank(s), %d blocks, %ld steps to t = %.5f, %u particles written; "
		       "rank 0's halos hold %llu particles\n", rt.size, sim.nblocks, sim.step, sim.t,
		       g.count, (unsigned long long)hn);
	}
	free(gm);
	tide_sim_free(&sim);
	tide_block_free_host(mem, all.cap);
	tide_runtime_shutdown();
	return ret;
}
