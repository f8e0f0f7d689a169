// SPDX-License-Identifier: LGPL-2.1-or-later
// STL geometry: readers (binary, ASCII, a binary header starting with "solid"), the inside test
// and signed distances against analytic boxes and spheres (lattice points on vertices, edges and
// faces included), an STL cube against the equal box obstacle and fluid box (identical
// particles), normals, spheric2_stl against spheric2, and the error sentences of bad meshes.
// Usage: test_geometry [SOURCE_DIR]
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tide/case.h"
#include "case_load.h"
#include "mesh_geometry.h"
#include "stl_read.h"
#include "test_util.h"
#include "test_mesh_soup.h"

static char errbuf[4096];

/* ---- meshes ------------------------------------------------------------------------------------ */

/* Unit icosphere subdivided `level` times, scaled to radius r about c. */
static void sphere_soup(soup *s, const double *c, double r, int level)
{
	const double t = (1 + sqrt(5.0)) / 2;
	double V[12][3] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
	                   {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
	int F[20][3] = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
	                {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8},
	                {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
	size_t n = 20;
	double *T = malloc(n * 9 * sizeof *T);
	for (size_t f = 0; f < n; f++)
		for (int k = 0; k < 3; k++) {
			double *p = V[F[f][k]], l = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
			for (int a = 0; a < 3; a++) T[9 * f + 3 * k + a] = p[a] / l;
		}
	for (int L = 0; L < level; L++) {
		double *U = malloc(4 * n * 9 * sizeof *U);
		for (size_t f = 0; f < n; f++) {
			double *a = T + 9 * f, *b = a + 3, *cc = a + 6, m[3][3];
			for (int e = 0; e < 3; e++) {
				double *p = a + 3 * e, *q = a + 3 * ((e + 1) % 3), l = 0;
				for (int k = 0; k < 3; k++) { m[e][k] = (p[k] + q[k]) / 2; l += m[e][k] * m[e][k]; }
				for (int k = 0; k < 3; k++) m[e][k] /= sqrt(l);
			}
			double *tri[4][3] = {{a, m[0], m[2]}, {m[0], b, m[1]}, {m[2], m[1], cc}, {m[0], m[1], m[2]}};
			for (int k = 0; k < 4; k++)
				for (int v = 0; v < 3; v++) memcpy(U + 9 * (4 * f + k) + 3 * v, tri[k][v], 3 * sizeof *U);
		}
		free(T);
		T = U;
		n *= 4;
	}
	for (size_t f = 0; f < n; f++) {
		double p[3][3];
		for (int k = 0; k < 3; k++)
			for (int a = 0; a < 3; a++) p[k][a] = c[a] + r * T[9 * f + 3 * k + a];
		add_tri(s, p[0], p[1], p[2]);
	}
	free(T);
}

static int make_mesh(const soup *s, const tide_xform *x, int closed, tide_mesh *m)
{
	tide_stl st = {s->n, s->v, 1};
	char why[512];
	int rc = tide_mesh_make(&st, x, closed, m, why, sizeof why);
	if (rc) printf("mesh refused: %s\n", why);
	return rc;
}

static const tide_xform ident = {1, {0, 0, 0}, {0, 0, 0}};

/* Signed distance to the box [lo, hi] (negative inside). */
static double box_sd(const double *p, const double *lo, const double *hi)
{
	double out = 0, in = -INFINITY;
	for (int a = 0; a < 3; a++) {
		double c = (lo[a] + hi[a]) / 2, h = (hi[a] - lo[a]) / 2, d = fabs(p[a] - c) - h;
		out += d > 0 ? d * d : 0;
		in = fmax(in, d);
	}
	return in > 0 ? sqrt(out) : in;
}

static uint64_t lcg = 12345;
static double rnd(void)
{
	lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(lcg >> 11) / 9007199254740992.0;
}

/* ---- unit checks -------------------------------------------------------------------------------- */

/* Lattice points on every vertex, edge and face of a cube cut into 2 x 2 quads per face, and
 * the points between (cube centre, equidistant from 6 faces; points in line with the edges,
 * where rays graze), against the analytic signed distance; then random points, also for the
 * cube rotated and moved (the placement keys). */
static void check_cube(void)
{
	double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
	soup s = {0};
	box_soup(&s, lo, hi, 2);
	tide_mesh m;
	if (make_mesh(&s, &ident, 1, &m)) { failures++; return; }
	CHECK(m.nv == 26 && m.nt == 48 && m.open_edges == 0, "cube: %zu vertices, %zu triangles, %zu open edges",
	      m.nv, m.nt, m.open_edges);
	int bad = 0, on = 0, in = 0;
	for (int i = -2; i <= 6; i++)
		for (int j = -2; j <= 6; j++)
			for (int k = -2; k <= 6; k++) {
				double p[3] = {0.25 * i, 0.25 * j, 0.25 * k}, ref = box_sd(p, lo, hi);
				double sd = tide_mesh_signed_distance(&m, p);
				if (fabs(sd - ref) > 1e-12) {
					if (bad++ < 5) printf("cube (%g, %g, %g): sd %.17g, analytic %.17g\n", p[0], p[1], p[2], sd, ref);
				}
				on += ref == 0;
				in += ref < 0;
			}
	CHECK(bad == 0, "%d of 729 lattice points of the cube off the analytic signed distance", bad);
	CHECK(on == 98 && in == 27, "points on the surface %d (98 expected), inside %d (27)", on, in);
	bad = 0;
	for (int t = 0; t < 20000; t++) {
		double p[3] = {3 * rnd() - 1, 3 * rnd() - 1, 3 * rnd() - 1};
		if (fabs(tide_mesh_signed_distance(&m, p) - box_sd(p, lo, hi)) > 1e-12) bad++;
	}
	CHECK(bad == 0, "%d of 20000 random points off the cube's analytic signed distance", bad);
	tide_mesh_free(&m);

	/* placed: scale 2, rotated 30, 45, 60 degrees about x, y, z, moved by (1, 2, 3) */
	tide_xform x = {2, {30, 45, 60}, {1, 2, 3}};
	if (make_mesh(&s, &x, 1, &m)) { failures++; return; }
	double R[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, lo2[3] = {0, 0, 0}, hi2[3] = {2, 2, 2};
	for (int a = 0; a < 3; a++) {   /* R = Rz Ry Rx, written out independently of place() */
		double th = x.rotate[a] * M_PI / 180, c = cos(th), sn = sin(th), Q[3][3], T[3][3];
		if (a == 0) { double q[3][3] = {{1, 0, 0}, {0, c, -sn}, {0, sn, c}}; memcpy(Q, q, sizeof Q); }
		if (a == 1) { double q[3][3] = {{c, 0, sn}, {0, 1, 0}, {-sn, 0, c}}; memcpy(Q, q, sizeof Q); }
		if (a == 2) { double q[3][3] = {{c, -sn, 0}, {sn, c, 0}, {0, 0, 1}}; memcpy(Q, q, sizeof Q); }
		for (int r = 0; r < 3; r++)
			for (int q = 0; q < 3; q++) T[r][q] = Q[r][0] * R[0][q] + Q[r][1] * R[1][q] + Q[r][2] * R[2][q];
		memcpy(R, T, sizeof R);
	}
	bad = 0;
	for (int t = 0; t < 20000; t++) {
		double p[3] = {6 * rnd() - 2 + 1, 6 * rnd() - 2 + 2, 6 * rnd() - 2 + 3}, l[3];
		for (int a = 0; a < 3; a++)   /* back to the cube's frame: R^T (p - t) */
			l[a] = R[0][a] * (p[0] - 1) + R[1][a] * (p[1] - 2) + R[2][a] * (p[2] - 3);
		if (fabs(tide_mesh_signed_distance(&m, p) - box_sd(l, lo2, hi2)) > 1e-6) bad++;
	}
	CHECK(bad == 0, "%d of 20000 random points off the placed cube's analytic signed distance", bad);
	tide_mesh_free(&m);
	free(s.v);
}

/* An icosphere of 5120 triangles: |sd - (|p - c| - R)| below the mesh's own deviation from the
 * sphere, the sign right wherever the sphere is farther than that; also turned inside out (it is
 * turned back). */
static void check_sphere(void)
{
	double c[3] = {0.3, -0.2, 0.5}, R = 1;
	for (int flip = 0; flip < 2; flip++) {
		soup s = {0};
		sphere_soup(&s, c, R, 4);
		if (flip)
			for (size_t t = 0; t < s.n; t++)
				for (int a = 0; a < 3; a++) {
					float q = s.v[9 * t + 3 + a];
					s.v[9 * t + 3 + a] = s.v[9 * t + 6 + a];
					s.v[9 * t + 6 + a] = q;
				}
		tide_mesh m;
		if (make_mesh(&s, &ident, 1, &m)) { failures++; return; }
		double worst = 0, tol = 2e-3;   /* chord sag of 5120 triangles: R (1 - cos 0.04) = 8e-4 */
		int wrong = 0;
		for (int t = 0; t < 20000; t++) {
			double p[3] = {c[0] + 4 * rnd() - 2, c[1] + 4 * rnd() - 2, c[2] + 4 * rnd() - 2};
			double ref = sqrt((p[0] - c[0]) * (p[0] - c[0]) + (p[1] - c[1]) * (p[1] - c[1]) +
			                  (p[2] - c[2]) * (p[2] - c[2])) - R;
			double sd = tide_mesh_signed_distance(&m, p);
			worst = fmax(worst, fabs(sd - ref));
			if (fabs(ref) > tol && (sd < 0) != (ref < 0)) wrong++;
		}
		printf("sphere%s: largest signed-distance error %.3g\n", flip ? " (inside out)" : "", worst);
		CHECK(worst < tol, "sphere%s: signed distance off the analytic one by %g (allowed %g)",
		      flip ? " (inside out)" : "", worst, tol);
		CHECK(wrong == 0, "sphere%s: %d points on the wrong side", flip ? " (inside out)" : "", wrong);
		CHECK(fabs(m.area - 4 * M_PI * R * R) < 0.01 * 4 * M_PI, "sphere area %g", m.area);
		tide_mesh_free(&m);
		free(s.v);
	}
}

/* ---- cases --------------------------------------------------------------------------------------- */

#define write_tmp test_write_tmp

static int load_quiet(const char *path, tide_case *c)
{
	return test_load_quiet(path, c, errbuf, sizeof errbuf);
}

/* Loads and builds a case; 0 or -1. */
static int build(const char *path, tide_case *c, tide_particle_set *s)
{
	memset(s, 0, sizeof *s);
	if (tide_case_load(path, 0, c)) return -1;
	return tide_case_build(c, s) ? -1 : 0;
}

static const double *sort_pos;
static int cmp_particle(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	for (int k = 0; k < 4; k++)
		if (sort_pos[4 * a + k] != sort_pos[4 * b + k]) return sort_pos[4 * a + k] < sort_pos[4 * b + k] ? -1 : 1;
	return 0;
}

/* Positions (rounded to 1e-9 m) and types of s, sorted, as 4 doubles per particle. */
static double *sorted(const tide_particle_set *s)
{
	double *p = malloc(4 * s->n * sizeof *p), *q = malloc(4 * s->n * sizeof *q);
	size_t *o = malloc(s->n * sizeof *o);
	for (size_t i = 0; i < s->n; i++) {
		p[4 * i] = s->type[i];
		p[4 * i + 1] = round(s->x[i] * 1e9);
		p[4 * i + 2] = round(s->y[i] * 1e9);
		p[4 * i + 3] = round(s->z[i] * 1e9);
		o[i] = i;
	}
	sort_pos = p;
	qsort(o, s->n, sizeof *o, cmp_particle);
	for (size_t i = 0; i < s->n; i++) memcpy(q + 4 * i, p + 4 * o[i], 4 * sizeof *q);
	free(p);
	free(o);
	return q;
}

static int same_particles(const tide_particle_set *a, const tide_particle_set *b, const char *what)
{
	if (a->n != b->n) {
		printf("%s: %zu against %zu particles (%zu / %zu boundary)\n", what, a->n, b->n,
		       tide_pset_count_type(a, TIDE_BOUND), tide_pset_count_type(b, TIDE_BOUND));
		return 0;
	}
	double *p = sorted(a), *q = sorted(b);
	size_t diff = 0;
	for (size_t i = 0; i < 4 * a->n; i++) diff += p[i] != q[i];
	free(p);
	free(q);
	if (diff) printf("%s: %zu coordinates differ\n", what, diff);
	return diff == 0;
}

static const char *case_text(const char *geometry)
{
	static char buf[4096];
	snprintf(buf, sizeof buf,
	         "dim: 3\ndp: 0.02\ntank: {lo: [0, 0, 0], hi: [0.6, 0.6, 0.6], layers: 2}\n%s"
	         "time: {end: 0.1}\n", geometry);
	return buf;
}

/* An STL cube (layers enough to fill it) = the box obstacle: identical particles; an STL cube
 * as a fluid volume = the fluid box; binary and ASCII files give the same; normals. */
static void check_cube_cases(void)
{
	double lo[3] = {0.2, 0.2, 0}, hi[3] = {0.4, 0.4, 0.2}, flo[3] = {0.1, 0.1, 0.3}, fhi[3] = {0.5, 0.5, 0.5};
	soup s = {0}, f = {0};
	box_soup(&s, lo, hi, 3);
	box_soup(&f, flo, fhi, 1);
	CHECK(!tide_stl_write(tmp_path("cube.stl"), s.v, s.n, 1) &&
	      !tide_stl_write(tmp_path("cube_ascii.stl"), s.v, s.n, 0) &&
	      !tide_stl_write(tmp_path("water.stl"), f.v, f.n, 1), "cannot write STL files");
	tide_stl rb, ra;
	char why[512];
	CHECK(!tide_stl_read(tmp_path("cube.stl"), &rb, why, sizeof why) && rb.binary, "binary: %s", why);
	CHECK(!tide_stl_read(tmp_path("cube_ascii.stl"), &ra, why, sizeof why) && !ra.binary, "ASCII: %s", why);
	CHECK(rb.nt == s.n && ra.nt == s.n && !memcmp(rb.v, s.v, 9 * s.n * sizeof(float)) &&
	      !memcmp(ra.v, s.v, 9 * s.n * sizeof(float)), "STL files do not read back the triangles written");
	tide_stl_free(&rb);
	tide_stl_free(&ra);

	tide_case ca, cb, cc;
	tide_particle_set pa, pb, pc;
	const char *a = write_tmp("box.yaml", case_text("obstacles: [{lo: [0.2, 0.2, 0], hi: [0.4, 0.4, 0.2]}]\n"
	                                                "fluid: [{lo: [0.1, 0.1, 0.3], hi: [0.5, 0.5, 0.5]}]\n"));
	const char *b = write_tmp("stl.yaml", case_text("solids: [{stl: cube.stl, layers: 8}]\n"
	                                                "fluid_volumes: [{stl: water.stl}]\n"));
	const char *c = write_tmp("stl_ascii.yaml", case_text("solids: [{stl: cube_ascii.stl, layers: 8}]\n"
	                                                      "fluid_volumes: [{stl: water.stl}]\n"));
	CHECK(!build(a, &ca, &pa), "box case does not build");
	CHECK(!build(b, &cb, &pb), "STL case does not build");
	CHECK(!build(c, &cc, &pc), "ASCII STL case does not build");
	CHECK(pa.n > 0 && same_particles(&pa, &pb, "box vs STL"), "STL cube and fluid volume != box obstacle and fluid box");
	CHECK(pb.n > 0 && same_particles(&pb, &pc, "binary vs ASCII"), "binary and ASCII STL give other particles");
	/* density of the fluid volume: hydrostatic below its top, as in the box */
	int dens = 0;
	for (size_t i = 0; i < pa.n && i < pb.n; i++) dens += pa.type[i] == TIDE_FLUID && pa.rho[i] != pb.rho[i];
	CHECK(dens == 0, "%d fluid densities differ between the box and the STL volume", dens);
	/* normals of the cube's particles: to the nearest wet face (the bottom stands on the tank
	 * floor, so it is dry), of length the distance to it */
	size_t nb = 0, badn = 0;
	for (size_t i = 0; i < pb.n; i++) {
		if (pb.type[i] != TIDE_BOUND) continue;
		double p[3] = {pb.x[i], pb.y[i], pb.z[i]};
		if (!(p[0] > lo[0] && p[0] < hi[0] && p[1] > lo[1] && p[1] < hi[1] && p[2] > lo[2] && p[2] < hi[2]))
			continue;
		nb++;
		double d[5] = {p[0] - lo[0], hi[0] - p[0], p[1] - lo[1], hi[1] - p[1], hi[2] - p[2]}, best = INFINITY;
		for (int k = 0; k < 5; k++) best = fmin(best, d[k]);
		double n = sqrt((double)pb.nx[i] * pb.nx[i] + (double)pb.ny[i] * pb.ny[i] + (double)pb.nz[i] * pb.nz[i]);
		double e[3] = {p[0] + pb.nx[i], p[1] + pb.ny[i], p[2] + pb.nz[i]};
		int on = fabs(e[0] - lo[0]) < 1e-6 || fabs(e[0] - hi[0]) < 1e-6 || fabs(e[1] - lo[1]) < 1e-6 ||
		         fabs(e[1] - hi[1]) < 1e-6 || fabs(e[2] - hi[2]) < 1e-6;
		if (fabs(n - best) > 1e-6 || !on) {
			if (badn++ < 3) printf("normal of (%g, %g, %g): (%g, %g, %g), expected length %g\n", p[0], p[1],
			                       p[2], pb.nx[i], pb.ny[i], pb.nz[i], best);
		}
	}
	printf("STL cube: %zu particles, %zu in the cube; normals checked\n", pb.n, nb);
	CHECK(nb == 1000 && badn == 0, "cube normals: %zu of %zu wrong (1000 particles expected)", badn, nb);
	size_t nf = 0;
	for (size_t i = 0; i < pb.n; i++) nf += pb.type[i] == TIDE_FLUID && (pb.nx[i] || pb.ny[i] || pb.nz[i]);
	CHECK(nf == 0, "%zu fluid particles with a normal", nf);
	tide_pset_free(&pa);
	tide_pset_free(&pb);
	tide_pset_free(&pc);

	/* a fluid box around the cube: the STL cube takes the same fluid points as the box obstacle
	 * (those inside it or closer than dp/2 to it) */
	a = write_tmp("box2.yaml", case_text("obstacles: [{lo: [0.2, 0.2, 0], hi: [0.4, 0.4, 0.2]}]\n"
	                                     "fluid: [{lo: [0.1, 0.1, 0], hi: [0.5, 0.5, 0.4]}]\n"));
	b = write_tmp("stl2.yaml", case_text("solids: [{stl: cube.stl, layers: 8}]\n"
	                                     "fluid: [{lo: [0.1, 0.1, 0], hi: [0.5, 0.5, 0.4]}]\n"));
	if (!build(a, &ca, &pa) && !build(b, &cb, &pb)) {
		printf("fluid box around the cube: %zu fluid particles (box obstacle), %zu (STL cube)\n",
		       tide_pset_count_type(&pa, TIDE_FLUID), tide_pset_count_type(&pb, TIDE_FLUID));
		CHECK(tide_pset_count_type(&pa, TIDE_FLUID) == 20 * 20 * 20 - 10 * 10 * 10 &&
		      same_particles(&pa, &pb, "fluid around the cube"), "fluid around the STL cube != around the box");
		tide_pset_free(&pa);
		tide_pset_free(&pb);
	} else CHECK(0, "fluid-around-cube cases do not build");

	/* fluid only inside the STL cube: nothing is left, one sentence, the build's bad-input code */
	b = write_tmp("covered.yaml", case_text("solids: [{stl: cube.stl, layers: 8}]\n"
	                                        "fluid: [{lo: [0.22, 0.22, 0.02], hi: [0.38, 0.38, 0.18]}]\n"));
	if (!tide_case_load(b, 0, &cb)) {
		memset(&pb, 0, sizeof pb);
		fflush(stderr);
		int keep = dup(2), fd = open(tmp_path("stderr.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		close(fd);
		int rc = tide_case_build(&cb, &pb);
		fflush(stderr);
		dup2(keep, 2);
		close(keep);
		char *msg = slurp(tmp_path("stderr.txt"), NULL);
		CHECK(rc == -2 && msg && strstr(msg, "no fluid particle is left: every fluid lattice point lies inside an STL solid"),
		      "fluid inside the STL cube: rc %d, '%s'", rc, msg ? msg : "");
		free(msg);
		tide_pset_free(&pb);
	} else CHECK(0, "covered case does not load");

	/* a ball of fluid from a sphere mesh: count near 4/3 pi R^3 / dp^3 */
	soup ball = {0};
	double cen[3] = {0.3, 0.3, 0.3};
	sphere_soup(&ball, cen, 0.2, 3);
	tide_stl_write(tmp_path("ball.stl"), ball.v, ball.n, 1);
	const char *d = write_tmp("ball.yaml", case_text("fluid_volumes: [{stl: ball.stl}]\n"));
	if (!build(d, &ca, &pa)) {
		double want = 4.0 / 3.0 * M_PI * 0.008 / 8e-6;
		size_t got = tide_pset_count_type(&pa, TIDE_FLUID);
		printf("ball: %zu fluid particles, 4/3 pi R^3 / dp^3 = %.1f\n", got, want);
		CHECK(fabs(got - want) < 0.03 * want, "ball: %zu fluid particles, %g expected within 3 %%", got, want);
		tide_pset_free(&pa);
	} else CHECK(0, "ball case does not build");
	free(ball.v);
	free(s.v);
	free(f.v);
}

/* spheric2_stl at its dp = 0.02: the tank particles are spheric2's, the obstacle has as many,
 * the fluid is the same; every tank normal points into the tank (to its inner surface). */
static void check_spheric2(const char *src)
{
	char a[1024], b[1024];
	snprintf(a, sizeof a, "%s/cases/spheric2.yaml", src);
	snprintf(b, sizeof b, "%s/cases/spheric2_stl.yaml", src);
	tide_case ca, cb;
	tide_particle_set pa, pb;
	if (build(a, &ca, &pa) || build(b, &cb, &pb)) { CHECK(0, "spheric2 or spheric2_stl does not build"); return; }
	printf("spheric2: %zu particles (%zu fluid); spheric2_stl: %zu (%zu fluid)\n", pa.n,
	       tide_pset_count_type(&pa, TIDE_FLUID), pb.n, tide_pset_count_type(&pb, TIDE_FLUID));
	CHECK(pa.n == pb.n && tide_pset_count_type(&pa, TIDE_FLUID) == tide_pset_count_type(&pb, TIDE_FLUID),
	      "spheric2 %zu particles (%zu fluid), spheric2_stl %zu (%zu fluid)", pa.n,
	      tide_pset_count_type(&pa, TIDE_FLUID), pb.n, tide_pset_count_type(&pb, TIDE_FLUID));
	/* the tank: every boundary particle outside the inner box, in both */
	tide_particle_set ta = {0}, tb = {0};
	for (int k = 0; k < 2; k++) {
		tide_particle_set *from = k ? &pb : &pa, *to = k ? &tb : &ta;
		for (size_t i = 0; i < from->n; i++)
			if (from->type[i] == TIDE_BOUND && (from->x[i] < 0 || from->x[i] > 3.22 || from->y[i] < 0 ||
			                                    from->y[i] > 1 || from->z[i] < 0))
				tide_pset_push(to, from->x[i], from->y[i], from->z[i], 0, TIDE_BOUND);
	}
	CHECK(ta.n > 0 && same_particles(&ta, &tb, "spheric2 tank"), "the STL tank's particles are not spheric2's");
	size_t bad = 0;
	for (size_t i = 0; i < pb.n; i++) {
		if (pb.type[i] != TIDE_BOUND || pb.x[i] > 0) continue;   /* the wall at x = 0 */
		double e[3] = {pb.x[i] + pb.nx[i], pb.y[i] + pb.ny[i], pb.z[i] + pb.nz[i]};
		/* on the inner surface (the floor, the walls, or the rim z = 1), never the outer one */
		int inner = (fabs(e[0]) < 1e-6 && e[2] >= -1e-6) || fabs(e[2]) < 1e-6 || fabs(e[2] - 1) < 1e-6 ||
		            ((fabs(e[1]) < 1e-6 || fabs(e[1] - 1) < 1e-6) && e[0] >= -1e-6);
		if (!inner || pb.nx[i] < -1e-6) bad++;
	}
	CHECK(bad == 0, "%zu normals of the x = 0 wall do not point to the tank's inner surface", bad);
	tide_pset_free(&pa); tide_pset_free(&pb); tide_pset_free(&ta); tide_pset_free(&tb);

	/* the used parameters (absolute STL paths) load back as the same case, from anywhere */
	tide_case back;
	char t1[65536], t2[65536];
	CHECK(!tide_case_write_used(&cb, tmp_path("used.yaml")) && !load_quiet(tmp_path("used.yaml"), &back),
	      "used parameters of spheric2_stl do not load back: %s", errbuf);
	FILE *f1 = fmemopen(t1, sizeof t1, "w"), *f2 = fmemopen(t2, sizeof t2, "w");
	tide_case_print(f1, &cb);
	tide_case_print(f2, &back);
	fclose(f1);
	fclose(f2);
	CHECK(!strcmp(t1, t2) && strstr(t1, "solids:\n  - {stl: ") && back.nsolid == 2 &&
	      back.solid[1].layers == 5, "used parameters differ after loading back:\n%s\n---\n%s", t1, t2);
}

/* dam_beach: the wedge's particles lie under the 1:10 slope z = 0.1 (x - 0.8), within 3 dp of it
 * in every coordinate, and (away from its toe) their normals are perpendicular to the slope, of
 * length their distance to it (the wedge's other faces touch the tank: dry). */
static void check_beach(const char *src)
{
	char a[1024];
	snprintf(a, sizeof a, "%s/cases/dam_beach.yaml", src);
	tide_case c;
	tide_particle_set p;
	if (build(a, &c, &p)) { CHECK(0, "dam_beach does not build"); return; }
	/* the domain derived from the solids: the tank's outer box, grown upward by its height */
	double dlo[3] = {-0.06, -0.06, -0.06}, dhi[3] = {2.06, 0.36, 1.26}, off = 0;
	for (int k = 0; k < 3; k++) off = fmax(off, fmax(fabs(c.domain.lo[k] - dlo[k]), fabs(c.domain.hi[k] - dhi[k])));
	CHECK(off < 1e-6, "dam_beach domain [%g, %g, %g]..[%g, %g, %g]", c.domain.lo[0], c.domain.lo[1],
	      c.domain.lo[2], c.domain.hi[0], c.domain.hi[1], c.domain.hi[2]);
	double u[3] = {-0.1 / sqrt(1.01), 0, 1 / sqrt(1.01)};
	size_t n = 0, bad = 0, above = 0;
	for (size_t i = 0; i < p.n; i++) {
		if (p.type[i] != TIDE_BOUND || p.x[i] < 0.8 || p.x[i] > 2 || p.y[i] < 0 || p.y[i] > 0.3 || p.z[i] < 0)
			continue;   /* the tank's walls */
		double d = (0.1 * (p.x[i] - 0.8) - p.z[i]) * u[2];   /* distance below the slope */
		above += d <= 0;
		if (p.x[i] < 0.9 || p.x[i] > 1.9 || p.y[i] < 0.06 || p.y[i] > 0.24) continue;
		n++;
		if (fabs(p.nx[i] - d * u[0]) > 1e-5 || fabs(p.ny[i]) > 1e-5 || fabs(p.nz[i] - d * u[2]) > 1e-5) {
			if (bad++ < 3) printf("beach particle (%g, %g, %g): normal (%g, %g, %g), expected (%g, 0, %g)\n",
			                      p.x[i], p.y[i], p.z[i], p.nx[i], p.ny[i], p.nz[i], d * u[0], d * u[2]);
		}
	}
	printf("dam_beach: %zu wedge particles checked\n", n);
	CHECK(n > 500 && bad == 0 && above == 0, "beach: %zu of %zu normals off the slope's, %zu particles above it",
	      bad, n, above);
	tide_pset_free(&p);
}

/* ---- errors ----------------------------------------------------------------------------------------- */

static void write_bytes(const char *name, const void *b, size_t n)
{
	FILE *f = fopen(tmp_path(name), "wb");
	fwrite(b, 1, n, f);
	fclose(f);
}

static void expect_error(const char *stl_name, const char *extra, const char *want)
{
	char g[512], name[80];
	snprintf(g, sizeof g, "fluid: [{lo: [0.1, 0.1, 0.3], hi: [0.5, 0.5, 0.5]}]\nsolids: [{stl: %s%s}]\n", stl_name, extra);
	snprintf(name, sizeof name, "err_%s.yaml", stl_name);
	tide_case c;
	int rc = load_quiet(write_tmp(name, case_text(g)), &c);
	int lines = 0;
	for (const char *q = errbuf; *q; q++) lines += *q == '\n';
	CHECK(rc == -1 && strstr(errbuf, want) && strstr(errbuf, "solids[0]") && lines == 1,
	      "%s: rc %d, message '%s' (wanted one line with '%s')", stl_name, rc, errbuf, want);
}

static void check_errors(void)
{
	double lo[3] = {0.2, 0.2, 0.1}, hi[3] = {0.4, 0.4, 0.2};
	soup s = {0};
	box_soup(&s, lo, hi, 1);
	/* open: one triangle less */
	tide_stl_write(tmp_path("open.stl"), s.v, s.n - 1, 1);
	expect_error("open.stl", "", "is not closed: 3 edges belong to one triangle only");
	tide_case c;
	CHECK(!load_quiet(write_tmp("open_ok.yaml", case_text("fluid: [{lo: [0.1, 0.1, 0.3], hi: [0.5, 0.5, 0.5]}]\n"
	                                                       "solids: [{stl: open.stl, closed: false}]\n")), &c),
	      "an open mesh with closed: false is refused: %s", errbuf);
	CHECK(load_quiet(write_tmp("open_vol.yaml", case_text("fluid_volumes: [{stl: open.stl}]\n")), &c) == -1 &&
	      strstr(errbuf, "fluid_volumes[0]") && strstr(errbuf, "is not closed"), "open fluid volume: %s", errbuf);
	/* an open sheet (closed: false): the square [0.2, 0.4]^2 at z = 0.3 facing up, layers 2: the
	 * lattice points under it within 2 dp in every coordinate, so 0.04 beyond its edges too:
	 * x, y in 0.17 .. 0.43 (14 each), z = 0.27, 0.29; their normals up to the sheet */
	{
		soup sh = {0};
		double a[3] = {0.2, 0.2, 0.3}, b[3] = {0.4, 0.2, 0.3}, cc[3] = {0.4, 0.4, 0.3}, d[3] = {0.2, 0.4, 0.3};
		add_tri(&sh, a, b, cc);
		add_tri(&sh, a, cc, d);
		tide_stl_write(tmp_path("sheet.stl"), sh.v, sh.n, 0);
		free(sh.v);
		tide_case cs;
		tide_particle_set ps;
		const char *y = write_tmp("sheet.yaml", case_text("fluid: [{lo: [0.1, 0.1, 0.4], hi: [0.5, 0.5, 0.5]}]\n"
		                                                   "solids: [{stl: sheet.stl, closed: false, layers: 2}]\n"));
		if (!build(y, &cs, &ps)) {
			size_t n = 0, badn = 0;
			for (size_t i = 0; i < ps.n; i++) {
				if (ps.type[i] != TIDE_BOUND || ps.z[i] < 0 || ps.x[i] < 0 || ps.x[i] > 0.6 || ps.y[i] < 0 ||
				    ps.y[i] > 0.6) continue;   /* the tank's walls */
				n++;
				int under = ps.x[i] > 0.2 && ps.x[i] < 0.4 && ps.y[i] > 0.2 && ps.y[i] < 0.4;
				if (under && (fabs(ps.nz[i] - (0.3 - ps.z[i])) > 1e-6 || fabs(ps.nx[i]) > 1e-9 || fabs(ps.ny[i]) > 1e-9) && badn++ < 3)
					printf("sheet particle (%g, %g, %g): normal (%g, %g, %g)\n", ps.x[i], ps.y[i], ps.z[i],
					       ps.nx[i], ps.ny[i], ps.nz[i]);
			}
			CHECK(n == 14 * 14 * 2 && badn == 0, "open sheet: %zu particles (392 expected), %zu normals wrong", n, badn);
			tide_pset_free(&ps);
		} else CHECK(0, "sheet case does not build");
	}
	/* a triangle twice: its edges belong to 3 triangles */
	{
		soup dd = {0};
		box_soup(&dd, lo, hi, 1);
		add_tri(&dd, (double[]){lo[0], lo[1], lo[2]}, (double[]){hi[0], lo[1], lo[2]}, (double[]){hi[0], hi[1], lo[2]});
		memcpy(dd.v + 9 * (dd.n - 1), dd.v, 9 * sizeof(float));
		tide_stl_write(tmp_path("nonmanifold.stl"), dd.v, dd.n, 1);
		free(dd.v);
		expect_error("nonmanifold.stl", "", "is not a manifold surface: the edge at");
	}
	/* a degenerate triangle: two vertices of triangle 5 made equal */
	float *v = malloc(9 * s.n * sizeof *v);
	memcpy(v, s.v, 9 * s.n * sizeof *v);
	memcpy(v + 9 * 4 + 3, v + 9 * 4, 3 * sizeof *v);
	tide_stl_write(tmp_path("degenerate.stl"), v, s.n, 1);
	expect_error("degenerate.stl", "", "degenerate (zero-area) triangle: triangle 5");
	/* one triangle turned over */
	memcpy(v, s.v, 9 * s.n * sizeof *v);
	for (int a = 0; a < 3; a++) { float q = v[3 + a]; v[3 + a] = v[6 + a]; v[6 + a] = q; }
	tide_stl_write(tmp_path("flipped.stl"), v, s.n, 1);
	expect_error("flipped.stl", "", "opposite orientation");
	/* NaN */
	memcpy(v, s.v, 9 * s.n * sizeof *v);
	v[9 * 2 + 4] = NAN;
	tide_stl_write(tmp_path("nan.stl"), v, s.n, 1);
	expect_error("nan.stl", "", "not a finite number (nan) in triangle 3");
	free(v);
	/* outside the domain */
	tide_stl_write(tmp_path("cube.stl"), s.v, s.n, 1);
	expect_error("cube.stl", ", translate: [5, 0, 0]", "lies outside the domain once placed");
	/* missing, empty, truncated binary, truncated and misspelt ASCII */
	expect_error("missing.stl", "", "cannot open");
	write_bytes("empty.stl", "", 0);
	expect_error("empty.stl", "", "is empty");
	size_t len;
	char *bin = slurp(tmp_path("cube.stl"), &len);
	write_bytes("short.stl", bin, len - 10);
	expect_error("short.stl", "", "is truncated or not STL: 674 bytes, but its binary header announces 12 "
	             "triangles, 684 bytes");
	free(bin);
	tide_stl_write(tmp_path("cube_ascii.stl"), s.v, s.n, 0);
	char *asc = slurp(tmp_path("cube_ascii.stl"), &len);
	write_bytes("cut.stl", asc, len / 2);
	expect_error("cut.stl", "", "truncated");
	char *q = strstr(asc, "vertex");
	q = strstr(q + 1, "vertex");   /* the second vertex of the first facet: line 5 */
	memcpy(q, "vertx ", 6);
	write_bytes("syntax.stl", asc, len);
	expect_error("syntax.stl", "", "bad ASCII STL syntax at line 5: 'vertx' where 'vertex' was expected");
	free(asc);
	/* keys */
	expect_error("cube.stl", ", scale: 0", "is out of range; allowed: scale > 0");
	expect_error("cube.stl", ", layers: 0", "is out of range; allowed: 1 <= layers <= 64");
	expect_error("cube.stl", ", rotate: [0, 0]", "has 2 values");
	CHECK(load_quiet(write_tmp("twod.yaml", "dim: 2\ndp: 0.02\ntank: {lo: [0, 0], hi: [1, 1]}\n"
	                           "fluid: [{lo: [0, 0], hi: [0.5, 0.5]}]\nsolids: [{stl: cube.stl}]\n"
	                           "time: {end: 1}\n"), &c) == -1 && strstr(errbuf, "needs a 3-D case"),
	      "solids in 2-D: %s", errbuf);
	free(s.v);
}

int main(int argc, char **argv)
{
	const char *src = argc > 1 ? argv[1] : ".";
	if (test_tmpdir_create("geometry")) return 1;
	check_cube();
	check_sphere();
	check_cube_cases();
	check_errors();
	check_spheric2(src);
	check_beach(src);
	return test_finish("test_geometry");
}
