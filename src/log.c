// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include "tide/log.h"

int tide_verbosity = 1;
int tide_log_rank = 0;

static void vsay(int level, const char *fmt, va_list ap)
{
	if (tide_verbosity < level || tide_log_rank != 0) return;
	vfprintf(stdout, fmt, ap);
	fflush(stdout);
}

void tide_info(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay(1, fmt, ap);
	va_end(ap);
}

void tide_debug(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay(2, fmt, ap);
	va_end(ap);
}

double tide_wtime(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
