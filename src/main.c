// SPDX-License-Identifier: LGPL-2.1-or-later
// tide: command-line entry point and subcommand dispatch.
#include <stdio.h>
#include <string.h>
#include "commands.h"
#ifdef TIDE_SIMGRID
/* StarPU's SimGrid mode: its own main starts the simulation (and SMPI's MPI) and then calls
 * ours, renamed starpu_main by this header */
#include <starpu_simgrid_wrap.h>
#endif

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: tide COMMAND [options]\n"
	        "\n"
	        "Particle simulator on StarPU: weakly compressible SPH for free-surface flows.\n"
	        "\n"
	        "commands:\n"
	        "  run CASE     run a simulation case (cases/*.yaml); tide run --help for options\n"
	        "  gravity      Barnes-Hut force evaluation benchmark; tide gravity --help\n"
	        "  nbody        N-body run (Plummer sphere, cold collapse); tide nbody --help\n"
	        "  info         StarPU version, workers (CPUs, GPUs), scheduler, MPI world size\n"
	        "  cases        list the shipped cases with their size and description\n"
	        "  glass        make a periodic glass file (gas initial positions); tide glass --help\n"
	        "  probe INPUT  velocity, pressure, density, water height at points from saved output\n"
	        "               (CSV); tide probe --help\n"
	        "\n"
	        "options:\n"
	        "  --help       this text\n"
	        "  --version    print the version\n"
	        "\n"
	        "Launch several ranks with mpirun; tune StarPU with its environment variables\n"
	        "(STARPU_SCHED, STARPU_NCPU, STARPU_NCUDA, STARPU_CALIBRATE, ...).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		printf("tide %s\n", TIDE_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "info")) return tide_cmd_info(argc - 1, argv + 1);
	if (!strcmp(cmd, "run")) return tide_cmd_run(argc - 1, argv + 1);
	if (!strcmp(cmd, "cases")) return tide_cmd_cases(argc - 1, argv + 1);
	if (!strcmp(cmd, "gravity")) return tide_cmd_gravity(argc - 1, argv + 1);
	if (!strcmp(cmd, "nbody")) return tide_cmd_nbody(argc - 1, argv + 1);
	if (!strcmp(cmd, "probe")) return tide_cmd_probe(argc - 1, argv + 1);
	if (!strcmp(cmd, "glass")) return tide_cmd_glass(argc - 1, argv + 1);
	fprintf(stderr, "tide: unknown command or option '%s'.\n\n", cmd);
	usage(stderr);
	return 2;
}
