// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
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

const char *tide_io_reason(int err)
{
	static char buf[256];
	const char *what = strerror(err ? err : EIO), *advice = NULL;
	switch (err) {
	case ENOSPC:
#ifdef EDQUOT
	case EDQUOT:
#endif
		advice = "the disk is full; free some space or write to another directory";
		break;
	case EROFS: advice = "the file system is read-only; write to another directory"; break;
	case EACCES:
	case EPERM:
		advice = "permission denied; write to another directory or change its permissions";
		break;
	case ENOTDIR: advice = "a part of the path is a file, not a directory"; break;
	default: break;
	}
	if (advice) snprintf(buf, sizeof buf, "%s (%s)", advice, what);
	else snprintf(buf, sizeof buf, "%s", what);
	return buf;
}
