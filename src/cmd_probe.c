// SPDX-License-Identifier: LGPL-2.1-or-later
// tide probe: post-processing of a run's saved snapshots (the role of DualSPHysics' MeasureTool):
// velocity, pressure, density and water height interpolated at given points, as CSV.
// No StarPU: it reads files, measures on the host and writes a CSV.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tide/case.h"
#include "case_load.h"
#include "commands.h"
#include "output.h"
#include "probe.h"
#include "snapshot_read.h"

static void probe_usage(FILE *f)
{
	fprintf(f,
	        "usage: tide probe INPUT [--time T | --last] [--case FILE] [--point x,y,z]...\n"
	        "                  [--line x0,y0,z0:x1,y1,z1:N]... [--points-file FILE.csv] [--height]\n"
	        "                  [-o FILE.csv]\n"
	        "\n"
	        "Interpolates velocity, pressure and density (Shepard-normalised kernel sums over the\n"
	        "fluid particles within 2h, as the gauges of tide run) and, with --height, the water\n"
	        "height on each point's vertical, from saved output, and writes them as CSV.\n"
	        "\n"
	        "INPUT is a run directory (every snapshot of DIR/particles.pvd, or of DIR/particles.xmf\n"
	        "when the run wrote only HDF5), a .pvd or .xmf series, or one .vtp or .h5 snapshot.\n"
	        "Any valid VTK XML PolyData file is read (appended, binary or ascii data, zlib or\n"
	        "none); the snapshots need the arrays Points, Density and Type (and Velocity for the\n"
	        "velocity columns, else left empty).  The case (h, dp, rho0, kernel, dimension, Tait\n"
	        "constants) comes from used_parameters.yaml next to the input, or from --case.\n"
	        "\n"
	        "  --time T            only the snapshot of the series nearest to time T [s]\n"
	        "  --last              only the last snapshot of the series\n"
	        "  --case FILE         case file to take the parameters from\n"
	        "  --point x,y,z       a point [m] (in a 2-D case also x,z); repeatable\n"
	        "  --line A:B:N        N points (2 to 10000000) evenly from point A to point B;\n"
	        "                      repeatable\n"
	        "  --points-file FILE  points from a CSV file, one x,y,z (or x,z) a line; '#' comments\n"
	        "                      and a header line allowed\n"
	        "  --height            add H[m], the water height at each point's (x, y)\n"
	        "  -o, --output FILE   write the CSV to FILE (default: standard output)\n"
	        "\n"
	        "Columns: time[s],x[m],y[m],z[m],nfluid[-],vx[m/s],vy[m/s],vz[m/s],p[Pa],rho[kg/m^3]\n"
	        "[,H[m]], one row per snapshot and point; nfluid is the number of fluid particles\n"
	        "within 2h, and where it is 0 the interpolated fields are empty.\n"
	        "Exit codes: 0 written, 1 a file could not be read or written, 2 bad usage or bad\n"
	        "input (invalid or truncated snapshot or series, no case parameters, bad point).\n");
}

enum spec_kind { SPEC_POINT, SPEC_LINE, SPEC_FILE };

typedef struct spec {
	enum spec_kind kind;
	const char *text;
} spec;

typedef struct probe_opts {
	const char *input, *case_file, *output;
	double time;
	int have_time, last, height;
	spec *specs;
	int nspec;
} probe_opts;

static int usage_error(const char *fmt, const char *arg)
{
	fputs("tide probe: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\n\n", stderr);
	probe_usage(stderr);
	return 2;
}

/* Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, probe_opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int has_value = i + 1 < argc;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) { probe_usage(stdout); return 0; }
		if (!strcmp(a, "--last")) { o->last = 1; continue; }
		if (!strcmp(a, "--height")) { o->height = 1; continue; }
		if (!has_value && a[0] == '-')
			return usage_error("unknown option or missing value '%s'.", a);
		if (!strcmp(a, "--time")) {
			char *end;
			o->time = strtod(argv[++i], &end);
			if (end == argv[i] || *end || !isfinite(o->time))
				return usage_error("--time needs a time in seconds, got '%s'.", argv[i]);
			o->have_time = 1;
		} else if (!strcmp(a, "--case")) {
			o->case_file = argv[++i];
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			o->output = argv[++i];
		} else if (!strcmp(a, "--point") || !strcmp(a, "--line") || !strcmp(a, "--points-file")) {
			spec sp = { !strcmp(a, "--point") ? SPEC_POINT : !strcmp(a, "--line") ? SPEC_LINE
			                                                                      : SPEC_FILE,
			            argv[++i] };
			o->specs[o->nspec++] = sp;
		} else if (a[0] == '-' && a[1]) {
			return usage_error("unknown option '%s'.", a);
		} else if (o->input) {
			return usage_error("more than one input given ('%s'); give one run directory, "
			                   ".pvd, .xmf, .vtp or .h5.", a);
		} else {
			o->input = a;
		}
	}
	if (!o->input)
		return usage_error("%sno input given: a run directory, .pvd, .xmf, .vtp or .h5.", "");
	if (o->have_time && o->last) return usage_error("%s--time and --last exclude each other.", "");
	if (!o->nspec)
		return usage_error("%sno points given: use --point, --line or --points-file.", "");
	return -1;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

/* Where the series (.pvd or .xmf) or the one snapshot (.vtp or .h5) is and where its
 * used_parameters.yaml should be. */
typedef struct input {
	char series[1100], snapshot[1100], dir[1100];
} input;

static int locate(const probe_opts *o, input *in)
{
	struct stat sb;
	memset(in, 0, sizeof *in);
	if (stat(o->input, &sb)) {
		int e = errno;
		fprintf(stderr, "tide probe: cannot read %s: %s.\n", o->input, strerror(e));
		return e == ENOENT || e == ENOTDIR ? 2 : 1;
	}
	if (S_ISDIR(sb.st_mode)) {
		snprintf(in->dir, sizeof in->dir, "%s", o->input);
		/* a run with output.format both has the two series of the same snapshots */
		snprintf(in->series, sizeof in->series, "%s/particles.pvd", o->input);
		if (stat(in->series, &sb))
			snprintf(in->series, sizeof in->series, "%s/particles.xmf", o->input);
		if (stat(in->series, &sb)) {
			fprintf(stderr, "tide probe: %s holds neither particles.pvd nor particles.xmf (was "
			        "it run with --no-output?); give a .vtp or .h5 file instead.\n", o->input);
			return 2;
		}
		return 0;
	}
	const char *slash = strrchr(o->input, '/');
	if (slash) snprintf(in->dir, sizeof in->dir, "%.*s", (int)(slash - o->input), o->input);
	else snprintf(in->dir, sizeof in->dir, ".");
	if (ends_with(o->input, ".pvd") || ends_with(o->input, ".xmf")) {
		snprintf(in->series, sizeof in->series, "%s", o->input);
		return 0;
	}
	if (!ends_with(o->input, ".vtp") && !ends_with(o->input, ".h5")) {
		fprintf(stderr, "tide probe: %s is neither a directory, a .pvd or .xmf series nor a .vtp "
		        "or .h5 snapshot.\n", o->input);
		return 2;
	}
	if (o->have_time || o->last) {
		fprintf(stderr, "tide probe: --time and --last choose among the snapshots of a series; "
		        "%s is one snapshot.\n", o->input);
		return 2;
	}
	snprintf(in->snapshot, sizeof in->snapshot, "%s", o->input);
	return 0;
}

static int load_case(const probe_opts *o, const input *in, tide_case *c)
{
	char path[1200];
	if (o->case_file) snprintf(path, sizeof path, "%s", o->case_file);
	else snprintf(path, sizeof path, "%s/used_parameters.yaml", in->dir);
	if (!o->case_file && access(path, F_OK)) {
		fprintf(stderr, "tide probe: %s has no used_parameters.yaml to take h, dp, rho0 and the "
		        "kernel from; give the case with --case FILE.\n", in->dir);
		return 2;
	}
	return tide_case_load(path, 0.0, c) ? 2 : 0;
}

static int make_points(const probe_opts *o, int dim, tide_point_list *pts)
{
	for (int k = 0; k < o->nspec; k++) {
		const spec *sp = &o->specs[k];
		int rc = sp->kind == SPEC_POINT ? tide_points_add_point(pts, sp->text, dim)
		       : sp->kind == SPEC_LINE ? tide_points_add_line(pts, sp->text, dim)
		                               : tide_points_add_file(pts, sp->text, dim);
		if (rc) return rc;
	}
	return 0;
}

/* The snapshots to measure: [first, last] of the series, or the one snapshot (its time from the
 * file, else looked up in the series beside it, if that lists it). */
typedef struct selection {
	tide_pvd_list series;
	size_t first, last;
	int have_series;
} selection;

static size_t nearest(const tide_pvd_list *l, double t)
{
	size_t best = 0;
	for (size_t i = 1; i < l->n; i++)
		if (fabs(l->time[i] - t) < fabs(l->time[best] - t)) best = i;
	return best;
}

static int select_snapshots(const probe_opts *o, const input *in, selection *sel)
{
	memset(sel, 0, sizeof *sel);
	if (!in->series[0]) return 0;
	int rc = tide_series_read(in->series, &sel->series);
	if (rc) return rc;
	sel->have_series = 1;
	sel->first = 0;
	sel->last = sel->series.n - 1;
	if (o->last) sel->first = sel->last;
	if (o->have_time) sel->first = sel->last = nearest(&sel->series, o->time);
	return 0;
}

/* The time of a lone snapshot: from the series of its directory (particles.pvd for a .vtp,
 * particles.xmf for a .h5) when that lists the file. */
static int time_of_snapshot(const input *in, double *t)
{
	char series[1200];
	snprintf(series, sizeof series, "%s/particles.%s", in->dir,
	         ends_with(in->snapshot, ".h5") ? "xmf" : "pvd");
	if (access(series, R_OK)) return 0;
	tide_pvd_list l;
	if (tide_series_read(series, &l)) return 0;   /* not ours to judge: the snapshot is the input */
	const char *base = strrchr(in->snapshot, '/');
	base = base ? base + 1 : in->snapshot;
	int found = 0;
	for (size_t i = 0; i < l.n && !found; i++) {
		const char *b = strrchr(l.file[i], '/');
		if (!strcmp(b ? b + 1 : l.file[i], base)) { *t = l.time[i]; found = 1; }
	}
	tide_pvd_list_free(&l);
	return found;
}

/* What the measurements need (src/gauges.c): positions, the particle type (only fluid counts)
 * and the density (volumes m/rho and the Tait pressure).  The velocity is used where the file
 * has it (a run with output.fields may have left it out: its columns are then empty); Pressure
 * and Id arrays are not used. */
#define PROBE_NEEDS (TIDE_READ_BIT(TIDE_FIELD_POSITION) | TIDE_READ_BIT(TIDE_FIELD_DENSITY) | \
                     TIDE_READ_BIT(TIDE_FIELD_TYPE))
#define HAS_VELOCITY(have) (((have) & TIDE_READ_BIT(TIDE_FIELD_VELOCITY)) != 0)

/* Says once per input that the velocity columns stay empty. */
static void note_no_velocity(const char *path, unsigned have, int *said)
{
	if (HAS_VELOCITY(have) || *said) return;
	fprintf(stderr, "tide probe: %s has no Velocity array: the vx, vy and vz columns are left "
	        "empty.\n", path);
	*said = 1;
}

static int measure(FILE *f, const probe_opts *o, const input *in, const tide_case *c,
                   const tide_point_list *pts)
{
	selection sel;
	int rc = select_snapshots(o, in, &sel);
	if (rc) return rc;
	tide_particle_set s = {0};
	unsigned have;
	double t = 0.0;
	int have_t = 0, said = 0;
	/* The header follows the first good snapshot: a refused input leaves standard output empty. */
	if (!sel.have_series) {
		rc = tide_snapshot_read(in->snapshot, PROBE_NEEDS, &s, NULL, &have, &t, &have_t);
		if (!rc && !have_t) have_t = time_of_snapshot(in, &t);
		if (!rc) tide_probe_header(f, o->height);
		if (!rc) note_no_velocity(in->snapshot, have, &said);
		if (!rc) rc = tide_probe_rows(f, &s, c, pts, t, have_t, o->height, HAS_VELOCITY(have));
	}
	for (size_t i = sel.first; sel.have_series && i <= sel.last && !rc; i++) {
		/* the series' time, which is what the user chose the snapshot by */
		rc = tide_snapshot_read(sel.series.file[i], PROBE_NEEDS, &s, NULL, &have, &t, &have_t);
		if (!rc && i == sel.first) tide_probe_header(f, o->height);
		if (!rc) note_no_velocity(sel.series.file[i], have, &said);
		if (!rc)
			rc = tide_probe_rows(f, &s, c, pts, sel.series.time[i], 1, o->height,
			                     HAS_VELOCITY(have));
	}
	tide_pset_free(&s);
	if (sel.have_series) tide_pvd_list_free(&sel.series);
	return rc;
}

int tide_cmd_probe(int argc, char **argv)
{
	probe_opts o = {0};
	o.specs = calloc((size_t)argc, sizeof *o.specs);
	if (!o.specs) return 1;
	int rc = parse_args(argc, argv, &o);
	if (rc >= 0) { free(o.specs); return rc; }
	input in;
	tide_case c;
	tide_point_list pts = {0};
	rc = locate(&o, &in);
	if (!rc) rc = load_case(&o, &in, &c);
	if (!rc) rc = make_points(&o, c.dim, &pts);
	if (!rc && o.output) {
		tide_atomic_file af;
		if (tide_atomic_open(&af, o.output)) rc = 1;
		else {
			rc = measure(af.f, &o, &in, &c, &pts);
			/* A failed measurement leaves no partial file, and its sentence stays the only
			 * one (tide_atomic_commit would add one for the write it thinks failed). */
			if (rc) {
				fclose(af.f);
				remove(af.tmp);
			} else if (tide_atomic_commit(&af, 1)) {
				rc = 1;
			}
		}
	} else if (!rc) {
		rc = measure(stdout, &o, &in, &c, &pts);
		if (fflush(stdout) || ferror(stdout)) {
			fprintf(stderr, "tide probe: cannot write the CSV to standard output: %s.\n",
			        strerror(errno ? errno : EIO));
			if (!rc) rc = 1;
		}
	}
	tide_points_free(&pts);
	free(o.specs);
	return rc;
}
