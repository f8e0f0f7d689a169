// SPDX-License-Identifier: LGPL-2.1-or-later
// Mass properties of closed STL meshes (src/mesh_mass.c) against the analytic values of boxes:
// a unit cube, and a box of sides 0.5 x 0.25 x 0.75 cut into 3 x 3 quads per face, scaled,
// turned about x, y and z and moved far from the origin; volume, centroid and inertia tensor
// (products of inertia included) to 1e-12 relative.  Then through a case: a floating STL solid
// without centre and inertia gets density x volume, the centroid and density x the tensor (a
// given centre moves the tensor by the parallel axis theorem, a given mass scales it), and an
// open mesh (closed: false) without mass, centre and inertia is refused with one sentence.
// Usage: test_mesh_mass
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <math.h>
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

/* R = Rz(c) Ry(b) Rx(a), angles in degrees (the placement's convention, mesh_geometry.h). */
static void rot_zyx(const double deg[3], double R[9])
{
	double a = deg[0] * M_PI / 180, b = deg[1] * M_PI / 180, c = deg[2] * M_PI / 180;
	double Rx[9] = {1, 0, 0, 0, cos(a), -sin(a), 0, sin(a), cos(a)};
	double Ry[9] = {cos(b), 0, sin(b), 0, 1, 0, -sin(b), 0, cos(b)};
	double Rz[9] = {cos(c), -sin(c), 0, sin(c), cos(c), 0, 0, 0, 1}, T[9];
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			T[3 * i + j] = 0;
			for (int k = 0; k < 3; k++) T[3 * i + j] += Ry[3 * i + k] * Rx[3 * k + j];
		}
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			R[3 * i + j] = 0;
			for (int k = 0; k < 3; k++) R[3 * i + j] += Rz[3 * i + k] * T[3 * k + j];
		}
}

/* The box's analytic values once placed by x: V, centroid, J = R diag(...) R^T. */
static void box_exact(const double lo[3], const double hi[3], const tide_xform *x, double *V,
                      double c[3], double J[9])
{
	double L[3], c0[3], R[9], D[3];
	rot_zyx(x->rotate, R);
	for (int a = 0; a < 3; a++) {
		L[a] = x->scale * (hi[a] - lo[a]);
		c0[a] = x->scale * 0.5 * (lo[a] + hi[a]);
	}
	*V = L[0] * L[1] * L[2];
	D[0] = *V / 12 * (L[1] * L[1] + L[2] * L[2]);
	D[1] = *V / 12 * (L[0] * L[0] + L[2] * L[2]);
	D[2] = *V / 12 * (L[0] * L[0] + L[1] * L[1]);
	for (int i = 0; i < 3; i++) {
		c[i] = x->translate[i];
		for (int k = 0; k < 3; k++) c[i] += R[3 * i + k] * c0[k];
	}
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			J[3 * i + j] = 0;
			for (int k = 0; k < 3; k++) J[3 * i + j] += R[3 * i + k] * D[k] * R[3 * j + k];
		}
}

/* Largest error of the computed values relative to the analytic ones' scales (V, the box's
 * size for the centroid, the largest moment for the tensor). */
static void check_box(const char *name, const double lo[3], const double hi[3], int n,
                      const tide_xform *x)
{
	soup b = {0};
	box_soup(&b, lo, hi, n);
	size_t nt = b.n;
	float *v = b.v;
	tide_stl s = {nt, v, 1};
	tide_mesh m;
	char why[256];
	int rc = tide_mesh_make(&s, x, 1, &m, why, sizeof why);
	CHECK(rc == 0, "%s: mesh refused: %s", name, why);
	if (rc) { free(v); return; }
	double V, c[3], J[9], Ve, ce[3], Je[9];
	CHECK(tide_mesh_mass(&m, &V, c, J) == 0, "%s: no mass properties", name);
	box_exact(lo, hi, x, &Ve, ce, Je);
	double size = cbrt(Ve), jmax = 0, ev = fabs(V / Ve - 1), ec = 0, ej = 0;
	for (int k = 0; k < 9; k++) jmax = fmax(jmax, fabs(Je[k]));
	for (int a = 0; a < 3; a++) ec = fmax(ec, fabs(c[a] - ce[a]) / size);
	for (int k = 0; k < 9; k++) ej = fmax(ej, fabs(J[k] - Je[k]) / jmax);
	printf("%s: %zu triangles, V = %.15g (exact %.15g), centroid (%.12g, %.12g, %.12g), "
	       "J_xy = %.6g; relative errors: V %.2g, centroid %.2g, J %.2g\n", name, nt, V, Ve, c[0],
	       c[1], c[2], J[1], ev, ec, ej);
	CHECK(ev < 1e-12 && ec < 1e-12 && ej < 1e-12, "%s: errors V %g, centroid %g, J %g", name, ev, ec, ej);
	tide_mesh_free(&m);
	free(v);
}

static int load_quiet(const char *path, tide_case *c)
{
	return test_load_quiet(path, c, errbuf, sizeof errbuf);
}

/* A 3-D tank with water and one STL solid given by `solid` (YAML flow mapping keys). */
static const char *solid_case(const char *name, const char *solid)
{
	static char t[2048];
	snprintf(t, sizeof t, "dim: 3\ndp: 0.05\ntank: {lo: [0, 0, 0], hi: [2, 2, 2], open_top: true}\n"
	         "fluid: [{lo: [0, 0, 0], hi: [2, 2, 0.6]}]\nsolids: [{%s}]\ntime: {end: 0.1}\n", solid);
	return test_write_tmp(name, t);
}

static void check_case(void)
{
	/* the box [0.5, 1.25] x [0.5, 1] x [0.75, 1.5], turned 20 degrees about z, as an STL */
	const double lo[3] = {0.5, 0.5, 0.75}, hi[3] = {1.25, 1.0, 1.5};
	soup b = {0};
	box_soup(&b, lo, hi, 2);
	size_t nt = b.n;
	float *v = b.v;
	tide_stl_write(tmp_path("box.stl"), v, nt, 1);
	tide_stl_write(tmp_path("open.stl"), v, nt - 1, 1);
	free(v);
	tide_xform x = {1, {0, 0, 20}, {0.1, 0.05, 0}};
	double V, c0[3], J[9], rho = 500;
	box_exact(lo, hi, &x, &V, c0, J);
	const double M = rho * V;
	tide_case c;
	int rc = load_quiet(solid_case("s1.yaml", "stl: box.stl, rotate: [0, 0, 20], translate: [0.1, 0.05, 0], "
	                                          "floating: {density: 500}"), &c);
	CHECK(rc == 0, "floating STL solid without centre and inertia refused: %s", errbuf);
	if (!rc) {
		const tide_rigid *B = &c.rigid[0];
		double e = fabs(B->mass / M - 1), ec = 0, ej = 0;
		for (int a = 0; a < 3; a++) ec = fmax(ec, fabs(B->c0[a] - c0[a]));
		for (int k = 0; k < 9; k++) ej = fmax(ej, fabs(B->Ib[k] - rho * J[k]) / (rho * J[0]));
		printf("case: floating STL box of density 500: mass %.12g kg (exact %.12g), centre (%.9g, "
		       "%.9g, %.9g), I_xy %.9g kg m^2 (exact %.9g); errors %.2g, %.2g m, %.2g\n", B->mass, M,
		       B->c0[0], B->c0[1], B->c0[2], B->Ib[1], rho * J[1], e, ec, ej);
		CHECK(e < 1e-12 && ec < 1e-12 && ej < 1e-12, "mass %g, centre %g, inertia %g off", e, ec, ej);
		CHECK(c.motion.nbody == 1 && fabs(c.motion.body[0].ref[0] - c0[0]) < 1e-12,
		      "the body's reference point is not the centroid");
	}
	/* a given mass scales the tensor; a given centre 0.1 m above moves it (parallel axes) */
	rc = load_quiet(solid_case("s2.yaml", "stl: box.stl, rotate: [0, 0, 20], translate: [0.1, 0.05, 0], "
	                                      "floating: {mass: 100, centre: [0.95, 0.8, 1.225]}"), &c);
	CHECK(rc == 0, "floating STL solid with mass and centre refused: %s", errbuf);
	if (!rc) {
		double d[3] = {0.95 - c0[0], 0.8 - c0[1], 1.225 - c0[2]}, d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
		double ej = 0;
		for (int a = 0; a < 3; a++)
			for (int b = 0; b < 3; b++) {
				double want = 100 / V * J[3 * a + b] + 100 * ((a == b ? d2 : 0) - d[a] * d[b]);
				ej = fmax(ej, fabs(c.rigid[0].Ib[3 * a + b] - want) / (100 / V * J[0]));
			}
		printf("case: mass 100 kg, centre given: inertia about it off by %.2g (parallel axes)\n", ej);
		CHECK(c.rigid[0].mass == 100 && ej < 1e-12, "mass %g, inertia error %g", c.rigid[0].mass, ej);
	}
	/* an open mesh: refused unless mass, centre and inertia are all given */
	rc = load_quiet(solid_case("s3.yaml", "stl: open.stl, closed: false, floating: {density: 500}"), &c);
	CHECK(rc == -1 && strstr(errbuf, "solids[0].floating") && strstr(errbuf, "open STL solid") &&
	      strstr(errbuf, "needs mass, centre and inertia"), "open mesh: rc %d, '%s'", rc, errbuf);
	printf("case: open mesh refused: %s", errbuf);
	rc = load_quiet(solid_case("s4.yaml", "stl: open.stl, closed: false, floating: {mass: 10, centre: "
	                                      "[0.9, 0.8, 1.1], inertia: [1, 1, 1]}"), &c);
	CHECK(rc == 0, "open mesh with mass, centre and inertia refused: %s", errbuf);
}

int main(void)
{
	if (test_tmpdir_create("mesh_mass")) return 1;
	const double u0[3] = {0, 0, 0}, u1[3] = {1, 1, 1};
	tide_xform id = {1, {0, 0, 0}, {0, 0, 0}};
	check_box("unit cube", u0, u1, 1, &id);
	const double lo[3] = {-0.125, 0.25, 0.5}, hi[3] = {0.375, 0.5, 1.25};
	tide_xform x = {1.5, {30, 40, 50}, {1.1, -2.3, 0.7}};
	check_box("box 0.5 x 0.25 x 0.75, scale 1.5, turned (30, 40, 50) deg, moved", lo, hi, 3, &x);
	tide_xform far = {1, {10, -25, 70}, {120, 80, -40}};
	check_box("the same box turned and 150 m from the origin", lo, hi, 3, &far);
	check_case();
	return test_finish("mesh_mass");
}
