// SPDX-License-Identifier: LGPL-2.1-or-later
// tide run CASE: load and build the case (or restart from a checkpoint), run the SPH time loop
// (tasks/sph_step.c), write ParaView output, gauges, statistics, checkpoints and the run summary.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/case.h"
#include "tide/gas_params.h"
#include "case_load.h"
#include "case_units.h"
#include "gas_input.h"
#include "host_blocks.h"
#include "checkpoint.h"
#include "commands.h"
#include "host_memory.h"
#include "log.h"
#include "tide/gauge_tasks.h"
#include "tide/decomposition.h"
#include "dt_where_env.h"
#include "output.h"
#include "run_control.h"
#include "run_dir.h"
#include "run_log.h"
#include "runtime.h"
#include "tide/sph_sim.h"
#include "tide/sinks.h"
#include "sinks_csv.h"
#include "sinks_swift.h"
#include "stall_watchdog.h"
#include "statistics.h"
#include "tide/load_balance.h"
#include "tide/step_profile.h"
#include "snapshot.h"
#include "run_agree.h"
#include "run_opts.h"
#include "step_trace.h"
#include "synthetic.h"
#include "run_output.h"
#include "pair_stats_csv.h"

static void progress(const tide_sim *sim, const tide_case *c, double wall0, double t0, long step0)
{
	double el = tide_wtime() - wall0;
	double rate = (sim->step - step0) / (el > 0 ? el : 1);
	double left = (c->t_end - sim->t) / ((sim->t - t0) > 0 ? (sim->t - t0) / el : 1e-30);
	/* in the case's units (a cgs or SI gas case runs in internal ones: case_units.h) */
	tide_unit_system U = tide_case_output_units(c);
	double fT = tide_units_factor(&U, TIDE_DIM_TIME), fV = tide_units_factor(&U, TIDE_DIM_VELOCITY);
	/* t with 4 decimals (of seconds, a water run's), or 6 digits (a cgs or SI gas case's
	 * 1e12 s) */
	char t[32];
	snprintf(t, sizeof t, fT == 1.0 ? "%.4f" : "%.6g", sim->t * fT);
	/* one line updated in place on a terminal, one line per report in a log file */
	tide_info("%st = %s / %.4g s  step %ld  dt %.3g s  %.1f steps/s  vmax %.3g %s  "
	          "ETA %.0f s%s", isatty(1) ? "\r" : "", t, c->t_end * fT, sim->step, sim->last.dt * fT,
	          rate, sim->last.vmax * fV, tide_case_unit_name(c, TIDE_DIM_VELOCITY, 0),
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

/* The bytes a GPU holding all of this rank's SPH data should show (tasks/sph_memory.c): one
 * scratch per CUDA worker of the device.  0 without CUDA workers. */
static int device_bytes_expected(const tide_sim *sim, tide_node_bytes *e)
{
	unsigned ncuda = starpu_cuda_worker_get_count(), ndev = 0;
	for (unsigned n = 0; n < starpu_memory_nodes_get_count(); n++)
		ndev += starpu_node_get_kind(n) == STARPU_CUDA_RAM;
	if (!ncuda || !ndev) return 0;
	tide_sim_node_bytes(sim, (int)((ncuda + ndev - 1) / ndev), tide_suballocator_on(), e);
	return 1;
}

/* run.log: where the GPU's bytes go, expected (the bench ladder compares them with StarPU's
 * peak: bench/results/cpu-2core/gpu_memory.md).  A run without a GPU says what one GPU with one
 * CUDA worker would hold, so the figure can be followed on a machine without one. */
static void log_device_bytes(const tide_sim *sim, double n)
{
	tide_node_bytes e;
	if (n <= 0) return;
	int gpu = device_bytes_expected(sim, &e);
	if (!gpu) tide_sim_node_bytes(sim, 1, tide_suballocator_on(), &e);
	tide_info("GPU memory expected for one GPU%s: %.1f MiB, %.1f B/particle: blocks %.1f, cell "
	          "tables %.2f, halo and migrant buffers %.2f, sort scratch %.2f, StarPU's "
	          "suballocator chunks %.2f (32 MiB each, holding every allocation <= 4 MiB)\n",
	          gpu ? "" : " (none in this run; one CUDA worker)", e.total / 1048576.0, e.total / n,
	          e.blocks / n, e.cells / n, e.halos / n, e.scratch / n, e.chunks / n);
}

/* Returns 0 (done), -1 (failed), or the TIDE_RC_* reason it stopped for (*signo: the signal). */
static int run_loop(tide_sim *sim, const tide_case *c, const run_opts *o, run_out *out,
                    tide_run_stats *st, int *signo)
{
	size_t n0 = st->n_fluid + st->n_bound + st->n_nbody, nfluid0 = st->n_fluid + st->n_nbody;
	double wall0 = tide_wtime(), last_print = 0, step_time = 0;
	long step0 = sim->step;
	double t0 = sim->t;
	/* what the run reports: in the case's units (a cgs or SI gas case: case_units.h) */
	tide_unit_system U = tide_case_output_units(c);
	double fT = tide_units_factor(&U, TIDE_DIM_TIME);
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
	tide_watchdog_beat(sim->step, sim->t * fT);
	if (out->ckpt_step >= 0) tide_watchdog_checkpointed(out->ckpt_step);
	while (sim->t < c->t_end * (1 - 1e-9) && (o->max_steps < 0 || sim->step < o->max_steps)) {
		double ts = tide_wtime();
		int bad = tide_sim_step(sim);
		if (bad == -2) { ret = -RUN_LOST; snprintf(st->status, sizeof st->status, "the step trace stopped at step %ld", sim->step); break; }
		if (bad) { ret = -RUN_UNPHYSICAL; snprintf(st->status, sizeof st->status, "unphysical at step %ld, t = %g s", sim->step, sim->t * fT); break; }
		double dt_wall = tide_wtime() - ts;
		tide_watchdog_beat(sim->step, sim->t * fT);
		if (sim->step == step0 + 1) st->first_step_s = dt_wall;
		step_time += dt_wall;
		{
			double fill;
			size_t n = tide_sim_count(sim, &fill);
			/* gas that sinks accreted has not left the domain */
			if (sim->sinks) n += (size_t)sim->sinks->n_accreted;
			unsigned long long d = tide_device_bytes_used();
			if (d > peak_dev) peak_dev = d;
			if (n < n0 && n0 - n > nfluid0 / 100 + 10) {
				if (sim->rank == 0)
					fprintf(stderr, "%stide: step %ld (t = %.6g s): %zu of the %zu particles have "
					        "left the domain; the run has gone unphysical, or 'domain' in %s is too "
					        "small for the flow (enlarge it).\n", isatty(1) ? "\n" : "", sim->step,
					        sim->t * fT, n0 - n, n0, c->path);
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
		if (tide_run_gauges_due(out, sim, c) && tide_run_write_gauges(out, sim, c)) {
			ret = -RUN_IO;
			snprintf(st->status, sizeof st->status, "gauges failed");
			break;
		}
		if (!o->no_output && sim->t >= out->next_out - 1e-12) {
			if (tide_run_write_output(out, sim, c, NULL)) { ret = -RUN_IO; snprintf(st->status, sizeof st->status, "output failed"); break; }
			while (out->next_out <= sim->t + 1e-12) out->next_out += c->t_out;
		}
		int action = tide_rc_poll(&rc, sim->step, signo);
		if (action) {
			if (tide_run_write_checkpoint(out, sim, c)) { ret = -RUN_CHECKPOINT; snprintf(st->status, sizeof st->status, "checkpoint failed"); break; }
			tide_rc_checkpointed(&rc);
		}
		if (action & (TIDE_RC_SIGNAL | TIDE_RC_STOP_FILE)) {
			if (action & TIDE_RC_SIGNAL)
				snprintf(st->status, sizeof st->status, "stopped by signal %d at step %ld, t = %g s; "
				         "checkpoint in %.150s", *signo, sim->step, sim->t * fT, out->ckpt);
			else
				snprintf(st->status, sizeof st->status, "stopped by %.80s at step %ld, t = %g s; "
				         "checkpoint in %.80s", stop_file, sim->step, sim->t * fT, out->ckpt);
			/* said by run_case once all is saved, as the last line of the run */
			if (sim->rank == 0 && (action & TIDE_RC_STOP_FILE)) unlink(stop_file);
			ret = action & TIDE_RC_SIGNAL ? TIDE_RC_SIGNAL : TIDE_RC_STOP_FILE;
			break;
		}
		double now = tide_wtime();
		if (now - last_print > (isatty(1) ? 1.0 : 10.0)) { progress(sim, c, wall0, t0, step0); last_print = now; }
	}
	/* every snapshot is complete before the run ends or stops (a stop's checkpoint waited) */
	if (ret >= 0 && !o->no_output && tide_run_wait_outputs(out, sim)) {
		ret = -RUN_IO;
		snprintf(st->status, sizeof st->status, "output failed");
	}
	/* a run with checkpoints ends with one of its last state */
	if (!ret && checkpointing && out->ckpt_step != sim->step && tide_run_write_checkpoint(out, sim, c)) {
		ret = -RUN_CHECKPOINT;
		snprintf(st->status, sizeof st->status, "checkpoint failed");
	}
	tide_watchdog_stop();
	tide_rc_free(&rc);
	tide_balance_free(&lb);
	progress(sim, c, wall0, t0, step0);
	if (isatty(1)) tide_info("\n");
	if (ret < 0) {
		tide_run_save_after_failure(out, sim, c, -ret);
		ret = -1;
	}
	long steps = sim->step - step0;
	st->steps = sim->step;
	st->t_sim = sim->t * fT;
	st->wall_s = tide_wtime() - wall0;
	st->time_per_step_s = steps ? step_time / steps : 0;
	/* the first step also uploads the particles and allocates on the devices */
	st->later_step_s = steps > 1 ? (step_time - st->first_step_s) / (steps - 1) : 0;
	st->particle_steps_per_s = step_time > 0 ? (double)n0 * steps / step_time : 0;
	unsigned long long d = tide_device_bytes_used();
	st->peak_device_bytes = d > peak_dev ? d : peak_dev;
	tide_node_bytes e;
	if (device_bytes_expected(sim, &e)) st->expected_device_bytes = (size_t)e.total;
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

/* TIDE_CPU_CODELETS=name,name,...: those SPH codelets run on the CPU workers only, the rest
 * where they would.  A developer's bisection tool: when a GPU run and a CPU run of a case part
 * ways, pinning one codelet at a time to the CPU shows whose CUDA half makes the difference. */
static int pin_cpu_codelets(const tide_runtime *rt)
{
	const char *v = getenv("TIDE_CPU_CODELETS");
	if (!v || !v[0]) return 0;
	if (rt->ncpu == 0) {
		fprintf(stderr, "tide: TIDE_CPU_CODELETS=%s needs CPU workers, and this run has none "
		        "(set STARPU_NCPU to 1 or more).\n", v);
		return 1;
	}
	char list[512], names[1024];
	snprintf(list, sizeof list, "%s", v);
	for (char *save = NULL, *n = strtok_r(list, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
		if (tide_sph_codelet_where(n, STARPU_CPU) == 0) continue;
		tide_sph_codelet_names(names, sizeof names);
		fprintf(stderr, "tide: TIDE_CPU_CODELETS names '%s', which is not an SPH codelet (allowed: "
		        "%s).\n", n, names);
		return 1;
	}
	tide_info("TIDE_CPU_CODELETS: %s on the CPU workers only\n", v);
	return 0;
}

/* A failure of this rank alone after the start-up agreement: under MPI the others would wait
 * for it, so stop them all. */
static int fail_rank(const tide_runtime *rt)
{
	if (rt->size > 1) tide_run_abort_ranks();
	return 1;
}

/* A simulation build (SimGrid): tasks compute nothing, so --synthetic makes no particles. */
#ifdef TIDE_SIMGRID
#define TIDE_SIM_BUILD 1
#else
#define TIDE_SIM_BUILD 0
#endif

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
	int saved_err = tide_quiet_stderr(rt->rank != 0);
	int bad = tide_run_load_input(o, &c, &cs, &mem, &all);
	/* --synthetic: the case's physics on a box of fluid (every rank alike, before they agree) */
	tide_lattice lat;
	if (!bad && o->synthetic && tide_synthetic_case(&c, o->synthetic, rt->size, &lat)) bad = 2;
	tide_restore_stderr(saved_err);
	int nb = 0;
	if (tide_run_agree_with_ranks(o, rt, &c, &cs, bad, &nb)) bad = 1;
	if (!bad && !o->restart && !tide_run_build_fits_everywhere(o, &c, nb, rt)) bad = 1;
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
	int dir_bad = tide_rank0_says(rt->rank == 0 ? tide_run_dir_check(given, mode) : 0);
	if (dir_bad) {
		tide_ckpt_state_free(&cs);
		free(mem);
		return dir_bad;
	}

	/* a gas case in cgs or SI runs in internal units in which the float kernels see O(1)
	 * values (src/case_units.h); used_parameters.yaml and checkpoints keep the case as given
	 * (a restart converts it again, to the same units: the checkpoint's particles are in them) */
	static tide_case given_case;
	const tide_case *as_given = &c;
	tide_unit_system U = tide_case_internal_units(&c);
	if (!tide_units_is_identity(&U)) {
		given_case = c;
		as_given = &given_case;
		tide_case_to_internal(&c, &U);
		c.given = &given_case;
	}
	U = tide_case_output_units(&c); /* the identity but for a case run in internal units */
	tide_run_stats st;
	memset(&st, 0, sizeof st);
	void *built = NULL; /* the particles of a fresh run, as a host block */
	double t_file = 0;  /* initial.file: the time the run starts at (gas_input.h) */
	if (o->restart) {
		st.n_fluid = cs.n_fluid0;
		st.n_bound = cs.n_bound0;
		/* the checkpoint keeps no count of them: those it holds (they leave only through the
		 * domain's faces) */
		for (uint32_t i = 0; i < all.count; i++) st.n_nbody += all.type[i] == TIDE_NBODY;
	} else if (o->synthetic) {
		/* a simulation build makes none of its particles: its tasks compute nothing */
		st.n_fluid = tide_lattice_count(&lat);
		if (!TIDE_SIM_BUILD && tide_host_block_lattice(&c, &lat, nb, &built, &all)) return fail_rank(rt);
	} else if ((bad = c.initial_file[0] ? tide_gas_input_build(&c, nb, &built, &all, &st.n_fluid, &st.n_nbody, &t_file)
	                                    : tide_host_block_build(&c, nb, &built, &all, &st.n_fluid, &st.n_bound))) {
		/* no fluid is the input's fault, the same on every rank: all stop with exit code 2 */
		return bad == -2 ? 2 : fail_rank(rt);
	}
	if ((dir_bad = tide_rank0_says(rt->rank == 0 ? tide_run_dir_claim(&rd, out.dir, mode) : 0)))
		return dir_bad;
	snprintf(path, sizeof path, "%s/run.log", out.dir);
	if (rt->rank == 0) tide_run_log_open(path, o->restart != NULL, rt, o->argc, o->argv);
	snprintf(path, sizeof path, "%s/used_parameters.yaml", out.dir);
	if (rt->rank == 0 && tide_case_write_used(&c, path)) return fail_rank(rt);
	if (c.given) /* a gas case in cgs or SI runs in internal units (case_units.h) */
		tide_info("units: the %s case runs in internal units of %.6g cm, %.6g g, %.6g s (G = %.6g); "
		          "every output is converted back to the case's units but SWIFT snapshots, which "
		          "carry the internal units in their Units group\n",
		          c.units_given == TIDE_UNITS_SI ? "SI" : "cgs", c.code_length, c.code_mass, c.code_time,
		          c.self_gravity.G);
	out.n_fluid0 = st.n_fluid;
	out.n_bound0 = st.n_bound;
	snprintf(st.case_name, sizeof st.case_name, "%s", c.name);
	snprintf(st.status, sizeof st.status, "ok");
	snprintf(st.sched, sizeof st.sched, "%.31s", rt->sched);
	st.dim = c.dim;
	st.nranks = rt->size;
	st.ncpu_workers = rt->ncpu;
	st.ncuda_workers = rt->ncuda;
	st.dp = as_given->dp;
	if (c.given) { /* a gas case in cgs or SI: run_summary.csv's titles name its units */
		snprintf(st.unit_length, sizeof st.unit_length, "%s", tide_case_unit_name(&c, TIDE_DIM_LENGTH, 0));
		snprintf(st.unit_mass, sizeof st.unit_mass, "%s", tide_case_unit_name(&c, TIDE_DIM_MASS, 0));
		snprintf(st.unit_density, sizeof st.unit_density, "%s", tide_case_unit_name(&c, TIDE_DIM_DENSITY, 0));
	}
	st.h = tide_units_to_case(&U, tide_case_h(&c), TIDE_DIM_LENGTH);
	const char *ul = tide_case_unit_name(&c, TIDE_DIM_LENGTH, 0);
	tide_info("case %s: %zu fluid + %zu boundary + %zu collisionless particles, dp = %g %s, h = %g %s, "
	          "c0 = %.3g %s\n", c.name, st.n_fluid, st.n_bound, st.n_nbody, st.dp, ul, st.h, ul,
	          as_given->c0, tide_case_unit_name(&c, TIDE_DIM_VELOCITY, 0));
	/* mDBC is far less dissipative than DBC: without density diffusion the pressure noise it
	 * lets through can grow (a 2-D tank of still water 0.4 m deep at dp 0.02: kinetic energy
	 * 1.6e-3 -> 0.98 J/m in 1.8 s, DBC and mdbc + fourtakas stay at rest), which is why
	 * DualSPHysics pairs mDBC with density diffusion.  Said once, by rank 0 (the others'
	 * stderr is quiet). */
	if (c.boundary == TIDE_BOUNDARY_MDBC && c.diffusion == TIDE_DIFF_NONE && st.n_fluid > 0)
		fprintf(stderr, "tide: warning: %s: physics.boundary: mdbc without density diffusion "
		        "(physics.diffusion: none) can let particle noise grow, even in still water; "
		        "physics.diffusion: fourtakas (or molteni) keeps it down\n", c.name);

	/* A GPU does a block's step far faster than a CPU core, and any block StarPU gives a core
	 * holds the GPU up (bench/sched_policies.sh on the H200): by default the GPUs work alone,
	 * on few large blocks. */
	int gpu_only = rt->ncuda > 0 && !o->with_cpus;
	if (o->profile) tide_profile_enable();
	if (gpu_only) tide_sph_codelets_where(STARPU_CUDA);
	/* the time step's records combined across ranks: on a CPU worker if the rank has one
	 * (TIDE_DT_WHERE, include/tide/dt_where.h); before TIDE_CPU_CODELETS, which may name it */
	if (tide_runtime_uses_mpi() && tide_dt_where_apply(rt->ncpu, rt->ncuda, rt->rank)) return 2;
	if (pin_cpu_codelets(rt)) return 2;
	tide_sim sim;
	if (o->restart && (o->blocks <= 0 || o->blocks == cs.nblocks)) {
		/* the blocks exactly as saved: the continuation is the uninterrupted run's */
		if (tide_sim_setup_ranges(&sim, &c, &all, cs.nblocks, cs.range, cs.count, cs.cap,
		                          cs.halo_cap, cs.nranks == rt->size ? cs.owner : NULL,
		                          tide_runtime_uses_mpi())) {
			fprintf(stderr, "tide: the checkpoint %s does not fit its case; it cannot be "
			        "continued.\n", o->restart);
			return fail_rank(rt);
		}
	} else {
		if (o->restart)
			tide_info("restart with %d blocks instead of the checkpoint's %d: particles are "
			          "split again\n", nb, cs.nblocks);
		/* a fresh run of one block keeps the built particles as that block (no copy) */
		if (o->synthetic && TIDE_SIM_BUILD) {
			if (tide_sim_setup_lattice(&sim, &c, &lat, nb, tide_runtime_uses_mpi())) return fail_rank(rt);
		} else if (tide_sim_setup_take(&sim, &c, &built, &all, nb, tide_runtime_uses_mpi())) return fail_rank(rt);
	}
	free(mem);
	tide_block_free_host(built, all.cap);
	if (tide_sim_check_memory(&sim)) {
		tide_sim_free(&sim);
		return fail_rank(rt);
	}
	if (rt->rank == 0) log_device_bytes(&sim, (double)(st.n_fluid + st.n_bound + st.n_nbody));
	out.next_out = c.t_out;
	if (!o->restart && t_file != 0) { /* a file's particles go on from its time */
		sim.t = t_file;
		while (out.next_out <= sim.t + 1e-12) out.next_out += c.t_out;
	}
	if (!o->restart && c.initial_file[0] && tide_sim_sinks_table(&sim)) {
		/* a snapshot's sinks (PartType5) go on too; every rank reads them, rank 0 speaks */
		tide_sinks_saved ss;
		int saved = tide_quiet_stderr(tide_runtime_uses_mpi() && rt->rank != 0);
		int rc = tide_sinks_swift_read(c.initial_file, &c, &ss);
		tide_restore_stderr(saved);
		if (rc) {
			tide_sim_free(&sim);
			return rc == 2 ? 2 : fail_rank(rt);
		}
		tide_sim_sinks_restore(&sim, &ss);
		if (ss.n) tide_info("%d sinks from %s (PartType5), holding mass %g\n", ss.n,
		                    c.initial_file, tide_units_to_case(&U, tide_sinks_mass(sim.sinks), TIDE_DIM_MASS));
	}
	if (o->restart) {
		sim.step = cs.step;
		sim.t = cs.t;
		sim.verlet_count = cs.verlet_count;
		sim.last = cs.last;
		sim.rebalances = cs.rebalances;
		if (cs.nrigid) { /* the floating bodies go on from their checkpointed states */
			sim.nrigid = cs.nrigid;
			sim.rigid_set = 1;
			memcpy(sim.rigid, cs.rigid, sizeof sim.rigid);
			memcpy(sim.rigid_pose, cs.rigid_pose, sizeof sim.rigid_pose);
		}
		tide_sim_sinks_restore(&sim, &cs.sinks); /* the sinks go on too */
		out.next_out = cs.next_out;
		for (int i = 0; i < cs.n_outputs; i++)
			if (tide_run_note_time(&out, cs.out_time[i]) == 0) out.n++;
		if (!strcmp(o->restart, out.ckpt)) out.ckpt_step = cs.step;
		tide_info("restart from %s (written by tide %s on %d rank%s): step %ld, t = %.6g s, %d "
		          "outputs so far\n", o->restart, cs.tide_version, cs.nranks, cs.nranks > 1 ? "s" : "",
		          sim.step, tide_units_to_case(&U, sim.t, TIDE_DIM_TIME), out.n);
	}
	tide_ckpt_state_free(&cs);
	int bx[3];
	for (int k = 0; k < 3; k++) bx[sim.P.grid.axis[k]] = sim.p[k];
	tide_info("%d blocks (%d x %d x %d along x, y, z), %d CPU + %d CUDA workers%s, scheduler %s; "
	          "output in %s\n", sim.nblocks, bx[0], bx[1], bx[2], rt->ncpu, rt->ncuda,
	          gpu_only ? " (SPH tasks on the GPUs only; --with-cpus to change)" : "", rt->sched,
	          out.dir);
	if (sim.mpi)
		tide_info("time step combined across %d ranks %s\n", rt->size,
		          sim.dt_tree ? "by recursive doubling (dt_tree)" : "in one hop (each rank's record to every rank)");
	if (sim.mpi && rt->size > 1) {
		/* where the blocks went (block_owners): a line of counts, up to 64 ranks */
		char line[512];
		int at = snprintf(line, sizeof line, "blocks of each rank (block_owners: %s):",
		                  c.block_owners == TIDE_OWNERS_HILBERT ? "hilbert" : "boxes");
		for (int r = 0; r < rt->size && r < 64 && at < (int)sizeof line - 16; r++) {
			int n = 0;
			for (int b = 0; b < sim.nblocks; b++) n += sim.blk[b].owner == r;
			at += snprintf(line + at, sizeof line - (size_t)at, "%s %d", r ? " /" : "", n);
		}
		/* the estimated cost of each rank's particles (tide_decomp_cost) against the mean */
		double *load = calloc(rt->size > 0 ? (size_t)rt->size : 1, sizeof *load), sum = 0, max = 0;
		for (int b = 0; load && b < sim.nblocks; b++) load[sim.blk[b].owner] += sim.blk[b].cost;
		for (int r = 0; load && r < rt->size; r++) {
			sum += load[r];
			if (load[r] > max) max = load[r];
		}
		free(load);
		tide_info("%s%s; estimated cost max/mean - 1 = %.0f %%\n", line, rt->size > 64 ? " ..." : "",
		          sum > 0 ? 100 * (max * rt->size / sum - 1) : 0.0);
	}

	snprintf(path, sizeof path, "%s/particles.pvd", out.dir);
	int ret = 0;
	if (rt->rank == 0 && !o->no_output) {
		if (o->restart) ret = tide_run_reopen_outputs(&out, &c, sim.step);
		else if ((tide_case_writes_vtp(&c) && tide_pvd_open(&out.pvd, path)) ||
		         tide_stats_open(&out.stats, out.dir, &c, -1, sim.step, tide_wtime()))
			ret = -1;
		snprintf(path, sizeof path, "%s/bodies.pvd", out.dir);
		if (!ret && !o->restart && c.motion.nbody && tide_pvd_open(&out.bodies_pvd, path)) ret = -1;
	}
	/* every rank takes part (the writer's start and the first snapshot are collective), even
	 * where rank 0 could not open its files */
	tide_snap_outputs outs = {&out.pvd, &out.xmf, &out.stats, c.motion.nbody ? &out.bodies_pvd : NULL};
	if (!o->no_output && tide_snap_init(&out.snap, &sim, &c, out.dir, &outs)) ret = -1;
	/* gauges.csv is written with --no-output too; a restart goes on from its rows up to t */
	tide_gauge_arg G;
	if (tide_gauge_arg_of_case(&c, &G) || tide_gauge_tasks_init(&out.gt, &G)) ret = -1;
	out.gauges_on = tide_gauge_len(&G) > 1 || G.front;
	if (rt->rank == 0 && !ret &&
	    (o->restart ? tide_gauges_reopen(&out.gauges, out.dir, &c, tide_units_to_case(&U, sim.t, TIDE_DIM_TIME))
	                : tide_gauges_open(&out.gauges, out.dir, &c)))
		ret = -1;
	if (rt->rank == 0 && !ret &&
	    (o->restart ? tide_bodies_csv_reopen(&out.bodies, out.dir, &c, sim.t)
	                : tide_bodies_csv_open(&out.bodies, out.dir, &c)))
		ret = -1;
	/* sinks.csv's rows are in the case's units */
	if (rt->rank == 0 && !ret && o->restart &&
	    tide_sinks_csv_reopen(out.dir, &c, tide_units_to_case(&U, sim.t, TIDE_DIM_TIME)))
		ret = -1;
	if (!ret && o->restart) out.gauge_k = (long)floor(sim.t / tide_case_gauge_every(&c) + 1e-9) + 1;
	if (!ret && !o->restart && tide_run_write_gauges(&out, &sim, &c)) ret = -1;
	if (!o->no_output && !o->restart && tide_run_write_output(&out, &sim, &c, NULL)) ret = -1;
	int signo = 0;
	tide_step_trace trace = {0};
	tide_step_reduce model_step;
	if (o->synthetic && TIDE_SIM_BUILD && !o->replay_steps) {
		tide_synthetic_step(&c, st.n_fluid, &model_step);
		sim.on_reduce = tide_synthetic_reduce;
		sim.on_reduce_arg = &model_step;
	}
	if (!ret && (o->record_steps || o->replay_steps)) {
		const char *tp = o->record_steps ? o->record_steps : o->replay_steps;
		if (tide_step_trace_open(&trace, tp, o->replay_steps != NULL, rt->rank == 0,
		                         (unsigned long)(st.n_fluid + st.n_bound + st.n_nbody))) {
			/* the other ranks would wait for this one in the first step */
			if (rt->size > 1) tide_run_abort_ranks();
			ret = -1;
		}
		sim.on_reduce = tide_step_trace_reduce;
		sim.on_reduce_arg = &trace;
	}
	if (!ret) ret = run_loop(&sim, &c, o, &out, &st, &signo);
	if (!ret && o->pair_stats && tide_run_pair_stats(&sim, &c, out.dir)) ret = -1;
	if (tide_step_trace_close(&trace) && ret == 0) ret = -1;
	tide_snap_fini(&out.snap);
	st.n_outputs = out.n;
	st.jeans_mass_min = out.jeans_mj;
	st.jeans_rho = out.jeans_rho;
	st.jeans_unresolved_t = out.jeans_lost ? out.jeans_lost_t : -1;
	st.n_sinks = sim.sinks ? sim.sinks->n : 0;
	st.sink_mass = tide_units_to_case(&U, tide_sinks_mass(sim.sinks), TIDE_DIM_MASS);
	st.peak_host_bytes = tide_peak_host_bytes();
	/* a finished run whose summary cannot be written has failed to deliver it */
	if (rt->rank == 0 && tide_summary_write(out.dir, &st) && ret == 0) ret = -1;
	if (o->profile) {
		/* each rank reports its own tasks */
		snprintf(path, sizeof path, "%s/step_profile_rank%d.csv", out.dir, rt->rank);
		fprintf(stderr, "rank %d: ", rt->rank);
		tide_profile_report(stderr, path, st.steps, st.time_per_step_s);
		snprintf(path, sizeof path, "%s/step_timeline_rank%d.csv", out.dir, rt->rank);
		tide_profile_timeline_write(path);
	}
	if (rt->rank == 0 && tide_gauges_close(&out.gauges) && ret == 0) ret = -1;
	if (rt->rank == 0 && tide_gauges_close(&out.bodies) && ret == 0) ret = -1;
	tide_gauge_tasks_free(&out.gt);
	if (rt->rank == 0 && !o->no_output) {
		tide_pvd_close(&out.pvd);
		tide_pvd_close(&out.xmf);
		tide_pvd_close(&out.bodies_pvd);
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

int tide_cmd_run(int argc, char **argv)
{
	/* everything printed from here on may go to DIR/run.log, once DIR is known and taken */
	tide_log_capture();
	run_opts o;
	if (tide_run_parse_opts(argc, argv, &o)) return 2;
	if (o.replay_steps && tide_step_trace_check(o.replay_steps)) return 2;
	if (o.record_steps && tide_step_trace_check_write(o.record_steps)) return 2;
	o.argc = argc;
	o.argv = argv;
	tide_cmd_key key;
	tide_run_key(&o, argc, argv, &key);
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
