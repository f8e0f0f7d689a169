/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A text file, one line per step, floats in C99 hexadecimal (%a) so that a replay has the
 * recorded bits: "step dt vmax rho_min rho_max fill nbad count hmax". */
#include "step_trace.h"
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include "log.h"

#define TRACE_FIELDS "step dt vmax rho_min rho_max fill nbad count hmax"
#define TRACE_HEAD "# tide step trace 1: " TRACE_FIELDS "\n"

int tide_step_trace_open(tide_step_trace *t, const char *path, int replay, int write,
                         unsigned long count0)
{
	memset(t, 0, sizeof *t);
	snprintf(t->path, sizeof t->path, "%s", path);
	t->replay = replay;
	t->write = write;
	t->count0 = count0;
	if (!replay && !write) return 0;
	t->f = fopen(path, replay ? "r" : "w");
	if (!t->f) {
		fprintf(stderr, "tide: cannot %s the step trace %s: %s.\n", replay ? "read" : "write",
		        path, tide_io_reason(errno));
		return -1;
	}
	if (!replay) {
		fputs(TRACE_HEAD, t->f);
		return 0;
	}
	char line[256];
	if (!fgets(line, sizeof line, t->f) || strcmp(line, TRACE_HEAD)) {
		fprintf(stderr, "tide: %s is not a tide step trace (its first line must be \"%.*s\"; "
		        "record one with tide run --record-steps FILE).\n", path,
		        (int)strlen(TRACE_HEAD) - 1, TRACE_HEAD);
		fclose(t->f);
		t->f = NULL;
		return -1;
	}
	t->line = 1;
	return 0;
}

int tide_step_trace_check(const char *path)
{
	tide_step_trace t;
	if (tide_step_trace_open(&t, path, 1, 0, 0)) return -1;
	fclose(t.f);
	return 0;
}

int tide_step_trace_check_write(const char *path)
{
	FILE *f = fopen(path, "a");
	if (!f) {
		fprintf(stderr, "tide: cannot write the step trace %s: %s.\n", path, tide_io_reason(errno));
		return -1;
	}
	fclose(f);
	return 0;
}

static int replay(tide_step_trace *t, long step, tide_step_reduce *r)
{
	char line[512];
	long s;
	tide_step_reduce q;
	t->line++;
	if (!fgets(line, sizeof line, t->f)) {
		fprintf(stderr, "tide: the step trace %s ends before step %ld (it holds %ld steps): "
		        "replay at most as many steps as were recorded (--max-steps).\n", t->path,
		        step + 1, t->line - 2);
		return -1;
	}
	if (sscanf(line, "%ld %a %a %a %a %a %" SCNu32 " %" SCNu32 " %a", &s, &q.dt, &q.vmax,
	           &q.rho_min, &q.rho_max, &q.fill, &q.nbad, &q.count, &q.hmax) != 9) {
		fprintf(stderr, "tide: %s line %ld is not a step record (9 fields: %s).\n", t->path,
		        t->line, TRACE_FIELDS);
		return -1;
	}
	if (s != step) {
		fprintf(stderr, "tide: %s line %ld records step %ld, the run is at step %ld (replay a "
		        "trace from the step the run starts at).\n", t->path, t->line, s, step);
		return -1;
	}
	if (step == 0 && t->count0 && q.count != t->count0) {
		fprintf(stderr, "tide: the step trace %s was recorded with %" PRIu32 " particles, this "
		        "run has %lu: replay it with the case, --dp and --set of the recorded run.\n",
		        t->path, q.count, t->count0);
		return -1;
	}
	*r = q;
	return 0;
}

int tide_step_trace_reduce(void *arg, long step, tide_step_reduce *r)
{
	tide_step_trace *t = arg;
	if (t->replay) return replay(t, step, r);
	if (t->write)
		fprintf(t->f, "%ld %a %a %a %a %a %" PRIu32 " %" PRIu32 " %a\n", step, r->dt, r->vmax,
		        r->rho_min, r->rho_max, r->fill, r->nbad, r->count, r->hmax);
	return 0;
}

int tide_step_trace_close(tide_step_trace *t)
{
	if (!t->f) return 0;
	int bad = ferror(t->f);
	if (fclose(t->f)) bad = 1;
	t->f = NULL;
	if (bad && !t->replay) {
		fprintf(stderr, "tide: cannot write the step trace %s: %s.\n", t->path,
		        tide_io_reason(errno));
		return -1;
	}
	return 0;
}
