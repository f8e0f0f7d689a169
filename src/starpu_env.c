// SPDX-License-Identifier: LGPL-2.1-or-later
// Checks of StarPU's environment variables before starpu_init (src/starpu_env.h).
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "starpu_env.h"

/* The integer variables StarPU reads with starpu_getenv_number (which aborts on a negative or
 * non-integer value) and that tide's documentation or scripts set, with their smallest value. */
static const struct { const char *name; long min, max; } ints[] = {
	{"STARPU_NCPU", 0, INT_MAX},
	{"STARPU_NCPUS", 0, INT_MAX},
	{"STARPU_NCUDA", 0, INT_MAX},
	/* StarPU asserts 0 < n < STARPU_NMAXWORKERS */
	{"STARPU_NWORKER_PER_CUDA", 1, STARPU_NMAXWORKERS - 1},
	{"STARPU_RESERVE_NCPU", 0, INT_MAX},
	{"STARPU_NOPENCL", 0, INT_MAX},
	{"STARPU_CALIBRATE", 0, INT_MAX},
	{"STARPU_SILENT", 0, INT_MAX},
	{"STARPU_PROFILING", 0, INT_MAX},
	{"STARPU_WORKERS_NOBIND", 0, INT_MAX},
	{"STARPU_LIMIT_CPU_MEM", 0, INT_MAX},
	{"STARPU_LIMIT_CUDA_MEM", 0, INT_MAX},
};

int tide_starpu_env_check(char *err, size_t n)
{
	for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
		const char *v = getenv(ints[i].name);
		if (!v || !*v) continue; /* unset or empty: StarPU's default */
		char *end;
		errno = 0;
		long x = strtol(v, &end, 10);
		if (!errno && *end == 0 && end != v && x >= ints[i].min && x <= ints[i].max) continue;
		if (ints[i].max == INT_MAX)
			snprintf(err, n, "the environment variable %s=%s is not allowed: StarPU needs an "
			         "integer >= %ld (or leave it unset for StarPU's default).", ints[i].name, v,
			         ints[i].min);
		else
			snprintf(err, n, "the environment variable %s=%s is not allowed: StarPU needs an "
			         "integer from %ld to %ld (or leave it unset for StarPU's default).",
			         ints[i].name, v, ints[i].min, ints[i].max);
		return -1;
	}
	return 0;
}

const char *tide_starpu_sched_unknown(char *known, size_t n)
{
	const char *s = getenv("STARPU_SCHED");
	known[0] = 0;
	struct starpu_sched_policy **p = starpu_sched_get_predefined_policies();
	size_t k = 0;
	int found = !s || !*s || !strcmp(s, "help"); /* help: StarPU prints the list itself */
	for (; p && *p; p++) {
		if (s && !strcmp(s, (*p)->policy_name)) found = 1;
		if (k < n) k += (size_t)snprintf(known + k, n - k, "%s%s", k ? " " : "", (*p)->policy_name);
	}
	return found ? NULL : s;
}
