// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef TIDE_SIMGRID
#include <starpu.h>
#endif
#include "log.h"

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
#ifdef TIDE_SIMGRID
	/* a simulation build: the simulated clock, which the tasks' modelled times advance */
	return starpu_timing_now() * 1e-6;
#endif
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

/* ---- run.log ---- */

/* Text held before the log's path is known (start-up messages, StarPU's): bounded, so that a
 * run refused late cannot have grown it without limit. */
#define HELD_MAX (4u << 20)

static pthread_mutex_t log_mx = PTHREAD_MUTEX_INITIALIZER; /* stdout's and stderr's writers */
static int keeping;          /* a copy is kept (held or written) */
static FILE *log_f;
static char *held;
static size_t held_n, held_cap, held_lost;
/* the '\r' rewriting: at a line's start; the last newline came from a '\r'; trailing spaces */
static int at_start = 1, soft_nl;
static size_t spaces;

static void put(char ch)
{
	if (log_f) {
		putc_unlocked(ch, log_f);
		return;
	}
	if (held_n == held_cap) {
		size_t cap = held_cap ? 2 * held_cap : 65536;
		char *p = cap <= HELD_MAX ? realloc(held, cap) : NULL;
		if (!p) {
			held_lost++;
			return;
		}
		held = p;
		held_cap = cap;
	}
	held[held_n++] = ch;
}

/* The copy of n bytes written to stdout or stderr.  A progress line rewritten in place
 * ("\rt = ...   ") becomes a line of its own, without the padding spaces. */
static void keep(const char *buf, size_t n)
{
	pthread_mutex_lock(&log_mx);
	if (keeping) {
		for (size_t i = 0; i < n; i++) {
			char ch = buf[i];
			if (ch == '\r') {
				if (!at_start) put('\n');
				soft_nl = !at_start || soft_nl;
				at_start = 1;
				spaces = 0;
			} else if (ch == '\n') {
				/* "\n" after an in-place line ends that line: it is ended already */
				if (!(soft_nl && at_start)) put('\n');
				at_start = 1;
				soft_nl = 0;
				spaces = 0;
			} else if (ch == ' ') {
				spaces++;
			} else {
				for (; spaces; spaces--) put(' ');
				put(ch);
				at_start = soft_nl = 0;
			}
		}
		if (log_f) fflush(log_f);
	}
	pthread_mutex_unlock(&log_mx);
}

/* Writes through to the file descriptor (1 or 2) the stream stood for, then keeps the copy.
 * A failed write to the terminal (closed, a full pipe) is not the run's failure: the text is
 * reported written. */
static ssize_t tee_write(void *cookie, const char *buf, size_t n)
{
	int fd = (int)(intptr_t)cookie;
	for (size_t done = 0; done < n;) {
		ssize_t w = write(fd, buf + done, n - done);
		if (w < 0 && errno == EINTR) continue;
		if (w <= 0) break;
		done += (size_t)w;
	}
	keep(buf, n);
	return (ssize_t)n;
}

void tide_log_capture(void)
{
	if (keeping) return;
	fflush(stdout);
	fflush(stderr);
	cookie_io_functions_t io = {.write = tee_write};
	FILE *o = fopencookie((void *)(intptr_t)1, "w", io);
	FILE *e = fopencookie((void *)(intptr_t)2, "w", io);
	if (!o || !e) {
		if (o) fclose(o);
		if (e) fclose(e);
		return; /* no run.log: the run itself does not need one */
	}
	setvbuf(o, NULL, _IOLBF, BUFSIZ);
	setvbuf(e, NULL, _IONBF, 0);
	/* glibc's stdout and stderr are variables: every later fprintf(stderr, ...), StarPU's too,
	 * goes through the copy */
	stdout = o;
	stderr = e;
	keeping = 1;
}

void tide_log_capture_stop(void)
{
	pthread_mutex_lock(&log_mx);
	keeping = 0;
	free(held);
	held = NULL;
	held_n = held_cap = held_lost = 0;
	pthread_mutex_unlock(&log_mx);
}

int tide_log_open(const char *path, int append, const char *header)
{
	fflush(stdout);
	fflush(stderr);
	FILE *f = fopen(path, append ? "a" : "w");
	if (!f) {
		fprintf(stderr, "tide: warning: cannot write %s (%s); the run goes on without it.\n", path,
		        tide_io_reason(errno));
		tide_log_capture_stop();
		return -1;
	}
	pthread_mutex_lock(&log_mx);
	struct stat sb;
	if (append && fstat(fileno(f), &sb) == 0 && sb.st_size > 0)
		fputc('\n', f); /* a blank line between a run and its restart */
	fputs(header, f);
	fwrite(held, 1, held_n, f);
	if (held_lost)
		fprintf(f, "[%zu bytes of the messages before this point were not kept]\n", held_lost);
	free(held);
	held = NULL;
	held_n = held_cap = held_lost = 0;
	log_f = f;
	fflush(f);
	pthread_mutex_unlock(&log_mx);
	return 0;
}

void tide_log_end(const char *line)
{
	fflush(stdout);
	fflush(stderr);
	pthread_mutex_lock(&log_mx);
	if (log_f) {
		if (!at_start) fputc('\n', log_f);
		fprintf(log_f, "%s\n", line);
		fclose(log_f);
		log_f = NULL;
	}
	keeping = 0;
	free(held);
	held = NULL;
	held_n = held_cap = held_lost = 0;
	pthread_mutex_unlock(&log_mx);
}

int tide_quiet_stderr(int quiet)
{
	if (!quiet) return -1;
	fflush(stderr);
	int saved = dup(2), null = open("/dev/null", O_WRONLY);
	if (null >= 0) { dup2(null, 2); close(null); }
	return saved;
}

void tide_restore_stderr(int saved)
{
	if (saved < 0) return;
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
}
