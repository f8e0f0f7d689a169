/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Messages to the user: errors always, progress unless --quiet, details with --verbose.  Only
 * rank 0 prints progress. */
#ifndef TIDE_LOG_H
#define TIDE_LOG_H
#include "tide/advice.h" /* TIDE_OOM_ADVICE */

extern int tide_verbosity; /* 0 quiet, 1 normal, 2 verbose */
extern int tide_log_rank;

void tide_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tide_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double tide_wtime(void); /* wall-clock seconds */

/* Why a file could not be written or created, for "tide: cannot write PATH: <reason>.": the
 * system's words, with what to do for the failures a user can fix (a full disk, a read-only
 * file system, no permission).  The text lives until the next call. */
const char *tide_io_reason(int err);

/* Errors that are the same on every rank (the same input): only rank 0 says them.  Returns the
 * saved stderr (-1 when not quiet), to give to tide_restore_stderr. */
int tide_quiet_stderr(int quiet);
void tide_restore_stderr(int saved);

/* ---- run.log: a copy of what a run printed ----
 * tide_log_capture replaces stdout and stderr by streams that write through to file
 * descriptors 1 and 2 as before and keep a copy of the text (StarPU's messages included), held
 * in memory until tide_log_open names the file.  In the copy a line updated in place on a
 * terminal ('\r') becomes one line per update.  The file is flushed after every write. */
void tide_log_capture(void);
/* Keeps no copy any more (drops what was held): ranks other than 0, runs that write no log. */
void tide_log_capture_stop(void);
/* Opens path (append: for a restart), writes header, then the text held so far.  0, or -1 with
 * a message (the run goes on without a log). */
int tide_log_open(const char *path, int append, const char *header);
/* Writes line as the log's last line (how the run ended) and closes it; nothing without a log. */
void tide_log_end(const char *line);

#endif
