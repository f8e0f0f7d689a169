// SPDX-License-Identifier: LGPL-2.1-or-later
// End-of-run summary (the DualSPHysics Run.csv idea): one CSV row with units in its header for
// spreadsheets and benchmark scripts, and the same fields as JSON for programs.  Both files are
// produced from one field table so they cannot disagree.
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "output.h"

enum field_kind { F_STR, F_INT, F_LONG, F_SIZE, F_DBL };

/* a title's unit the run may name (tide_run_stats.unit_length, ...) */
enum field_unit { U_FIXED, U_LENGTH, U_MASS, U_DENSITY };

typedef struct field {
	const char *key;     /* JSON key: the tide_run_stats member */
	const char *title;   /* CSV column title with unit */
	enum field_kind kind;
	size_t offset, size;
	enum field_unit unit;
} field;

#define FIELDU(member, title, kind, unit) \
	{ #member, title, kind, offsetof(tide_run_stats, member), sizeof(((tide_run_stats *)0)->member), unit }
#define FIELD(member, title, kind) FIELDU(member, title, kind, U_FIXED)

static const field fields[] = {
	FIELD(case_name, "case", F_STR),
	FIELD(status, "status", F_STR),
	FIELD(dim, "dim[-]", F_INT),
	FIELD(n_fluid, "n_fluid[-]", F_SIZE),
	FIELD(n_bound, "n_bound[-]", F_SIZE),
	FIELD(steps, "steps[-]", F_LONG),
	FIELD(t_sim, "t_sim[s]", F_DBL),
	FIELD(wall_s, "wall[s]", F_DBL),
	FIELD(time_per_step_s, "time_per_step[s]", F_DBL),
	FIELD(particle_steps_per_s, "particle_steps_per_s[1/s]", F_DBL),
	FIELD(peak_host_bytes, "peak_host[B]", F_SIZE),
	FIELD(peak_device_bytes, "peak_device[B]", F_SIZE),
	FIELD(expected_device_bytes, "expected_device[B]", F_SIZE),
	FIELD(nranks, "nranks[-]", F_INT),
	FIELD(ncpu_workers, "ncpu_workers[-]", F_INT),
	FIELD(ncuda_workers, "ncuda_workers[-]", F_INT),
	FIELD(sched, "sched", F_STR),
	FIELD(n_outputs, "n_outputs[-]", F_INT),
	FIELDU(dp, "dp[m]", F_DBL, U_LENGTH),
	FIELDU(h, "h[m]", F_DBL, U_LENGTH),
	FIELD(first_step_s, "first_step[s]", F_DBL),
	FIELD(later_step_s, "later_steps[s]", F_DBL),
	FIELDU(jeans_mass_min, "jeans_mass_min[mass]", F_DBL, U_MASS),
	FIELDU(jeans_rho, "jeans_rho[density]", F_DBL, U_DENSITY),
	FIELD(jeans_unresolved_t, "jeans_unresolved_t[s]", F_DBL),
	FIELD(n_sinks, "n_sinks[-]", F_INT),
	FIELDU(sink_mass, "sink_mass[mass]", F_DBL, U_MASS),
	FIELD(n_nbody, "n_nbody[-]", F_SIZE),
};
#define NFIELDS (sizeof fields / sizeof fields[0])

static const void *member(const tide_run_stats *st, const field *fd)
{
	return (const char *)st + fd->offset;
}

/* The struct's strings may fill their arrays without a terminating NUL. */
static size_t str_len(const tide_run_stats *st, const field *fd)
{
	return strnlen(member(st, fd), fd->size);
}

/* Numbers are written the same way in both files. */
static void put_number(FILE *f, const tide_run_stats *st, const field *fd, int json)
{
	const void *p = member(st, fd);
	switch (fd->kind) {
	case F_INT: fprintf(f, "%d", *(const int *)p); break;
	case F_LONG: fprintf(f, "%ld", *(const long *)p); break;
	case F_SIZE: fprintf(f, "%zu", *(const size_t *)p); break;
	case F_DBL: {
		double v = *(const double *)p;
		if (json && !isfinite(v)) fputs("null", f);   /* JSON has no NaN or Inf */
		else fprintf(f, "%.9g", v);
		break;
	}
	case F_STR: break;
	}
}

static void csv_string(FILE *f, const char *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"') fputc('"', f);
		fputc(s[i], f);
	}
	fputc('"', f);
}

static void json_string(FILE *f, const char *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		switch (ch) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (ch < 0x20) fprintf(f, "\\u%04x", ch);
			else fputc(ch, f);
		}
	}
	fputc('"', f);
}

static int write_csv(const char *path, const tide_run_stats *st)
{
	tide_atomic_file af;
	if (tide_atomic_open(&af, path)) return -1;
	for (size_t k = 0; k < NFIELDS; k++) {
		/* the title's unit: the run's name for it where it gives one */
		const char *u = fields[k].unit == U_LENGTH ? st->unit_length : fields[k].unit == U_MASS ? st->unit_mass
		              : fields[k].unit == U_DENSITY ? st->unit_density : "";
		const char *t = fields[k].title;
		if (u[0]) fprintf(af.f, "%s%.*s[%.15s]", k ? "," : "", (int)strcspn(t, "["), t, u);
		else fprintf(af.f, "%s%s", k ? "," : "", t);
	}
	fputc('\n', af.f);
	for (size_t k = 0; k < NFIELDS; k++) {
		if (k) fputc(',', af.f);
		if (fields[k].kind == F_STR) csv_string(af.f, member(st, &fields[k]), str_len(st, &fields[k]));
		else put_number(af.f, st, &fields[k], 0);
	}
	fputc('\n', af.f);
	return tide_atomic_commit(&af, 1);
}

static int write_json(const char *path, const tide_run_stats *st)
{
	tide_atomic_file af;
	if (tide_atomic_open(&af, path)) return -1;
	fputs("{\n", af.f);
	for (size_t k = 0; k < NFIELDS; k++) {
		fprintf(af.f, "  \"%s\": ", fields[k].key);
		if (fields[k].kind == F_STR) json_string(af.f, member(st, &fields[k]), str_len(st, &fields[k]));
		else put_number(af.f, st, &fields[k], 1);
		fputs(k + 1 < NFIELDS ? ",\n" : "\n", af.f);
	}
	fputs("}\n", af.f);
	return tide_atomic_commit(&af, 1);
}

int tide_summary_write(const char *dir, const tide_run_stats *st)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/run_summary.csv", dir);
	if (write_csv(path, st)) return -1;
	snprintf(path, sizeof path, "%s/run_summary.json", dir);
	return write_json(path, st);
}

size_t tide_peak_host_bytes(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (!f) return 0;
	char line[256];
	size_t bytes = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned long long kib;
		if (sscanf(line, "VmHWM: %llu kB", &kib) == 1) {
			bytes = (size_t)kib * 1024;
			break;
		}
	}
	fclose(f);
	return bytes;
}
