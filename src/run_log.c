// SPDX-License-Identifier: LGPL-2.1-or-later
// The header of DIR/run.log (src/run_log.h): what StarPU was running on.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <starpu.h>
#include "log.h"
#include "run_log.h"

extern char **environ;

/* An argument as a shell would need it typed. */
static void put_arg(FILE *f, const char *a)
{
	if (*a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	                    "_-+=.,/:@%") == strlen(a)) {
		fputs(a, f);
		return;
	}
	fputc('\'', f);
	for (; *a; a++)
		if (*a == '\'') fputs("'\\''", f);
		else fputc(*a, f);
	fputc('\'', f);
}

/* Variables that change what StarPU (or tide's placement of it) does. */
static int relevant(const char *var)
{
	return !strncmp(var, "STARPU_", 7) || !strncmp(var, "TIDE_", 5) ||
	       !strncmp(var, "CUDA_VISIBLE_DEVICES=", 21);
}

int tide_run_log_open(const char *path, int append, const tide_runtime *rt, int argc,
                      char **argv)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f) return tide_log_open(path, append, "");
	int maj, min, rev;
	starpu_get_version(&maj, &min, &rev);
	char when[64] = "?", host[256] = "?";
	time_t now = time(NULL);
	struct tm tm;
	if (gmtime_r(&now, &tm)) strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
	gethostname(host, sizeof host - 1);
	fprintf(f, "tide %s run log: StarPU %d.%d.%d, MPI world size %d, scheduler %s, "
	        "%d CPU + %d CUDA workers on rank 0\n", TIDE_VERSION, maj, min, rev, rt->size,
	        rt->sched, rt->ncpu, rt->ncuda);
	fprintf(f, "started %s on %s (pid %ld)%s\n", when, host, (long)getpid(),
	        rt->size > 1 ? "; this is rank 0's log (the other ranks' messages are not in it)" : "");
	unsigned nw = starpu_worker_get_count();
	fprintf(f, "workers:");
	for (unsigned w = 0; w < nw; w++) {
		char name[128];
		starpu_worker_get_name((int)w, name, sizeof name);
		fprintf(f, "%s %s", w ? "," : "", name);
	}
	fprintf(f, "\nmain memory for StarPU: %.1f GiB\n",
	        (double)starpu_memory_get_total(STARPU_MAIN_RAM) / (1024.0 * 1024.0 * 1024.0));
	fprintf(f, "environment:");
	int any = 0;
	for (char **e = environ; e && *e; e++)
		if (relevant(*e)) {
			fputc(' ', f);
			put_arg(f, *e);
			any = 1;
		}
	fprintf(f, "%s\ncommand: tide", any ? "" : " (no STARPU_* variable set)");
	for (int i = 0; i < argc; i++) {
		fputc(' ', f);
		put_arg(f, argv[i]);
	}
	fprintf(f, "\n----\n");
	fclose(f);
	int ret = tide_log_open(path, append, text ? text : "");
	free(text);
	return ret;
}
