/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Main memory left for a run (src/host_memory.c): checked against an estimate before a large
 * allocation, so that a run too big for the machine is refused at once with how much it needs,
 * instead of crashing on a failed allocation or being killed by the kernel after minutes. */
#ifndef TIDE_HOST_MEMORY_H
#define TIDE_HOST_MEMORY_H

/* Bytes new allocations can still get: MemAvailable of /proc/meminfo (free memory plus what the
 * kernel can reclaim), else the free pages; -1 when unknown. */
double tide_host_memory_available(void);

/* 0 when `bytes` fit in what is available (or that is unknown, or TIDE_TEST_SKIP_MEMORY_CHECK
 * is set: a test hook to reach the allocation failures); otherwise prints "PREFIX needs
 * at least X GiB of host memory (WHAT), but only Y GiB are available; ADVICE." and returns -1. */
int tide_host_memory_check(const char *prefix, double bytes, const char *what, const char *advice);
#endif
