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

#endif
