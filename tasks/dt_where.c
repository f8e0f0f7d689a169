// SPDX-License-Identifier: LGPL-2.1-or-later
// Where the time step's combination across ranks runs (include/tide/dt_where.h): TIDE_DT_WHERE.
#include <stdio.h>
#include <string.h>
#include "tide/dt_where.h"

tide_dt_where_mode tide_dt_where_mode_of(const char *v, int *unknown)
{
	*unknown = 0;
	if (!v || !*v || !strcmp(v, "auto")) return TIDE_DT_AUTO;
	if (!strcmp(v, "cpu")) return TIDE_DT_CPU;
	if (!strcmp(v, "cuda")) return TIDE_DT_CUDA;
	*unknown = 1;
	return TIDE_DT_AUTO;
}

int tide_dt_where_choose(tide_dt_where_mode mode, int ncpu, int ncuda, enum tide_where *where,
                         int *keep, char *err, size_t errsize)
{
	*keep = 0;
	*where = TIDE_WHERE_ANY;
	switch (mode) {
	case TIDE_DT_CPU:
		if (!ncpu) {
			snprintf(err, errsize, "TIDE_DT_WHERE=cpu needs a CPU worker, and this rank has "
			         "none (set STARPU_NCPU to 1 or more, or TIDE_DT_WHERE to auto or cuda).");
			return -1;
		}
		*where = TIDE_WHERE_CPU;
		return 0;
	case TIDE_DT_CUDA:
		if (!ncuda) {
			snprintf(err, errsize, "TIDE_DT_WHERE=cuda needs a CUDA worker, and this rank has "
			         "none (allowed without a GPU: auto or cpu).");
			return -1;
		}
		*where = TIDE_WHERE_CUDA;
		return 0;
	default:
		/* a CPU worker: there (on a CPU-only rank the same as anywhere); none: as the rest */
		if (ncpu) *where = TIDE_WHERE_CPU;
		else *keep = 1;
		return 0;
	}
}
