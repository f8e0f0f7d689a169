/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Messages to the user: errors always, progress unless --quiet, details with --verbose.  Only
 * rank 0 prints progress. */
#ifndef TIDE_LOG_H
#define TIDE_LOG_H

extern int tide_verbosity; /* 0 quiet, 1 normal, 2 verbose */
extern int tide_log_rank;

void tide_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tide_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double tide_wtime(void); /* wall-clock seconds */

/* Why a file could not be written or created, for "tide: cannot write PATH: <reason>.": the
 * system's words, with what to do for the failures a user can fix (a full disk, a read-only
 * file system, no permission).  The text lives until the next call. */
const char *tide_io_reason(int err);

/* What to do when the host runs out of memory, appended to "tide: out of host memory for ..." */
#define TIDE_OOM_ADVICE "; use a larger --dp (fewer particles), or more memory (more MPI ranks " \
	"on more nodes)"

#endif
