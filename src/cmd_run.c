// SPDX-License-Identifier: LGPL-2.1-or-later
// tide run CASE: load and build the case, run the SPH time loop (tasks/sph_step.c), write
// ParaView output, gauges and the run summary.
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
#include "tide/case.h"
#include "tide/commands.h"
#include "tide/log.h"
#include "tide/output.h"
#include "tide/runtime.h"
#include "tide/sph_sim.h"
#include "tide/step_profile.h"

#define MAX_SETS 64

typedef struct run_opts {
	const char *case_path, *out_dir;
	double dp;
	int blocks, no_output, with_cpus, profile;
	long max_steps, rebalance_every;
	const char *sets[MAX_SETS];
	int nsets;
} run_opts;

static void run_usage(FILE *f)
{
	fprintf(f,
	        "usage: tide run CASE.yaml [options]\n"
	        "\n"
	        "  --dp X            particle spacing [m], overrides the case's dp\n"
	        "  --set KEY=VALUE   override a case key, e.g. --set physics.visco=0.05 (repeatable)\n"
	        "  --out DIR         output directory (default runs/NAME)\n"
	        "  --blocks N        number of particle blocks (default 2 per worker)\n"
	        "  --max-steps N     stop after N steps\n"
	        "  --no-output       no particle files or gauges (benchmarks); the summary is written\n"
	        "  --profile         print where a step's time goes (per task family) and write\n"
	        "                    DIR/step_profile.csv\n"
	        "  --with-cpus       with a GPU, let StarPU put SPH tasks on CPU workers too (by\n"
	        "                    default a GPU runs them alone: measured 5-75x faster on an H200)\n"
	        "  --rebalance-every N  re-split the blocks by particle count every N steps (default:\n"
	        "                    only when a block or halo is 80 %% full)\n"
	        "  --quiet, --verbose\n"
	        "\n"
	        "Writes DIR/particles_NNNN.vtp + DIR/particles.pvd (ParaView), DIR/gauges.csv,\n"
	        "DIR/run_summary.csv/.json and DIR/used_parameters.yaml.\n"
	        "Exit codes: 0 done, 1 the run failed or went unphysical, 2 bad usage or input.\n");
}

static int parse_num(const char *opt, const char *s, double lo, double *v)
{
	char *end;
	errno = 0;
	*v = strtod(s ? s : "", &end);
	if (!s || errno || *end || end == s || !(*v > lo)) {
		fprintf(stderr, "tide run: option %s needs a number > %g, got '%s'.\n", opt, lo,
		        s ? s : "");
		return -1;
	}
	return 0;
}

static int parse_opts(int argc, char **argv, run_opts *o)
{
	memset(o, 0, sizeof *o);
	o->max_steps = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		double v;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) { run_usage(stdout); exit(0); }
		else if (!strcmp(a, "--quiet")) tide_verbosity = 0;
		else if (!strcmp(a, "--verbose")) tide_verbosity = 2;
		else if (!strcmp(a, "--no-output")) o->no_output = 1;
		else if (!strcmp(a, "--with-cpus")) o->with_cpus = 1;
		else if (!strcmp(a, "--profile")) o->profile = 1;
		else if (!strcmp(a, "--dp")) { if (parse_num(a, i + 1 < argc ? argv[++i] : NULL, 0, &v)) return -1; o->dp = v; }
		else if (!strcmp(a, "--blocks")) { if (parse_num(a, i + 1 < argc ? argv[++i] : NULL, 0.5, &v)) return -1; o->blocks = (int)v; }
		else if (!strcmp(a, "--rebalance-every")) { if (parse_num(a, i + 1 < argc ? argv[++i] : NULL, 0.5, &v)) return -1; o->rebalance_every = (long)v; }
		else if (!strcmp(a, "--max-steps")) { if (parse_num(a, i + 1 < argc ? argv[++i] : NULL, 0.5, &v)) return -1; o->max_steps = (long)v; }
		else if (!strcmp(a, "--out")) { if (i + 1 >= argc) { fprintf(stderr, "tide run: --out needs a directory.\n"); return -1; } o->out_dir = argv[++i]; }
		else if (!strcmp(a, "--set")) {
			if (i + 1 >= argc || o->nsets == MAX_SETS) { fprintf(stderr, "tide run: --set needs KEY=VALUE (at most %d).\n", MAX_SETS); return -1; }
			o->sets[o->nsets++] = argv[++i];
		} else if (a[0] == '-') {
			fprintf(stderr, "tide run: unknown option '%s'.\n\n", a);
			run_usage(stderr);
			return -1;
		} else if (!o->case_path) o->case_path = a;
		else { fprintf(stderr, "tide run: only one case file, got '%s' and '%s'.\n", o->case_path, a); return -1; }
	}
	if (!o->case_path) {
		fprintf(stderr, "tide run: missing the case file.\n\n");
		run_usage(stderr);
		return -1;
	}
	return 0;
}

static int mkdir_p(const char *dir)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", dir);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/') continue;
		*p = 0;
		if (mkdir(buf, 0777) && errno != EEXIST) break;
		*p = '/';
	}
	if (mkdir(buf, 0777) && errno != EEXIST) {
		fprintf(stderr, "tide: cannot create output directory %s: %s.\n", dir, strerror(errno));
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
	MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Output state of a run. */
typedef struct run_out {
	char dir[1024];
	tide_pvd pvd;
	tide_gauges gauges;
	void *mem;
	tide_block_view all;
	int n;
} run_out;

/* Collective: every rank takes part in the gather; rank 0 writes. */
static int write_output(run_out *o, tide_sim *sim, const tide_case *c, const char *tag)
{
	if (tide_sim_gather(sim, 0, &o->mem, &o->all)) return -1;
	if (sim->rank != 0) {
		o->n++;
		return 0;
	}
	tide_particle_set s;
	tide_set_view_of_block(&o->all, &s);
	char path[1100];
	if (tag) snprintf(path, sizeof path, "%s/%s.vtp", o->dir, tag);
	else snprintf(path, sizeof path, "%s/particles_%04d.vtp", o->dir, o->n);
	int ret = tide_vtp_write(path, &s, c);
	if (!ret && !tag) {
		o->n++;
		ret = tide_pvd_add(&o->pvd, path, sim->t) || tide_gauges_write(&o->gauges, &s, c, sim->t);
	}
	if (ret && sim->size > 1) abort_ranks();
	return ret ? -1 : 0;
}

static void progress(const tide_sim *sim, const tide_case *c, double wall0, double t0)
{
	double el = tide_wtime() - wall0;
	double rate = sim->step / (el > 0 ? el : 1);
	double left = (c->t_end - sim->t) / ((sim->t - t0) > 0 ? (sim->t - t0) / el : 1e-30);
	/* one line updated in place on a terminal, one line per report in a log file */
	tide_info("%st = %.4f / %.4g s  step %ld  dt %.3g s  %.1f steps/s  vmax %.3g m/s  "
	          "ETA %.0f s%s", isatty(1) ? "\r" : "", sim->t, c->t_end, sim->step, sim->last.dt, rate, sim->last.vmax,
	          left > 0 ? left : 0, isatty(1) ? "   " : "\n");
}

static int run_loop(tide_sim *sim, const tide_case *c, const run_opts *o, run_out *out,
                    tide_run_stats *st)
{
	size_t n0 = sim->n_total, nfluid0 = st->n_fluid;
	double next_out = c->t_out, wall0 = tide_wtime(), last_print = 0, step_time = 0;
	unsigned long long peak_dev = tide_device_bytes_used();
	int ret = 0;
	while (sim->t < c->t_end * (1 - 1e-9) && (o->max_steps < 0 || sim->step < o->max_steps)) {
		double ts = tide_wtime();
		if (tide_sim_step(sim)) { ret = -1; snprintf(st->status, sizeof st->status, "unphysical at step %ld, t = %g s", sim->step, sim->t); break; }
		step_time += tide_wtime() - ts;
		{
			double fill;
			size_t n = tide_sim_count(sim, &fill);
			unsigned long long d = tide_device_bytes_used();
			if (d > peak_dev) peak_dev = d;
			if (n0 - n > nfluid0 / 100 + 10) {
				fprintf(stderr, "\ntide: step %ld (t = %.6g s): %zu particles have left the "
				        "domain; the run has gone unphysical or 'domain' is too small.\n",
				        sim->step, sim->t, n0 - n);
				snprintf(st->status, sizeof st->status, "%zu particles left the domain", n0 - n);
				ret = -1;
				break;
			}
			if (fill > 0.8 || (o->rebalance_every > 0 && sim->step % o->rebalance_every == 0)) {
				tide_debug("\nrebalancing blocks (fullest at %.0f %%)\n", 100 * fill);
				if (tide_sim_rebalance(sim)) { ret = -1; break; }
			}
		}
		if (!o->no_output && sim->t >= next_out - 1e-12) {
			if (write_output(out, sim, c, NULL)) { ret = -1; snprintf(st->status, sizeof st->status, "output failed"); break; }
			while (next_out <= sim->t + 1e-12) next_out += c->t_out;
		}
		double now = tide_wtime();
		if (now - last_print > (isatty(1) ? 1.0 : 10.0)) { progress(sim, c, wall0, 0); last_print = now; }
	}
	progress(sim, c, wall0, 0);
	if (isatty(1)) tide_info("\n");
	if (ret) write_output(out, sim, c, "failed_state");
	st->steps = sim->step;
	st->t_sim = sim->t;
	st->wall_s = tide_wtime() - wall0;
	st->time_per_step_s = sim->step ? step_time / sim->step : 0;
	st->particle_steps_per_s = step_time > 0 ? (double)n0 * sim->step / step_time : 0;
	unsigned long long d = tide_device_bytes_used();
	st->peak_device_bytes = d > peak_dev ? d : peak_dev;
	return ret;
}

static int run_case(const run_opts *o, const tide_runtime *rt)
{
	tide_case c;
	/* every rank reads the case and builds the same particles (it keeps only its blocks);
	 * the case is validated identically everywhere, so all ranks fail or none */
	if (tide_log_rank != 0) tide_verbosity = -1;
	int saved_err = quiet_stderr(rt->rank != 0);
	int bad = tide_case_load(o->case_path, o->dp, &c);
	for (int i = 0; i < o->nsets && !bad; i++) bad = tide_case_set(&c, o->sets[i]);
	restore_stderr(saved_err);
	if (bad) return 2;
	run_out out;
	memset(&out, 0, sizeof out);
	if (o->out_dir) snprintf(out.dir, sizeof out.dir, "%s", o->out_dir);
	else snprintf(out.dir, sizeof out.dir, "runs/%s", c.name);
	char path[1100];
	snprintf(path, sizeof path, "%s/used_parameters.yaml", out.dir);
	if (rt->rank == 0 && (mkdir_p(out.dir) || tide_case_write_used(&c, path))) {
		if (rt->size > 1) abort_ranks();
		return 1;
	}

	tide_particle_set ps;
	memset(&ps, 0, sizeof ps);
	if (tide_case_build(&c, &ps)) return 1;
	tide_run_stats st;
	memset(&st, 0, sizeof st);
	snprintf(st.case_name, sizeof st.case_name, "%s", c.name);
	snprintf(st.status, sizeof st.status, "ok");
	snprintf(st.sched, sizeof st.sched, "%.31s", rt->sched);
	st.dim = c.dim;
	st.n_fluid = tide_pset_count_type(&ps, TIDE_FLUID);
	st.n_bound = tide_pset_count_type(&ps, TIDE_BOUND);
	st.nranks = rt->size;
	st.ncpu_workers = rt->ncpu;
	st.ncuda_workers = rt->ncuda;
	st.dp = c.dp;
	st.h = tide_case_h(&c);
	tide_info("case %s: %zu fluid + %zu boundary particles, dp = %g m, h = %g m, c0 = %.3g m/s\n",
	          c.name, st.n_fluid, st.n_bound, c.dp, st.h, c.c0);

	void *mem;
	tide_block_view all;
	if (tide_host_block_from_set(&ps, &mem, &all)) return 1;
	tide_pset_free(&ps);
	/* A GPU does a block's step far faster than a CPU core, and any block StarPU gives a core
	 * holds the GPU up (bench/sched_policies.sh on the H200): by default the GPUs work alone,
	 * on few large blocks. */
	int gpu_only = rt->ncuda > 0 && !o->with_cpus;
	if (o->profile) tide_profile_enable();
	if (gpu_only) tide_sph_codelets_where(STARPU_CUDA);
	int nb = o->blocks > 0 ? o->blocks : (gpu_only ? rt->ncuda : 2 * (rt->ncpu + rt->ncuda));
	tide_sim sim;
	if (tide_sim_setup(&sim, &c, &all, nb)) return 1;
	free(mem);
	tide_info("%d blocks along %c, %d CPU + %d CUDA workers%s, scheduler %s; output in %s\n",
	          sim.nblocks, "xyz"[sim.P.grid.axis[0]], rt->ncpu, rt->ncuda,
	          gpu_only ? " (SPH tasks on the GPUs only; --with-cpus to change)" : "", rt->sched,
	          out.dir);

	snprintf(path, sizeof path, "%s/particles.pvd", out.dir);
	int ret = 0;
	if (rt->rank == 0 && !o->no_output &&
	    (tide_pvd_open(&out.pvd, path) || tide_gauges_open(&out.gauges, out.dir, &c)))
		ret = -1;
	if (!o->no_output && write_output(&out, &sim, &c, NULL)) ret = -1;
	if (!ret) ret = run_loop(&sim, &c, o, &out, &st);
	st.n_outputs = out.n;
	st.peak_host_bytes = tide_peak_host_bytes();
	if (rt->rank == 0) tide_summary_write(out.dir, &st);
	if (o->profile) {
		/* each rank reports its own tasks */
		snprintf(path, sizeof path, "%s/step_profile_rank%d.csv", out.dir, rt->rank);
		fprintf(stderr, "rank %d: ", rt->rank);
		tide_profile_report(stderr, path, st.steps, st.time_per_step_s);
	}
	if (rt->rank == 0 && !o->no_output) {
		tide_gauges_close(&out.gauges);
		tide_pvd_close(&out.pvd);
	}
	free(out.mem);
	tide_sim_free(&sim);
	if (!ret)
		tide_info("done: %ld steps, %.4g s simulated in %.1f s wall, %.3g ms per step, %.3g "
		          "particle-steps/s\nParaView: %s/particles.pvd; summary: %s/run_summary.csv; "
		          "gauges: %s/gauges.csv\n", st.steps, st.t_sim, st.wall_s,
		          1e3 * st.time_per_step_s, st.particle_steps_per_s, out.dir, out.dir, out.dir);
	return ret ? 1 : 0;
}

int tide_cmd_run(int argc, char **argv)
{
	run_opts o;
	if (parse_opts(argc, argv, &o)) return 2;
	tide_runtime rt;
	if (tide_runtime_init(&argc, &argv, &rt)) return 1;
	int ret = run_case(&o, &rt);
	tide_runtime_shutdown();
	return ret;
}
