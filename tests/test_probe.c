// SPDX-License-Identifier: LGPL-2.1-or-later
// tide probe's parts: a synthetic lattice (linear velocity field, hydrostatic density) written
// by tide_vtp_write and read back by tide_vtp_read field for field; Shepard interpolation of the
// read set against the analytic fields and a brute-force neighbour count; no fluid far away;
// the reader's refusals of damaged files; the lattice in VTK encodings made here (zlib blocks
// that split elements, inline base64 as one stream, other number types, arrays reordered) read
// back exactly; .h5 files written here through the HDF5 API (fields left out, a wrong shape,
// NaN and negative densities); .pvd series; point lists; the CSV rows.
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tide/case.h"
#include "output.h"
#include "probe.h"
#include "tide/sph_kernel.h"
#include "vtp_read.h"
#include "test_util.h"
#include <zlib.h>

static void quiet(int on);

static void spit(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len) { printf("cannot write %s\n", path); exit(1); }
	fclose(f);
}

/* ---- the synthetic snapshot ---- */

/* h = 2 dp, c0 = 20 sqrt(g 0.5 m): the usual SPH setting (tide's cases). */
static tide_case make_case(int dim, int kernel) { return test_make_case(dim, 0.02, 2.0, 20.0, kernel); }

#define NX 24            /* fluid lattice: NX cells per axis, spacing dp from dp/2 */
#define G 9.81

static double fill_height(const tide_case *c) { return NX * c->dp; }

/* The analytic fields: velocity linear in x, y, z; hydrostatic pressure below the fill height. */
static void velocity_at(const double r[3], double v[3])
{
	v[0] = 0.3 + 1.5 * r[0] - 0.4 * r[1] - 0.8 * r[2];
	v[1] = -0.1 + 0.2 * r[0] + 0.9 * r[1] + 0.3 * r[2];
	v[2] = -0.2 + 0.5 * r[0] + 0.1 * r[1] + 0.25 * r[2];
}

static double pressure_at(const tide_case *c, double z) { return c->rho0 * G * (fill_height(c) - z); }

static double rho_at(const tide_case *c, double z)
{
	return c->rho0 * pow(1.0 + pressure_at(c, z) / tide_case_tait_b(c), 1.0 / c->gamma);
}

/* Fluid lattice plus a floor of boundary particles moving at 100 m/s, which the interpolation
 * must ignore.  Ids are not 0..n-1, so the round trip cannot pass by accident. */
static void lattice(const tide_case *c, tide_particle_set *s)
{
	int ny = c->dim == 3 ? NX : 1;
	for (int k = 0; k < NX; k++)
		for (int j = 0; j < ny; j++)
			for (int i = 0; i < NX; i++) {
				double r[3] = { c->dp * (i + 0.5), c->dim == 3 ? c->dp * (j + 0.5) : 0.0,
				                c->dp * (k + 0.5) }, v[3];
				velocity_at(r, v);
				tide_pset_push(s, r[0], r[1], r[2], (float)rho_at(c, r[2]), TIDE_FLUID);
				size_t n = s->n - 1;
				s->vx[n] = (float)v[0]; s->vy[n] = (float)v[1]; s->vz[n] = (float)v[2];
			}
	for (int j = 0; j < ny; j++)
		for (int i = 0; i < NX; i++) {
			tide_pset_push(s, c->dp * (i + 0.5), c->dim == 3 ? c->dp * (j + 0.5) : 0.0,
			               -0.5 * c->dp, 1234.5f, TIDE_BOUND);
			s->vx[s->n - 1] = 100.f;
		}
	for (size_t i = 0; i < s->n; i++) s->id[i] = (uint32_t)(7919 * i + 13);
}

/* ---- round trip ---- */

static void test_round_trip(const tide_case *c, const tide_particle_set *s, const char *path)
{
	CHECK(tide_vtp_write(path, s, c) == 0, "tide_vtp_write %s", path);
	tide_particle_set r = { 0 };
	float *p = NULL;
	int rc = tide_vtp_read(path, &r, &p);
	CHECK(rc == TIDE_READ_OK, "tide_vtp_read %s returned %d", path, rc);
	CHECK(r.n == s->n, "read %zu particles, wrote %zu", r.n, s->n);
	if (rc || r.n != s->n) { tide_pset_free(&r); free(p); return; }
	size_t n = s->n;
	CHECK(!memcmp(r.x, s->x, n * 8) && !memcmp(r.y, s->y, n * 8) && !memcmp(r.z, s->z, n * 8),
	      "positions differ");
	CHECK(!memcmp(r.vx, s->vx, n * 4) && !memcmp(r.vy, s->vy, n * 4) && !memcmp(r.vz, s->vz, n * 4),
	      "velocities differ");
	CHECK(!memcmp(r.rho, s->rho, n * 4), "densities differ");
	CHECK(!memcmp(r.id, s->id, n * 4), "ids differ");
	CHECK(!memcmp(r.type, s->type, n * sizeof *s->type), "types differ");
	double B = tide_case_tait_b(c);
	size_t bad = 0;
	for (size_t i = 0; i < n; i++)
		bad += p[i] != (float)(B * (pow((double)s->rho[i] / c->rho0, c->gamma) - 1.0));
	CHECK(bad == 0, "%zu pressures differ from the Tait pressure of the density", bad);
	/* Reading into a set that holds a larger snapshot replaces it. */
	tide_particle_set small = { 0 };
	tide_pset_push(&small, 1.0, 2.0, 3.0, 999.f, TIDE_FLUID);
	CHECK(tide_vtp_write(tmp_path("one.vtp"), &small, c) == 0, "write one.vtp");
	CHECK(tide_vtp_read(tmp_path("one.vtp"), &r, NULL) == 0 && r.n == 1 && r.x[0] == 1.0 &&
	      r.z[0] == 3.0 && r.rho[0] == 999.f, "re-read into a used set");
	tide_pset_free(&small);
	tide_pset_free(&r);
	free(p);
}

/* ---- interpolation ---- */

static uint64_t lcg = 12345;
static double uniform(double lo, double hi)
{
	lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
	return lo + (hi - lo) * (double)(lcg >> 11) / 9007199254740992.0;
}

static size_t brute_count(const tide_particle_set *s, const tide_case *c, const double r[3])
{
	double h2 = 4.0 * tide_case_h(c) * tide_case_h(c);
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++) {
		double dx = s->x[i] - r[0], dy = c->dim == 3 ? s->y[i] - r[1] : 0.0, dz = s->z[i] - r[2];
		n += s->type[i] == TIDE_FLUID && dx * dx + dy * dy + dz * dz < h2;
	}
	return n;
}

static void test_interpolation(const tide_case *c, const char *path, const char *label)
{
	tide_particle_set s = { 0 };
	CHECK(tide_vtp_read(path, &s, NULL) == 0, "%s: read %s", label, path);
	tide_fluid_grid *g = tide_fluid_grid_new(&s, c);
	CHECK(g != NULL, "%s: grid", label);
	if (!g) return;
	/* Interior: at least 2h from every edge of the lattice (the kernel support is full). */
	double lo = 2.0 * tide_case_h(c), hi = NX * c->dp - lo;
	double ev = 0, ep = 0, er = 0, gradv = 1.5;   /* largest velocity gradient */
	int count_bad = 0;
	for (int k = 0; k < 200; k++) {
		double r[3] = { uniform(lo, hi), c->dim == 3 ? uniform(lo, hi) : 0.0, uniform(lo, hi) }, v[3];
		tide_sample smp;
		tide_fluid_grid_sample(g, r, &smp);
		velocity_at(r, v);
		for (int d = 0; d < 3; d++) ev = fmax(ev, fabs(smp.v[d] - v[d]));
		ep = fmax(ep, fabs(smp.p - pressure_at(c, r[2])));
		er = fmax(er, fabs(smp.rho - rho_at(c, r[2])));
		count_bad += smp.nfluid != brute_count(&s, c, r);
	}
	/* A linear field on a full lattice: Shepard's error is the kernel's first moment over the
	 * lattice (and the slight skew of the volumes m/rho_j with depth), a few 1e-3 of the
	 * velocity change over dp at most (a missing normalisation would be an error of percents). */
	CHECK(ev <= 3e-3 * gradv * c->dp, "%s: velocity off by %.3g m/s (limit %.3g)", label, ev,
	      3e-3 * gradv * c->dp);
	/* Pressure: linear too, up to the float rounding of the stored density (c0^2 * 6e-5). */
	CHECK(ep <= 0.5, "%s: pressure off by %.3g Pa (limit 0.5 Pa)", label, ep);
	CHECK(er <= 3e-4, "%s: density off by %.3g kg/m^3 (limit 3e-4)", label, er);
	CHECK(count_bad == 0, "%s: %d points with an nfluid other than the brute-force count", label,
	      count_bad);
	printf("  %s: 200 interior points, max error |v| %.2e m/s, p %.2e Pa, rho %.2e kg/m^3\n",
	       label, ev, ep, er);

	/* On the first fluid row the boundary floor (at 100 m/s) is within 2h: it must not count;
	 * the truncated support leaves a Shepard error of order gradient * h there. */
	double edge[3] = { 0.5 * NX * c->dp, 0.5 * NX * c->dp, 0.5 * c->dp }, ve[3];
	tide_sample smp;
	tide_fluid_grid_sample(g, edge, &smp);
	velocity_at(edge, ve);
	CHECK(fabs(smp.v[0] - ve[0]) < 2.0 * gradv * tide_case_h(c), "%s: vx %g at the floor, "
	      "exact %g (boundary particles taken in?)", label, smp.v[0], ve[0]);
	/* No fluid within 2h of the top layer: nothing measured, all fields 0. */
	double top = (NX - 0.5) * c->dp;
	double far[3] = { 0.5 * NX * c->dp, 0.5 * NX * c->dp, top + 2.0 * tide_case_h(c) + 1e-9 };
	double below[3] = { 0.3, 0.3, -5.0 };
	tide_fluid_grid_sample(g, far, &smp);
	CHECK(smp.nfluid == 0 && smp.p == 0 && smp.rho == 0 && smp.v[0] == 0 && smp.v[2] == 0,
	      "%s: 2h above the top layer: nfluid %zu, p %g", label, smp.nfluid, smp.p);
	tide_fluid_grid_sample(g, below, &smp);
	CHECK(smp.nfluid == 0 && smp.v[0] == 0, "%s: below the boundary floor: nfluid %zu, vx %g "
	      "(boundary particles must not count)", label, smp.nfluid, smp.v[0]);
	/* Just inside the support above the top layer: some fluid. */
	far[2] -= 0.5 * c->dp;
	tide_fluid_grid_sample(g, far, &smp);
	CHECK(smp.nfluid > 0 && smp.nfluid == brute_count(&s, c, far), "%s: near the top: nfluid %zu",
	      label, smp.nfluid);
	double H = tide_fluid_grid_height(g, 0.5 * NX * c->dp, 0.5 * NX * c->dp);
	CHECK(fabs(H - fill_height(c)) <= c->dp, "%s: water height %.4f m, fill height %.4f m", label,
	      H, fill_height(c));
	tide_fluid_grid_free(g);
	tide_pset_free(&s);
}

/* ---- the CSV rows ---- */

/* Splits line at commas in place: the number of fields (at most max). */
static int split(char *line, char **field, int max)
{
	int n = 0;
	for (char *p = line; n < max; p++) {
		field[n++] = p;
		p = strchr(p, ',');
		if (!p) break;
		*p = '\0';
	}
	return n;
}

static void test_rows(const tide_case *c, const char *path)
{
	tide_particle_set s = { 0 };
	CHECK(tide_vtp_read(path, &s, NULL) == 0, "read %s", path);
	tide_point_list l = { 0 };
	char spec[128];
	double mid = 0.5 * NX * c->dp;
	/* from the middle of the water to far above it */
	snprintf(spec, sizeof spec, "%.17g,%.17g:%.17g,%.17g:3", mid, mid, mid, 3.0 * mid);
	CHECK(tide_points_add_line(&l, spec, 2) == 0 && l.n == 3, "line of 3 points");
	FILE *f = fopen(tmp_path("rows.csv"), "w");
	tide_probe_header(f, 1);
	CHECK(tide_probe_rows(f, &s, c, &l, 0.25, 1, 1, 1) == 0, "rows");
	fclose(f);
	f = fopen(tmp_path("rows2.csv"), "w");
	CHECK(tide_probe_rows(f, &s, c, &l, 0.0, 0, 0, 1) == 0, "rows without time or height");
	fclose(f);
	char *x = slurp(tmp_path("rows.csv"), NULL), *y = slurp(tmp_path("rows2.csv"), NULL);
	const char *header = "time[s],x[m],y[m],z[m],nfluid[-],vx[m/s],vy[m/s],vz[m/s],p[Pa],"
	                     "rho[kg/m^3],H[m]\n";
	CHECK(x && y && !strncmp(x, header, strlen(header)), "header: %s", x ? x : "(none)");
	if (!x || !y) return;
	char *line[6], *p = x + strlen(header);
	for (int k = 0; k < 6; k++) {
		line[k] = p;
		p = strchr(p, '\n');
		CHECK(p != NULL, "row %d missing", k);
		if (!p) return;
		*p++ = '\0';
		if (k == 2) p = y;
	}
	for (int k = 0; k < 6; k++) {
		char *fld[16];
		int with = k < 3, n = split(line[k], fld, 16);
		CHECK(n == (with ? 11 : 10), "row %d has %d fields", k, n);
		if (n < 10) continue;
		CHECK(with ? atof(fld[0]) == 0.25 : fld[0][0] == '\0', "row %d time '%s'", k, fld[0]);
		const double *pt = l.p[k % 3];
		CHECK(atof(fld[1]) == pt[0] && atof(fld[2]) == 0.0 && fabs(atof(fld[3]) - pt[2]) < 1e-12,
		      "row %d point %s,%s,%s", k, fld[1], fld[2], fld[3]);
		int nfl = atoi(fld[4]), dry = k % 3 == 2;   /* 3 * mid is far above the water */
		CHECK(dry ? nfl == 0 : nfl > 0, "row %d nfluid %d", k, nfl);
		for (int j = 5; j < 10; j++)
			CHECK(dry ? fld[j][0] == '\0' : fld[j][0] != '\0', "row %d field %d '%s'", k, j, fld[j]);
		if (k % 3 == 0)   /* mid-depth; the second point is on the surface */
			CHECK(fabs(atof(fld[8]) - pressure_at(c, pt[2])) < 0.5, "row %d p %s", k, fld[8]);
		if (with) CHECK(fabs(atof(fld[10]) - fill_height(c)) <= c->dp, "row %d H %s", k, fld[10]);
	}
	free(x);
	free(y);
	tide_points_free(&l);
	tide_pset_free(&s);
}

/* ---- points ---- */

static void test_points(void)
{
	tide_point_list l = { 0 };
	quiet(1);
	CHECK(tide_points_add_line(&l, "0,1,2:3,-2,5:4", 3) == 0 && l.n == 4, "3-D line");
	if (l.n == 4) {
		CHECK(l.p[1][0] == 1.0 && l.p[1][1] == 0.0 && l.p[1][2] == 3.0, "line point 1");
		CHECK(l.p[3][0] == 3.0 && l.p[3][1] == -2.0 && l.p[3][2] == 5.0, "line end");
	}
	CHECK(tide_points_add_point(&l, "0.5, 0.25", 2) == 0 && l.p[4][0] == 0.5 && l.p[4][1] == 0.0 &&
	      l.p[4][2] == 0.25, "2-D point x,z");
	const char *bad[] = { "0.5,0.25", "1,2,3,4,5", "1,,2", "a,b,c", "1,2,", "" };
	for (int k = 0; k < 6; k++)
		CHECK(tide_points_add_point(&l, bad[k], 3) == TIDE_READ_BAD, "3-D point '%s' accepted", bad[k]);
	const char *badline[] = { "0,0,0:1,1,1", "0,0,0:1,1,1:1", "0,0,0:1,1,1:x", "0,0:1,1,1:3" };
	for (int k = 0; k < 4; k++)
		CHECK(tide_points_add_line(&l, badline[k], 3) == TIDE_READ_BAD, "line '%s' accepted", badline[k]);
	size_t before = l.n;
	const char *csv = "x[m],y[m],z[m]\n# a comment\n0.1,0.2,0.3\n\n 0.4 , 0.5 , 0.6  # end\n";
	spit(tmp_path("points.csv"), csv, strlen(csv));
	CHECK(tide_points_add_file(&l, tmp_path("points.csv"), 3) == 0 && l.n == before + 2,
	      "points file: %zu points", l.n - before);
	if (l.n == before + 2) CHECK(l.p[before + 1][1] == 0.5, "points file second point");
	const char *badcsv = "0.1,0.2,0.3\nx,y,z\n";
	spit(tmp_path("bad.csv"), badcsv, strlen(badcsv));
	CHECK(tide_points_add_file(&l, tmp_path("bad.csv"), 3) == TIDE_READ_BAD, "header on line 2");
	CHECK(tide_points_add_file(&l, tmp_path("none.csv"), 3) == TIDE_READ_BAD, "missing file");
	quiet(0);
	tide_points_free(&l);
}

/* ---- damaged files ---- */

static int fd_saved = -1;
static void quiet(int on)
{
	fflush(stderr);
	if (on) {
		fd_saved = dup(2);
		if (!freopen(tmp_path("stderr.txt"), "w", stderr)) exit(1);
	} else {
		dup2(fd_saved, 2);
		close(fd_saved);
		clearerr(stderr);
	}
}

/* Reads path expecting the code want and a message naming the file and containing what. */
static void expect_refused(const char *path, int want, const char *what)
{
	tide_particle_set s = { 0 };
	tide_pset_push(&s, 0, 0, 0, 1000.f, TIDE_FLUID);
	quiet(1);
	int rc = tide_vtp_read(path, &s, NULL);
	quiet(0);
	char *msg = slurp(tmp_path("stderr.txt"), NULL);
	CHECK(rc == want, "%s: code %d, want %d (%s)", path, rc, want, msg ? msg : "");
	CHECK(msg && strstr(msg, path) && strstr(msg, what), "%s: message '%s' lacks '%s'", path,
	      msg ? msg : "", what);
	CHECK(msg && strchr(msg, '\n') == msg + strlen(msg) - 1, "%s: not one line: '%s'", path, msg);
	CHECK(s.n == 0, "%s: a refused read left %zu particles", path, s.n);
	free(msg);
	tide_pset_free(&s);
}

/* A copy of the good file with bytes [at, at + len) replaced by rep (rep_len bytes). */
static const char *damaged(const char *good, size_t glen, const char *name, size_t at, size_t len,
                           const char *rep, size_t rep_len)
{
	char *b = malloc(glen + rep_len);
	memcpy(b, good, at);
	memcpy(b + at, rep, rep_len);
	memcpy(b + at + rep_len, good + at + len, glen - at - len);
	const char *p = tmp_path(name);
	spit(p, b, glen - len + rep_len);
	free(b);
	return p;
}

static size_t offset_of(const char *data, const char *what) { return (size_t)(strstr(data, what) - data); }

/* Where the appended bytes of a named array start (its UInt64 count). */
static size_t array_pos(const char *data, const char *name)
{
	char key[64];
	snprintf(key, sizeof key, "Name=\"%s\"", name);
	const char *tag = strstr(data, key);
	const char *off = strstr(tag, "offset=\"") + 8;
	return offset_of(data, "encoding=\"raw\">") + strlen("encoding=\"raw\">\n   _") +
	       (size_t)strtoull(off, NULL, 10);
}

static void test_refusals(const char *good_path)
{
	size_t glen;
	char *g = slurp(good_path, &glen);
	CHECK(g != NULL, "read %s", good_path);
	if (!g) return;
	expect_refused(tmp_path("missing.vtp"), TIDE_READ_BAD, "No such file");
	spit(tmp_path("text.vtp"), "hello\n", 6);
	expect_refused(tmp_path("text.vtp"), TIDE_READ_BAD, "not XML");
	expect_refused(damaged(g, glen, "trunc.vtp", glen - 200, 200, "", 0), TIDE_READ_BAD, "truncated");
	expect_refused(damaged(g, glen, "header.vtp", 0, glen, g, offset_of(g, "<AppendedData")),
	               TIDE_READ_BAD, "truncated");
	/* UInt32 headers are valid VTK, but not over data written with UInt64 ones: the shifted
	 * values are caught (a density of 0). */
	size_t at = offset_of(g, "header_type=\"UInt64\"");
	expect_refused(damaged(g, glen, "uint32.vtp", at, 20, "header_type=\"UInt32\"", 20),
	               TIDE_READ_BAD, "damaged");
	at = offset_of(g, "header_type=\"UInt64\"");
	expect_refused(damaged(g, glen, "uint16.vtp", at, 20, "header_type=\"UInt16\"", 20),
	               TIDE_READ_BAD, "header_type must be UInt32 or UInt64");
	at = offset_of(g, "Name=\"Density\"");
	expect_refused(damaged(g, glen, "noname.vtp", at, 14, "Name=\"Densxty\"", 14), TIDE_READ_BAD,
	               "no Density array");
	at = offset_of(g, "type=\"Float32\" Name=\"Velocity\"");
	expect_refused(damaged(g, glen, "f64.vtp", at, 14, "type=\"Float64\"", 14), TIDE_READ_BAD,
	               "its Velocity array holds 7200 bytes, 14400 expected");
	at = offset_of(g, "encoding=\"raw\"");
	expect_refused(damaged(g, glen, "b64.vtp", at, 14, "encoding=\"b64\"", 14), TIDE_READ_BAD,
	               "neither raw nor base64");
	/* A byte count that disagrees with the point count. */
	at = array_pos(g, "Density");
	uint64_t wrong;
	memcpy(&wrong, g + at, 8);
	wrong += 4;
	expect_refused(damaged(g, glen, "count.vtp", at, 8, (const char *)&wrong, 8), TIDE_READ_BAD,
	               "Density array holds");
	/* More points declared than the arrays hold. */
	char np[64];
	at = offset_of(g, "NumberOfPoints=\"");
	size_t dlen = strcspn(g + at + 16, "\"");
	snprintf(np, sizeof np, "NumberOfPoints=\"%0*d", (int)dlen, atoi(g + at + 16) + 1);
	const char *more = damaged(g, glen, "points.vtp", at, 16 + dlen, np, 16 + dlen);
	expect_refused(more, TIDE_READ_BAD, "Points array holds");
	char *m = slurp(more, NULL);
	at = offset_of(m, "NumberOfVerts=\"");
	memcpy(np, "NumberOfVerts", 13);   /* the same digits after NumberOfPoints' 14 letters */
	memmove(np + 13, np + 14, strlen(np + 14) + 1);
	expect_refused(damaged(m, glen, "both.vtp", at, 15 + dlen, np, 15 + dlen), TIDE_READ_BAD,
	               "Points array holds");
	free(m);
	/* A particle type tide does not write. */
	at = array_pos(g, "Type") + 8;
	expect_refused(damaged(g, glen, "type.vtp", at + 5, 1, "\x07", 1), TIDE_READ_BAD, "Type 7");
	free(g);
}

/* ---- hand-made VTK files: the decoder against an encoder written here ---- */

/* One array's raw bytes (host order) for field f of s, in a VTK type other than tide's. */
static unsigned char *field_bytes(const tide_particle_set *s, int f, const char **type, size_t *len)
{
	size_t n = s->n, el = f == TIDE_FIELD_VELOCITY ? 4 : 8, nc = tide_field_ncomp(f);
	unsigned char *b = malloc(n * nc * el), *o = b;
	for (size_t i = 0; i < n; i++)
		for (size_t d = 0; d < nc; d++, o += el) {
			double x = f == TIDE_FIELD_POSITION ? (d == 0 ? s->x : d == 1 ? s->y : s->z)[i]
			         : f == TIDE_FIELD_DENSITY ? s->rho[i] : 0.0;
			float v = (d == 0 ? s->vx : d == 1 ? s->vy : s->vz)[i];
			uint64_t u = f == TIDE_FIELD_ID ? s->id[i] : s->type[i];
			if (f == TIDE_FIELD_VELOCITY) memcpy(o, &v, 4);
			else if (f == TIDE_FIELD_ID || f == TIDE_FIELD_TYPE) memcpy(o, &u, 8);
			else memcpy(o, &x, 8);
		}
	*type = f == TIDE_FIELD_VELOCITY ? "Float32" : f == TIDE_FIELD_ID ? "UInt64"
	      : f == TIDE_FIELD_TYPE ? "Int64" : "Float64";
	*len = n * nc * el;
	return b;
}

/* VTK's binary layout of an array: UInt32 headers; zlib in blocks of bs bytes (bs = 0: none). */
static size_t vtk_block(const unsigned char *data, size_t len, size_t bs, unsigned char *out)
{
	if (!bs) {
		uint32_t h = (uint32_t)len;
		memcpy(out, &h, 4);
		memcpy(out + 4, data, len);
		return 4 + len;
	}
	uint32_t nb = (uint32_t)((len + bs - 1) / bs), h[3] = { nb, (uint32_t)bs, (uint32_t)(len % bs) };
	memcpy(out, h, 12);
	size_t at = 12 + 4 * (size_t)nb;
	for (uint32_t k = 0; k < nb; k++) {
		size_t n = k + 1 == nb && len % bs ? len % bs : bs;
		uLongf c = compressBound((uLong)n);
		compress2(out + at, &c, data + (size_t)k * bs, (uLong)n, 6);
		uint32_t c32 = (uint32_t)c;
		memcpy(out + 12 + 4 * (size_t)k, &c32, 4);
		at += c;
	}
	return at;
}

static void base64(FILE *f, const unsigned char *p, size_t n)
{
	static const char *abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
		             (i + 2 < n ? p[i + 2] : 0);
		fputc(abc[v >> 18], f);
		fputc(abc[(v >> 12) & 63], f);
		fputc(i + 1 < n ? abc[(v >> 6) & 63] : '=', f);
		fputc(i + 2 < n ? abc[v & 63] : '=', f);
		if (i % 57 == 54) fputs("\n  ", f);   /* line breaks inside the text */
	}
}

/* Writes s as a .vtp: UInt32 headers, zlib blocks of bs bytes (0: none), appended raw or inline
 * base64 (header and data one stream, not VTK's two), Points last and point data reversed. */
static void write_handmade(const char *path, const tide_particle_set *s, size_t bs, int inline64)
{
	FILE *f = fopen(path, "wb");
	int order[] = { TIDE_FIELD_ID, TIDE_FIELD_TYPE, TIDE_FIELD_DENSITY, TIDE_FIELD_VELOCITY,
	                TIDE_FIELD_POSITION };
	unsigned char *blk[5];
	size_t blen[5], off = 0;
	const char *type[5];
	for (int k = 0; k < 5; k++) {
		size_t len;
		unsigned char *raw = field_bytes(s, order[k], &type[k], &len);
		blk[k] = malloc(len + len / 2 + 64 + 4 * (len / (bs ? bs : 1) + 1) + 12 * (len / (bs ? bs : 1) + 1));
		blen[k] = vtk_block(raw, len, bs, blk[k]);
		free(raw);
	}
	fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" "
	           "byte_order=\"LittleEndian\"%s>\n<PolyData>\n<Piece NumberOfPoints=\"%zu\">\n"
	           "<PointData>\n", bs ? " compressor=\"vtkZLibDataCompressor\"" : "", s->n);
	for (int k = 0; k < 5; k++) {
		if (k == 4) fputs("</PointData>\n<Points>\n", f);
		fprintf(f, "<DataArray type=\"%s\" Name=\"%s\"%s format=\"%s\"", type[k],
		        tide_field_name(order[k]), tide_field_ncomp(order[k]) > 1 ? " NumberOfComponents=\"3\"" : "",
		        inline64 ? "binary" : "appended");
		if (inline64) {
			fputs(">\n  ", f);
			base64(f, blk[k], blen[k]);
			fputs("\n</DataArray>\n", f);
		} else {
			fprintf(f, " offset=\"%zu\"/>\n", off);
			off += blen[k];
		}
	}
	fputs("</Points>\n</Piece>\n</PolyData>\n", f);
	if (!inline64) {
		fputs("<AppendedData encoding=\"raw\">\n_", f);
		for (int k = 0; k < 5; k++) fwrite(blk[k], 1, blen[k], f);
		fputs("\n</AppendedData>\n", f);
	}
	fputs("</VTKFile>\n", f);
	fclose(f);
	for (int k = 0; k < 5; k++) free(blk[k]);
}

static void test_handmade(const tide_particle_set *s)
{
	/* blocks of 7 bytes: elements of 4 and 8 bytes straddle every block boundary */
	const struct { size_t bs; int inline64; const char *name; } v[] = {
		{ 7, 0, "hm_zlib7.vtp" }, { 4096, 1, "hm_zlib_b64.vtp" }, { 0, 1, "hm_b64.vtp" },
	};
	for (int k = 0; k < 3; k++) {
		const char *path = tmp_path(v[k].name);
		write_handmade(path, s, v[k].bs, v[k].inline64);
		tide_particle_set r = { 0 };
		unsigned have = 0;
		int rc = tide_vtp_read_fields(path, TIDE_FIELDS_ALL & ~TIDE_READ_BIT(TIDE_FIELD_PRESSURE),
		                              &r, NULL, &have);
		CHECK(rc == 0 && r.n == s->n, "%s: read %d, %zu particles of %zu", v[k].name, rc, r.n, s->n);
		CHECK(have == (TIDE_FIELDS_ALL & ~TIDE_READ_BIT(TIDE_FIELD_PRESSURE)), "%s: have %#x",
		      v[k].name, have);
		if (rc || r.n != s->n) { tide_pset_free(&r); continue; }
		size_t n = s->n;
		CHECK(!memcmp(r.x, s->x, n * 8) && !memcmp(r.z, s->z, n * 8) && !memcmp(r.vx, s->vx, n * 4) &&
		      !memcmp(r.vz, s->vz, n * 4) && !memcmp(r.rho, s->rho, n * 4) &&
		      !memcmp(r.id, s->id, n * 4) && !memcmp(r.type, s->type, n * sizeof *s->type),
		      "%s: fields differ from the written ones", v[k].name);
		tide_pset_free(&r);
	}
}

/* ---- .h5 written here: the reader against the HDF5 API ---- */

#ifdef TIDE_HAVE_HDF5
#include <hdf5.h>
#include "h5_read.h"

/* A .h5 with the datasets named in which (P position, V velocity, D density, T type) of n
 * particles; vcols: the velocity's columns; rho0: the first density. */
static const char *h5_file(const char *name, const char *which, size_t n, int vcols, double rho0)
{
	const char *path = tmp_path(name);
	hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	double *buf = calloc(3 * n, sizeof *buf);
	for (size_t i = 0; i < n; i++) {
		buf[3 * i] = 0.01 * (double)i;
		buf[3 * i + 2] = 0.5;
	}
	for (const char *w = which; *w; w++) {
		int cols = *w == 'P' ? 3 : *w == 'V' ? vcols : 1;
		hsize_t dims[2] = { n, (hsize_t)cols };
		hid_t sp = H5Screate_simple(cols > 1 ? 2 : 1, dims, NULL);
		const char *dn = *w == 'P' ? "Position" : *w == 'V' ? "Velocity" : *w == 'D' ? "Density" : "Type";
		hid_t ft = *w == 'T' ? H5T_STD_U8LE : *w == 'V' ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
		hid_t d = H5Dcreate2(f, dn, ft, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
		double *v = calloc((size_t)cols * n, sizeof *v);
		for (size_t i = 0; i < (size_t)cols * n; i++)
			v[i] = *w == 'P' ? buf[i] : *w == 'D' ? (i ? 1000.0 + (double)i : rho0)
			     : *w == 'V' ? 0.25 * (double)i : (double)(i % 2);
		H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
		free(v);
		H5Dclose(d);
		H5Sclose(sp);
	}
	free(buf);
	H5Fclose(f);
	return path;
}

static void test_h5(void)
{
	tide_particle_set s = { 0 };
	unsigned have = 0, need = TIDE_READ_BIT(TIDE_FIELD_DENSITY) | TIDE_READ_BIT(TIDE_FIELD_TYPE);
	double t;
	int ht;
	const char *ok = h5_file("pdt.h5", "PDT", 50, 3, 1000.0);
	CHECK(tide_h5_read(ok, need, &s, NULL, &have, &t, &ht) == 0 && s.n == 50, "read pdt.h5");
	CHECK(have == (TIDE_READ_BIT(TIDE_FIELD_POSITION) | need) && !ht, "pdt.h5: have %#x", have);
	if (s.n == 50)
		CHECK(s.x[7] == 0.01 * 7.0 && s.z[7] == 0.5 && s.rho[3] == 1003.f && s.type[3] == 1 &&
		      s.type[4] == 0 && s.vx[5] == 0.f && s.id[9] == 9, "pdt.h5: values");
	const char *v = h5_file("pvdt.h5", "PVDT", 50, 3, 1000.0);
	CHECK(tide_h5_read(v, need, &s, NULL, &have, &t, &ht) == 0 && s.n == 50 &&
	      (have & TIDE_READ_BIT(TIDE_FIELD_VELOCITY)) && s.vy[2] == 0.25f * 7, "pvdt.h5: velocity");
	const struct { const char *name, *which, *what; int vcols; double rho0; } bad[] = {
		{ "pt.h5", "PT", "no Density dataset", 3, 1000.0 },
		{ "dt.h5", "DT", "no Position dataset", 3, 1000.0 },
		{ "v2.h5", "PVDT", "Velocity dataset is not N x 3", 2, 1000.0 },
		{ "nan.h5", "PDT", "Density nan", 3, NAN },
		{ "neg.h5", "PDT", "Density -5", 3, -5.0 },
	};
	for (int k = 0; k < 5; k++) {
		const char *path = h5_file(bad[k].name, bad[k].which, 50, bad[k].vcols, bad[k].rho0);
		quiet(1);
		int rc = tide_h5_read(path, need, &s, NULL, &have, &t, &ht);
		quiet(0);
		char *msg = slurp(tmp_path("stderr.txt"), NULL);
		CHECK(rc == TIDE_READ_BAD && s.n == 0 && msg && strstr(msg, path) && strstr(msg, bad[k].what),
		      "%s: code %d, %zu particles, message '%s' (want '%s')", bad[k].name, rc, s.n,
		      msg ? msg : "", bad[k].what);
		free(msg);
	}
	tide_pset_free(&s);
}
#else
static void test_h5(void) { printf("  .h5 reader: built without HDF5, not tested\n"); }
#endif

/* ---- .pvd ---- */

static void test_pvd(void)
{
	tide_pvd p;
	CHECK(tide_pvd_open(&p, tmp_path("series.pvd")) == 0, "pvd open");
	tide_pvd_add(&p, tmp_path("a&b.vtp"), 0.0);
	tide_pvd_add(&p, tmp_path("s1.vtp"), 0.125);
	tide_pvd_add(&p, "/abs/elsewhere.vtp", 1.0 / 3.0);
	tide_pvd_close(&p);
	tide_pvd_list l;
	CHECK(tide_pvd_read(tmp_path("series.pvd"), &l) == 0 && l.n == 3, "pvd read");
	if (l.n == 3) {
		CHECK(!strcmp(l.file[0], tmp_path("a&b.vtp")) && !strcmp(l.file[1], tmp_path("s1.vtp")) &&
		      !strcmp(l.file[2], "/abs/elsewhere.vtp"), "files %s %s %s", l.file[0], l.file[1],
		      l.file[2]);
		CHECK(l.time[0] == 0.0 && l.time[1] == 0.125 && l.time[2] == 1.0 / 3.0, "times");
	}
	tide_pvd_list_free(&l);
	CHECK(tide_pvd_open(&p, tmp_path("empty.pvd")) == 0, "empty pvd");
	tide_pvd_close(&p);
	quiet(1);
	CHECK(tide_pvd_read(tmp_path("empty.pvd"), &l) == TIDE_READ_BAD, "empty series accepted");
	CHECK(tide_pvd_read(tmp_path("nope.pvd"), &l) == TIDE_READ_BAD, "missing series accepted");
	quiet(0);
}

int main(void)
{
	if (test_tmpdir_create("test_probe")) return 1;
	const struct { int dim, kernel; const char *label, *file; } runs[] = {
		{ 2, TIDE_KERNEL_WENDLAND, "2-D Wendland", "l2w.vtp" },
		{ 2, TIDE_KERNEL_CUBIC, "2-D cubic", "l2c.vtp" },
		{ 3, TIDE_KERNEL_WENDLAND, "3-D Wendland", "l3w.vtp" },
	};
	for (int k = 0; k < 3; k++) {
		tide_case c = make_case(runs[k].dim, runs[k].kernel);
		tide_particle_set s = { 0 };
		lattice(&c, &s);
		const char *path = tmp_path(runs[k].file);
		test_round_trip(&c, &s, path);
		test_interpolation(&c, path, runs[k].label);
		if (k == 0) {
			test_rows(&c, path);
			test_refusals(path);
			test_handmade(&s);
		}
		tide_pset_free(&s);
	}
	test_points();
	test_pvd();
	test_h5();
	return test_finish("test_probe");
}
