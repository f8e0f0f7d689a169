// SPDX-License-Identifier: LGPL-2.1-or-later
// Mesh building (weld, checks, orientation, pseudonormals), the BVH and nearest-point queries.
// See include/tide/mesh_geometry.h for why the sign comes from pseudonormals.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mesh_geometry.h"

#define why_set tide_why_set

static void sub(const double *a, const double *b, double *r) { for (int k = 0; k < 3; k++) r[k] = a[k] - b[k]; }
static double dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void cross(const double *a, const double *b, double *r)
{
	r[0] = a[1] * b[2] - a[2] * b[1];
	r[1] = a[2] * b[0] - a[0] * b[2];
	r[2] = a[0] * b[1] - a[1] * b[0];
}
static void unit(double *a)
{
	double l = sqrt(dot(a, a));
	if (l > 0) for (int k = 0; k < 3; k++) a[k] /= l;
}

/* ---- welding: equal float coordinates are one vertex ----------------------------------------- */

static const float *weld_v;
static int cmp_vertex(const void *pa, const void *pb)
{
	const float *a = weld_v + 3 * (size_t)*(const uint32_t *)pa, *b = weld_v + 3 * (size_t)*(const uint32_t *)pb;
	for (int k = 0; k < 3; k++)
		if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
	return 0;
}

static int weld(const tide_stl *s, tide_mesh *m)
{
	size_t nc = 3 * s->nt;
	uint32_t *idx = malloc(nc * sizeof *idx);
	m->t = malloc(nc * sizeof *m->t);
	m->v = malloc(nc * 3 * sizeof *m->v);
	if (!idx || !m->t || !m->v) { free(idx); return -1; }
	for (size_t i = 0; i < nc; i++) idx[i] = (uint32_t)i;
	weld_v = s->v;   /* qsort has no context argument; the build is single-threaded */
	qsort(idx, nc, sizeof *idx, cmp_vertex);
	size_t nv = 0;
	for (size_t i = 0; i < nc; i++) {
		if (i == 0 || cmp_vertex(&idx[i - 1], &idx[i])) {
			for (int k = 0; k < 3; k++) m->v[3 * nv + k] = s->v[3 * (size_t)idx[i] + k];
			nv++;
		}
		m->t[idx[i]] = (uint32_t)(nv - 1);
	}
	m->nv = nv;
	free(idx);
	return 0;
}

/* ---- placement -------------------------------------------------------------------------------- */

static void place(tide_mesh *m, const tide_xform *x)
{
	double R[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
	for (int a = 0; a < 3; a++) {   /* R = Rz Ry Rx: left-multiply by the rotation about x, y, z */
		double th = x->rotate[a] * M_PI / 180.0, c = cos(th), s = sin(th), Q[3][3] = {{0}}, T[3][3];
		int i = (a + 1) % 3, j = (a + 2) % 3;
		Q[a][a] = 1;
		Q[i][i] = c; Q[i][j] = -s;
		Q[j][i] = s; Q[j][j] = c;
		for (int r = 0; r < 3; r++)
			for (int q = 0; q < 3; q++) T[r][q] = Q[r][0] * R[0][q] + Q[r][1] * R[1][q] + Q[r][2] * R[2][q];
		memcpy(R, T, sizeof R);
	}
	for (size_t i = 0; i < m->nv; i++) {
		double p[3], *v = m->v + 3 * i;
		for (int k = 0; k < 3; k++) p[k] = x->scale * v[k];
		for (int k = 0; k < 3; k++) v[k] = R[k][0] * p[0] + R[k][1] * p[1] + R[k][2] * p[2] + x->translate[k];
	}
}

/* ---- edges: closure and orientation ---------------------------------------------------------- */

typedef struct edge { uint32_t a, b, tri, k; } edge;   /* a < b; k: the triangle's edge slot */
static int cmp_edge(const void *pa, const void *pb)
{
	const edge *x = pa, *y = pb;
	if (x->a != y->a) return x->a < y->a ? -1 : 1;
	if (x->b != y->b) return x->b < y->b ? -1 : 1;
	return 0;
}

static int forward(const tide_mesh *m, const edge *e)   /* 1: the triangle runs a -> b */
{
	return m->t[3 * e->tri + e->k] == e->a;
}

/* Edge pseudonormals (and checks).  Returns 0, -1 (why), -2 (out of memory). */
static int edges(tide_mesh *m, int need_closed, char *why, size_t wn)
{
	size_t ne = 3 * m->nt;
	edge *e = malloc(ne * sizeof *e);
	if (!e) return -2;
	for (size_t t = 0; t < m->nt; t++)
		for (uint32_t k = 0; k < 3; k++) {
			uint32_t a = m->t[3 * t + k], b = m->t[3 * t + (k + 1) % 3];
			e[3 * t + k] = (edge){a < b ? a : b, a < b ? b : a, (uint32_t)t, k};
		}
	qsort(e, ne, sizeof *e, cmp_edge);
	int rc = 0;
	m->open_edges = 0;
	for (size_t i = 0; i < ne && !rc;) {
		size_t j = i;
		while (j < ne && !cmp_edge(&e[i], &e[j])) j++;
		const double *A = m->v + 3 * (size_t)e[i].a;
		if (j - i > 2)
			rc = why_set(why, wn, "is not a manifold surface: the edge at (%g, %g, %g) is shared by %zu "
			             "triangles (at most 2 allowed)", A[0], A[1], A[2], j - i);
		else if (j - i == 2 && forward(m, &e[i]) == forward(m, &e[i + 1]))
			rc = why_set(why, wn, "has triangles of opposite orientation side by side (at the edge at "
			             "(%g, %g, %g), triangles %u and %u); allowed: every triangle counter-clockwise "
			             "seen from outside", A[0], A[1], A[2], e[i].tri + 1, e[i + 1].tri + 1);
		double n[3];
		for (int k = 0; k < 3; k++) n[k] = m->fn[3 * (size_t)e[i].tri + k] + (j - i == 2 ? m->fn[3 * (size_t)e[i + 1].tri + k] : 0);
		if (j - i == 1) m->open_edges++;
		unit(n);
		for (size_t q = i; q < j; q++) memcpy(m->en + 9 * (size_t)e[q].tri + 3 * e[q].k, n, sizeof n);
		i = j;
	}
	if (!rc && need_closed && m->open_edges)
		rc = why_set(why, wn, "is not closed: %zu edges belong to one triangle only (every edge of a "
		             "closed surface belongs to exactly 2)", m->open_edges);
	free(e);
	return rc;
}

/* Face normals and areas; zero-area triangles refused (relative to the mesh size). */
static int faces(tide_mesh *m, char *why, size_t wn)
{
	double L2 = 0;
	for (int k = 0; k < 3; k++) L2 += (m->hi[k] - m->lo[k]) * (m->hi[k] - m->lo[k]);
	m->area = 0;
	for (size_t t = 0; t < m->nt; t++) {
		const uint32_t *T = m->t + 3 * t;
		double e1[3], e2[3], *n = m->fn + 3 * t;
		sub(m->v + 3 * (size_t)T[1], m->v + 3 * (size_t)T[0], e1);
		sub(m->v + 3 * (size_t)T[2], m->v + 3 * (size_t)T[0], e2);
		cross(e1, e2, n);
		double a2 = sqrt(dot(n, n));
		if (!(a2 > 1e-12 * L2)) {
			const double *A = m->v + 3 * (size_t)T[0];
			return why_set(why, wn, "has a degenerate (zero-area) triangle: triangle %zu, at (%g, %g, %g)",
			               t + 1, A[0], A[1], A[2]);
		}
		m->area += 0.5 * a2;
		unit(n);
	}
	return 0;
}

static double volume(const tide_mesh *m)
{
	double V = 0;
	for (size_t t = 0; t < m->nt; t++) {
		double c[3];
		cross(m->v + 3 * (size_t)m->t[3 * t + 1], m->v + 3 * (size_t)m->t[3 * t + 2], c);
		V += dot(m->v + 3 * (size_t)m->t[3 * t], c) / 6;
	}
	return V;
}

/* Angle-weighted vertex normals. */
static void vertex_normals(tide_mesh *m)
{
	memset(m->vn, 0, 3 * m->nv * sizeof *m->vn);
	for (size_t t = 0; t < m->nt; t++)
		for (int k = 0; k < 3; k++) {
			const double *o = m->v + 3 * (size_t)m->t[3 * t + k];
			double e1[3], e2[3], c[3];
			sub(m->v + 3 * (size_t)m->t[3 * t + (k + 1) % 3], o, e1);
			sub(m->v + 3 * (size_t)m->t[3 * t + (k + 2) % 3], o, e2);
			cross(e1, e2, c);
			double ang = atan2(sqrt(dot(c, c)), dot(e1, e2));
			for (int a = 0; a < 3; a++) m->vn[3 * (size_t)m->t[3 * t + k] + a] += ang * m->fn[3 * t + a];
		}
	for (size_t i = 0; i < m->nv; i++) unit(m->vn + 3 * i);
}

/* ---- BVH: median split of the centroids along the longest axis ------------------------------- */

static const tide_mesh *bvh_m;
static int bvh_axis;
static double centroid(const tide_mesh *m, uint32_t t, int a)
{
	return (m->v[3 * (size_t)m->t[3 * t] + a] + m->v[3 * (size_t)m->t[3 * t + 1] + a] +
	        m->v[3 * (size_t)m->t[3 * t + 2] + a]) / 3;
}
static int cmp_centroid(const void *pa, const void *pb)
{
	double a = centroid(bvh_m, *(const uint32_t *)pa, bvh_axis), b = centroid(bvh_m, *(const uint32_t *)pb, bvh_axis);
	return a < b ? -1 : a > b;
}

static void bvh_build(tide_mesh *m, size_t *nn, size_t node, uint32_t first, uint32_t count)
{
	tide_bvh_node *N = &m->node[node];
	for (int a = 0; a < 3; a++) { N->lo[a] = INFINITY; N->hi[a] = -INFINITY; }
	for (uint32_t i = first; i < first + count; i++)
		for (int k = 0; k < 3; k++)
			for (int a = 0; a < 3; a++) {
				double x = m->v[3 * (size_t)m->t[3 * (size_t)m->order[i] + k] + a];
				N->lo[a] = fmin(N->lo[a], x);
				N->hi[a] = fmax(N->hi[a], x);
			}
	if (count <= 4) { N->first = first; N->count = count; return; }
	int ax = 0;
	for (int a = 1; a < 3; a++)
		if (N->hi[a] - N->lo[a] > N->hi[ax] - N->lo[ax]) ax = a;
	bvh_m = m;
	bvh_axis = ax;
	qsort(m->order + first, count, sizeof *m->order, cmp_centroid);
	size_t c = *nn;
	*nn += 2;
	N->first = (uint32_t)c;
	N->count = 0;
	bvh_build(m, nn, c, first, count / 2);
	bvh_build(m, nn, c + 1, first + count / 2, count - count / 2);
}

int tide_mesh_make(const tide_stl *s, const tide_xform *x, int need_closed, tide_mesh *m,
                   char *why, size_t wn)
{
	memset(m, 0, sizeof *m);
	m->nt = s->nt;
	if (weld(s, m)) goto oom;
	place(m, x);
	for (int a = 0; a < 3; a++) { m->lo[a] = INFINITY; m->hi[a] = -INFINITY; }
	for (size_t i = 0; i < m->nv; i++)
		for (int a = 0; a < 3; a++) {
			m->lo[a] = fmin(m->lo[a], m->v[3 * i + a]);
			m->hi[a] = fmax(m->hi[a], m->v[3 * i + a]);
		}
	m->fn = malloc(3 * m->nt * sizeof *m->fn);
	m->en = malloc(9 * m->nt * sizeof *m->en);
	m->vn = malloc(3 * m->nv * sizeof *m->vn);
	m->node = malloc(2 * m->nt * sizeof *m->node);
	m->order = malloc(m->nt * sizeof *m->order);
	if (!m->fn || !m->en || !m->vn || !m->node || !m->order) goto oom;
	if (faces(m, why, wn)) goto bad;
	int rc = edges(m, need_closed, why, wn);
	if (rc == -2) goto oom;
	if (rc) goto bad;
	if (!m->open_edges && volume(m) < 0) {   /* inside out: turn every triangle over */
		for (size_t t = 0; t < m->nt; t++) {
			uint32_t q = m->t[3 * t + 1];
			m->t[3 * t + 1] = m->t[3 * t + 2];
			m->t[3 * t + 2] = q;
		}
		if (faces(m, why, wn) || edges(m, need_closed, why, wn)) goto bad;
	}
	m->volume = m->open_edges ? 0 : volume(m);
	vertex_normals(m);
	for (uint32_t t = 0; t < m->nt; t++) m->order[t] = t;
	size_t nn = 1;
	bvh_build(m, &nn, 0, 0, (uint32_t)m->nt);
	return 0;
oom:
	why_set(why, wn, "needs more host memory than is free (%zu triangles)", s->nt);
bad:
	tide_mesh_free(m);
	return -1;
}

void tide_mesh_free(tide_mesh *m)
{
	free(m->v); free(m->t); free(m->fn); free(m->en); free(m->vn); free(m->node); free(m->order);
	memset(m, 0, sizeof *m);
}

/* ---- queries ---------------------------------------------------------------------------------- */

/* Nearest point of triangle abc to p (Ericson, Real-Time Collision Detection, 5.1.5) and its
 * feature: 0 the face, 1 + k edge k (from vertex k to k+1), 4 + k vertex k. */
static int closest_on_triangle(const double *p, const double *a, const double *b, const double *c,
                               double *q)
{
	double ab[3], ac[3], ap[3], bp[3], cp[3];
	sub(b, a, ab); sub(c, a, ac); sub(p, a, ap);
	double d1 = dot(ab, ap), d2 = dot(ac, ap);
	if (d1 <= 0 && d2 <= 0) { memcpy(q, a, 3 * sizeof *q); return 4; }
	sub(p, b, bp);
	double d3 = dot(ab, bp), d4 = dot(ac, bp);
	if (d3 >= 0 && d4 <= d3) { memcpy(q, b, 3 * sizeof *q); return 5; }
	double vc = d1 * d4 - d3 * d2;
	if (vc <= 0 && d1 >= 0 && d3 <= 0) {
		double v = d1 / (d1 - d3);
		for (int k = 0; k < 3; k++) q[k] = a[k] + v * ab[k];
		return 1;
	}
	sub(p, c, cp);
	double d5 = dot(ab, cp), d6 = dot(ac, cp);
	if (d6 >= 0 && d5 <= d6) { memcpy(q, c, 3 * sizeof *q); return 6; }
	double vb = d5 * d2 - d1 * d6;
	if (vb <= 0 && d2 >= 0 && d6 <= 0) {
		double w = d2 / (d2 - d6);
		for (int k = 0; k < 3; k++) q[k] = a[k] + w * ac[k];
		return 3;
	}
	double va = d3 * d6 - d5 * d4;
	if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
		double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
		for (int k = 0; k < 3; k++) q[k] = b[k] + w * (c[k] - b[k]);
		return 2;
	}
	double den = 1 / (va + vb + vc), v = vb * den, w = vc * den;
	for (int k = 0; k < 3; k++) q[k] = a[k] + ab[k] * v + ac[k] * w;
	return 0;
}

static double box_d2(const tide_bvh_node *N, const double *p)
{
	double d2 = 0;
	for (int a = 0; a < 3; a++) {
		double d = p[a] < N->lo[a] ? N->lo[a] - p[a] : p[a] > N->hi[a] ? p[a] - N->hi[a] : 0;
		d2 += d * d;
	}
	return d2;
}

int tide_mesh_nearest(const tide_mesh *m, const double *p, double rmax, const unsigned char *mask,
                      tide_mesh_hit *h)
{
	double best = isfinite(rmax) ? rmax * rmax : INFINITY, q[3];
	int feat = -1;
	uint32_t stack[128];
	int top = 0;
	if (!m->nt) return 0;
	stack[top++] = 0;
	while (top) {
		const tide_bvh_node *N = &m->node[stack[--top]];
		if (box_d2(N, p) >= best) continue;
		if (N->count) {
			for (uint32_t i = N->first; i < N->first + N->count; i++) {
				uint32_t t = m->order[i];
				if (mask && !mask[t]) continue;
				const uint32_t *T = m->t + 3 * (size_t)t;
				int f = closest_on_triangle(p, m->v + 3 * (size_t)T[0], m->v + 3 * (size_t)T[1],
				                            m->v + 3 * (size_t)T[2], q);
				double d[3];
				sub(p, q, d);
				double d2 = dot(d, d);
				if (d2 < best) {
					best = d2;
					feat = f;
					h->tri = t;
					memcpy(h->c, q, sizeof q);
				}
			}
			continue;
		}
		/* the nearer child last, so that it is searched first */
		uint32_t a = N->first, b = N->first + 1;
		if (box_d2(&m->node[a], p) < box_d2(&m->node[b], p)) { uint32_t s = a; a = b; b = s; }
		if (top + 2 <= 128) { stack[top++] = a; stack[top++] = b; }
	}
	if (feat < 0) return 0;
	const double *n = feat == 0 ? m->fn + 3 * (size_t)h->tri
	                : feat < 4 ? m->en + 9 * (size_t)h->tri + 3 * (feat - 1)
	                           : m->vn + 3 * (size_t)m->t[3 * (size_t)h->tri + feat - 4];
	double d[3];
	sub(p, h->c, d);
	h->d = sqrt(best);
	h->sd = dot(d, n) < 0 ? -h->d : h->d;
	return 1;
}

/* Separating axis test of triangle v (relative to the cube's centre) against the cube of half
 * side h (Akenine-Moeller 2001): the 3 box axes, the triangle's normal, the 9 edge x axis
 * crosses.  An axis of zero length (an edge along a box axis) separates nothing. */
static int triangle_meets_cube(const double v[3][3], double h)
{
	double e[3][3], axis[13][3];
	int na = 0;
	for (int k = 0; k < 3; k++) sub(v[(k + 1) % 3], v[k], e[k]);
	for (int a = 0; a < 3; a++) {
		double u[3] = {0, 0, 0};
		u[a] = 1;
		memcpy(axis[na++], u, sizeof u);
		for (int k = 0; k < 3; k++) cross(e[k], u, axis[na++]);
	}
	cross(e[0], e[1], axis[na++]);
	for (int i = 0; i < na; i++) {
		const double *A = axis[i];
		double lo = INFINITY, hi = -INFINITY, r = h * (fabs(A[0]) + fabs(A[1]) + fabs(A[2]));
		for (int k = 0; k < 3; k++) {
			double d = dot(v[k], A);
			lo = fmin(lo, d);
			hi = fmax(hi, d);
		}
		if (lo > r || hi < -r) return 0;
	}
	return 1;
}

int tide_mesh_cube_meets(const tide_mesh *m, const double *p, double h, const unsigned char *mask)
{
	uint32_t stack[128];
	int top = 0;
	if (!m->nt) return 0;
	stack[top++] = 0;
	while (top) {
		const tide_bvh_node *N = &m->node[stack[--top]];
		int apart = 0;
		for (int a = 0; a < 3; a++) apart |= N->lo[a] > p[a] + h || N->hi[a] < p[a] - h;
		if (apart) continue;
		if (!N->count) {
			if (top + 2 <= 128) { stack[top++] = N->first; stack[top++] = N->first + 1; }
			continue;
		}
		for (uint32_t i = N->first; i < N->first + N->count; i++) {
			uint32_t t = m->order[i];
			if (mask && !mask[t]) continue;
			double v[3][3];
			for (int k = 0; k < 3; k++) sub(m->v + 3 * (size_t)m->t[3 * (size_t)t + k], p, v[k]);
			if (triangle_meets_cube(v, h)) return 1;
		}
	}
	return 0;
}

double tide_mesh_signed_distance(const tide_mesh *m, const double *p)
{
	tide_mesh_hit h;
	return tide_mesh_nearest(m, p, INFINITY, NULL, &h) ? h.sd : INFINITY;
}
