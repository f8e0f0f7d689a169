// SPDX-License-Identifier: LGPL-2.1-or-later
// The Jeans resolution check of a self-gravitating gas run (include/tide/jeans.h), at each
// output: jeans_min over every block this rank owns into one record (RW | COMMUTE: the blocks in
// any order), then the ranks' records to rank 0 through the gravity's gather of values (a gas
// run checks Jeans only with self-gravity, so that machinery is there), folded in rank order.
#include <stdlib.h>
#include <starpu.h>
#include "tide/codelets.h"
#include "tide/jeans.h"
#include "sph_gravity.h"
#include "tide/sph_sim.h"

int tide_sim_jeans(tide_sim *sim, double k, tide_jeans_min *out)
{
	tide_jeans_min_init(out);
	if (sim->P.scheme != TIDE_SCHEME_GAS || !sim->grav) return -1;
	tide_jeans_min r;
	tide_jeans_min_init(&r);
	starpu_data_handle_t R;
	starpu_variable_data_register(&R, STARPU_MAIN_RAM, (uintptr_t)&r, sizeof r);
	float qr = (float)(k < 3e38 ? k : 3e38); /* q_res per unit mass: each particle's m_i scales it */
	for (int b = 0; b < sim->nblocks; b++) {
		if (sim->blk[b].owner != sim->rank) continue;
		STARPU_CHECK_RETURN_VALUE(starpu_task_insert(&tide_jeans_min_cl, STARPU_R, sim->blk[b].B,
		                          STARPU_RW | STARPU_COMMUTE, R, STARPU_VALUE, &sim->P.gas,
		                          sizeof sim->P.gas, STARPU_VALUE, &qr, sizeof qr,
		                          STARPU_NAME, "jeans_min", 0), "task insert");
	}
	starpu_data_unregister(R); /* waits for the tasks; r is back in main memory */
	double mine[4] = {r.q, r.rho, r.n_below, r.qm};
	double *all = malloc(sizeof(double) * 4 * (size_t)(sim->size > 0 ? sim->size : 1));
	STARPU_ASSERT_MSG(all, "out of memory");
	tide_gravity_gather_values(&sim->grav->g, 0, mine, 4, all);
	for (int q = 0; sim->rank == 0 && q < sim->size; q++) {
		const double *a = all + 4 * q;
		tide_jeans_min one = {(float)a[0], (float)a[1], (uint32_t)a[2], (float)a[3]};
		tide_jeans_min_combine(out, &one);
	}
	free(all);
	return 0;
}
