// SPDX-License-Identifier: LGPL-2.1-or-later
// tide glass: makes a periodic glass (src/glass.h) from a random set, the positions of gas cases
// with generator.positions: glass.  The shipped cases/glass/glass_4096.txt is its output for
// the defaults.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "glass.h"

static void glass_usage(FILE *f)
{
	fprintf(f,
	        "usage: tide glass --out FILE [--n N] [--seed S] [--iterations K] [--eta ETA]\n"
	        "\n"
	        "Makes a glass: N random points in the periodic unit cube (seed S), each moved K times\n"
	        "down the SPH pressure gradient of an isothermal gas (cubic spline, h = ETA N^(-1/3),\n"
	        "at most a tenth of the mean spacing per step), so that their SPH density is nearly\n"
	        "uniform without a lattice's preferred directions.  Prints the density spread\n"
	        "(std/mean) of the random start and of the glass, and writes FILE: one 'x y z' line per\n"
	        "point in [0, 1), for generator.glass of a gas case (docs/case-format.md).\n"
	        "\n"
	        "  --out FILE        the glass file (required)\n"
	        "  --n N             points (default 4096, at most 1e6)\n"
	        "  --seed S          random seed (default 1)\n"
	        "  --iterations K    relaxation steps (default 200)\n"
	        "  --eta ETA         h in mean spacings (default 1.2, the gas scheme's)\n"
	        "\n"
	        "Exit codes: 0 written, 1 failed (memory, file), 2 bad usage.\n");
}

static int number(const char *opt, const char *s, double lo, double hi, double *v)
{
	char *end;
	*v = strtod(s, &end);
	if (*end || !(*v >= lo && *v <= hi)) {
		fprintf(stderr, "tide glass: %s needs a number from %g to %g, got '%s'.\n", opt, lo, hi, s);
		return -1;
	}
	return 0;
}

int tide_cmd_glass(int argc, char **argv)
{
	const char *out = NULL;
	double n = 4096, seed = 1, iters = 200, eta = 1.2;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) { glass_usage(stdout); return 0; }
		if (i + 1 >= argc) {
			fprintf(stderr, "tide glass: unknown option or missing value '%s'.\n\n", a);
			glass_usage(stderr);
			return 2;
		}
		const char *v = argv[++i];
		double *dst = NULL, lo = 0, hi = 0;
		if (!strcmp(a, "--out")) { out = v; continue; }
		if (!strcmp(a, "--n")) { dst = &n; lo = 8; hi = 1e6; }
		else if (!strcmp(a, "--seed")) { dst = &seed; hi = 4294967295.0; }
		else if (!strcmp(a, "--iterations")) { dst = &iters; hi = 1e6; }
		else if (!strcmp(a, "--eta")) { dst = &eta; lo = 0.5; hi = 3; }
		else {
			fprintf(stderr, "tide glass: unknown option '%s'.\n\n", a);
			glass_usage(stderr);
			return 2;
		}
		if (number(a, v, lo, hi, dst)) return 2;
		if (dst != &eta && *dst != floor(*dst)) {
			fprintf(stderr, "tide glass: %s takes a whole number, got '%s'.\n", a, v);
			return 2;
		}
	}
	if (!out) {
		fprintf(stderr, "tide glass: --out FILE is required.\n\n");
		glass_usage(stderr);
		return 2;
	}
	tide_glass g;
	if (tide_glass_random((uint32_t)n, (unsigned)seed, &g)) {
		fprintf(stderr, "tide glass: out of memory for %g points.\n", n);
		return 1;
	}
	double s0 = tide_glass_spread(&g, eta);
	printf("tide glass: %u random points (seed %u): density spread %.5f (h = %g spacings)\n",
	       g.n, (unsigned)seed, s0, eta);
	if (tide_glass_relax(&g, (int)iters, eta, stdout, 50)) {
		fprintf(stderr, "tide glass: out of memory.\n");
		tide_glass_free(&g);
		return 1;
	}
	double s1 = tide_glass_spread(&g, eta);
	printf("tide glass: after %d steps: density spread %.5f\n", (int)iters, s1);
	char head[512];
	snprintf(head, sizeof head,
	         "# SPDX-License-Identifier: LGPL-2.1-or-later\n"
	         "# tide glass: %u points in the periodic unit cube [0, 1)^3, one 'x y z' per line\n"
	         "# made by: tide glass --n %u --seed %u --iterations %d --eta %g\n"
	         "# SPH density spread (std/mean, cubic spline, h = %g N^(-1/3)): %.5f (random start "
	         "%.5f)\n", g.n, g.n, (unsigned)seed, (int)iters, eta, eta, s1, s0);
	int rc = tide_glass_write(out, &g, head);
	tide_glass_free(&g);
	if (rc) {
		fprintf(stderr, "tide glass: cannot write '%s'.\n", out);
		return 1;
	}
	printf("tide glass: wrote %s\n", out);
	return 0;
}
