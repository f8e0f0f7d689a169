// SPDX-License-Identifier: LGPL-2.1-or-later
// TIDE_DT_WHERE read and applied for tide run (the choice itself: tasks/dt_where.c,
// include/tide/dt_where.h): the program's part, which reads the environment and talks to the user.
#include <stdio.h>
#include <stdlib.h>
#include "tide/codelets.h"
#include "tide/dt_where.h"
#include "dt_where_env.h"
#include "log.h"

int tide_dt_where_apply(int ncpu, int ncuda, int rank)
{
	const char *v = getenv("TIDE_DT_WHERE");
	int unknown;
	tide_dt_where_mode mode = tide_dt_where_mode_of(v, &unknown);
	if (unknown && rank == 0)
		fprintf(stderr, "tide: warning: TIDE_DT_WHERE='%s' is none of 'auto', 'cpu', 'cuda': auto "
		        "(on a CPU worker where the rank has one).\n", v);
	enum tide_where where;
	int keep;
	char err[256];
	if (tide_dt_where_choose(mode, ncpu, ncuda, &where, &keep, err, sizeof err)) {
		if (rank == 0) fprintf(stderr, "tide: %s\n", err);
		return 2;
	}
	if (keep) return 0;
	tide_codelet_restrict(&tide_dt_combine_cl, where);
	if (rank == 0 && ncuda)
		tide_info("the time step's combination across ranks (dt_combine) on the %s workers\n",
		             where == TIDE_WHERE_CPU ? "CPU" : "CUDA");
	return 0;
}
