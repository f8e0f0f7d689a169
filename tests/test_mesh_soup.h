/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Triangle soups for the mesh tests (test_geometry, test_mesh_mass): boxes with their faces cut
 * into quads, outward.  Static definitions: include once per test. */
#ifndef TIDE_TEST_MESH_SOUP_H
#define TIDE_TEST_MESH_SOUP_H
#include <stdlib.h>

typedef struct soup { size_t n, cap; float *v; } soup;

static void add_tri(soup *s, const double *a, const double *b, const double *c)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = realloc(s->v, s->cap * 9 * sizeof(float));
	}
	const double *p[3] = {a, b, c};
	for (int k = 0; k < 3; k++)
		for (int a2 = 0; a2 < 3; a2++) s->v[9 * s->n + 3 * k + a2] = (float)p[k][a2];
	s->n++;
}

/* Box [lo, hi], faces cut into n x n quads, counter-clockwise seen from outside. */
static void box_soup(soup *s, const double *lo, const double *hi, int n)
{
	for (int a = 0; a < 3; a++)
		for (int side = 0; side < 2; side++) {
			int b = (a + 1) % 3, c = (a + 2) % 3;
			for (int i = 0; i < n; i++)
				for (int j = 0; j < n; j++) {
					double q[4][3];
					int di[4] = {0, 1, 1, 0}, dj[4] = {0, 0, 1, 1};
					for (int k = 0; k < 4; k++) {
						q[k][a] = side ? hi[a] : lo[a];
						q[k][b] = lo[b] + (hi[b] - lo[b]) * (i + di[k]) / n;
						q[k][c] = lo[c] + (hi[c] - lo[c]) * (j + dj[k]) / n;
					}
					/* (b, c) order is counter-clockwise about +a: reversed on the lo side */
					if (side) { add_tri(s, q[0], q[1], q[2]); add_tri(s, q[0], q[2], q[3]); }
					else { add_tri(s, q[0], q[2], q[1]); add_tri(s, q[0], q[3], q[2]); }
				}
		}
}

#endif
