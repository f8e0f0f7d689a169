// SPDX-License-Identifier: LGPL-2.1-or-later
// Tests of the output side: .vtp read back bit for bit, .pvd series, gauges on synthetic lattices,
// run summary, and the error paths.  Exit status 0 when everything passes; each failure is printed.
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tide/case.h"
#include "output.h"
#include "tide/sph_kernel.h"
#include "test_util.h"

static void path_in_tmp(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", tmpdir, name);
}

static int file_exists(const char *path) { return access(path, F_OK) == 0; }

/* ---- stderr capture for the error-path tests ---- */

static int saved_stderr = -1;
static char capture_path[300];

static void capture_begin(void)
{
	path_in_tmp(capture_path, sizeof capture_path, "stderr.txt");
	fflush(stderr);
	saved_stderr = dup(2);
	int fd = open(capture_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 2);
	close(fd);
}

static char *capture_end(void)
{
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	return slurp(capture_path, NULL);
}

/* ---- a hand-made case ---- */

static tide_case make_case(int dim, double dp, int kernel)
{
	return test_make_case(dim, dp, 1.2, 10.0, kernel);
}

/* Density whose Tait pressure is p. */
static float tait_rho(const tide_case *c, double p)
{
	return (float)(c->rho0 * pow(1.0 + p / tide_case_tait_b(c), 1.0 / c->gamma));
}

/* ---- .vtp ---- */

/* Value of attribute name="..." inside the tag starting at tag; 0 if absent. */
static int attr(const char *tag, const char *name, char *out, size_t n)
{
	const char *end = strchr(tag, '>');
	char key[64];
	snprintf(key, sizeof key, " %s=\"", name);
	const char *p = strstr(tag, key);
	if (!p || (end && p > end)) return 0;
	p += strlen(key);
	const char *q = strchr(p, '"');
	size_t len = (size_t)(q - p) < n - 1 ? (size_t)(q - p) : n - 1;
	memcpy(out, p, len);
	out[len] = 0;
	return 1;
}

/* The bytes the writer must have produced for a named array. */
static void *expected_array(const char *name, const tide_particle_set *s, const tide_case *c,
                            size_t *bytes)
{
	size_t n = s->n;
	void *buf = calloc(3 * n + 1, sizeof(double));
	double B = tide_case_tait_b(c);
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(name, "Points")) {
			double *o = buf;
			o[3 * i] = s->x[i]; o[3 * i + 1] = s->y[i]; o[3 * i + 2] = s->z[i];
			*bytes = 24 * n;
		} else if (!strcmp(name, "Velocity")) {
			float *o = buf;
			o[3 * i] = s->vx[i]; o[3 * i + 1] = s->vy[i]; o[3 * i + 2] = s->vz[i];
			*bytes = 12 * n;
		} else if (!strcmp(name, "Density")) {
			((float *)buf)[i] = s->rho[i];
			*bytes = 4 * n;
		} else if (!strcmp(name, "Pressure")) {
			((float *)buf)[i] = (float)(B * (pow((double)s->rho[i] / c->rho0, c->gamma) - 1.0));
			*bytes = 4 * n;
		} else if (!strcmp(name, "Type")) {
			((uint8_t *)buf)[i] = (uint8_t)s->type[i];
			*bytes = n;
		} else if (!strcmp(name, "Id")) {
			((uint32_t *)buf)[i] = s->id[i];
			*bytes = 4 * n;
		} else if (!strcmp(name, "connectivity")) {
			((int32_t *)buf)[i] = (int32_t)i;
			*bytes = 4 * n;
		} else if (!strcmp(name, "offsets")) {
			((int32_t *)buf)[i] = (int32_t)(i + 1);
			*bytes = 4 * n;
		} else {
			free(buf);
			return NULL;
		}
	}
	return buf;
}

static void check_vtp_arrays(const char *data, size_t len, const tide_particle_set *s,
                             const tide_case *c)
{
	const char *app = strstr(data, "<AppendedData encoding=\"raw\">");
	CHECK(app != NULL, "no raw AppendedData section");
	if (!app) return;
	const char *base = strchr(app, '_');
	CHECK(base != NULL, "no '_' marker");
	if (!base) return;
	base++;
	const char *names[] = { "Velocity", "Density", "Pressure", "Type", "Id", "Points",
		                "connectivity", "offsets" };
	int seen[8] = { 0 };
	for (const char *tag = strstr(data, "<DataArray"); tag && tag < app;
	     tag = strstr(tag + 1, "<DataArray")) {
		char name[64], type[32], offset[32], format[32];
		CHECK(attr(tag, "Name", name, sizeof name) && attr(tag, "type", type, sizeof type) &&
		      attr(tag, "offset", offset, sizeof offset) && attr(tag, "format", format, sizeof format),
		      "DataArray without Name/type/offset/format");
		CHECK(!strcmp(format, "appended"), "%s: format %s", name, format);
		for (int k = 0; k < 8; k++) seen[k] += !strcmp(name, names[k]);
		size_t want_bytes = 0;
		void *want = expected_array(name, s, c, &want_bytes);
		CHECK(want != NULL, "unexpected array %s", name);
		if (!want) continue;
		size_t off = (size_t)strtoull(offset, NULL, 10);
		CHECK(base + off + 8 + want_bytes <= data + len, "%s runs past the end of the file", name);
		if (base + off + 8 + want_bytes <= data + len) {
			uint64_t got_bytes;
			memcpy(&got_bytes, base + off, 8);
			CHECK(got_bytes == want_bytes, "%s: size prefix %llu, want %zu", name,
			      (unsigned long long)got_bytes, want_bytes);
			CHECK(memcmp(base + off + 8, want, want_bytes) == 0, "%s differs", name);
		}
		free(want);
	}
	for (int k = 0; k < 8; k++) CHECK(seen[k] == 1, "array %s appears %d times", names[k], seen[k]);
}

static void test_vtp(void)
{
	tide_case c = make_case(3, 0.01, TIDE_KERNEL_WENDLAND);
	tide_particle_set s = { 0 };
	for (int i = 0; i < 9; i++) {
		tide_pset_push(&s, 0.1 * i + 1e-9, -0.05 * i, 1.0 / (i + 1), (float)(995.0 + 1.37 * i),
		               i % 3 == 0 ? TIDE_BOUND : TIDE_FLUID);
		s.vx[i] = 0.5f * i; s.vy[i] = -0.25f * i; s.vz[i] = 1.0f / (i + 1);
		s.id[i] = 1000u + 7u * (uint32_t)i;   /* not 0..n-1: ids survive reordering */
	}
	char path[300];
	path_in_tmp(path, sizeof path, "snap.vtp");
	CHECK(tide_vtp_write(path, &s, &c) == 0, "tide_vtp_write failed");
	char tmp[320];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	CHECK(!file_exists(tmp), "temporary %s left behind", tmp);
	size_t len = 0;
	char *data = slurp(path, &len);
	CHECK(data != NULL, "cannot read %s back", path);
	if (data) {
		CHECK(strstr(data, "header_type=\"UInt64\"") && strstr(data, "byte_order=\"LittleEndian\""),
		      "header_type/byte_order missing");
		CHECK(strstr(data, "NumberOfPoints=\"9\"") && strstr(data, "NumberOfVerts=\"9\""),
		      "point/vert counts");
		check_vtp_arrays(data, len, &s, &c);
		const char *tail = "\n  </AppendedData>\n</VTKFile>\n";
		CHECK(len > strlen(tail) && !strcmp(data + len - strlen(tail), tail), "file tail");
		free(data);
	}
	/* An empty set is still a valid file. */
	tide_particle_set empty = { 0 };
	path_in_tmp(path, sizeof path, "empty.vtp");
	CHECK(tide_vtp_write(path, &empty, &c) == 0, "empty set");
	tide_pset_free(&s);
}

/* ---- .pvd ---- */

/* Tags nest and close properly (a small checker, enough for what the writer produces). */
static int xml_well_formed(const char *x)
{
	const char *stack[32];
	size_t len[32];
	int depth = 0, root_seen = 0;
	for (const char *p = strchr(x, '<'); p; p = strchr(p, '<')) {
		const char *end = strchr(p, '>');
		if (!end) return 0;
		for (const char *q = p + 1; q < end; q++) if (*q == '<') return 0;
		if (p[1] == '?') { p = end; continue; }
		if (p[1] == '/') {
			size_t n = strcspn(p + 2, " >");
			if (depth == 0 || len[depth - 1] != n || strncmp(stack[depth - 1], p + 2, n)) return 0;
			depth--;
		} else if (end[-1] != '/') {
			if (depth == 0 && root_seen++) return 0;
			if (depth == 32) return 0;
			stack[depth] = p + 1;
			len[depth++] = strcspn(p + 1, " />");
		}
		p = end;
	}
	return depth == 0 && root_seen == 1;
}

static void test_pvd(void)
{
	char pvd[300], vtp[300];
	path_in_tmp(pvd, sizeof pvd, "series.pvd");
	tide_pvd p;
	CHECK(tide_pvd_open(&p, pvd) == 0, "tide_pvd_open");
	char *x = slurp(pvd, NULL);
	CHECK(x && xml_well_formed(x) && !strstr(x, "<DataSet"), "empty series: %s", x ? x : "(none)");
	free(x);
	const double times[3] = { 0.0, 0.05, 0.1 };
	for (int k = 0; k < 3; k++) {
		char name[32];
		snprintf(name, sizeof name, "part_%04d.vtp", k);
		path_in_tmp(vtp, sizeof vtp, name);
		CHECK(tide_pvd_add(&p, vtp, times[k]) == 0, "tide_pvd_add %d", k);
	}
	tide_pvd_add(&p, "other/dir/a&b.vtp", 0.2);   /* outside the .pvd's dir: kept, escaped */
	tide_pvd_close(&p);
	x = slurp(pvd, NULL);
	CHECK(x != NULL, "cannot read %s", pvd);
	if (!x) return;
	CHECK(xml_well_formed(x), "not well-formed:\n%s", x);
	CHECK(strstr(x, "<VTKFile type=\"Collection\"") != NULL, "not a Collection");
	for (int k = 0; k < 3; k++) {
		char want[128];
		snprintf(want, sizeof want, "timestep=\"%.17g\" group=\"\" part=\"0\" file=\"part_%04d.vtp\"",
		         times[k], k);
		CHECK(strstr(x, want) != NULL, "missing %s in\n%s", want, x);
	}
	CHECK(strstr(x, "file=\"other/dir/a&amp;b.vtp\"") != NULL, "escaping:\n%s", x);
	int n = 0;
	for (const char *q = strstr(x, "<DataSet"); q; q = strstr(q + 1, "<DataSet")) n++;
	CHECK(n == 4, "%d DataSet entries", n);
	free(x);
}

/* ---- gauges ---- */

/* 2-D still water on a regular lattice: x in [0, 1], depth 0.5 (top row at 0.495), hydrostatic
 * Tait density, plus a floor of boundary particles that the gauges must ignore. */
static void hydrostatic_2d(tide_particle_set *s, const tide_case *c)
{
	const double depth = 0.5, g = 9.81;
	for (int k = 0; k < 50; k++)
		for (int i = 0; i < 100; i++) {
			double z = c->dp * (k + 0.5);
			tide_pset_push(s, c->dp * (i + 0.5), 0.0, z, tait_rho(c, c->rho0 * g * (depth - z)),
			               TIDE_FLUID);
		}
	for (int i = 0; i < 100; i++) tide_pset_push(s, c->dp * (i + 0.5), 0.0, -0.5 * c->dp, 2000.f, TIDE_BOUND);
}

static void test_gauges_hydrostatic(int kernel)
{
	const char *kname = kernel == TIDE_KERNEL_CUBIC ? "cubic" : "wendland";
	tide_case c = make_case(2, 0.01, kernel);
	tide_particle_set s = { 0 };
	hydrostatic_2d(&s, &c);

	double h = tide_gauge_height(&s, &c, 0.5, 0.3);   /* y ignored in 2-D */
	CHECK(fabs(h - 0.5) <= 1.5 * c.dp, "%s: water height %.6f, want 0.5 +- 0.015", kname, h);
	double p = tide_gauge_pressure(&s, &c, (double[3]){ 0.5, 0.7, 0.25 });
	double pw = 1000.0 * 9.81 * 0.25;
	CHECK(fabs(p - pw) <= 0.02 * pw, "%s: pressure %.3f Pa at depth 0.25, want %.3f +- 2%%", kname, p, pw);
	double dry = tide_gauge_pressure(&s, &c, (double[3]){ 3.0, 0.0, 0.25 });
	CHECK(dry == 0.0, "%s: pressure away from the fluid %g, want 0", kname, dry);
	double hdry = tide_gauge_height(&s, &c, 3.0, 0.0);
	CHECK(hdry == 0.0, "%s: water height away from the fluid %g, want 0", kname, hdry);
	printf("  %s 2-D hydrostatic: H = %.4f m (top row 0.495), p(0.25) = %.2f Pa (exact %.2f)\n",
	       kname, h, p, pw);
	tide_pset_free(&s);
}

static void test_gauges_3d(void)
{
	tide_case c = make_case(3, 0.02, TIDE_KERNEL_WENDLAND);
	tide_particle_set s = { 0 };
	for (int k = 0; k < 10; k++)        /* depth 0.2 */
		for (int j = 0; j < 10; j++)
			for (int i = 0; i < 10; i++) {
				double z = c.dp * (k + 0.5);
				tide_pset_push(&s, c.dp * (i + 0.5), c.dp * (j + 0.5), z,
				               tait_rho(&c, 1000.0 * 9.81 * (0.2 - z)), TIDE_FLUID);
			}
	double h = tide_gauge_height(&s, &c, 0.1, 0.1);
	CHECK(fabs(h - 0.2) <= 1.5 * c.dp, "3-D water height %.4f, want 0.2 +- 0.03", h);
	double p = tide_gauge_pressure(&s, &c, (double[3]){ 0.1, 0.1, 0.1 });
	CHECK(fabs(p - 981.0) <= 0.02 * 981.0, "3-D pressure %.2f, want 981 +- 2%%", p);
	CHECK(tide_gauge_height(&s, &c, 0.1, 2.0) == 0.0, "3-D probe beside the fluid not dry");
	tide_pset_free(&s);
}

static void test_front(void)
{
	tide_case c = make_case(2, 0.01, TIDE_KERNEL_WENDLAND);
	c.surge_x0 = 0.05;
	tide_particle_set s = { 0 };
	CHECK(tide_gauge_front(&s, &c) == 0.0, "front with no fluid");
	for (int k = 0; k < 10; k++)
		for (int i = 0; i < 20; i++) tide_pset_push(&s, 0.01 * (i + 0.5), 0.0, 0.01 * (k + 0.5), 1000.f, TIDE_FLUID);
	tide_pset_push(&s, 0.6, 0.0, 0.005, 1000.f, TIDE_FLUID);     /* lone droplet far ahead */
	tide_pset_push(&s, 0.8, 0.0, 0.005, 1000.f, TIDE_FLUID);     /* a pair: one neighbour each */
	tide_pset_push(&s, 0.805, 0.0, 0.005, 1000.f, TIDE_FLUID);
	tide_pset_push(&s, 0.9, 0.0, 0.005, 1000.f, TIDE_BOUND);     /* boundary: not fluid */
	double f = tide_gauge_front(&s, &c);
	CHECK(fabs(f - (0.195 - 0.05)) < 1e-12, "surge front %.6f, want 0.145", f);
	tide_pset_free(&s);
}

static void test_gauges_csv(void)
{
	tide_case c = make_case(2, 0.01, TIDE_KERNEL_WENDLAND);
	c.nheight = 2;
	c.height[0].p[0] = 0.5;
	strcpy(c.height[1].name, "Hright");
	c.height[1].p[0] = 0.9;
	c.npressure = 1;
	c.pressure[0].p[0] = 0.5; c.pressure[0].p[2] = 0.25;
	c.surge_front = 1;
	c.surge_a = 0.5;
	tide_particle_set s = { 0 };
	hydrostatic_2d(&s, &c);

	tide_gauges g;
	CHECK(tide_gauges_open(&g, tmpdir, &c) == 0, "tide_gauges_open");
	CHECK(tide_gauges_write(&g, &s, &c, 0.0) == 0, "tide_gauges_write");
	CHECK(tide_gauges_write(&g, &s, &c, 0.1) == 0, "tide_gauges_write");
	CHECK(tide_gauges_close(&g) == 0, "tide_gauges_close");

	char path[300];
	path_in_tmp(path, sizeof path, "gauges.csv");
	char *x = slurp(path, NULL);
	CHECK(x != NULL, "cannot read %s", path);
	if (!x) return;
	const char *header = "time[s],H1[m],Hright[m],P1[Pa],front[m],Z[-],T[-]\n";
	CHECK(!strncmp(x, header, strlen(header)), "header:\n%s", x);
	const char *row2 = strchr(strchr(x, '\n') + 1, '\n') + 1;
	double v[7];
	int n = sscanf(row2, "%lf,%lf,%lf,%lf,%lf,%lf,%lf", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]);
	CHECK(n == 7, "second row has %d values: %s", n, row2);
	if (n == 7) {
		CHECK(v[0] == 0.1, "time %g", v[0]);
		CHECK(fabs(v[1] - 0.5) <= 0.015 && fabs(v[2] - 0.5) <= 0.015, "heights %g %g", v[1], v[2]);
		CHECK(fabs(v[3] - 2452.5) < 0.02 * 2452.5, "pressure %g", v[3]);
		CHECK(fabs(v[4] - 0.995) < 1e-9 && fabs(v[5] - 0.995 / 0.5) < 1e-8, "front %g Z %g", v[4], v[5]);
		CHECK(fabs(v[6] - 0.1 * sqrt(2 * 9.81 / 0.5)) < 1e-8, "T %g", v[6]);
	}
	free(x);
	tide_pset_free(&s);
}

/* ---- summary ---- */

static void test_summary(void)
{
	tide_run_stats st;
	memset(&st, 0, sizeof st);
	strcpy(st.case_name, "dam \"break\"\\2d");
	strcpy(st.status, "ok,\tdone\n");
	st.dim = 2; st.n_fluid = 12345; st.n_bound = 678; st.steps = 4321;
	st.t_sim = 1.5; st.wall_s = 12.25; st.time_per_step_s = 0.00283; st.particle_steps_per_s = 4.5e7;
	st.peak_host_bytes = tide_peak_host_bytes(); st.peak_device_bytes = 1u << 30;
	st.nranks = 1; st.ncpu_workers = 15; st.ncuda_workers = 1;
	strcpy(st.sched, "dmdas");
	st.n_outputs = 31; st.dp = 0.01; st.h = NAN;
	st.first_step_s = 0.5; st.later_step_s = 0.0025;
	st.jeans_mass_min = 0.125; st.jeans_rho = 2; st.jeans_unresolved_t = -1;
	st.n_sinks = 3; st.sink_mass = 0.75;
	CHECK(st.peak_host_bytes > 0, "tide_peak_host_bytes gave 0 on Linux");
	CHECK(tide_summary_write(tmpdir, &st) == 0, "tide_summary_write");

	char path[300];
	path_in_tmp(path, sizeof path, "run_summary.json");
	char *j = slurp(path, NULL);
	CHECK(j != NULL, "cannot read %s", path);
	if (j) {
		const char *want[] = { "\"case_name\": \"dam \\\"break\\\"\\\\2d\"",
			               "\"status\": \"ok,\\tdone\\n\"", "\"n_fluid\": 12345",
			               "\"steps\": 4321", "\"wall_s\": 12.25", "\"particle_steps_per_s\": 45000000",
			               "\"peak_device_bytes\": 1073741824", "\"sched\": \"dmdas\"",
			               "\"dp\": 0.01", "\"h\": null,", "\"first_step_s\": 0.5",
			               "\"later_step_s\": 0.0025,", "\"jeans_mass_min\": 0.125,",
			               "\"jeans_unresolved_t\": -1,", "\"n_sinks\": 3,",
			               "\"sink_mass\": 0.75,", "\"n_nbody\": 0\n}" };
		for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
			CHECK(strstr(j, want[k]) != NULL, "JSON lacks %s:\n%s", want[k], j);
		CHECK(j[0] == '{' && !strchr(j, '\t'), "JSON shape");
		free(j);
	}
	path_in_tmp(path, sizeof path, "run_summary.csv");
	char *v = slurp(path, NULL);
	CHECK(v != NULL, "cannot read %s", path);
	if (v) {
		const char *head = "case,status,dim[-],n_fluid[-],n_bound[-],steps[-],t_sim[s],wall[s],";
		CHECK(!strncmp(v, head, strlen(head)), "CSV header:\n%s", v);
		CHECK(strstr(v, "\n\"dam \"\"break\"\"\\2d\",\"ok,\tdone\n\",2,12345,678,4321,1.5,12.25,0.00283,"
		                "45000000,") != NULL, "CSV row:\n%s", v);
		CHECK(strstr(v, ",\"dmdas\",31,0.01,nan,0.5,0.0025,0.125,2,-1,3,0.75,0\n") != NULL, "CSV tail:\n%s", v);
		free(v);
	}
}

/* ---- error paths ---- */

static void expect_error(int rc, const char *what, const char *path, const char *reason)
{
	char *msg = capture_end();
	CHECK(rc == -1, "%s returned %d, want -1", what, rc);
	CHECK(msg && strstr(msg, path) && strstr(msg, reason), "%s: message \"%s\" should name %s and say %s",
	      what, msg ? msg : "", path, reason);
	if (msg && failures == 0) printf("  %s -> %s", what, msg);
	free(msg);
}

static void test_errors(void)
{
	tide_case c = make_case(2, 0.01, TIDE_KERNEL_WENDLAND);
	tide_particle_set s = { 0 };
	tide_pset_push(&s, 0, 0, 0, 1000.f, TIDE_FLUID);
	char bad[300];
	path_in_tmp(bad, sizeof bad, "no/such/dir");
	char path[340];
	const char *enoent = strerror(ENOENT);

	snprintf(path, sizeof path, "%s/x.vtp", bad);
	capture_begin();
	expect_error(tide_vtp_write(path, &s, &c), "tide_vtp_write", path, enoent);

	snprintf(path, sizeof path, "%s/x.pvd", bad);
	tide_pvd p;
	capture_begin();
	expect_error(tide_pvd_open(&p, path), "tide_pvd_open", path, enoent);

	tide_gauges g;
	snprintf(path, sizeof path, "%s/gauges.csv", bad);
	capture_begin();
	expect_error(tide_gauges_open(&g, bad, &c), "tide_gauges_open", path, enoent);

	tide_run_stats st;
	memset(&st, 0, sizeof st);
	snprintf(path, sizeof path, "%s/run_summary.csv", bad);
	capture_begin();
	expect_error(tide_summary_write(bad, &st), "tide_summary_write", path, enoent);

	/* A full disk: the temporary is a link to /dev/full, so the data never fits. */
	if (file_exists("/dev/full")) {
		char link[300];
		path_in_tmp(path, sizeof path, "full.vtp");
		path_in_tmp(link, sizeof link, "full.vtp.tmp");
		CHECK(symlink("/dev/full", link) == 0, "symlink: %s", strerror(errno));
		capture_begin();
		expect_error(tide_vtp_write(path, &s, &c), "tide_vtp_write on a full disk", path, strerror(ENOSPC));
		CHECK(!file_exists(path), "a failed write left %s", path);
	}
	tide_pset_free(&s);
}

int main(void)
{
	if (test_tmpdir_create("test_output")) return 1;
	test_vtp();
	test_pvd();
	test_gauges_hydrostatic(TIDE_KERNEL_WENDLAND);
	test_gauges_hydrostatic(TIDE_KERNEL_CUBIC);
	test_gauges_3d();
	test_front();
	test_gauges_csv();
	test_summary();
	test_errors();
	return test_finish("test_output");
}
