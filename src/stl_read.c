// SPDX-License-Identifier: LGPL-2.1-or-later
// STL reader (binary and ASCII) and a small writer for tests.  Errors are one clause for the
// caller's sentence, which names the case file, the key and the STL file.
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stl_read.h"

#define why_set tide_why_set

int tide_why_set(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return -1;
}

static uint32_t le32(const unsigned char *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static float lef(const unsigned char *b)
{
	uint32_t u = le32(b);
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

static int read_binary(const unsigned char *buf, tide_stl *m, char *why, size_t wn)
{
	size_t n = le32(buf + 80);
	m->v = malloc((n ? n : 1) * 9 * sizeof(float));
	if (!m->v) return why_set(why, wn, "needs more host memory than is free (%zu triangles)", n);
	for (size_t t = 0; t < n; t++) {
		const unsigned char *r = buf + 84 + 50 * t + 12;   /* skip the facet normal */
		for (int k = 0; k < 9; k++) m->v[9 * t + k] = lef(r + 4 * k);
	}
	m->nt = n;
	m->binary = 1;
	return 0;
}

/* ASCII: solid NAME / facet normal nx ny nz / outer loop / vertex x y z (3) / endloop /
 * endfacet / ... / endsolid NAME.  Several solids in one file are one mesh. */
struct lexer { const char *p, *end; int line; };

/* The next whitespace-separated word into w (at most 63 characters); 0 at the end of the file. */
static int word(struct lexer *L, char *w, int *line)
{
	while (L->p < L->end && isspace((unsigned char)*L->p)) {
		if (*L->p == '\n') L->line++;
		L->p++;
	}
	if (L->p >= L->end) return 0;
	size_t k = 0;
	while (L->p < L->end && !isspace((unsigned char)*L->p)) {
		if (k < 63) w[k++] = *L->p;
		L->p++;
	}
	w[k] = 0;
	*line = L->line;
	return 1;
}

/* Skips the rest of the line (the solid's name, which may hold spaces). */
static void rest_of_line(struct lexer *L)
{
	while (L->p < L->end && *L->p != '\n') L->p++;
}

static int expect(struct lexer *L, const char *want, char *why, size_t wn)
{
	char w[64];
	int line = L->line;
	if (!word(L, w, &line))
		return why_set(why, wn, "ends at line %d where '%s' was expected (a truncated file)", line, want);
	if (strcmp(w, want))
		return why_set(why, wn, "has bad ASCII STL syntax at line %d: '%s' where '%s' was expected",
		               line, w, want);
	return 0;
}

static int number(struct lexer *L, float *f, char *why, size_t wn)
{
	char w[64], *e;
	int line = L->line;
	if (!word(L, w, &line))
		return why_set(why, wn, "ends at line %d where a number was expected (a truncated file)", line);
	errno = 0;
	double d = strtod(w, &e);
	if (*e || e == w)
		return why_set(why, wn, "has bad ASCII STL syntax at line %d: '%s' is not a number", line, w);
	*f = (float)d;
	return 0;
}

static int read_ascii(const char *buf, size_t size, tide_stl *m, char *why, size_t wn)
{
	struct lexer L = {buf, buf + size, 1};
	size_t cap = 1024;
	char w[64];
	int line = 1, solids = 0;
	m->v = malloc(cap * 9 * sizeof(float));
	if (!m->v) return why_set(why, wn, "needs more host memory than is free");
	while (word(&L, w, &line)) {
		if (strcmp(w, "solid"))
			return why_set(why, wn, "has bad ASCII STL syntax at line %d: '%s' where 'solid' was "
			               "expected", line, w);
		rest_of_line(&L);
		solids++;
		for (;;) {
			if (!word(&L, w, &line))
				return why_set(why, wn, "ends at line %d inside a solid, without 'endsolid' (a "
				               "truncated file)", L.line);
			if (!strcmp(w, "endsolid")) { rest_of_line(&L); break; }
			if (strcmp(w, "facet"))
				return why_set(why, wn, "has bad ASCII STL syntax at line %d: '%s' where 'facet' or "
				               "'endsolid' was expected", line, w);
			float nrm;
			if (expect(&L, "normal", why, wn)) return -1;
			for (int k = 0; k < 3; k++)
				if (number(&L, &nrm, why, wn)) return -1;
			if (expect(&L, "outer", why, wn) || expect(&L, "loop", why, wn)) return -1;
			if (m->nt == cap) {
				float *q = realloc(m->v, 2 * cap * 9 * sizeof(float));
				if (!q) return why_set(why, wn, "needs more host memory than is free");
				m->v = q;
				cap *= 2;
			}
			for (int k = 0; k < 3; k++) {
				if (expect(&L, "vertex", why, wn)) return -1;
				for (int a = 0; a < 3; a++)
					if (number(&L, &m->v[9 * m->nt + 3 * k + a], why, wn)) return -1;
			}
			if (expect(&L, "endloop", why, wn) || expect(&L, "endfacet", why, wn)) return -1;
			m->nt++;
		}
	}
	if (!solids) return why_set(why, wn, "holds no 'solid'");
	return 0;
}

/* Binary when the size is exactly the one the header announces; ASCII when it starts with
 * "solid" (after blanks) and is not such a binary; else a binary file of the wrong size. */
static int parse(const unsigned char *buf, size_t size, tide_stl *m, char *why, size_t wn)
{
	if (size == 0) return why_set(why, wn, "is empty");
	if (size >= 84 && 84 + 50 * (uint64_t)le32(buf + 80) == size) return read_binary(buf, m, why, wn);
	size_t i = 0;
	while (i < size && isspace(buf[i])) i++;
	if (size - i >= 5 && !memcmp(buf + i, "solid", 5) && (size - i == 5 || isspace(buf[i + 5]))) {
		/* an ASCII file holds text only: a NUL byte means a binary file of the wrong size */
		if (!memchr(buf, 0, size)) return read_ascii((const char *)buf, size, m, why, wn);
	}
	if (size < 84)
		return why_set(why, wn, "is truncated or not STL: %zu bytes, less than the 84 of a binary "
		               "STL header, and not ASCII STL ('solid ...')", size);
	return why_set(why, wn, "is truncated or not STL: %zu bytes, but its binary header announces "
	               "%u triangles, %llu bytes (84 + 50 per triangle)", size, le32(buf + 80),
	               (unsigned long long)(84 + 50 * (uint64_t)le32(buf + 80)));
}

int tide_stl_read(const char *path, tide_stl *m, char *why, size_t wn)
{
	memset(m, 0, sizeof *m);
	FILE *f = fopen(path, "rb");
	if (!f) return why_set(why, wn, "cannot be opened: %s", strerror(errno));
	unsigned char *buf = NULL;
	size_t size = 0, cap = 0;
	int rc = 0;
	for (;;) {
		if (size == cap) {
			cap = cap ? 2 * cap : 65536;
			unsigned char *q = realloc(buf, cap);
			if (!q) { rc = why_set(why, wn, "needs more host memory than is free"); break; }
			buf = q;
		}
		size_t got = fread(buf + size, 1, cap - size, f);
		size += got;
		if (got == 0) {
			if (ferror(f)) rc = why_set(why, wn, "cannot be read: %s", strerror(errno ? errno : EIO));
			break;
		}
	}
	fclose(f);
	if (!rc) rc = parse(buf, size, m, why, wn);
	free(buf);
	if (!rc && m->nt == 0) rc = why_set(why, wn, "holds no triangles");
	for (size_t k = 0; !rc && k < 9 * m->nt; k++)
		if (!isfinite(m->v[k]))
			rc = why_set(why, wn, "has a coordinate that is not a finite number (%g) in triangle %zu",
			             (double)m->v[k], k / 9 + 1);
	if (rc) tide_stl_free(m);
	return rc;
}

void tide_stl_free(tide_stl *m)
{
	free(m->v);
	memset(m, 0, sizeof *m);
}

static void put_le32(unsigned char *b, uint32_t u)
{
	for (int k = 0; k < 4; k++) b[k] = (unsigned char)(u >> 8 * k);
}

int tide_stl_write(const char *path, const float *v, size_t nt, int binary)
{
	FILE *f = fopen(path, "wb");
	if (!f) return -1;
	if (binary) {
		/* "solid" in the header on purpose: readers must not take it for ASCII */
		unsigned char h[84] = "solid tide binary STL";
		put_le32(h + 80, (uint32_t)nt);
		fwrite(h, 1, 84, f);
		for (size_t t = 0; t < nt; t++) {
			unsigned char r[50] = {0};
			for (int k = 0; k < 9; k++) {
				uint32_t u;
				memcpy(&u, &v[9 * t + k], 4);
				put_le32(r + 12 + 4 * k, u);
			}
			fwrite(r, 1, 50, f);
		}
	} else {
		fprintf(f, "solid tide\n");
		for (size_t t = 0; t < nt; t++) {
			fprintf(f, "  facet normal 0 0 0\n    outer loop\n");
			for (int k = 0; k < 3; k++)
				fprintf(f, "      vertex %.9g %.9g %.9g\n", (double)v[9 * t + 3 * k],
				        (double)v[9 * t + 3 * k + 1], (double)v[9 * t + 3 * k + 2]);
			fprintf(f, "    endloop\n  endfacet\n");
		}
		fprintf(f, "endsolid tide\n");
	}
	return fclose(f) ? -1 : 0;
}
