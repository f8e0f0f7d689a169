// SPDX-License-Identifier: LGPL-2.1-or-later
// Tests of the case loader and particle builder: shipped cases load and build, lattice counts
// match hand arithmetic, particle spacing and placement, hydrostatic density, one-sentence error
// messages (key and line) for bad files, --set overrides, and the used-parameters round trip.
// Usage: test_case [SOURCE_DIR]   (SOURCE_DIR holds cases/; default ".")
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tide/case.h"
#include "case_load.h"
#include "h5_output.h"

static int failures;
static char tmpdir[64];
static char errbuf[4096];   /* stderr of the last captured call */

#define CHECK(cond, ...) do { if (!(cond)) { failures++; printf("FAIL %s:%d: ", __FILE__, __LINE__); \
	printf(__VA_ARGS__); printf("\n"); } } while (0)

/* ---- helpers ---------------------------------------------------------------------------------- */

static const char *tmp_path(const char *name)
{
	static char buf[8][160];
	static int k;
	char *p = buf[k++ % 8];
	snprintf(p, 160, "%s/%s", tmpdir, name);
	return p;
}

static const char *write_tmp(const char *name, const char *text)
{
	const char *p = tmp_path(name);
	FILE *f = fopen(p, "w");
	if (!f) { perror(p); exit(2); }
	fputs(text, f);
	fclose(f);
	return p;
}

/* Redirects fd 2 to a file around a load, and keeps what was written in errbuf. */
static int stderr_fd = -1;
static void capture_begin(void)
{
	fflush(stderr);
	stderr_fd = dup(2);
	int fd = open(tmp_path("stderr.txt"), O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
}

static void capture_end(void)
{
	fflush(stderr);
	dup2(stderr_fd, 2);
	close(stderr_fd);
	FILE *f = fopen(tmp_path("stderr.txt"), "r");
	size_t n = f ? fread(errbuf, 1, sizeof errbuf - 1, f) : 0;
	errbuf[n] = 0;
	if (f) fclose(f);
}

static int load_quiet(const char *path, double dp, tide_case *c)
{
	capture_begin();
	int rc = tide_case_load(path, dp, c);
	capture_end();
	return rc;
}

static int set_quiet(tide_case *c, const char *a)
{
	capture_begin();
	int rc = tide_case_set(c, a);
	capture_end();
	return rc;
}

/* ---- geometry checks ------------------------------------------------------------------------ */

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* Smallest pair distance over all particles, with a cell grid of side dp (neighbours are then in
 * the 27 surrounding cells). */
static double min_distance(const tide_particle_set *s, double dp)
{
	double lo[3] = {INFINITY, INFINITY, INFINITY};
	long n[3];
	for (size_t i = 0; i < s->n; i++) {
		lo[0] = fmin(lo[0], s->x[i]); lo[1] = fmin(lo[1], s->y[i]); lo[2] = fmin(lo[2], s->z[i]);
	}
	double hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (size_t i = 0; i < s->n; i++) {
		hi[0] = fmax(hi[0], s->x[i]); hi[1] = fmax(hi[1], s->y[i]); hi[2] = fmax(hi[2], s->z[i]);
	}
	for (int a = 0; a < 3; a++) n[a] = (long)((hi[a] - lo[a]) / dp) + 1;
	size_t *key = malloc(s->n * 2 * sizeof *key);   /* (cell, particle) pairs sorted by cell */
	long *cell = malloc(s->n * 3 * sizeof *cell);
	for (size_t i = 0; i < s->n; i++) {
		cell[3 * i] = (long)((s->x[i] - lo[0]) / dp);
		cell[3 * i + 1] = (long)((s->y[i] - lo[1]) / dp);
		cell[3 * i + 2] = (long)((s->z[i] - lo[2]) / dp);
		key[2 * i] = (size_t)((cell[3 * i + 2] * n[1] + cell[3 * i + 1]) * n[0] + cell[3 * i]);
		key[2 * i + 1] = i;
	}
	qsort(key, s->n, 2 * sizeof *key, cmp_size);
	double best = INFINITY;
	for (size_t i = 0; i < s->n; i++)
		for (int dz = -1; dz <= 1; dz++) for (int dy = -1; dy <= 1; dy++) for (int dx = -1; dx <= 1; dx++) {
			long cx = cell[3 * i] + dx, cy = cell[3 * i + 1] + dy, cz = cell[3 * i + 2] + dz;
			if (cx < 0 || cy < 0 || cz < 0 || cx >= n[0] || cy >= n[1] || cz >= n[2]) continue;
			size_t want = (size_t)((cz * n[1] + cy) * n[0] + cx), a = 0, b = s->n;
			while (a < b) { size_t m = (a + b) / 2; if (key[2 * m] < want) a = m + 1; else b = m; }
			for (; a < s->n && key[2 * a] == want; a++) {
				size_t j = key[2 * a + 1];
				if (j == i) continue;
				double ddx = s->x[i] - s->x[j], ddy = s->y[i] - s->y[j], ddz = s->z[i] - s->z[j];
				best = fmin(best, sqrt(ddx * ddx + ddy * ddy + ddz * ddz));
			}
		}
	free(key);
	free(cell);
	return best;
}

static int inside(const tide_case *c, const tide_box *b, size_t i, const tide_particle_set *s)
{
	double p[3] = {s->x[i], s->y[i], s->z[i]};
	for (int a = 0; a < 3; a++) {
		if (c->dim == 2 && a == 1) continue;
		if (!(p[a] > b->lo[a] && p[a] < b->hi[a])) return 0;
	}
	return 1;
}

/* Placement rules every built case must satisfy. */
static void check_built(const tide_case *c, const tide_particle_set *s)
{
	double d = min_distance(s, c->dp);
	CHECK(d >= 0.99 * c->dp, "%s: two particles %g apart, closer than 0.99 dp = %g", c->name, d,
	      0.99 * c->dp);
	size_t bad_obs = 0, bad_tank = 0, bad_y = 0, bad_id = 0;
	for (size_t i = 0; i < s->n; i++) {
		bad_id += s->id[i] != i;
		bad_y += c->dim == 2 && s->y[i] != 0;
		if (s->type[i] != TIDE_FLUID) continue;
		for (int m = 0; m < c->nobstacle; m++) bad_obs += inside(c, &c->obstacle[m], i, s);
		if (c->tank.present) bad_tank += !inside(c, &c->tank.box, i, s);
	}
	CHECK(!bad_obs, "%s: %zu fluid particles inside obstacles", c->name, bad_obs);
	CHECK(!bad_tank, "%s: %zu fluid particles outside the tank interior", c->name, bad_tank);
	CHECK(!bad_y, "%s: %zu particles of a 2-D case with y != 0", c->name, bad_y);
	CHECK(!bad_id, "%s: %zu particles with id != index", c->name, bad_id);
	/* Boundary first, then fluid. */
	size_t nb = tide_pset_count_type(s, TIDE_BOUND), order = 0;
	for (size_t i = 0; i < s->n; i++) order += (i < nb) != (s->type[i] == TIDE_BOUND);
	CHECK(!order, "%s: boundary particles are not all before the fluid", c->name);
}

/* ---- tests ---------------------------------------------------------------------------------- */

static void test_shipped(const char *src)
{
	static const char *const names[] = {"dambreak2d", "spheric2", "dambreak3obs", "hydrostatic",
	                                    "collapse_sphere", "selfgrav_sphere"};
	for (int k = 0; k < 6; k++) {
		char path[1024];
		snprintf(path, sizeof path, "%s/cases/%s.yaml", src, names[k]);
		tide_case c;
		int rc = tide_case_load(path, 0, &c);
		CHECK(rc == 0, "shipped case %s does not load", path);
		if (rc) continue;
		tide_particle_set s = {0};
		rc = tide_case_build(&c, &s);
		CHECK(rc == 0, "shipped case %s does not build", path);
		if (!rc) check_built(&c, &s);
		printf("  %-13s dim %d dp %g: %zu fluid + %zu boundary particles, c0 %.3f m/s\n", c.name,
		       c.dim, c.dp, tide_pset_count_type(&s, TIDE_FLUID), tide_pset_count_type(&s, TIDE_BOUND),
		       c.c0);
		tide_pset_free(&s);
	}
}

static void test_counts_2d(void)
{
	/* 10 x 20 fluid cells; walls: 2 layers, open top: x lattice 2+10+2, z lattice 2+25. */
	const char *p = write_tmp("tiny2d.yaml",
		"# SPDX-License-Identifier: LGPL-2.1-or-later\n"
		"dim: 2\ndp: 0.1\n"
		"tank: {lo: [0, 0], hi: [1, 2.5], layers: 2}\n"
		"fluid: [{lo: [0, 0], hi: [1, 2]}]\n"
		"time: {end: 1}\n");
	tide_case c;
	CHECK(tide_case_load(p, 0, &c) == 0, "tiny 2-D case does not load");
	tide_particle_set s = {0};
	CHECK(tide_case_build(&c, &s) == 0, "tiny 2-D case does not build");
	size_t nf = tide_pset_count_type(&s, TIDE_FLUID), nb = tide_pset_count_type(&s, TIDE_BOUND);
	size_t walls = 14 * 27 - 10 * 25;   /* = 2*2*25 side walls + 2*14 floor with corners */
	CHECK(nf == 200, "tiny 2-D: %zu fluid particles, expected 200", nf);
	CHECK(nb == walls, "tiny 2-D: %zu wall particles, expected %zu", nb, walls);
	CHECK(fabs(c.t_out - 1.0 / 50) < 1e-15, "default time.output %g, expected t_end/50", c.t_out);
	CHECK(fabs(c.hswl - 2.0) < 1e-12, "default hswl %g, expected 2", c.hswl);
	CHECK(fabs(c.c0 - 20 * sqrt(9.81 * 2.0)) < 1e-9, "c0 %g, expected 20 sqrt(g*2)", c.c0);
	/* Default domain: outer box (0.2 m of walls) extended upward by the tank height 2.5. */
	CHECK(fabs(c.domain.lo[0] + 0.2) < 1e-12 && fabs(c.domain.hi[0] - 1.2) < 1e-12 &&
	      fabs(c.domain.lo[2] + 0.2) < 1e-12 && fabs(c.domain.hi[2] - 5.0) < 1e-12,
	      "default domain x %g..%g z %g..%g", c.domain.lo[0], c.domain.hi[0], c.domain.lo[2],
	      c.domain.hi[2]);
	check_built(&c, &s);
	tide_pset_free(&s);
}

static void test_counts_3d(void)
{
	/* 5x4x2 fluid cells minus the 1x2x1 cells next to the obstacle (2 particles); closed tank with
	 * one layer: (5+2)(4+2)(3+2) - 5*4*3 wall particles. */
	const char *p = write_tmp("tiny3d.yaml",
		"# SPDX-License-Identifier: LGPL-2.1-or-later\n"
		"dim: 3\ndp: 0.1\n"
		"tank: {lo: [0, 0, 0], hi: [0.5, 0.4, 0.3], open_top: false, layers: 1}\n"
		"fluid: [{lo: [0, 0, 0], hi: [0.5, 0.4, 0.2]}]\n"
		"obstacles: [{lo: [0.2, 0.1, 0], hi: [0.3, 0.3, 0.1]}]\n"
		"time: {end: 1, output: 0.1}\n");
	tide_case c;
	CHECK(tide_case_load(p, 0, &c) == 0, "tiny 3-D case does not load");
	tide_particle_set s = {0};
	CHECK(tide_case_build(&c, &s) == 0, "tiny 3-D case does not build");
	size_t nf = tide_pset_count_type(&s, TIDE_FLUID), nb = tide_pset_count_type(&s, TIDE_BOUND);
	CHECK(nf == 38, "tiny 3-D: %zu fluid particles, expected 40 - 2", nf);
	CHECK(nb == 7 * 6 * 5 - 5 * 4 * 3 + 2, "tiny 3-D: %zu boundary particles, expected %d", nb,
	      7 * 6 * 5 - 5 * 4 * 3 + 2);
	check_built(&c, &s);
	tide_pset_free(&s);

	/* --dp halves the spacing: 8x more fluid cells. */
	CHECK(tide_case_load(p, 0.05, &c) == 0 && c.dp == 0.05, "dp override not applied");
	CHECK(tide_case_build(&c, &s) == 0, "tiny 3-D case with dp 0.05 does not build");
	check_built(&c, &s);
	tide_pset_free(&s);
}

/* An absurd dp must be refused before any allocation, naming dp. */
static void test_too_many(const char *src)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/cases/spheric2.yaml", src);
	tide_case c;
	tide_particle_set s = {0};
	if (tide_case_load(path, 1e-4, &c)) { CHECK(0, "spheric2 with dp 1e-4 does not load"); return; }
	capture_begin();
	int rc = tide_case_build(&c, &s);
	capture_end();
	CHECK(rc == -1 && s.n == 0, "dp 1e-4 was not refused");
	CHECK(strstr(errbuf, "dp = 0.0001"), "size guard message lacks dp: %s", errbuf);
	tide_pset_free(&s);
}

static void test_hydrostatic(const char *src)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/cases/hydrostatic.yaml", src);
	tide_case c;
	tide_particle_set s = {0};
	if (tide_case_load(path, 0, &c) || tide_case_build(&c, &s)) {
		CHECK(0, "hydrostatic case does not load or build");
		return;
	}
	/* Mean density of each fluid layer, from the top layer down. */
	int nl = 50;
	double sum[50] = {0}, cnt[50] = {0}, top = c.fluid[0].hi[2];
	for (size_t i = 0; i < s.n; i++) {
		if (s.type[i] != TIDE_FLUID) continue;
		int l = (int)floor((top - s.z[i]) / c.dp);
		if (l >= 0 && l < nl) { sum[l] += s.rho[i]; cnt[l]++; }
		double d = top - s.z[i];
		double want = c.rho0 * pow(1 + c.rho0 * 9.81 * d / tide_case_tait_b(&c), 1 / c.gamma);
		if (fabs(s.rho[i] - want) > 1e-6 * want) { CHECK(0, "rho %g at depth %g, expected %g", s.rho[i], d, want); break; }
	}
	int mono = 1;
	for (int l = 1; l < nl; l++) mono &= cnt[l] > 0 && sum[l] / cnt[l] > sum[l - 1] / cnt[l - 1];
	CHECK(mono, "hydrostatic density does not increase with depth layer by layer");
	/* The top two layers (depths dp/2, 3dp/2) extrapolated to the surface give rho0. */
	double r0 = sum[0] / cnt[0], r1 = sum[1] / cnt[1], surf = r0 - 0.5 * (r1 - r0);
	CHECK(fabs(surf - c.rho0) < 1e-6 * c.rho0, "surface density %.9g, expected rho0 %g", surf, c.rho0);
	tide_pset_free(&s);
}

/* A bad file: load must fail, and stderr must name the file's line and contain `needle`. */
static void bad(const char *name, const char *yaml, int line, const char *needle)
{
	char text[2048], where[256];
	snprintf(text, sizeof text, "# SPDX-License-Identifier: LGPL-2.1-or-later\n%s", yaml);
	const char *p = write_tmp(name, text);
	tide_case c;
	int rc = load_quiet(p, 0, &c);
	snprintf(where, sizeof where, "%s:%d:", p, line);
	if (getenv("TIDE_TEST_VERBOSE")) printf("  %s", errbuf);
	CHECK(rc == -1, "%s: load returned %d, expected -1", name, rc);
	CHECK(line <= 0 || strstr(errbuf, where), "%s: message lacks '%s': %s", name, where, errbuf);
	CHECK(strstr(errbuf, needle), "%s: message lacks '%s': %s", name, needle, errbuf);
	CHECK(strchr(errbuf, '\n') == errbuf + strlen(errbuf) - 1, "%s: not one line: %s", name, errbuf);
}

/* Self-gravity keys, the isothermal equation of state and fluid spheres. */
#define SG3D "dim: 3\ndp: 0.05\ndomain: {lo: [-1, -1, -1], hi: [1, 1, 1]}\n" \
	"fluid_spheres: [{centre: [0, 0, 0], radius: 0.5}]\ntime: {end: 1}\n"

#define OK2D "dim: 2\ndp: 0.1\ntank: {lo: [0, 0], hi: [1, 1]}\nfluid: [{lo: [0, 0], hi: [0.5, 0.5]}]\n"

static void test_bad_files(void)
{
	bad("unknown.yaml", OK2D "time: {end: 1}\ncolour: red\n", 7, "'colour'");
	bad("unknown2.yaml", OK2D "time: {end: 1}\nphysics:\n  viscosity: 0.1\n", 8, "'physics.viscosity'");
	/* issue 21: viscosity and periodic boundaries */
	bad("visc.yaml", OK2D "time: {end: 1}\nphysics:\n  viscosity: turbulent\n", 8,
	    "allowed: artificial, laminar");
	bad("sps_cs.yaml", OK2D "time: {end: 1}\nphysics:\n  viscosity: laminar+sps\n  sps_cs: 2\n", 9,
	    "0 <= sps_cs <= 1");
	bad("sps_ci.yaml", OK2D "time: {end: 1}\nphysics:\n  sps_ci: -0.1\n", 8, "0 <= sps_ci <= 1");
	bad("nu.yaml", OK2D "time: {end: 1}\nphysics:\n  nu: -1\n", 8, "0 <= nu <= 1000");
	bad("per_z.yaml", OK2D "time: {end: 1}\nperiodic: [z]\n", 7, "allowed: x, y");
	bad("per_y2d.yaml", OK2D "time: {end: 1}\nperiodic: [y]\n", 7, "names y in a 2-D case");
	bad("per_bool.yaml", OK2D "time: {end: 1}\nperiodic: {x: maybe}\n", 7, "'periodic.x'");
	bad("per_short.yaml", OK2D "coefh: 4\ntime: {end: 1}\nperiodic: [x]\n", 8,
	    "less than the 4h = 1.6 m");
	bad("type.yaml", "dim: 2\ndp: abc\n", 3, "'dp'");
	bad("range.yaml", OK2D "time: {end: 1}\nphysics:\n  visco: -1\n", 8, "0 <= visco <= 1");
	bad("range2.yaml", OK2D "time: {end: 1}\nphysics: {gamma: 11}\n", 7, "'physics.gamma'");
	bad("cfl.yaml", OK2D "time: {end: 1}\nphysics: {cfl: 0}\n", 7, "0 < cfl <= 1");
	bad("vec.yaml", "dim: 2\ndp: 0.1\ntank: {lo: [0, 0, 0], hi: [1, 1]}\n", 4, "'tank.lo'");
	bad("vecnum.yaml", "dim: 2\ndp: 0.1\ntank: {lo: [0, x], hi: [1, 1]}\n", 4, "'tank.lo[1]'");
	bad("enum.yaml", OK2D "time: {end: 1}\nphysics: {kernel: quintic}\n", 7, "cubic, wendland");
	bad("outside.yaml", "dim: 2\ndp: 0.1\ntank: {lo: [0, 0], hi: [1, 1]}\ntime: {end: 1}\n"
	    "fluid:\n  - {lo: [0, 0], hi: [0.5, 0.5]}\n  - {lo: [0.5, 0], hi: [1.1, 0.5]}\n", 8,
	    "'fluid[1]' = [0.5, 0]..[1.1, 0.5] lies outside the tank interior");
	bad("outside_dom.yaml", "dim: 2\ndp: 0.1\ndomain: {lo: [0, 0], hi: [1, 1]}\ntime: {end: 1}\n"
	    "fluid:\n  - {lo: [0, 0], hi: [0.5, 2]}\n", 7, "domain");
	bad("lohi.yaml", OK2D "obstacles: [{lo: [0.6, 0.5], hi: [0.7, 0.2]}]\ntime: {end: 1}\n", 6,
	    "'obstacles[0]'");
	/* a fluid box inside an obstacle holds no water; the line is the fluid box's (issue 18) */
	bad("covered.yaml", OK2D "obstacles: [{lo: [0, 0], hi: [0.6, 0.7]}]\ntime: {end: 1}\n", 5,
	    "'fluid[0]' = [0, 0]..[0.5, 0.5] lies inside 'obstacles[0]' = [0, 0]..[0.6, 0.7]");
	/* a second YAML document would be ignored: refused at its '---' line */
	bad("two_docs.yaml", OK2D "time: {end: 1}\n---\ndp: 0.2\n", 7, "a second YAML document");
	bad("syntax.yaml", "dim: 2\ndp: 0.1\nfluid: [{lo: [0, 0], hi: [1, 1]}\ntime: {end: 1}\n", 5,
	    "syntax");
	bad("missing_dp.yaml", "dim: 2\ntank: {lo: [0, 0], hi: [1, 1]}\nfluid: [{lo: [0, 0], hi: [1, 1]}]\n"
	    "time: {end: 1}\n", 1, "'dp'");
	bad("missing_end.yaml", OK2D "time: {output: 1}\n", 6, "'time.end'");
	bad("missing_hi.yaml", "dim: 2\ndp: 0.1\ntank: {lo: [0, 0]}\nfluid: [{lo: [0, 0], hi: [1, 1]}]\n"
	    "time: {end: 1}\n", 4, "'tank.hi'");
	bad("no_fluid.yaml", "dim: 2\ndp: 0.1\ntank: {lo: [0, 0], hi: [1, 1]}\ntime: {end: 1}\n", 1,
	    "'fluid'");
	bad("layers.yaml", "dim: 2\ndp: 0.1\ntank: {lo: [0, 0], hi: [1, 1],\n  layers: 9}\n", 5,
	    "'tank.layers' = 9 is out of range; allowed: 1 <= layers <= 8");
	bad("bool.yaml", "dim: 2\ndp: 0.1\ntank: {lo: [0, 0], hi: [1, 1], open_top: maybe}\n", 4,
	    "'tank.open_top'");
	bad("dim.yaml", "dp: 0.1\ndim: 4\n", 3, "'dim' = 4");
	bad("dup.yaml", "dim: 2\ndp: 0.1\ndp: 0.2\n", 4, "appears twice");
	bad("nolist.yaml", "dim: 2\ndp: 0.1\nfluid: 3\n", 4, "'fluid'");
	bad("itemkey.yaml", "dim: 2\ndp: 0.1\nfluid:\n  - {lo: [0, 0], top: [1, 1]}\n", 5, "'fluid[0].top'");
	bad("quoted.yaml", "dim: 2\ndp: \"0.1\"\n", 3, "'dp'");
	bad("zero_g.yaml", OK2D "time: {end: 1}\nphysics:\n  gravity: [0, 0]\n", 8, "'physics.gravity'");
	bad("probe.yaml", OK2D "time: {end: 1}\ngauges:\n  pressure: [{name: P, at: [5, 0.1]}]\n", 8,
	    "'gauges.pressure[0].at'");
	bad("empty.yaml", "", 0, "empty");
	bad("sg_theta.yaml", SG3D "physics:\n  self_gravity: {theta: 0}\n", 8, "0 < theta <= 1.5");
	bad("sg_soft.yaml", SG3D "physics:\n  self_gravity:\n    softening: -1\n", 9, "softening > 0");
	bad("sg_2d.yaml", OK2D "time: {end: 1}\nphysics:\n  self_gravity: {}\n", 8, "dim: 3");
	bad("iso.yaml", SG3D "physics:\n  eos: isothermal\n", 8, "'physics.cs_iso'");
	bad("eos.yaml", SG3D "physics: {eos: ideal}\n", 7, "tait, isothermal");
	bad("sphere_out.yaml", "dim: 3\ndp: 0.05\ndomain: {lo: [-1, -1, -1], hi: [1, 1, 1]}\n"
	    "fluid_spheres: [{centre: [0.8, 0, 0], radius: 0.5}]\ntime: {end: 1}\n", 5, "'fluid_spheres[0]'");
	bad("sphere_r.yaml", "dim: 3\ndp: 0.05\nfluid_spheres:\n  - {centre: [0, 0, 0]}\n", 5,
	    "'fluid_spheres[0].radius'");
	bad("sphere_neg.yaml", "dim: 3\ndp: 0.05\nfluid_spheres:\n  - {centre: [0, 0, 0], radius: -1}\n", 5,
	    "radius > 0");
	/* the name is the directory runs/NAME: it may not leave runs/ */
	bad("name_up.yaml", "name: ../up\n" OK2D "time: {end: 1}\n", 2, "key 'name': '../up' starts with '.'");
	bad("name_slash.yaml", "name: a/b\n" OK2D "time: {end: 1}\n", 2, "'a/b' contains '/'");
	bad("name_dots.yaml", "name: a..b\n" OK2D "time: {end: 1}\n", 2, "'a..b' contains '..'");
	bad("name_dash.yaml", "name: -x\n" OK2D "time: {end: 1}\n", 2, "'-x' starts with '-'");
	bad("name_space.yaml", "name: a b\n" OK2D "time: {end: 1}\n", 2, "'a b' contains a character");
	/* a default name from the file name follows the same rule */
	static const char *const files[][2] = {{"my case.v2.yaml", "my_case"}, {".hidden.yaml", "case"},
	                                       {"-dash.yaml", "_dash"}, {"run_7-b.yaml", "run_7-b"}};
	for (int i = 0; i < 4; i++) {
		tide_case d;
		int rc = load_quiet(write_tmp(files[i][0], "# SPDX-License-Identifier: LGPL-2.1-or-later\n"
		                              OK2D "time: {end: 1}\n"), 0, &d);
		CHECK(rc == 0 && !strcmp(d.name, files[i][1]), "%s: name '%s', expected '%s' (%s)",
		      files[i][0], rc ? "" : d.name, files[i][1], errbuf);
	}

	tide_case c;
	CHECK(load_quiet(tmp_path("does_not_exist.yaml"), 0, &c) == -1, "missing file loads");
	CHECK(strstr(errbuf, "does_not_exist.yaml") && strstr(errbuf, "No such file"),
	      "missing file message: %s", errbuf);
}

static void test_set(void)
{
	const char *p = write_tmp("set.yaml", "# SPDX-License-Identifier: LGPL-2.1-or-later\n"
		OK2D "time: {end: 1}\n");
	tide_case c;
	if (tide_case_load(p, 0, &c)) { CHECK(0, "set.yaml does not load"); return; }
	double c0 = c.c0;
	CHECK(tide_case_set(&c, "physics.visco=0.05") == 0 && c.visco == 0.05, "set visco");
	CHECK(tide_case_set(&c, " physics.coefsound = 10 ") == 0 && fabs(c.c0 - c0 / 2) < 1e-12,
	      "c0 not recomputed after coefsound: %g vs %g", c.c0, c0 / 2);
	CHECK(tide_case_set(&c, "physics.gravity=[0, -2.4525]") == 0 && fabs(c.c0 - c0 / 4) < 1e-12,
	      "c0 not recomputed after gravity: %g", c.c0);
	CHECK(tide_case_set(&c, "physics.kernel=wendland") == 0 && c.kernel == 1, "set kernel");
	CHECK(tide_case_set(&c, "time.end=2.5") == 0 && c.t_end == 2.5, "set time.end");
	CHECK(tide_case_set(&c, "physics.integrator=symplectic") == 0 && c.integrator == 1, "set integrator");
	CHECK(c.output_format == TIDE_OUT_VTP, "output.format does not default to vtp");
#ifdef TIDE_HAVE_HDF5
	CHECK(tide_case_set(&c, "output.format=both") == 0 && c.output_format == TIDE_OUT_BOTH,
	      "set output.format");
#else
	CHECK(set_quiet(&c, "output.format=hdf5") == -1 && strstr(errbuf, "without") &&
	      strstr(errbuf, "output.format"), "output.format=hdf5 accepted without HDF5: '%s'", errbuf);
#endif
	/* dp follows into the derived domain (walls are layers*dp thick). */
	CHECK(tide_case_set(&c, "dp=0.05") == 0 && c.dp == 0.05 && fabs(c.domain.lo[0] + 0.15) < 1e-12,
	      "set dp: dp %g domain.lo.x %g", c.dp, c.domain.lo[0]);
	CHECK(tide_case_set(&c, "tank.layers=4") == 0 && fabs(c.domain.lo[0] + 0.2) < 1e-12, "set layers");
	tide_case before = c;
	struct { const char *a, *needle; } no[] = {
		{"physics.visco=abc", "physics.visco"}, {"physics.visco=2", "0 <= visco <= 1"},
		{"physics.viscosity=1", "physics.viscosity"}, {"dim=3", "dim"}, {"fluid=[]", "fluid"},
		{"novalue", "key=value"}, {"coefh=", "key=value"}, {"physics.kernel=spline", "cubic"},
		{"physics.gravity=[0, 0, -9.81]", "physics.gravity"}, {"time.output=0", "time.output"},
		{"tank.hi=[0.3, 1]", "fluid[0]"}, {"physics.verlet_steps=1.5", "physics.verlet_steps"},
		{"output.format=netcdf", "vtp, hdf5, both"}, {"output.formats=vtp", "format"},
	};
	for (size_t k = 0; k < sizeof no / sizeof no[0]; k++) {
		CHECK(set_quiet(&c, no[k].a) == -1, "--set %s accepted", no[k].a);
		if (getenv("TIDE_TEST_VERBOSE")) printf("  %s", errbuf);
		CHECK(strstr(errbuf, no[k].needle) && strstr(errbuf, "--set"), "--set %s: message '%s' lacks '%s'",
		      no[k].a, errbuf, no[k].needle);
	}
	CHECK(!memcmp(&before, &c, sizeof c), "a rejected --set changed the case");
}

static int same_case(const tide_case *a, const tide_case *b)
{
	int same = !strcmp(a->name, b->name) && !strcmp(a->description, b->description) &&
		a->dim == b->dim && a->dp == b->dp && a->coefh == b->coefh &&
		!memcmp(&a->domain, &b->domain, sizeof a->domain) && a->tank.present == b->tank.present &&
		!memcmp(&a->tank.box, &b->tank.box, sizeof a->tank.box) && a->tank.open_top == b->tank.open_top &&
		a->tank.layers == b->tank.layers && a->nfluid == b->nfluid && a->nobstacle == b->nobstacle &&
		!memcmp(a->fluid, b->fluid, sizeof a->fluid) && !memcmp(a->obstacle, b->obstacle, sizeof a->obstacle) &&
		a->kernel == b->kernel && a->rho0 == b->rho0 && a->gamma == b->gamma &&
		a->coefsound == b->coefsound && a->hswl == b->hswl && a->c0 == b->c0 && a->visco == b->visco &&
		a->diffusion == b->diffusion && a->delta == b->delta &&
		!memcmp(a->gravity, b->gravity, sizeof a->gravity) && a->cfl == b->cfl &&
		a->integrator == b->integrator && a->verlet_steps == b->verlet_steps &&
		a->t_end == b->t_end && a->t_out == b->t_out && a->output_format == b->output_format &&
		a->nheight == b->nheight &&
		a->npressure == b->npressure && a->surge_front == b->surge_front &&
		a->surge_a == b->surge_a && a->surge_x0 == b->surge_x0 && a->eos == b->eos &&
		a->cs_iso == b->cs_iso && a->nsphere == b->nsphere &&
		!memcmp(a->sphere, b->sphere, sizeof a->sphere) && a->self_gravity.on == b->self_gravity.on &&
		(!a->self_gravity.on || (a->self_gravity.G == b->self_gravity.G &&
		                         a->self_gravity.theta == b->self_gravity.theta &&
		                         tide_case_softening(a) == tide_case_softening(b) &&
		                         a->self_gravity.quadrupole == b->self_gravity.quadrupole));
	for (int i = 0; same && i < a->nheight; i++)
		same = !strcmp(a->height[i].name, b->height[i].name) && !memcmp(a->height[i].p, b->height[i].p, sizeof a->height[i].p);
	for (int i = 0; same && i < a->npressure; i++)
		same = !strcmp(a->pressure[i].name, b->pressure[i].name) && !memcmp(a->pressure[i].p, b->pressure[i].p, sizeof a->pressure[i].p);
	return same;
}

static void round_trip(const tide_case *c, const char *what)
{
	const char *out = tmp_path("used.yaml");
	tide_case back;
	CHECK(tide_case_write_used(c, out) == 0, "%s: write_used failed", what);
	CHECK(tide_case_load(out, 0, &back) == 0, "%s: used parameters do not load back", what);
	CHECK(same_case(c, &back), "%s: used parameters differ after the round trip", what);
}

static void test_round_trip(const char *src)
{
	static const char *const names[] = {"dambreak2d", "spheric2", "dambreak3obs", "hydrostatic",
	                                    "collapse_sphere", "selfgrav_sphere"};
	for (int k = 0; k < 6; k++) {
		char path[1024];
		tide_case c;
		snprintf(path, sizeof path, "%s/cases/%s.yaml", src, names[k]);
		if (tide_case_load(path, 0, &c)) continue;   /* reported by test_shipped */
		round_trip(&c, names[k]);
		CHECK(tide_case_set(&c, "physics.visco=0.0123456789") == 0 &&
		      tide_case_set(&c, "description='x: \"quoted\" \\ text'") == 0 &&
		      tide_case_set(&c, "name=x.fine-run_2") == 0 && tide_case_set(&c, "dp=0.0301") == 0 &&
		      (!tide_h5_support() || tide_case_set(&c, "output.format=hdf5") == 0),
		      "%s: sets before the round trip failed", names[k]);
		round_trip(&c, names[k]);
	}
}

static void test_self_gravity_keys(void)
{
	const char *p = write_tmp("sg.yaml", "# SPDX-License-Identifier: LGPL-2.1-or-later\n" SG3D
		"physics:\n  gravity: [0, 0, 0]\n  eos: isothermal\n  cs_iso: 2\n  self_gravity: {}\n");
	tide_case c;
	if (tide_case_load(p, 0, &c)) { CHECK(0, "sg.yaml does not load: %s", errbuf); return; }
	CHECK(c.self_gravity.on && c.self_gravity.G == 6.674e-11 && c.self_gravity.theta == 0.5 &&
	      c.self_gravity.quadrupole == 1 && tide_case_softening(&c) == 0.05,
	      "self-gravity defaults: on %d G %g theta %g quadrupole %d softening %g", c.self_gravity.on,
	      c.self_gravity.G, c.self_gravity.theta, c.self_gravity.quadrupole, tide_case_softening(&c));
	CHECK(c.eos == TIDE_EOS_ISOTHERMAL && c.c0 == 2.0, "isothermal c0 = %g, expected cs_iso 2", c.c0);
	/* the ball's lattice: about its volume over dp^3, every point inside the radius */
	tide_particle_set s = {0};
	CHECK(tide_case_build(&c, &s) == 0, "the sphere case does not build");
	double vol = 4.0 / 3.0 * M_PI * pow(0.5 / 0.05, 3);
	CHECK(fabs((double)s.n - vol) < 0.02 * vol, "%zu particles in the ball, its volume holds %.0f", s.n, vol);
	size_t out = 0;
	for (size_t i = 0; i < s.n; i++) out += s.x[i] * s.x[i] + s.y[i] * s.y[i] + s.z[i] * s.z[i] > 0.25 + 1e-12;
	CHECK(!out, "%zu particles outside the ball", out);
	check_built(&c, &s);
	tide_pset_free(&s);
	/* hydrostatic: rho0 + (2 pi / 3) G rho0^2 (R^2 - r^2) / cs^2 */
	CHECK(tide_case_set(&c, "physics.self_gravity.G=1e-3") == 0, "--set self_gravity.G");
	c.sphere[0].hydrostatic = 1;
	CHECK(tide_case_build(&c, &s) == 0, "the hydrostatic sphere does not build");
	size_t bad_rho = 0;
	for (size_t i = 0; i < s.n; i++) {
		double r2 = s.x[i] * s.x[i] + s.y[i] * s.y[i] + s.z[i] * s.z[i];
		double want = 1000 + 2 * M_PI / 3 * 1e-3 * 1e6 * (0.25 - r2) / 4;
		bad_rho += fabs(s.rho[i] - want) > 1e-4 * want;
	}
	CHECK(!bad_rho, "%zu particles off the hydrostatic density of a self-gravitating ball", bad_rho);
	tide_pset_free(&s);
	/* a self-gravity key given with --set turns it on; a zero gravity then stays allowed */
	p = write_tmp("sg2.yaml", "# SPDX-License-Identifier: LGPL-2.1-or-later\n" SG3D);
	if (tide_case_load(p, 0, &c)) { CHECK(0, "sg2.yaml does not load: %s", errbuf); return; }
	CHECK(!c.self_gravity.on && c.eos == TIDE_EOS_TAIT, "self-gravity on or not Tait by default");
	CHECK(set_quiet(&c, "physics.gravity=[0, 0, 0]") == -1 && strstr(errbuf, "physics.self_gravity"),
	      "zero gravity without self-gravity: %s", errbuf);
	CHECK(tide_case_set(&c, "physics.self_gravity.theta=0.7") == 0 && c.self_gravity.on &&
	      c.self_gravity.theta == 0.7, "--set physics.self_gravity.theta does not turn it on");
	CHECK(tide_case_set(&c, "physics.gravity=[0, 0, 0]") == 0 && c.c0 > 0,
	      "zero gravity refused with self-gravity: %s", errbuf);
	CHECK(set_quiet(&c, "physics.self_gravity.theta=1.6") == -1 && strstr(errbuf, "0 < theta <= 1.5"),
	      "theta 1.6: %s", errbuf);
	CHECK(set_quiet(&c, "physics.eos=isothermal") == -1 && strstr(errbuf, "'physics.cs_iso'"),
	      "isothermal without cs_iso: %s", errbuf);
	round_trip(&c, "self-gravity (Tait)");
	CHECK(tide_case_set(&c, "physics.cs_iso=1.5") == 0 && tide_case_set(&c, "physics.eos=isothermal") == 0 &&
	      c.c0 == 1.5, "isothermal by --set: c0 %g", c.c0);
	round_trip(&c, "self-gravity (isothermal)");
}

int main(int argc, char **argv)
{
	const char *src = argc > 1 ? argv[1] : ".";
	snprintf(tmpdir, sizeof tmpdir, "/tmp/tide_test_case_XXXXXX");
	if (!mkdtemp(tmpdir)) { perror("mkdtemp"); return 2; }
	test_shipped(src);
	test_counts_2d();
	test_counts_3d();
	test_hydrostatic(src);
	test_too_many(src);
	test_bad_files();
	test_set();
	test_self_gravity_keys();
	test_round_trip(src);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd)) printf("note: could not remove %s\n", tmpdir);
	if (failures) { printf("test_case: %d check(s) FAILED\n", failures); return 1; }
	printf("test_case: all checks passed\n");
	return 0;
}
