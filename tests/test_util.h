/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the C tests share: a CHECK that counts failures and goes on, a private temporary
 * directory removed when every check passed (kept for inspection otherwise), and reading a
 * whole file.  Each test includes it once (static definitions). */
#ifndef TIDE_TEST_UTIL_H
#define TIDE_TEST_UTIL_H
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tide/case.h"
#include "case_load.h"

static int failures;

#define CHECK(cond, ...)                                                              \
	do {                                                                              \
		if (!(cond)) {                                                                \
			failures++;                                                               \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);          \
			fprintf(stderr, __VA_ARGS__);                                             \
			fputc('\n', stderr);                                                      \
		}                                                                             \
	} while (0)

static char tmpdir[256];

/* Creates $TMPDIR/tide_NAME.XXXXXX (or under /tmp) into tmpdir; 0, or -1 with a message. */
static inline int test_tmpdir_create(const char *name)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(tmpdir, sizeof tmpdir, "%s/tide_%s.XXXXXX", base, name);
	if (!mkdtemp(tmpdir)) {
		fprintf(stderr, "cannot create a temporary directory in %s: %s\n", base, strerror(errno));
		return -1;
	}
	printf("%s in %s\n", name, tmpdir);
	return 0;
}

/* tmpdir/name, in one of 8 rotating buffers (enough for the arguments of one call). */
static inline const char *tmp_path(const char *name)
{
	static char buf[8][320];
	static int k;
	char *p = buf[k++ % 8];
	snprintf(p, 320, "%s/%s", tmpdir, name);
	return p;
}

static inline int test_remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb; (void)flag; (void)ftw;
	return remove(path);
}

/* Prints the verdict and returns the exit status; removes tmpdir when everything passed. */
static inline int test_finish(const char *name)
{
	if (failures) {
		printf("%s: %d check(s) FAILED; files kept in %s\n", name, failures, tmpdir);
		return 1;
	}
	nftw(tmpdir, test_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	printf("%s: all checks passed\n", name);
	return 0;
}

/* tide_case_load with its message (if any) caught into err[n] instead of stderr. */
static inline int test_load_quiet(const char *path, tide_case *c, char *err, size_t n)
{
	char tmp[340];
	snprintf(tmp, sizeof tmp, "%s/stderr.txt", tmpdir);
	fflush(stderr);
	int keep = dup(2), fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	int rc = tide_case_load(path, 0, c);
	fflush(stderr);
	dup2(keep, 2);
	close(keep);
	FILE *f = fopen(tmp, "r");
	size_t k = f ? fread(err, 1, n - 1, f) : 0;
	err[k] = 0;
	if (f) fclose(f);
	return rc;
}

/* A hand-made case: water (rho0 1000, gamma 7), gravity -9.81 along z, h = coefh dp and
 * c0 = coefsound sqrt(9.81 * 0.5), as for still water 0.5 m deep. */
static inline tide_case test_make_case(int dim, double dp, double coefh, double coefsound, int kernel)
{
	tide_case c;
	memset(&c, 0, sizeof c);
	strcpy(c.name, "test");
	c.dim = dim;
	c.dp = dp;
	c.coefh = coefh;
	c.rho0 = 1000.0;
	c.gamma = 7.0;
	c.c0 = coefsound * sqrt(9.81 * 0.5);
	c.kernel = kernel;
	c.gravity[2] = -9.81;
	return c;
}

/* Writes text into tmpdir/name; returns the path (exits on failure). */
static inline const char *test_write_tmp(const char *name, const char *text)
{
	const char *p = tmp_path(name);
	FILE *f = fopen(p, "w");
	if (!f) { perror(p); exit(2); }
	fputs(text, f);
	fclose(f);
	return p;
}

/* Whole file in memory, NUL-terminated; *len (if not NULL) excludes the NUL.  NULL if unreadable. */
static inline char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
	fclose(f);
	if (buf) { buf[n] = 0; if (len) *len = (size_t)n; }
	return buf;
}

#endif
