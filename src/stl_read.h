/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* STL triangle soups, binary or ASCII.  A binary file is recognised by its size (84 + 50 n bytes
 * for the n triangles its header announces), not by its first bytes: many exporters write
 * "solid" at the start of binary headers too. */
#ifndef TIDE_STL_READ_H
#define TIDE_STL_READ_H
#include <stddef.h>

typedef struct tide_stl {
	size_t nt;        /* triangles */
	float *v;         /* 9 floats per triangle: 3 vertices x (x, y, z), in file order */
	int binary;       /* 1: the file was binary */
} tide_stl;

/* Reads path into m.  Returns 0, or -1 with why[] (one clause, no file name, e.g. "is truncated:
 * 1234 bytes, but its header announces 40 triangles, 2084 bytes") filled in. */
int tide_stl_read(const char *path, tide_stl *m, char *why, size_t whylen);
void tide_stl_free(tide_stl *m);

/* Fills why[] with a clause (printf format) for a caller's sentence; returns -1. */
int tide_why_set(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Writes a triangle soup (for tools and tests): binary != 0 binary, else ASCII.  0 or -1. */
int tide_stl_write(const char *path, const float *v, size_t nt, int binary);

#endif
