// SPDX-License-Identifier: LGPL-2.1-or-later
// tide cases: lists the shipped case files (cases/*.yaml) with their dimension, particle
// spacing, an estimate of their particle count and their description.
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tide/case.h"
#include "case_load.h"
#include "commands.h"
#include "gas_generator.h"
#include "geometry_fill.h"

static void cases_usage(FILE *f)
{
	fprintf(f,
	        "usage: tide cases [--dir DIR] [--dp X]\n"
	        "\n"
	        "Lists the case files DIR/*.yaml (default: the cases/ directory of tide's source tree,\n"
	        "else of its installation, %s/cases) with name, dimension, particle spacing dp,\n"
	        "an estimate of the particle count at that dp (from the volumes of the fluid boxes,\n"
	        "tank walls and obstacles, without building the particles) and the description.\n"
	        "\n"
	        "  --dir DIR   list the cases in DIR instead\n"
	        "  --dp X      estimate the particle counts at spacing X [m] instead of each case's dp\n"
	        "\n"
	        "Run one with: tide run DIR/NAME.yaml (tide run --help).\n"
	        "Exit codes: 0 listed, 1 no case directory or a case file is invalid, 2 bad usage.\n",
	        TIDE_DATA_DIR);
}

/* Particles on a lattice of spacing dp along the case's axes (x, z in 2-D). */
static double lattice(const tide_case *c, const double lo[3], const double hi[3], double grow_lo,
                      double grow_hi_z)
{
	double n = 1;
	for (int d = 0; d < 3; d++) {
		if (c->dim == 2 && d == 1) continue;
		double len = hi[d] - lo[d];
		/* no wall layers across a periodic axis (the tank is open there) */
		double g = c->periodic >> d & 1 ? 0 : grow_lo;
		double k = floor(len / c->dp + 1e-6) + g + (d == 2 ? grow_hi_z : g);
		n *= k > 0 ? k : 0;
	}
	return n;
}

static void estimate(const tide_case *c, double *fluid, double *bound)
{
	*fluid = *bound = 0;
	if (c->generator.type != TIDE_GEN_NONE) { /* gas generators count exactly, walls included */
		*fluid = (double)tide_gen_build(c, NULL);
		return;
	}
	for (int i = 0; i < c->nfluid; i++) *fluid += lattice(c, c->fluid[i].lo, c->fluid[i].hi, 0, 0);
	/* balls: their volume (area in 2-D) over the lattice cell */
	for (int i = 0; i < c->nsphere; i++)
		*fluid += c->dim == 3 ? 4.0 / 3.0 * M_PI * pow(c->sphere[i].r / c->dp, 3)
		                      : M_PI * pow(c->sphere[i].r / c->dp, 2);
	for (int i = 0; i < c->nobstacle; i++) {
		*bound += lattice(c, c->obstacle[i].lo, c->obstacle[i].hi, 0, 0);
		/* fluid boxes lose the part an obstacle overlaps */
		for (int k = 0; k < c->nfluid; k++) {
			double lo[3], hi[3];
			for (int d = 0; d < 3; d++) {
				lo[d] = fmax(c->obstacle[i].lo[d], c->fluid[k].lo[d]);
				hi[d] = fmin(c->obstacle[i].hi[d], c->fluid[k].hi[d]);
			}
			int empty = 0;
			for (int d = 0; d < 3; d++)
				if (!(c->dim == 2 && d == 1) && hi[d] <= lo[d]) empty = 1;
			if (!empty) *fluid -= lattice(c, lo, hi, 0, 0);
		}
	}
	if (*fluid < 0) *fluid = 0;
	double stl_fluid, stl_bound;   /* STL fluid volumes and solids */
	tide_geometry_estimate(c, &stl_fluid, &stl_bound);
	*fluid += stl_fluid;
	*bound += stl_bound;
	if (c->tank.present) {
		const tide_box *b = &c->tank.box;
		double L = c->tank.layers;
		*bound += lattice(c, b->lo, b->hi, L, c->tank.open_top ? 0 : L) -
		          lattice(c, b->lo, b->hi, 0, 0);
	}
}

static void human(double n, char *buf, size_t len)
{
	if (n >= 1e6) snprintf(buf, len, "%.3gM", n / 1e6);
	else if (n >= 1e3) snprintf(buf, len, "%.3gk", n / 1e3);
	else snprintf(buf, len, "%.0f", n);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_dir(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

int tide_cmd_cases(int argc, char **argv)
{
	const char *dir = NULL;
	double dp = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { cases_usage(stdout); return 0; }
		if (!strcmp(argv[i], "--dir") && i + 1 < argc) { dir = argv[++i]; continue; }
		if (!strcmp(argv[i], "--dp") && i + 1 < argc) {
			char *end;
			dp = strtod(argv[++i], &end);
			if (*end || !(dp > 0)) {
				fprintf(stderr, "tide cases: --dp needs a spacing > 0 in metres, got '%s'.\n", argv[i]);
				return 2;
			}
			continue;
		}
		fprintf(stderr, "tide cases: unknown option or missing value '%s'.\n\n", argv[i]);
		cases_usage(stderr);
		return 2;
	}
	char def[1100];
	if (!dir) {
		snprintf(def, sizeof def, "%s/cases", TIDE_SOURCE_DIR);
		if (!is_dir(def)) snprintf(def, sizeof def, "%s/cases", TIDE_DATA_DIR);
		dir = def;
	}
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "tide cases: cannot open the case directory %s; give one with --dir.\n", dir);
		return 1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".yaml") || e->d_name[0] == '.') continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			char **p = realloc(names, cap * sizeof *p);
			if (!p) break;
			names = p;
		}
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof *names, by_name);
	if (!n) printf("no case files (*.yaml) in %s\n", dir);
	else printf("%zu cases in %s (particle counts estimated from the geometry):\n\n", n, dir);
	int bad = 0;
	tide_case *c = malloc(sizeof *c);
	for (size_t i = 0; i < n && c; i++) {
		char path[2200];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		if (tide_case_load(path, dp, c)) {
			printf("%-16s  (invalid: see the message above)\n\n", names[i]);
			bad = 1;
			continue;
		}
		double nf, nb;
		estimate(c, &nf, &nb);
		char a[32], b[32], t[32];
		human(nf, a, sizeof a);
		human(nb, b, sizeof b);
		human(nf + nb, t, sizeof t);
		printf("%-16s  %d-D  dp %g m  ~%s particles (%s fluid + %s boundary)  t_end %g s\n"
		       "                  %s\n", c->name, c->dim, c->dp, t, a, b, c->t_end, path);
		/* the description, wrapped at 78 columns */
		const char *s = c->description;
		while (*s) {
			int w = 60;
			int len = (int)strlen(s);
			if (len > w) {
				int k = w;
				while (k > 0 && s[k] != ' ') k--;
				if (k > 0) w = k;
			} else {
				w = len;
			}
			printf("                  %.*s\n", w, s);
			s += w;
			while (*s == ' ') s++;
		}
		printf("\n");
	}
	free(c);
	for (size_t i = 0; i < n; i++) free(names[i]);
	free(names);
	return bad;
}
