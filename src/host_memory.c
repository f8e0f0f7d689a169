// SPDX-License-Identifier: LGPL-2.1-or-later
// Main memory left for a run (src/host_memory.h).
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "host_memory.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

double tide_host_memory_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	if (f) {
		char line[256];
		double kib = -1;
		while (fgets(line, sizeof line, f))
			if (sscanf(line, "MemAvailable: %lf kB", &kib) == 1) break;
		fclose(f);
		if (kib >= 0) return kib * 1024.0;
	}
	long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	return pages > 0 && size > 0 ? (double)pages * (double)size : -1;
}

int tide_host_memory_check(const char *prefix, double bytes, const char *what, const char *advice)
{
	if (getenv("TIDE_TEST_SKIP_MEMORY_CHECK")) return 0; /* lets a test reach the allocator */
	double avail = tide_host_memory_available();
	if (avail < 0 || bytes <= avail) return 0;
	fprintf(stderr, "%s needs at least %.1f GiB of host memory (%s), but only %.1f GiB are "
	        "available on this machine; %s.\n", prefix, bytes / GIB, what, avail / GIB, advice);
	return -1;
}
