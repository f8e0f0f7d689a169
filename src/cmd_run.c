// SPDX-License-Identifier: LGPL-2.1-or-later
// tide run CASE: load and build the case (or restart from a checkpoint), run the SPH time loop
// (tasks/sph_step.c), write ParaView output, gauges, statistics, checkpoints and the run summary.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <mpi.h>
#include <unistd.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/case.h"
#include "case_load.h"
#include "host_blocks.h"
#include "checkpoint.h"
#include "cmd_agree.h"
#include "commands.h"
#include "h5_output.h"
#include "host_memory.h"
#include "log.h"
#include "num_opts.h"
#include "tide/gauge_tasks.h"
#include "tide/decomposition.h"
#include "output.h"
#include "rank_agree.h"
#include "run_control.h"
#include "run_dir.h"
#include "run_log.h"
#include "runtime.h"
#include "tide/sph_sim.h"
#include "stall_watchdog.h"
#include "statistics.h"
#include "tide/decomposition.h"
#include "tide/load_balance.h"
#include "tide/step_profile.h"
#include "snapshot.h"

#define MAX_SETS 64

typedef struct run_opts {
	const char *case_path, *out_dir, *restart;
	double dp, ckpt_every_s, stall_timeout_s;
	long ckpt_every_steps;
	int blocks, no_output, with_cpus, profile, overwrite;
	int argc;                     /* the command line, for run.log */
	char **argv;
	long max_steps, rebalance_every, balance_every;
	double balance_threshold;
	const char *sets[MAX_SETS];
	int nsets;
} run_opts;

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
	        "  --profile         print where a step's time goes (per task family) and write\n"
	        "                    DIR/step_profile_rankN.csv (N: the MPI rank, 0 alone)\n"
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

static int parse_opts(int argc, char **argv, run_opts *o)
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
		else if (!strcmp(a, "--overwrite")) o->overwrite = 1;
		else if (is_num_opt(num, nnum, a)) {
			if (i + 1 >= argc) { fprintf(stderr, "tide run: option %s needs a value.\n", a); return -1; }
			if (tide_num_opt_parse("run", num, nnum, a, argv[++i])) return -1;
		}
		else if (!strcmp(a, "--restart")) {
			if (i + 1 >= argc) { fprintf(stderr, "tide run: --restart needs a checkpoint directory.\n"); return -1; }
			if (tide_opt_once("run", a, &o->restart, argv[++i])) return -1;
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
	if (!o->case_path && !o->restart) {
		fprintf(stderr, "tide run: missing the case file.\n\n");
		run_usage(stderr);
		return -1;
	}
	return 0;
}

/* Case errors are the same on every rank: only rank 0 says them.  Returns the saved fd. */
static int quiet_stderr(int quiet)
{
	if (!quiet) return -1;
	fflush(stderr);
	int saved = dup(2), null = open("/dev/null", O_WRONLY);
	if (null >= 0) { dup2(null, 2); close(null); }
	return saved;
}

static void restore_stderr(int saved)
{
	if (saved < 0) return;
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
}

/* Rank 0 could not write: the other ranks would wait for it forever, so stop them all. */
static void abort_ranks(void)
{
	fprintf(stderr, "tide: stopping all MPI ranks.\n");
	tide_log_end("failed: stopping all MPI ranks (the messages above say why)");
	MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Output state of a run. */
typedef struct run_out {
	char dir[1024];
	tide_pvd pvd;
	tide_pvd xmf;                 /* the .h5 series (output.format hdf5 or both) */
	tide_gauges gauges;
	tide_gauge_tasks gt;          /* the gauges' tasks (every rank) */
	int gauges_on;                /* anything to measure besides the time */
	long gauge_k;                 /* the next gauge row is due at gauge_k * gauges.every */
	tide_stats_file stats;
	char ckpt[1100];              /* checkpoint directory: DIR/checkpoint */
	void *mem;
	tide_block_view all;
	int n;
	double *times;                /* simulated time of every output (rank 0) */
	int ntimes_cap;
	double next_out;              /* simulated time of the next output */
	long ckpt_step;               /* step of the checkpoint in ckpt (-1: none written or read) */
	size_t n_fluid0, n_bound0;    /* particles at the start of the run (before any restart) */
	tide_snapshots snap;          /* the snapshot writer (not started with --no-output) */
} run_out;

static int note_time(run_out *o, double t)
{
	if (o->n >= o->ntimes_cap) {
		int cap = o->ntimes_cap ? 2 * o->ntimes_cap : 256;
		double *p = realloc(o->times, sizeof *p * (size_t)cap);
		if (!p) { fprintf(stderr, "tide: out of host memory.\n"); return -1; }
		o->times = p;
		o->ntimes_cap = cap;
	}
	o->times[o->n] = t;
	return 0;
}

/* Collective.  An output (tag NULL) is a snapshot: its staging copy is submitted to the task
 * graph and the writer thread writes it while the next steps run (src/snapshot_writer.c).  A
 * tagged file (failed_state) is gathered to rank 0 and written at once. */
static int write_output(run_out *o, tide_sim *sim, const tide_case *c, const char *tag)
{
	if (!tag) {
		tide_snap_job job = {.index = o->n, .t = sim->t, .dt = sim->last.dt, .step = sim->step,
		                     .wall = tide_wtime(), .e_self = tide_sim_self_gravity_energy(sim)};
		int ret = tide_snap_submit(&o->snap, sim, &job);
		if (!ret && sim->rank == 0) ret = note_time(o, sim->t);
		o->n++;
		/* rank 0 could not write: the others would go on without it */
		if (ret && sim->size > 1) abort_ranks();
		return ret ? -1 : 0;
	}
	if (tide_sim_gather(sim, 0, &o->mem, &o->all)) return -1;
	if (sim->rank != 0) return 0;
	tide_particle_set s;
	tide_set_view_of_block(&o->all, &s);
	char path[1100];
	snprintf(path, sizeof path, "%s/%s.vtp", o->dir, tag);
	int ret = tide_vtp_write(path, &s, c);
	if (ret && sim->size > 1) abort_ranks();
	return ret ? -1 : 0;
}

/* Waits for the pending snapshot: 0, or -1 when a snapshot could not be written (then, under
 * MPI, rank 0 stops every rank, as a failed synchronous write did). */
static int wait_outputs(run_out *o, const tide_sim *sim)
{
	if (!tide_snap_wait(&o->snap)) return 0;
	if (sim->size > 1 && !tide_h5_ranks_write_together(sim->mpi)) abort_ranks();
	return -1;
}

/* Collective: the gauges measured on the particles now (gauge tasks; only the sums come to rank
 * 0), a row of gauges.csv on rank 0, and the time of the next row: the first step at or after
 * each multiple of gauges.every writes one, with its own time. */
static int write_gauges(run_out *o, tide_sim *sim, const tide_case *c)
{
	double every = tide_case_gauge_every(c);
	const double none = TIDE_GAUGE_NONE;
	const double *sums = o->gauges_on ? tide_gauge_tasks_measure(&o->gt, sim) : &none;
	int ret = 0;
	if (sim->rank == 0) ret = tide_gauges_write_sums(&o->gauges, c, &o->gt.G, sums, sim->t);
	while (o->gauge_k * every <= sim->t + 1e-12) o->gauge_k++;
	if (ret && sim->size > 1) abort_ranks();
	return ret;
}

static int gauges_due(const run_out *o, const tide_sim *sim, const tide_case *c)
{
	return sim->t >= o->gauge_k * tide_case_gauge_every(c) - 1e-12;
}

/* Collective: gathers the blocks to rank 0, which writes the checkpoint directory dir.  0 or -1.
 * stop_all: a failure stops every rank (the run would go on elsewhere, waiting for rank 0). */
static int write_checkpoint_to(run_out *o, tide_sim *sim, const tide_case *c, const char *dir,
                               int stop_all)
{
	/* the checkpoint lists the outputs written so far: they are complete first (a failed one
	 * is reported by the run loop) */
	tide_snap_wait(&o->snap);
	uint32_t *counts = calloc((size_t)sim->nblocks, sizeof *counts);
	tide_block_arg *range = malloc(sizeof *range * (size_t)sim->nblocks);
	uint32_t *cap = malloc(sizeof *cap * (size_t)sim->nblocks);
	if (!counts || !range || !cap) { fprintf(stderr, "tide: out of host memory.\n"); return -1; }
	int ret = tide_sim_gather_blocks(sim, 0, &o->mem, &o->all, counts);
	if (!ret && sim->rank == 0) {
		double w = tide_wtime();
		for (int b = 0; b < sim->nblocks; b++) {
			range[b] = sim->blk[b].range;
			cap[b] = sim->blk[b].cap;
		}
		tide_ckpt_state cs = {
			.step = sim->step, .t = sim->t, .verlet_count = sim->verlet_count,
			.integrator = sim->integrator, .last = sim->last, .rebalances = sim->rebalances,
			.nblocks = sim->nblocks, .halo_cap = sim->halo_cap, .range = range, .count = counts,
			.cap = cap, .nranks = sim->size, .n_fluid0 = o->n_fluid0, .n_bound0 = o->n_bound0,
			.n_outputs = o->n, .next_out = o->next_out, .out_time = o->times,
		};
		ret = tide_checkpoint_write(dir, &cs, &o->all, c);
		if (!ret)
			tide_debug("%scheckpoint of step %ld (t = %.6g s) in %s (%.2f s)\n", isatty(1) ? "\n" : "",
			           sim->step, sim->t, dir, tide_wtime() - w);
		if (ret && stop_all && sim->size > 1) abort_ranks();
	}
	free(counts);
	free(range);
	free(cap);
	if (!ret && dir == o->ckpt) {
		o->ckpt_step = sim->step;
		tide_watchdog_checkpointed(sim->step);
	}
	return ret;
}

static int write_checkpoint(run_out *o, tide_sim *sim, const tide_case *c)
{
	return write_checkpoint_to(o, sim, c, o->ckpt, 1);
}

/* Why a run loop stopped with an error: what the run can still save differs. */
enum run_failure {
	RUN_UNPHYSICAL = 1, /* the state is bad: saved apart, the last good checkpoint is kept */
	RUN_IO,             /* an output could not be written: the state is good, checkpoint it */
	RUN_CHECKPOINT,     /* the checkpoint itself could not be written (the previous one is kept) */
	RUN_LOST,           /* the blocks could not be rebuilt: nothing left to save */
};

/* After a failed run loop: the last checkpoint, and one sentence saying where it is.  Under MPI
 * every rank gets here for an unphysical run (the step reduction is global); rank 0's I/O
 * failures stopped all ranks already. */
static void save_after_failure(run_out *o, tide_sim *sim, const tide_case *c, int why)
{
	char failed[1100];
	snprintf(failed, sizeof failed, "%s/failed_state", o->dir);
	if (why == RUN_UNPHYSICAL) {
		int bad = write_checkpoint_to(o, sim, c, failed, 0);
		write_output(o, sim, c, "failed_state");
		if (sim->rank != 0) return;
		if (!bad)
			fprintf(stderr, "tide: the state after step %ld is saved in %s (a checkpoint, for "
			        "inspection; ParaView: %s.vtp).\n", sim->step, failed, failed);
		if (o->ckpt_step >= 0)
			fprintf(stderr, "tide: the last checkpoint before the failure is %s (step %ld): "
			        "continue from it with other parameters, e.g. tide run --restart %s --set "
			        "physics.cfl=0.1.\n", o->ckpt, o->ckpt_step, o->ckpt);
		else
			fprintf(stderr, "tide: no checkpoint was written before the failure (--checkpoint-every "
			        "N writes them).\n");
		return;
	}
	if (why == RUN_IO && !write_checkpoint_to(o, sim, c, o->ckpt, 0)) {
		if (sim->rank == 0)
			fprintf(stderr, "tide: the state of step %ld is saved in %s: once the output can be "
			        "written, continue with tide run --restart %s.\n", sim->step, o->ckpt, o->ckpt);
		return;
	}
	if (sim->rank == 0 && o->ckpt_step >= 0)
		fprintf(stderr, "tide: the last checkpoint, %s (step %ld), is intact: continue from it "
		        "with tide run --restart %s.\n", o->ckpt, o->ckpt_step, o->ckpt);
}

static void progress(const tide_sim *sim, const tide_case *c, double wall0, double t0, long step0)
{
	double el = tide_wtime() - wall0;
	double rate = (sim->step - step0) / (el > 0 ? el : 1);
	double left = (c->t_end - sim->t) / ((sim->t - t0) > 0 ? (sim->t - t0) / el : 1e-30);
	/* one line updated in place on a terminal, one line per report in a log file */
	tide_info("%st = %.4f / %.4g s  step %ld  dt %.3g s  %.1f steps/s  vmax %.3g m/s  "
	          "ETA %.0f s%s", isatty(1) ? "\r" : "", sim->t, c->t_end, sim->step, sim->last.dt, rate, sim->last.vmax,
	          left > 0 ? left : 0, isatty(1) ? "   " : "\n");
}

/* The stall watchdog's last word on rank 0 (the main thread, blocked in the step, cannot say
 * it): the summary records the stall. */
typedef struct stall_note { const char *dir; tide_run_stats *st; } stall_note;

static void note_stall(void *arg, long step, double t, const char *status)
{
	stall_note *n = arg;
	snprintf(n->st->status, sizeof n->st->status, "%s", status);
	n->st->steps = step;
	n->st->t_sim = t;
	tide_summary_write(n->dir, n->st);
	char line[300];
	snprintf(line, sizeof line, "failed: %s", status);
	tide_log_end(line);
}

/* Returns 0 (done), -1 (failed), or the TIDE_RC_* reason it stopped for (*signo: the signal). */
static int run_loop(tide_sim *sim, const tide_case *c, const run_opts *o, run_out *out,
                    tide_run_stats *st, int *signo)
{
	size_t n0 = st->n_fluid + st->n_bound, nfluid0 = st->n_fluid;
	double wall0 = tide_wtime(), last_print = 0, step_time = 0;
	long step0 = sim->step;
	double t0 = sim->t;
	unsigned long long peak_dev = tide_device_bytes_used();
	int ret = 0, checkpointing = o->ckpt_every_s > 0 || o->ckpt_every_steps > 0;
	char stop_file[1100];
	snprintf(stop_file, sizeof stop_file, "%s/STOP", out->dir);
	if (sim->rank == 0 && access(stop_file, F_OK) == 0) {
		tide_info("removing the stop file %s left from an earlier run\n", stop_file);
		unlink(stop_file);
	}
	tide_balance lb;
	if (tide_balance_init(&lb, sim, o->balance_every, o->balance_threshold)) return -1;
	tide_run_control rc;
	tide_rc_init(&rc, sim->rank == 0 ? stop_file : "", o->ckpt_every_s, o->ckpt_every_steps,
	             sim->step);
	stall_note stall = {out->dir, st};
	tide_watchdog_start(o->stall_timeout_s, sim->rank, sim->size, out->ckpt,
	                    sim->rank == 0 ? note_stall : NULL, &stall);
	tide_watchdog_beat(sim->step, sim->t);
	if (out->ckpt_step >= 0) tide_watchdog_checkpointed(out->ckpt_step);
	while (sim->t < c->t_end * (1 - 1e-9) && (o->max_steps < 0 || sim->step < o->max_steps)) {
		double ts = tide_wtime();
		if (tide_sim_step(sim)) { ret = -RUN_UNPHYSICAL; snprintf(st->status, sizeof st->status, "unphysical at step %ld, t = %g s", sim->step, sim->t); break; }
		double dt_wall = tide_wtime() - ts;
		tide_watchdog_beat(sim->step, sim->t);
		if (sim->step == step0 + 1) st->first_step_s = dt_wall;
		step_time += dt_wall;
		{
			double fill;
			size_t n = tide_sim_count(sim, &fill);
			unsigned long long d = tide_device_bytes_used();
			if (d > peak_dev) peak_dev = d;
			if (n < n0 && n0 - n > nfluid0 / 100 + 10) {
				if (sim->rank == 0)
					fprintf(stderr, "%stide: step %ld (t = %.6g s): %zu of the %zu particles have "
					        "left the domain; the run has gone unphysical, or 'domain' in %s is too "
					        "small for the flow (enlarge it).\n", isatty(1) ? "\n" : "", sim->step,
					        sim->t, n0 - n, n0, c->path);
				snprintf(st->status, sizeof st->status, "%zu particles left the domain", n0 - n);
				ret = -RUN_UNPHYSICAL;
				break;
			}
			if (fill > 0.8 || (o->rebalance_every > 0 && sim->step % o->rebalance_every == 0)) {
				tide_debug("\nrebalancing blocks (fullest at %.0f %%)\n", 100 * fill);
				if (tide_sim_rebalance(sim)) {
					ret = -RUN_LOST;
					snprintf(st->status, sizeof st->status, "rebalancing failed");
					break;
				}
			}
			if (tide_balance_check(&lb, sim) < 0) { ret = -RUN_LOST; snprintf(st->status, sizeof st->status, "load balancing failed"); break; }
			if (lb.msg[0]) tide_info("%s\n", lb.msg);
		}
		if (gauges_due(out, sim, c) && write_gauges(out, sim, c)) {
			ret = -RUN_IO;
			snprintf(st->status, sizeof st->status, "gauges failed");
			break;
		}
		if (!o->no_output && sim->t >= out->next_out - 1e-12) {
			if (write_output(out, sim, c, NULL)) { ret = -RUN_IO; snprintf(st->status, sizeof st->status, "output failed"); break; }
			while (out->next_out <= sim->t + 1e-12) out->next_out += c->t_out;
		}
		int action = tide_rc_poll(&rc, sim->step, signo);
		if (action) {
			if (write_checkpoint(out, sim, c)) { ret = -RUN_CHECKPOINT; snprintf(st->status, sizeof st->status, "checkpoint failed"); break; }
			tide_rc_checkpointed(&rc);
		}
		if (action & (TIDE_RC_SIGNAL | TIDE_RC_STOP_FILE)) {
			if (action & TIDE_RC_SIGNAL)
				snprintf(st->status, sizeof st->status, "stopped by signal %d at step %ld, t = %g s; "
				         "checkpoint in %.150s", *signo, sim->step, sim->t, out->ckpt);
			else
				snprintf(st->status, sizeof st->status, "stopped by %.80s at step %ld, t = %g s; "
				         "checkpoint in %.80s", stop_file, sim->step, sim->t, out->ckpt);
			/* said by run_case once all is saved, as the last line of the run */
			if (sim->rank == 0 && (action & TIDE_RC_STOP_FILE)) unlink(stop_file);
			ret = action & TIDE_RC_SIGNAL ? TIDE_RC_SIGNAL : TIDE_RC_STOP_FILE;
			break;
		}
		double now = tide_wtime();
		if (now - last_print > (isatty(1) ? 1.0 : 10.0)) { progress(sim, c, wall0, t0, step0); last_print = now; }
	}
	/* every snapshot is complete before the run ends or stops (a stop's checkpoint waited) */
	if (ret >= 0 && !o->no_output && wait_outputs(out, sim)) {
		ret = -RUN_IO;
		snprintf(st->status, sizeof st->status, "output failed");
	}
	/* a run with checkpoints ends with one of its last state */
	if (!ret && checkpointing && out->ckpt_step != sim->step && write_checkpoint(out, sim, c)) {
		ret = -RUN_CHECKPOINT;
		snprintf(st->status, sizeof st->status, "checkpoint failed");
	}
	tide_watchdog_stop();
	tide_rc_free(&rc);
	tide_balance_free(&lb);
	progress(sim, c, wall0, t0, step0);
	if (isatty(1)) tide_info("\n");
	if (ret < 0) {
		save_after_failure(out, sim, c, -ret);
		ret = -1;
	}
	long steps = sim->step - step0;
	st->steps = sim->step;
	st->t_sim = sim->t;
	st->wall_s = tide_wtime() - wall0;
	st->time_per_step_s = steps ? step_time / steps : 0;
	/* the first step also uploads the particles and allocates on the devices */
	st->later_step_s = steps > 1 ? (step_time - st->first_step_s) / (steps - 1) : 0;
	st->particle_steps_per_s = step_time > 0 ? (double)n0 * steps / step_time : 0;
	unsigned long long d = tide_device_bytes_used();
	st->peak_device_bytes = d > peak_dev ? d : peak_dev;
	return ret;
}

/* The directory a checkpoint path lies in ("." for a bare name). */
static void parent_dir(const char *path, char *out, size_t n)
{
	snprintf(out, n, "%s", path);
	size_t len = strlen(out);
	while (len > 1 && out[len - 1] == '/') out[--len] = 0;
	char *slash = strrchr(out, '/');
	if (!slash) snprintf(out, n, ".");
	else if (slash == out) out[1] = 0;
	else *slash = 0;
}

/* Restart: the series, gauges and statistics of the run so far, cut back to the outputs the
 * checkpoint had written (a run that went on past its checkpoint wrote more). */
static int reopen_outputs(run_out *out, const tide_case *c, long step)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/particles.pvd", out->dir);
	if (c->output_format != TIDE_OUT_HDF5 && tide_pvd_open(&out->pvd, path)) return -1;
	for (int i = 0; i < out->n && c->output_format != TIDE_OUT_HDF5; i++) {
		snprintf(path, sizeof path, "%s/particles_%04d.vtp", out->dir, i);
		if (access(path, F_OK) == 0 && tide_pvd_add(&out->pvd, path, out->times[i])) return -1;
	}
	if (c->output_format != TIDE_OUT_VTP &&
	    tide_h5_reopen(&out->xmf, out->dir, out->n, out->times, c))
		return -1;
	return tide_stats_open(&out->stats, out->dir, c, out->n, step, tide_wtime());
}

/* The case (or the checkpoint and its case) with the --set overrides.  0, or 1 after a
 * message. */
static int load_input(const run_opts *o, tide_case *c, tide_ckpt_state *cs, void **mem,
                      tide_block_view *all)
{
	int bad = o->restart ? tide_checkpoint_read(o->restart, cs, mem, all, c)
	                     : tide_case_load(o->case_path, o->dp, c);
	tide_case c0 = *c;
	for (int i = 0; i < o->nsets && !bad; i++) bad = tide_case_set(c, o->sets[i]);
	tide_gauge_arg G;
	if (!bad && tide_gauge_arg_of_case(c, &G)) bad = 1;
	if (!bad && o->restart &&
	    (c->dim != c0.dim || c->dp != c0.dp || c->coefh != c0.coefh ||
	     memcmp(&c->domain, &c0.domain, sizeof c->domain))) {
		fprintf(stderr, "tide run: a restart keeps the particles and their cell grid: --set may "
		        "not change dim, dp, coefh or domain.\n");
		bad = 1;
	}
	if (!bad && o->restart && !(c->t_end > cs->t)) {
		fprintf(stderr, "tide run: time.end %g s is not after the checkpoint's time %g s, so "
		        "there is nothing to run; allowed: a later end, e.g. --set time.end=%g.\n",
		        c->t_end, cs->t, cs->t > 0 ? 2 * cs->t : 1.0);
		bad = 1;
	}
	/* what can be known before building the particles is checked now, with exit code 2 */
	if (!bad && !o->restart && tide_case_check_size(c)) bad = 1;
	if (!bad && (!o->restart || o->blocks > 0)) {
		tide_sph_params P;
		char err[512];
		tide_sim_params(c, &P);
		if (tide_decomp_validate(&P.grid, c->decomp, o->blocks, err, sizeof err)) {
			fprintf(stderr, "tide run: %s: %s.\n", c->path, err);
			bad = 1;
		}
	}
	return bad != 0;
}

/* FNV-1a of the case as it will run (its used-parameters text) and, for a restart, of the
 * checkpoint's step and particles. */
static uint64_t input_fingerprint(const tide_case *c, const tide_ckpt_state *cs, int restart)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f) return 0;
	tide_case_print(f, c);
	fclose(f);
	uint64_t h = tide_fnv1a(TIDE_FNV_INIT, text, len);
	free(text);
	if (restart) {
		h = tide_fnv1a(h, &cs->step, sizeof cs->step);
		h = tide_fnv1a(h, &cs->particles_fnv, sizeof cs->particles_fnv);
	}
	return h;
}

/* Every rank must run the same case with the same options, or the ranks would wait for each
 * other for ever: all compare with rank 0 and all stop (0 / -1, the message said once).  Also
 * the default block count, rank 0's: ranks with other worker counts would split differently. */
static int agree_with_ranks(const run_opts *o, const tide_runtime *rt, const tide_case *c,
                            const tide_ckpt_state *cs, int bad, int *nb)
{
	int gpu_only = rt->ncuda > 0 && !o->with_cpus;
	tide_rank_view me = {
		.status = bad, .nblocks = gpu_only ? rt->ncuda : 2 * (rt->ncpu + rt->ncuda),
		.input = bad ? 0 : input_fingerprint(c, cs, o->restart != NULL),
	};
	tide_rank_verdict v;
	tide_ranks_agree(&me, &v);
	*nb = o->blocks > 0 ? o->blocks : v.rank0.nblocks * rt->size;
	if (v.rank0.status) return -1; /* rank 0 said why */
	if (v.first_bad >= 0) {
		if (rt->rank == 0) {
			/* the options were compared before StarPU started (run_key) */
			const char *what = v.bad.status ? "could not load its case or checkpoint (its message follows)"
			                   : "was given another case than rank 0 (another case file, --dp, "
			                     "--set, --format or --decomp, or another checkpoint)";
			fprintf(stderr, "tide: MPI rank %d %s; every rank of an mpirun must run the same "
			        "tide run command.\n", v.first_bad, what);
		}
		if (rt->rank == v.first_bad && bad) {
			/* its message was kept quiet with the others': say it again, now visibly */
			tide_case c2;
			tide_ckpt_state cs2;
			void *mem2 = NULL;
			tide_block_view all2;
			memset(&c2, 0, sizeof c2);
			memset(&cs2, 0, sizeof cs2);
			load_input(o, &c2, &cs2, &mem2, &all2);
			tide_ckpt_state_free(&cs2);
			free(mem2);
		}
		return -1;
	}
	if (bad) return -1;
	/* an explicit NXxNYxNZ decomposition fixes the block count: a different --blocks is a
	 * contradiction, not a preference to pick from */
	int fixed = tide_decomp_fixed_blocks(c->decomp);
	if (fixed > 0 && o->blocks > 0 && o->blocks != fixed) {
		if (rt->rank == 0)
			fprintf(stderr, "tide run: --blocks %d contradicts the decomposition %s, which makes "
			        "%d block%s; give --blocks %d, or no --blocks, or a decomposition of slabs, 2d "
			        "or 3d.\n", o->blocks, c->decomp, fixed, fixed > 1 ? "s" : "", fixed);
		return -1;
	}
	if (fixed > 0 && !(o->restart && o->blocks <= 0)) {
		*nb = fixed;
		if (fixed < rt->size) {
			if (rt->rank == 0)
				fprintf(stderr, "tide run: the decomposition %s gives fewer blocks than ranks "
				        "(%d block%s for %d MPI ranks), so some ranks would have nothing to do; "
				        "use a decomposition of at least %d blocks, or fewer ranks.\n", c->decomp,
				        fixed, fixed > 1 ? "s" : "", rt->size, rt->size);
			return -1;
		}
	}
	if (*nb < rt->size && !(o->restart && o->blocks <= 0)) {
		if (rt->rank == 0)
			fprintf(stderr, "tide run: --blocks %d gives fewer blocks than the %d MPI ranks, so "
			        "rank%s %d%s%.0d would have nothing to do; use --blocks %d or more, or fewer "
			        "ranks.\n", *nb, rt->size, rt->size - *nb > 1 ? "s" : "", *nb,
			        rt->size - *nb > 1 ? " to " : "", rt->size - *nb > 1 ? rt->size - 1 : 0,
			        rt->size);
		return -1;
	}
	return 0;
}

/* A fresh run whose particles cannot fit in main memory is refused before they are counted
 * (minutes at 1e9 particles) and built: the estimate from the case geometry, times the ranks
 * sharing this node.  1 after the message (none when quiet). */
static int build_too_big(const run_opts *o, const tide_case *c, int nb, const tide_runtime *rt,
                         int quiet)
{
	const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
	if (!local) local = getenv("MPI_LOCALNRANKS");
	int on_node = local && atoi(local) > 0 ? atoi(local) : 1;
	double n = tide_case_particle_estimate(c);
	/* with a GPU the SPH tasks run there alone unless --with-cpus (run_case) */
	int cpu_workers = rt->ncuda > 0 && !o->with_cpus ? 0 : rt->ncpu;
	double need = on_node * tide_host_run_bytes(n, nb, rt->size, rt->rank, cpu_workers,
	                                            !o->no_output);
	char prefix[300], what[256], who[32] = "", ranks[64] = "";
	if (rt->size > 1) snprintf(who, sizeof who, "MPI rank %d: ", rt->rank);
	snprintf(prefix, sizeof prefix, "tide: %scase '%s' at dp = %g m (about %.3g particles, %d "
	         "block%s)", who, c->name, c->dp, n, nb, nb > 1 ? "s" : "");
	if (on_node > 1) snprintf(ranks, sizeof ranks, ", for each of the %d ranks on this node", on_node);
	snprintf(what, sizeof what, "%.0f bytes per particle: the particles as built, their blocks, "
	         "the sort scratch%s%s; estimated from the case's boxes and walls",
	         need / (n * on_node), o->no_output ? "" : " and the copy gathered for output", ranks);
	int saved = quiet_stderr(quiet);
	int bad = tide_host_memory_check(prefix, need, what, "use a larger dp (fewer particles), or "
	                                 "more MPI ranks on more nodes");
	restore_stderr(saved);
	return bad != 0;
}

/* Collective: does the fresh run fit on every rank's node?  All ranks stop together (exit code
 * 2) when one does not; rank 0 says why, or else the first rank that does not fit. */
static int build_fits_everywhere(const run_opts *o, const tide_case *c, int nb,
                                 const tide_runtime *rt)
{
	tide_rank_view me = {.status = build_too_big(o, c, nb, rt, rt->rank != 0)};
	tide_rank_verdict v;
	tide_ranks_agree(&me, &v);
	if (!v.rank0.status && v.first_bad == rt->rank) build_too_big(o, c, nb, rt, 0);
	return !v.rank0.status && v.first_bad < 0;
}

/* A failure of this rank alone after the start-up agreement: under MPI the others would wait
 * for it, so stop them all. */
static int fail_rank(const tide_runtime *rt)
{
	if (rt->size > 1) abort_ranks();
	return 1;
}

/* Rank 0's verdict (an exit code), learnt by every rank. */
static int rank0_says(int verdict)
{
	tide_rank_view me = {.status = verdict};
	tide_rank_verdict v;
	tide_ranks_agree(&me, &v);
	return v.rank0.status;
}

static char run_end[320]; /* how the run ended: the last line of run.log */
static tide_run_dir rd = {.lock_fd = -1}; /* held until the log is complete */

static int run_case(const run_opts *o, const tide_runtime *rt)
{
	tide_case c;
	tide_ckpt_state cs;
	memset(&c, 0, sizeof c);
	memset(&cs, 0, sizeof cs);
	void *mem = NULL;
	tide_block_view all = {0};
	/* every rank reads the case (or the checkpoint) and builds the same particles (it keeps
	 * only its blocks); the input is validated identically everywhere, so all ranks fail or
	 * none */
	if (tide_log_rank != 0) tide_verbosity = -1;
	int saved_err = quiet_stderr(rt->rank != 0);
	int bad = load_input(o, &c, &cs, &mem, &all);
	restore_stderr(saved_err);
	int nb = 0;
	if (agree_with_ranks(o, rt, &c, &cs, bad, &nb)) bad = 1;
	if (!bad && !o->restart && !build_fits_everywhere(o, &c, nb, rt)) bad = 1;
	if (bad) {
		tide_ckpt_state_free(&cs);
		free(mem);
		return 2;
	}
	run_out out;
	memset(&out, 0, sizeof out);
	out.ckpt_step = -1;
	if (o->out_dir) snprintf(out.dir, sizeof out.dir, "%s", o->out_dir);
	else if (o->restart) parent_dir(o->restart, out.dir, sizeof out.dir);
	else snprintf(out.dir, sizeof out.dir, "runs/%s", c.name);
	snprintf(out.ckpt, sizeof out.ckpt, "%s/checkpoint", out.dir);
	char path[1100];
	/* Rank 0 writes into the directory: it checks it (writing nothing) before the particles
	 * are built, and takes it (creates, locks, clears for --overwrite) after; every rank
	 * learns its verdict. */
	enum tide_dir_mode mode = o->restart ? TIDE_DIR_CONTINUE
	                          : o->overwrite ? TIDE_DIR_OVERWRITE : TIDE_DIR_NEW;
	/* the path as given: out.dir would cut one too long to fit */
	const char *given = o->out_dir ? o->out_dir : out.dir;
	int dir_bad = rank0_says(rt->rank == 0 ? tide_run_dir_check(given, mode) : 0);
	if (dir_bad) {
		tide_ckpt_state_free(&cs);
		free(mem);
		return dir_bad;
	}

	tide_run_stats st;
	memset(&st, 0, sizeof st);
	void *built = NULL; /* the particles of a fresh run, as a host block */
	if (o->restart) {
		st.n_fluid = cs.n_fluid0;
		st.n_bound = cs.n_bound0;
	} else if ((bad = tide_host_block_build(&c, nb, &built, &all, &st.n_fluid, &st.n_bound))) {
		/* no fluid is the input's fault, the same on every rank: all stop with exit code 2 */
		return bad == -2 ? 2 : fail_rank(rt);
	}
	if ((dir_bad = rank0_says(rt->rank == 0 ? tide_run_dir_claim(&rd, out.dir, mode) : 0)))
		return dir_bad;
	snprintf(path, sizeof path, "%s/run.log", out.dir);
	if (rt->rank == 0) tide_run_log_open(path, o->restart != NULL, rt, o->argc, o->argv);
	snprintf(path, sizeof path, "%s/used_parameters.yaml", out.dir);
	if (rt->rank == 0 && tide_case_write_used(&c, path)) return fail_rank(rt);
	out.n_fluid0 = st.n_fluid;
	out.n_bound0 = st.n_bound;
	snprintf(st.case_name, sizeof st.case_name, "%s", c.name);
	snprintf(st.status, sizeof st.status, "ok");
	snprintf(st.sched, sizeof st.sched, "%.31s", rt->sched);
	st.dim = c.dim;
	st.nranks = rt->size;
	st.ncpu_workers = rt->ncpu;
	st.ncuda_workers = rt->ncuda;
	st.dp = c.dp;
	st.h = tide_case_h(&c);
	tide_info("case %s: %zu fluid + %zu boundary particles, dp = %g m, h = %g m, c0 = %.3g m/s\n",
	          c.name, st.n_fluid, st.n_bound, c.dp, st.h, c.c0);

	/* A GPU does a block's step far faster than a CPU core, and any block StarPU gives a core
	 * holds the GPU up (bench/sched_policies.sh on the H200): by default the GPUs work alone,
	 * on few large blocks. */
	int gpu_only = rt->ncuda > 0 && !o->with_cpus;
	if (o->profile) tide_profile_enable();
	if (gpu_only) tide_sph_codelets_where(STARPU_CUDA);
	tide_sim sim;
	if (o->restart && (o->blocks <= 0 || o->blocks == cs.nblocks)) {
		/* the blocks exactly as saved: the continuation is the uninterrupted run's */
		if (tide_sim_setup_ranges(&sim, &c, &all, cs.nblocks, cs.range, cs.count, cs.cap,
		                          cs.halo_cap, tide_runtime_uses_mpi())) {
			fprintf(stderr, "tide: the checkpoint %s does not fit its case; it cannot be "
			        "continued.\n", o->restart);
			return fail_rank(rt);
		}
	} else {
		if (o->restart)
			tide_info("restart with %d blocks instead of the checkpoint's %d: particles are "
			          "split again\n", nb, cs.nblocks);
		/* a fresh run of one block keeps the built particles as that block (no copy) */
		if (tide_sim_setup_take(&sim, &c, &built, &all, nb, tide_runtime_uses_mpi())) return fail_rank(rt);
	}
	free(mem);
	tide_block_free_host(built, all.cap);
	if (tide_sim_check_memory(&sim)) {
		tide_sim_free(&sim);
		return fail_rank(rt);
	}
	out.next_out = c.t_out;
	if (o->restart) {
		sim.step = cs.step;
		sim.t = cs.t;
		sim.verlet_count = cs.verlet_count;
		sim.last = cs.last;
		sim.rebalances = cs.rebalances;
		out.next_out = cs.next_out;
		for (int i = 0; i < cs.n_outputs; i++)
			if (note_time(&out, cs.out_time[i]) == 0) out.n++;
		if (!strcmp(o->restart, out.ckpt)) out.ckpt_step = cs.step;
		tide_info("restart from %s (written by tide %s on %d rank%s): step %ld, t = %.6g s, %d "
		          "outputs so far\n", o->restart, cs.tide_version, cs.nranks, cs.nranks > 1 ? "s" : "",
		          sim.step, sim.t, out.n);
	}
	tide_ckpt_state_free(&cs);
	int bx[3];
	for (int k = 0; k < 3; k++) bx[sim.P.grid.axis[k]] = sim.p[k];
	tide_info("%d blocks (%d x %d x %d along x, y, z), %d CPU + %d CUDA workers%s, scheduler %s; "
	          "output in %s\n", sim.nblocks, bx[0], bx[1], bx[2], rt->ncpu, rt->ncuda,
	          gpu_only ? " (SPH tasks on the GPUs only; --with-cpus to change)" : "", rt->sched,
	          out.dir);

	snprintf(path, sizeof path, "%s/particles.pvd", out.dir);
	int ret = 0;
	if (rt->rank == 0 && !o->no_output) {
		if (o->restart) ret = reopen_outputs(&out, &c, sim.step);
		else if ((c.output_format != TIDE_OUT_HDF5 && tide_pvd_open(&out.pvd, path)) ||
		         tide_stats_open(&out.stats, out.dir, &c, -1, sim.step, tide_wtime()))
			ret = -1;
	}
	/* every rank takes part (the writer's start and the first snapshot are collective), even
	 * where rank 0 could not open its files */
	tide_snap_outputs outs = {&out.pvd, &out.xmf, &out.stats};
	if (!o->no_output && tide_snap_init(&out.snap, &sim, &c, out.dir, &outs)) ret = -1;
	/* gauges.csv is written with --no-output too; a restart goes on from its rows up to t */
	tide_gauge_arg G;
	if (tide_gauge_arg_of_case(&c, &G) || tide_gauge_tasks_init(&out.gt, &G)) ret = -1;
	out.gauges_on = tide_gauge_len(&G) > 1 || G.front;
	if (rt->rank == 0 && !ret &&
	    (o->restart ? tide_gauges_reopen(&out.gauges, out.dir, &c, sim.t)
	                : tide_gauges_open(&out.gauges, out.dir, &c)))
		ret = -1;
	if (!ret && o->restart) out.gauge_k = (long)floor(sim.t / tide_case_gauge_every(&c) + 1e-9) + 1;
	if (!ret && !o->restart && write_gauges(&out, &sim, &c)) ret = -1;
	if (!o->no_output && !o->restart && write_output(&out, &sim, &c, NULL)) ret = -1;
	int signo = 0;
	if (!ret) ret = run_loop(&sim, &c, o, &out, &st, &signo);
	tide_snap_fini(&out.snap);
	st.n_outputs = out.n;
	st.peak_host_bytes = tide_peak_host_bytes();
	/* a finished run whose summary cannot be written has failed to deliver it */
	if (rt->rank == 0 && tide_summary_write(out.dir, &st) && ret == 0) ret = -1;
	if (o->profile) {
		/* each rank reports its own tasks */
		snprintf(path, sizeof path, "%s/step_profile_rank%d.csv", out.dir, rt->rank);
		fprintf(stderr, "rank %d: ", rt->rank);
		tide_profile_report(stderr, path, st.steps, st.time_per_step_s);
	}
	if (rt->rank == 0 && tide_gauges_close(&out.gauges) && ret == 0) ret = -1;
	tide_gauge_tasks_free(&out.gt);
	if (rt->rank == 0 && !o->no_output) {
		tide_pvd_close(&out.pvd);
		tide_pvd_close(&out.xmf);
		tide_stats_close(&out.stats);
	}
	/* the last thing the run prints (as soon as all is saved: Open MPI kills the ranks 1 s after
	 * mpirun got SIGTERM) */
	if (ret == TIDE_RC_STOP_FILE || ret == TIDE_RC_SIGNAL)
		tide_info("%s%s\nContinue with: tide run --restart %s\n", isatty(1) ? "\n" : "",
		          st.status, out.ckpt);
	free(out.mem);
	free(out.times);
	tide_sim_free(&sim);
	if (!ret) {
		char files[4 * sizeof out.dir];
		tide_run_dir_outputs(out.dir, files, sizeof files); /* what exists: --no-output */
		tide_info("done: %ld steps, %.4g s simulated in %.1f s wall, %.3g ms per step, %.3g "
		          "particle-steps/s\n%s\n", st.steps, st.t_sim, st.wall_s,
		          1e3 * st.time_per_step_s, st.particle_steps_per_s, files);
	}
	/* the last line of run.log (written once StarPU has stopped) */
	if (strcmp(st.status, "ok"))
		snprintf(run_end, sizeof run_end, "%s%.300s",
		         strncmp(st.status, "stopped", 7) ? "failed: " : "", st.status);
	else if (!ret)
		snprintf(run_end, sizeof run_end, "done");
	if (ret == TIDE_RC_STOP_FILE) return 0;
	/* every rank returns it (the decision and its signal are rank 0's), so that mpirun, which
	 * returns the first non-zero exit code of ranks that ended cleanly, gives it too */
	if (ret == TIDE_RC_SIGNAL) return 128 + signo;
	return ret ? 1 : 0;
}

/* What every rank of an mpirun must be given equally, compared before StarPU starts.  The case
 * (file, --dp, --set, --format, --decomp) is compared by its content once loaded
 * (agree_with_ranks); --quiet/--verbose and --stall-timeout may differ. */
static void run_key(const run_opts *o, int argc, char **argv, tide_cmd_key *k)
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
	tide_cmd_key_add(k, "--with-cpus", "%s", o->with_cpus ? "given" : "not given");
	tide_cmd_key_add(k, "--profile", "%s", o->profile ? "given" : "not given");
	tide_cmd_key_add(k, "--overwrite", "%s", o->overwrite ? "given" : "not given");
	if (o->ckpt_every_steps)
		tide_cmd_key_add(k, "--checkpoint-every", "%ldsteps", o->ckpt_every_steps);
	else
		tide_cmd_key_add(k, "--checkpoint-every", "%.17gs", o->ckpt_every_s);
	tide_cmd_key_add(k, "--rebalance-every", "%ld", o->rebalance_every);
	tide_cmd_key_add(k, "--balance-every", "%ld", o->balance_every);
	tide_cmd_key_add(k, "--balance-threshold", "%.17g", o->balance_threshold);
}

int tide_cmd_run(int argc, char **argv)
{
	/* everything printed from here on may go to DIR/run.log, once DIR is known and taken */
	tide_log_capture();
	run_opts o;
	if (parse_opts(argc, argv, &o)) return 2;
	o.argc = argc;
	o.argv = argv;
	tide_cmd_key key;
	run_key(&o, argc, argv, &key);
	tide_runtime rt;
	/* --balance-every publishes block times with a CPU task (tasks/load_balance.c) */
	if (!o.with_cpus && o.balance_every <= 0) tide_runtime_prefer_gpu_alone();
	int started = tide_runtime_init(&argc, &argv, &key, &rt);
	if (started) return started;
	if (rt.rank != 0) tide_log_capture_stop(); /* rank 0 writes the log */
	int ret = run_case(&o, &rt);
	tide_runtime_shutdown();
	if (!run_end[0])
		snprintf(run_end, sizeof run_end, "failed (exit %d): the messages above say why", ret);
	tide_log_end(run_end);
	tide_run_dir_release(&rd);
	return ret;
}
