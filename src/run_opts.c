// SPDX-License-Identifier: LGPL-2.1-or-later
// tide run's command line: the options (run_opts), the usage text, their parsing and checks,
// and the key of the options every MPI rank must be given equally (compared before StarPU starts).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd_agree.h"
#include "log.h"
#include "num_opts.h"
#include "run_control.h"
#include "run_opts.h"

static void run_usage(FILE *f)
{
	fprintf(f,
	        "usage: tide run CASE.yaml [options]\n"
	        "       tide run --restart CHECKPOINT_DIR [options]\n"
	        "\n"
	        "  --dp X            particle spacing [m], overrides the case's dp\n"
	        "  --set KEY=VALUE   override a case key, e.g. --set physics.visco=0.05 (repeatable,\n"
	        "                    each key once; every other option at most once)\n"
	        "  --format F        particle files: vtp (default), hdf5 or both (= --set output.format=F)\n"
	        "  --out DIR         output directory (default runs/NAME); one that holds a run is\n"
	        "                    refused unless --overwrite or --restart\n"
	        "  --overwrite       remove the run that DIR holds (its files only) and run there\n"
	        "  --blocks N        number of particle blocks (default 2 per worker, or 1 per GPU;\n"
	        "                    under mpirun rank 0's default times the ranks; >= the ranks)\n"
	        "  --decomp SPEC     how blocks cut the domain: slabs (default), 2d, 3d, or NXxNYxNZ\n"
	        "                    (same as --set decomposition=SPEC)\n"
	        "  --max-steps N     stop after N steps\n"
	        "  --no-output       no particle files or statistics (benchmarks); gauges.csv (at\n"
	        "                    gauges.every) and the summary are still written\n"
	        "  --record-steps FILE  write each step's reduction (time step, health, particle\n"
	        "                    count) to FILE, for a replay\n"
	        "  --replay-steps FILE  take each step's reduction from FILE (recorded by the same\n"
	        "                    case and options) instead of the data: a simulation build\n"
	        "                    (SimGrid) needs it; its run has the recorded run's steps\n"
	        "  --synthetic N     the case's physics on a box of fluid at rest of about N\n"
	        "                    particles per rank instead of its geometry (docs/simulation.md);\n"
	        "                    a simulation build makes no particle and steps by dt = cfl h/c0\n"
	        "  --profile         print where a step's time goes (per task family) and write\n"
	        "                    DIR/step_profile_rankN.csv (N: the MPI rank, 0 alone) and\n"
	        "                    every task's times in DIR/step_timeline_rankN.csv\n"
	        "  --pair-stats      at the end, the neighbour search's candidates and neighbours\n"
	        "                    per particle of the last state, in DIR/pair_stats.csv (WCSPH)\n"
	        "  --with-cpus       with a GPU, let StarPU put SPH tasks on CPU workers too (by\n"
	        "                    default a GPU runs them alone: measured 5-75x faster on an H200;\n"
	        "                    a run of one process then starts no CPU worker unless\n"
	        "                    STARPU_NCPU is set)\n"
	        "  --balance-every N  every N steps, compare the ranks' measured task time and move\n"
	        "                    the cuts when the slowest exceeds the mean by the threshold\n"
	        "  --balance-threshold X  that threshold (default 0.1 = 10 %%)\n"
	        "  --rebalance-every N  re-split the blocks by particle count every N steps (default:\n"
	        "                    only when a block or halo is 80 %% full)\n"
	        "  --checkpoint-every T  write DIR/checkpoint every T of wall time (30min, 100s, 2h)\n"
	        "                    or every T steps (500steps); also at the end of the run\n"
	        "  --stall-timeout T  stop all ranks (exit code 3) when the step loop makes no\n"
	        "                    progress for T of wall time (a stopped or stuck rank); default\n"
	        "                    30min, 0 = never\n"
	        "  --restart CKPT    continue the run saved in the checkpoint directory CKPT (the\n"
	        "                    case comes from CKPT/used_parameters.yaml; --set may change\n"
	        "                    keys other than dim, dp, coefh and domain, e.g. time.end);\n"
	        "                    output goes on in the directory above CKPT unless --out is given,\n"
	        "                    numbering and gauge/statistics rows continued\n"
	        "  --quiet, --verbose\n"
	        "\n"
	        "Writes DIR/particles_NNNN.vtp + DIR/particles.pvd (ParaView; with --format hdf5:\n"
	        "DIR/particles_NNNN.h5 + DIR/particles.xmf, written by every MPI rank), DIR/gauges.csv,\n"
	        "DIR/statistics.csv (mass, energies, momentum, extrema per output),\n"
	        "DIR/run_summary.csv/.json, DIR/used_parameters.yaml, DIR/run.log (what the run\n"
	        "printed, after the StarPU configuration; its last line says how the run ended), and\n"
	        "DIR/checkpoint when asked.  One run at a time writes into DIR (DIR/.tide.lock).\n"
	        "SIGTERM, SIGINT or SIGUSR1 (once) or creating the file DIR/STOP makes the run write\n"
	        "DIR/checkpoint and stop after the current step (a second signal kills it); under\n"
	        "mpirun send SIGUSR1 to mpirun (it forwards it; on SIGTERM/SIGINT Open MPI kills\n"
	        "the ranks after 1 s and exits 1), or SIGTERM to the tide processes.\n"
	        "A run that goes unphysical saves DIR/failed_state (a checkpoint) and\n"
	        "DIR/failed_state.vtp; one that cannot write its output saves DIR/checkpoint.\n"
	        "Exit codes: 0 done, or stopped by DIR/STOP (checkpoint written); 1 the run failed\n"
	        "(unphysical, particles left the domain, output not writable, out of memory);\n"
	        "2 bad usage or input (also an unreadable checkpoint, MPI ranks given different\n"
	        "commands, cases or options, an invalid StarPU variable such as STARPU_NCPU=-1);\n"
	        "3 stalled (--stall-timeout); 130 / 143 / 138 stopped by SIGINT / SIGTERM / SIGUSR1\n"
	        "after the checkpoint.\n"
	        "Failures and what each saves: docs/commands.md.\n");
}

/* The key a --set assignment (or --format / --decomp / --dp, their shorthands) sets, trimmed. */
static void set_key(const char *assignment, char *key, size_t n)
{
	size_t len = strcspn(assignment, "=");
	while (len > 0 && (assignment[len - 1] == ' ' || assignment[len - 1] == '\t')) len--;
	size_t skip = strspn(assignment, " \t");
	if (skip > len) skip = len;
	snprintf(key, n, "%.*s", (int)(len - skip), assignment + skip);
}

/* Every option once, every case key once: the last of two would silently win. */
static int repeated_set(const run_opts *o, const char *const *from)
{
	for (int i = 0; i < o->nsets; i++)
		for (int j = 0; j < i; j++) {
			char ki[128], kj[128];
			set_key(o->sets[i], ki, sizeof ki);
			set_key(o->sets[j], kj, sizeof kj);
			if (strcmp(ki, kj)) continue;
			fprintf(stderr, "tide run: case key '%s' is set twice (%s and %s); set each key "
			        "once.\n", ki, from[j], from[i]);
			return -1;
		}
	return 0;
}

static int is_num_opt(const tide_num_opt *num, int n, const char *a)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(num[i].name, a)) return 1;
	return 0;
}

int tide_run_parse_opts(int argc, char **argv, run_opts *o)
{
	memset(o, 0, sizeof *o);
	o->balance_threshold = 0.1;
	o->max_steps = -1;
	o->stall_timeout_s = 1800;
	double blocks = 0, max_steps = -1, balance_every = 0, rebalance_every = 0;
	tide_num_opt num[] = {
		{"--dp", 0, 0, INFINITY, 1, &o->dp, NULL},
		/* the limit of the case's grid (and TIDE_DECOMP_MAX_BLOCKS) is checked with the case */
		{"--blocks", 1, 1, 1e9, 0, &blocks, NULL},
		{"--balance-every", 1, 1, 1e15, 0, &balance_every, NULL},
		{"--balance-threshold", 0, 0, INFINITY, 1, &o->balance_threshold, NULL},
		{"--rebalance-every", 1, 1, 1e15, 0, &rebalance_every, NULL},
		{"--max-steps", 1, 1, 1e15, 0, &max_steps, NULL},
		{"--synthetic", 1, 1, 4e9, 0, &o->synthetic, NULL},
	};
	const int nnum = (int)(sizeof num / sizeof num[0]);
	const char *ckpt_every = NULL;
	/* where each --set came from, for the message about a key set twice */
	static char from[MAX_SETS + 1][160];
	const char *fromp[MAX_SETS + 1];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) { run_usage(stdout); exit(0); }
		else if (!strcmp(a, "--quiet")) tide_verbosity = 0;
		else if (!strcmp(a, "--verbose")) tide_verbosity = 2;
		else if (!strcmp(a, "--no-output")) o->no_output = 1;
		else if (!strcmp(a, "--with-cpus")) o->with_cpus = 1;
		else if (!strcmp(a, "--profile")) o->profile = 1;
		else if (!strcmp(a, "--pair-stats")) o->pair_stats = 1;
		else if (!strcmp(a, "--overwrite")) o->overwrite = 1;
		else if (is_num_opt(num, nnum, a)) {
			if (i + 1 >= argc) { fprintf(stderr, "tide run: option %s needs a value.\n", a); return -1; }
			if (tide_num_opt_parse("run", num, nnum, a, argv[++i])) return -1;
		}
		else if (!strcmp(a, "--restart")) {
			if (i + 1 >= argc) { fprintf(stderr, "tide run: --restart needs a checkpoint directory.\n"); return -1; }
			if (tide_opt_once("run", a, &o->restart, argv[++i])) return -1;
		}
		else if (!strcmp(a, "--record-steps") || !strcmp(a, "--replay-steps")) {
			const char **dst = a[4] == 'c' ? &o->record_steps : &o->replay_steps;
			if (i + 1 >= argc || !argv[i + 1][0]) { fprintf(stderr, "tide run: %s needs a file.\n", a); return -1; }
			if (tide_opt_once("run", a, dst, argv[++i])) return -1;
		}
		else if (!strcmp(a, "--checkpoint-every")) {
			const char *v = i + 1 < argc ? argv[++i] : NULL;
			if (v && tide_opt_once("run", a, &ckpt_every, v)) return -1;
			if (tide_rc_parse_interval(v, &o->ckpt_every_s, &o->ckpt_every_steps)) {
				fprintf(stderr, "tide run: --checkpoint-every needs a wall time with its unit (30min, "
				        "100s, 2h) or a step count (500steps), got '%s'.\n", v ? v : "");
				return -1;
			}
		}
		else if (!strcmp(a, "--stall-timeout")) {
			const char *v = i + 1 < argc ? argv[++i] : NULL;
			long steps = 0;
			if (v && !strcmp(v, "0")) o->stall_timeout_s = 0;
			else if (tide_rc_parse_interval(v, &o->stall_timeout_s, &steps) || steps) {
				fprintf(stderr, "tide run: --stall-timeout needs a wall time with its unit (30min, "
				        "600s, 1h) or 0 for none, got '%s'.\n", v ? v : "");
				return -1;
			}
		}
		else if (!strcmp(a, "--out")) {
			if (i + 1 >= argc) { fprintf(stderr, "tide run: --out needs a directory.\n"); return -1; }
			if (tide_opt_once("run", a, &o->out_dir, argv[++i])) return -1;
			if (!o->out_dir[0]) {
				fprintf(stderr, "tide run: --out is empty; allowed: a directory name (left out, "
				        "the output goes to runs/NAME).\n");
				return -1;
			}
		}
		else if (!strcmp(a, "--format")) {
			/* shorthand for --set output.format=F, validated with the case */
			static char fmt[MAX_SETS][48];
			if (i + 1 >= argc || o->nsets == MAX_SETS || strlen(argv[i + 1]) > 30) { fprintf(stderr, "tide run: --format needs vtp, hdf5 or both.\n"); return -1; }
			snprintf(fmt[o->nsets], sizeof fmt[0], "output.format=%s", argv[++i]);
			snprintf(from[o->nsets], sizeof from[0], "--format %.140s", argv[i]);
			o->sets[o->nsets] = fmt[o->nsets];
			o->nsets++;
		}
		else if (!strcmp(a, "--decomp")) {
			/* shorthand for --set decomposition=SPEC (kept for the life of the process) */
			static char buf[MAX_SETS][48];
			if (i + 1 >= argc || o->nsets == MAX_SETS) { fprintf(stderr, "tide run: --decomp needs slabs, 2d, 3d or NXxNYxNZ.\n"); return -1; }
			snprintf(buf[o->nsets], sizeof buf[0], "decomposition=%s", argv[++i]);
			snprintf(from[o->nsets], sizeof from[0], "--decomp %.140s", argv[i]);
			o->sets[o->nsets] = buf[o->nsets];
			o->nsets++;
		}
		else if (!strcmp(a, "--set")) {
			if (i + 1 >= argc || o->nsets == MAX_SETS) { fprintf(stderr, "tide run: --set needs KEY=VALUE (at most %d).\n", MAX_SETS); return -1; }
			snprintf(from[o->nsets], sizeof from[0], "--set %.150s", argv[i + 1]);
			o->sets[o->nsets++] = argv[++i];
		} else if (a[0] == '-') {
			fprintf(stderr, "tide run: unknown option '%s'.\n\n", a);
			run_usage(stderr);
			return -1;
		} else if (!o->case_path) o->case_path = a;
		else { fprintf(stderr, "tide run: only one case file, got '%s' and '%s'.\n", o->case_path, a); return -1; }
	}
	o->blocks = (int)blocks;
	o->max_steps = (long)max_steps;
	o->balance_every = (long)balance_every;
	o->rebalance_every = (long)rebalance_every;
	/* --dp is the key dp too: with --set dp=... it would be given twice */
	for (int i = 0; i < o->nsets; i++) fromp[i] = from[i];
	if (o->dp > 0 && o->nsets < MAX_SETS) {
		char dp[48];
		snprintf(dp, sizeof dp, "dp=%s", num[0].given);
		snprintf(from[o->nsets], sizeof from[0], "--dp %.140s", num[0].given);
		fromp[o->nsets] = from[o->nsets];
		run_opts tmp = *o;
		tmp.sets[tmp.nsets++] = dp;
		if (repeated_set(&tmp, fromp)) return -1;
	} else if (repeated_set(o, fromp)) {
		return -1;
	}
	if (o->restart && (o->case_path || o->dp > 0)) {
		fprintf(stderr, "tide run: --restart takes the case from the checkpoint; give no case "
		        "file and no --dp (use --set to change other keys).\n");
		return -1;
	}
	if (o->restart && o->overwrite) {
		fprintf(stderr, "tide run: --overwrite and --restart exclude each other: a restart goes on "
		        "with the run it continues.\n");
		return -1;
	}
	if (o->synthetic && o->restart) {
		fprintf(stderr, "tide run: --synthetic makes a fresh box of fluid; it cannot --restart.\n");
		return -1;
	}
	if (o->record_steps && o->replay_steps) {
		fprintf(stderr, "tide run: --record-steps and --replay-steps exclude each other (a "
		        "replayed run's steps are the record's).\n");
		return -1;
	}
#ifdef TIDE_SIMGRID
	if (!o->replay_steps && !o->synthetic) {
		fprintf(stderr, "tide run: a simulation build (SimGrid) computes nothing, so it needs the "
		        "steps of a real run: give --replay-steps FILE, recorded by a normal build's "
		        "tide run --record-steps FILE (or use --synthetic N).\n");
		return -1;
	}
#endif
	if (!o->case_path && !o->restart) {
		fprintf(stderr, "tide run: missing the case file.\n\n");
		run_usage(stderr);
		return -1;
	}
	return 0;
}

/* What every rank of an mpirun must be given equally, compared before StarPU starts.  The case
 * (file, --dp, --set, --format, --decomp) is compared by its content once loaded
 * (tide_run_agree_with_ranks); --quiet/--verbose and --stall-timeout may differ. */
void tide_run_key(const run_opts *o, int argc, char **argv, tide_cmd_key *k)
{
	tide_cmd_key_init(k, "run", argc, argv);
	tide_cmd_key_add(k, "--out", "%s", o->out_dir ? o->out_dir : "(not given)");
	tide_cmd_key_add(k, "--restart", "%s", o->restart ? o->restart : "(not given)");
	char n[32];
	snprintf(n, sizeof n, "%d", o->blocks);
	tide_cmd_key_add(k, "--blocks", "%s", o->blocks > 0 ? n : "(not given)");
	snprintf(n, sizeof n, "%ld", o->max_steps);
	tide_cmd_key_add(k, "--max-steps", "%s", o->max_steps >= 0 ? n : "(not given)");
	tide_cmd_key_add(k, "--no-output", "%s", o->no_output ? "given" : "not given");
	tide_cmd_key_add(k, "--synthetic", "%.17g", o->synthetic);
	tide_cmd_key_add(k, "--replay-steps", "%s", o->replay_steps ? o->replay_steps : "(not given)");
	tide_cmd_key_add(k, "--with-cpus", "%s", o->with_cpus ? "given" : "not given");
	tide_cmd_key_add(k, "--profile", "%s", o->profile ? "given" : "not given");
	tide_cmd_key_add(k, "--pair-stats", "%s", o->pair_stats ? "given" : "not given");
	tide_cmd_key_add(k, "--overwrite", "%s", o->overwrite ? "given" : "not given");
	if (o->ckpt_every_steps)
		tide_cmd_key_add(k, "--checkpoint-every", "%ldsteps", o->ckpt_every_steps);
	else
		tide_cmd_key_add(k, "--checkpoint-every", "%.17gs", o->ckpt_every_s);
	tide_cmd_key_add(k, "--rebalance-every", "%ld", o->rebalance_every);
	tide_cmd_key_add(k, "--balance-every", "%ld", o->balance_every);
	tide_cmd_key_add(k, "--balance-threshold", "%.17g", o->balance_threshold);
}
