// SPDX-License-Identifier: LGPL-2.1-or-later
// tide gravity: one Barnes–Hut force evaluation of a generated distribution, timed step by step
// (build, moments, walk) and as a whole, with optional accuracy check against a double-precision
// direct sum on K random particles.  The benchmark mode of issue 5.  On several ranks the walk
// includes the exchange of virtual roots and essential nodes, and rank 0 reports for all.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <starpu.h>
#include "tide/bh_gravity.h"
#include "tide/bh_walk_sets.h"
#include "tide/block_interface.h"
#include "tide/gravity_synth.h"
#include "bh_ic.h"
#include "cmd_agree.h"
#include "commands.h"
#include "host_memory.h"
#include "tide/let_interface.h"
#include "log.h"
#include "num_opts.h"
#include "particle_input.h"
#include "runtime.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: tide gravity [--n N] [--dist plummer|uniform|sphere] [--input FILE]\n"
	        "                    [--theta T] [--quadrupole] [--eps E] [--check K] [--seed S]\n"
	        "                    [--repeat R] [--device any|cpu|cuda] [--parts P] [--csv FILE]\n"
	        "                    [--output FILE] [--synthetic N] [--quiet|--verbose]\n"
	        "\n"
	        "Generates N particles (G = M = 1; Plummer scale radius 1, cube [-1,1]^3 or unit ball),\n"
	        "or takes them from --input FILE: a SWIFT/GADGET HDF5 file (every particle of\n"
	        "PartType0..5, in G = 1 units: a file with a Units group keeps its length and mass\n"
	        "units) or a text file of 'x y z m' lines ('#' comments; not with --n or --dist),\n"
	        "evaluates the Barnes-Hut accelerations once for warm-up and R more times, and prints\n"
	        "the median times of build, moments, walk (each waited for) and of the whole evaluation\n"
	        "(submitted at once).  --check K compares K random particles with a double-precision\n"
	        "direct sum: median, 99th percentile and maximum of |a_tree - a_direct| / |a_direct|.\n"
	        "--csv appends one row (header when the file is new).  --output writes the particles\n"
	        "with their accelerations and potentials (Accelerations, Potentials) in the input's\n"
	        "order as a SWIFT/GADGET HDF5 file (docs/commands.md).  Defaults: N 100000, plummer,\n"
	        "theta 0.5, monopoles, eps 0, R 3, device any, P 0: four walk tasks per CPU worker,\n"
	        "one on a GPU (with several ranks one per 4 M particles, up to 4, so that the\n"
	        "exchange runs between them; docs/gravity.md).  --quiet prints nothing (use\n"
	        "--csv), --verbose also the times of every repetition.\n"
	        "Under mpirun every rank takes a contiguous range of the particles' Morton order and\n"
	        "builds its own tree; ranks send each other the essential nodes of their trees\n"
	        "(docs/gravity.md).  Rank 0 prints the figures of all ranks, with the essential\n"
	        "nodes each rank sent and the execution time of its walk tasks over its own tree and\n"
	        "over the essential nodes it received (timed in the whole evaluations, StarPU's task\n"
	        "profiling); the check covers all particles.\n"
	        "--synthetic N: N particles per rank of a uniform cube of N x ranks (a power of 2),\n"
	        "each rank a box of its Morton order, the tasks' work for their performance models\n"
	        "taken from a model of its tree (docs/simulation.md); in a simulation build no\n"
	        "particle is made and the essential nodes' sizes are the model's.  Not with --n,\n"
	        "--dist, --input, --check or --output.\n"
	        "Allowed values: N and K integers from 0 to 1.5e9 (--synthetic: 1 to 1.5e9), theta > 0 and <= 2, eps a finite\n"
	        "number >= 0, S an integer from 0 to 2^53, R from 1 to 100000, P from 0 to 1000000\n"
	        "(0: the default); each option at most once.  A run whose particles cannot fit in\n"
	        "the available main memory (%zu bytes per particle at the start) is refused.\n"
	        "Exit codes: 0 done, 1 StarPU, memory, the CSV or --output failed, 2 bad usage or a\n"
	        "bad --input file (one sentence naming the file and the problem).\n",
	        (size_t)BH_IC_BYTES_PER_PARTICLE);
}

/* An allocation failed after the estimate passed (other processes took the memory meanwhile):
 * one sentence and exit code 1.  The process ends here, so that under mpirun the other ranks
 * are stopped rather than left waiting for this one. */
static int out_of_memory(uint32_t n)
{
	fprintf(stderr, "tide gravity: out of host memory for %u particles; use a smaller --n.\n", n);
	fflush(stderr);
	exit(1);
}

/* Host bytes at the larger of the two peaks of one process: making the initial conditions, and
 * the --check of K particles (the forces by index, the positions by index, the index shuffle,
 * then 4 + 32 bytes per checked particle beside the particles, velocities and accelerations). */
static double gravity_bytes(double n, double k)
{
	double ic = n * (double)BH_IC_BYTES_PER_PARTICLE;
	double check = k > 0 ? n * (3 * 16 + sizeof(bh_acc) + sizeof(bh_body) + sizeof(uint32_t)) +
	                       fmin(k, n) * (sizeof(uint32_t) + 4 * sizeof(double)) : 0;
	return ic > check ? ic : check;
}

/* Address space of that size that nothing touches (a simulation's synthetic particles: StarPU
 * reads a handle only from a valid copy, so it gets one in main memory, which no simulated task
 * reads); NULL when none is left. */
static void *untouched(size_t bytes)
{
	void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}
static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_d);
	return n ? v[n / 2] : 0;
}

int tide_cmd_gravity(int argc, char **argv)
{
	double N = 100000, theta = 0.5, eps = 0, K = 0, seed = 1, R = 3, parts = 0, SYN = 0;
	int quad = 0;
	enum bh_dist dist = BH_DIST_PLUMMER;
	enum tide_where where = TIDE_WHERE_ANY;
	const char *csv = NULL, *dist_s = NULL, *device_s = NULL, *input = NULL, *output = NULL;
	tide_num_opt num[] = {
		{"--n", 1, 0, BH_MAX_N, 0, &N, NULL},
		{"--theta", 0, 0, 2, 1, &theta, NULL},
		{"--eps", 0, 0, INFINITY, 0, &eps, NULL},
		{"--check", 1, 0, BH_MAX_N, 0, &K, NULL},
		{"--seed", 1, 0, 9007199254740992.0, 0, &seed, NULL},
		{"--repeat", 1, 1, 100000, 0, &R, NULL},
		{"--parts", 1, 0, 1000000, 0, &parts, NULL},
		{"--synthetic", 1, 1, BH_MAX_N, 0, &SYN, NULL},
	};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return 0; }
		if (!strcmp(a, "--quadrupole")) { quad = 1; continue; }
		if (!strcmp(a, "--quiet")) { tide_verbosity = 0; continue; }
		if (!strcmp(a, "--verbose")) { tide_verbosity = 2; continue; }
		if (i + 1 >= argc) {
			fprintf(stderr, "tide gravity: unknown option or missing value '%s'.\n", a);
			usage(stderr);
			return 2;
		}
		const char *v = argv[++i];
		int r = tide_num_opt_parse("gravity", num, (int)(sizeof num / sizeof num[0]), a, v);
		if (r < 0) return 2;
		if (r == 0) continue;
		if (!strcmp(a, "--csv")) {
			if (tide_opt_once("gravity", a, &csv, v)) return 2;
		} else if (!strcmp(a, "--input")) {
			if (tide_opt_once("gravity", a, &input, v)) return 2;
		} else if (!strcmp(a, "--output")) {
			if (tide_opt_once("gravity", a, &output, v)) return 2;
		} else if (!strcmp(a, "--dist")) {
			if (tide_opt_once("gravity", a, &dist_s, v)) return 2;
			if (bh_dist_parse(v, &dist)) {
				fprintf(stderr, "tide gravity: --dist must be plummer, uniform or sphere, not '%s'.\n", v);
				return 2;
			}
		} else if (!strcmp(a, "--device")) {
			if (tide_opt_once("gravity", a, &device_s, v)) return 2;
			if (!strcmp(v, "any")) where = TIDE_WHERE_ANY;
			else if (!strcmp(v, "cpu")) where = TIDE_WHERE_CPU;
			else if (!strcmp(v, "cuda")) where = TIDE_WHERE_CUDA;
			else { fprintf(stderr, "tide gravity: --device must be any, cpu or cuda, not '%s'.\n", v); return 2; }
		} else {
			fprintf(stderr, "tide gravity: unknown option '%s'.\n", a);
			usage(stderr);
			return 2;
		}
	}
	int synthetic = num[7].given != NULL;
	if (synthetic && (num[0].given || dist_s || input || K > 0 || output)) {
		fprintf(stderr, "tide gravity: --synthetic makes its own particles; leave out %s.\n",
		        num[0].given ? "--n" : dist_s ? "--dist" : input ? "--input" : K > 0 ? "--check" : "--output");
		return 2;
	}
	if (input && (num[0].given || dist_s)) {
		fprintf(stderr, "tide gravity: --input %s gives the particles; leave out %s.\n", input,
		        num[0].given ? "--n" : "--dist");
		return 2;
	}
	/* every rank makes all the particles first: refused here, before StarPU starts, when that
	 * cannot fit (a failed allocation would end in a crash, an overcommitted one in the kernel's
	 * out-of-memory killer); the particles of a file are counted once it is read */
	char what[4200];
	const char *mem_what = K > 0 ? "positions, velocities, accelerations, the initial conditions' "
	                       "scratch and the --check buffers" : "positions, velocities, "
	                       "accelerations and the initial conditions' scratch";
	snprintf(what, sizeof what, "tide gravity: out of host memory: --n %.0f", N);
#ifdef TIDE_SIMGRID
	int modelled = synthetic; /* no particle made: nothing to check */
#else
	int modelled = 0;
#endif
	if (!input && !modelled && tide_host_memory_check(what, gravity_bytes(synthetic ? SYN : N, K), mem_what,
	                                                 "use a smaller --n"))
		return 1;
	/* every rank must make the same particles and the same evaluations (--csv, written by rank 0
	 * alone, may differ) */
	tide_cmd_key key;
	tide_cmd_key_init(&key, "gravity", argc, argv);
	tide_cmd_key_add(&key, "--n", "%.17g", N);
	tide_cmd_key_add(&key, "--dist", "%s", bh_dist_name(dist));
	tide_cmd_key_add(&key, "--input", "%s", input ? input : "(none)");
	tide_cmd_key_add(&key, "--theta", "%.17g", theta);
	tide_cmd_key_add(&key, "--quadrupole", "%s", quad ? "on" : "off");
	tide_cmd_key_add(&key, "--eps", "%.17g", eps);
	tide_cmd_key_add(&key, "--check", "%.17g", K);
	tide_cmd_key_add(&key, "--seed", "%.17g", seed);
	tide_cmd_key_add(&key, "--repeat", "%.17g", R);
	tide_cmd_key_add(&key, "--device", "%s", where == TIDE_WHERE_CPU ? "cpu" : where == TIDE_WHERE_CUDA ? "cuda" : "any");
	tide_cmd_key_add(&key, "--parts", "%.17g", parts);
	tide_cmd_key_add(&key, "--synthetic", "%.17g", SYN);
	tide_runtime rt;
	int started = tide_runtime_init(&argc, &argv, &key, &rt);
	if (started) return started;
	if (where == TIDE_WHERE_CUDA && rt.ncuda == 0) {
		fprintf(stderr, "tide gravity: --device cuda, but StarPU found no CUDA worker.\n");
		tide_runtime_shutdown();
		return 1;
	}
	bh_params P = {.theta = (float)theta, .eps = (float)eps, .G = 1.f, .quadrupole = quad};
	tide_gravity_synth syn;
	if (synthetic) {
		if (tide_gravity_synth_init(&syn, rt.size, SYN, P, tide_bh_group_fill(),
		                            tide_gravity_boxes_choice(getenv("TIDE_GRAVITY_BOXES"), rt.rank))) {
			if (rt.rank == 0)
				fprintf(stderr, "tide gravity: --synthetic needs a power of 2 of ranks, not %d.\n", rt.size);
			tide_runtime_shutdown();
			return 2;
		}
		tide_gravity_synth_weights(&syn, getenv("TIDE_GRAVITY_SYNTH_WEIGHTS"), rt.rank);
		/* the uniform cube of SYN particles per rank (made, in a normal build) */
		N = SYN * rt.size;
		dist = BH_DIST_UNIFORM;
	}
	/* every rank makes (or reads) the same particles and keeps its share (a range of their
	 * Morton order) */
	tide_bodies in;
	bh_body *all = NULL;
	float *all_vel = NULL;
	double t0 = tide_wtime();
	if (input) {
		int bad = tide_bodies_load(input, &in);
		if (!bad) {
			N = in.n;
			snprintf(what, sizeof what, "tide gravity: out of host memory: %s (%u particles)",
			         input, in.n);
			bad = tide_bodies_memory_agree(what, gravity_bytes(N, K), mem_what, "use a machine "
			                               "with more memory, or more MPI ranks on more nodes");
			if (bad) tide_bodies_free(&in);
		}
		if (bad) {
			tide_runtime_shutdown();
			return bad;
		}
		all = in.body;
		all_vel = in.vel;
		in.body = NULL; /* owned here now */
		in.vel = NULL;
		free(in.acc);   /* a snapshot's forces: computed again here */
		in.acc = NULL;
	} else {
		tide_bodies_generated(&in, modelled ? (uint32_t)SYN : (uint32_t)N);
	}
	/* a simulation's synthetic run holds this rank's particles only, none made */
	uint32_t n = modelled ? (uint32_t)SYN : (uint32_t)N, m = n ? n : 1;
	double ntot = synthetic ? SYN * rt.size : n;
	uint32_t *counts = malloc(sizeof(uint32_t) * rt.size);
	if (!counts) return out_of_memory(n);
	bh_body *body;
	float *vel;
	bh_acc *acc;
	float box[6] = {-1.f, -1.f, -1.f, 1.f, 1.f, 1.f};
	double t_ic = 0;
	const char *dist_name = input ? "input" : synthetic ? "synthetic" : bh_dist_name(dist);
	if (modelled) {
		body = untouched(sizeof(bh_body) * (size_t)m);
		vel = untouched(16 * (size_t)m);
		acc = untouched(sizeof(bh_acc) * (size_t)m);
		if (!body || !vel || !acc) return out_of_memory(n);
		for (int q = 0; q < rt.size; q++) counts[q] = n;
		tide_block_messages_sized_only(1); /* and essential-node messages: their size only */
	} else {
	if (!all) all = malloc(sizeof(bh_body) * m);
	if (!all_vel) all_vel = malloc(16 * (size_t)m);
	if (!all || !all_vel) return out_of_memory(n);
	if (!input && bh_ic_make(dist, n, (uint64_t)seed, all, all_vel)) return out_of_memory(n);
	t_ic = tide_wtime() - t0;
	bh_bounding_box(all, n, box);
	if (rt.size == 1) {
		body = all; /* sorted in place */
		vel = all_vel;
		acc = calloc(m, sizeof(bh_acc));
		counts[0] = n;
		for (uint32_t i = 0; i < n; i++) bh_set_id(&vel[4 * i], i);
		all = NULL;
		all_vel = NULL;
	} else if (bh_take_share(all, all_vel, n, rt.rank, rt.size, &body, &vel, &acc, counts)) {
		return out_of_memory(n);
	}
	free(all_vel);
	if (!acc) return out_of_memory(n);
	}
	tide_gravity g;
	if (synthetic)
		tide_gravity_init_synthetic(&g, &syn, body, vel, acc, box, P, (int)parts, where,
		                            tide_runtime_uses_mpi());
	else
		tide_gravity_init_ranks(&g, body, vel, acc, counts, box, P, (int)parts, where,
		                        tide_runtime_uses_mpi());

	/* warm-up: allocations, transfers to the device, CUDA module loading */
	t0 = tide_wtime();
	tide_gravity_submit_forces(&g);
	tide_gravity_wait(&g);
	double t_first = tide_wtime() - t0;
	int reps = (int)R;
	double *tb = malloc(sizeof(double) * 4 * reps);
	if (!tb) return out_of_memory(n);
	double *tm = tb + reps, *tw = tm + reps, *tt = tw + reps;
	for (int r = 0; r < reps; r++) {
		double a = tide_wtime();
		tide_gravity_submit_build(&g);
		tide_gravity_wait(&g);
		double b = tide_wtime();
		tide_gravity_submit_moments(&g);
		tide_gravity_wait(&g);
		double c = tide_wtime();
		tide_gravity_submit_walk(&g);
		tide_gravity_wait(&g);
		double d = tide_wtime();
		tb[r] = b - a; tm[r] = c - b; tw[r] = d - c;
		tide_debug("repetition %d: build %.4f  moments %.4f  walk %.4f s\n", r + 1, tb[r], tm[r], tw[r]);
	}
	/* the whole evaluations, with the walk tasks timed (StarPU's task profiling: a few clock
	 * readings per task): how much of the walk goes to other ranks' essential nodes */
	tide_gravity_time_walks(&g, 1);
	int64_t tally[BH_LET_TALLY_N];
	bh_walk_let_tally(tally); /* zeroed: the CPU walks' counts of the timed evaluations */
	for (int r = 0; r < reps; r++) {
		/* every rank starts together, so that the slowest rank's time is the evaluation's
		 * (starpu_mpi_wait_for_all waits for this rank's tasks and messages only) */
		tide_runtime_barrier();
		double a = tide_wtime();
		tide_gravity_submit_forces(&g);
		tide_gravity_wait(&g);
		tt[r] = tide_wtime() - a;
	}
	tide_gravity_time_walks(&g, 0);
	bh_walk_let_tally(tally);
	int32_t ncells, ngroups;
	tide_gravity_tree_size(&g, &ncells, &ngroups);
	/* per rank: cells, groups, the essential nodes it sent, and its walk tasks' execution time
	 * per evaluation over its own tree and over the essential nodes it received; summed on
	 * rank 0 */
	enum { NV = 13 + BH_LET_TALLY_N };
	double mine[NV] = {ncells, ngroups, 0, 0, 0, g.walk_ns[0] * 1e-9 / reps, g.walk_ns[1] * 1e-9 / reps,
	                   0, 0, 0, 0, g.syn_own, median(tt, reps)};
	for (int k = 0; k < BH_LET_TALLY_N; k++) mine[13 + k] = (double)tally[k] / reps;
	for (int q = 0; q < rt.size; q++) {
		uint32_t nc, np;
		int kind = tide_gravity_let_kind(&g, q);
		tide_gravity_let_sent(&g, q, &nc, &np);
		mine[2] += nc; mine[3] += np;
		if (kind != TIDE_LET_NONE) mine[4] += (double)tide_let_message_bytes(nc, np);
		mine[7] += kind == TIDE_LET_NODES; /* messages of essential nodes, of the coarse tree */
		mine[8] += kind == TIDE_LET_COARSE;
		/* the synthetic domain's model of the same (a real run: how well it matches) */
		const double *mc = !g.syn_io || kind == TIDE_LET_NONE ? NULL
		                   : kind == TIDE_LET_COARSE ? g.syn_coarse : &g.syn_io[6 * q];
		if (mc) { mine[9] += mc[0]; mine[10] += mc[1]; }
		if (g.syn_io && q != rt.rank) mine[11] += g.syn_io[6 * q + 4]; /* interactions received */
	}
	/* the virtual roots' messages and bytes of every rank (the same function of the ranks on
	 * each): sum and max of each */
	double vr_sent[4] = {0};
	for (int q = 0; q < rt.size && g.mpi; q++) {
		int m;
		double b;
		tide_gravity_vroot_sent(&g, q, &m, &b);
		vr_sent[0] += m;
		vr_sent[1] = fmax(vr_sent[1], m);
		vr_sent[2] += b;
		vr_sent[3] = fmax(vr_sent[3], b);
	}
	double *per_rank = malloc(sizeof(double) * NV * rt.size);
	if (!per_rank) return out_of_memory(n);
	tide_gravity_gather_values(&g, 0, mine, NV, per_rank);
	double tot[NV] = {0};
	for (int q = 0; q < rt.size; q++)
		for (int k = 0; k < NV; k++) tot[k] += per_rank[NV * q + k];
	/* the forces by particle index, on rank 0 (and the particles for --output) */
	bh_acc *byid = NULL;
	bh_body *gbody = NULL;
	float *gvel = NULL;
	bh_acc *gacc = NULL;
	if (rt.size > 1 && rt.rank == 0 && !synthetic) {
		gvel = malloc(16 * (size_t)m);
		gacc = malloc(sizeof(bh_acc) * m);
		gbody = output ? malloc(sizeof(bh_body) * m) : NULL;
		if (!gvel || !gacc || (output && !gbody)) return out_of_memory(n);
	}
	if (rt.size > 1 && !synthetic) tide_gravity_gather(&g, 0, gbody, gvel, gacc);
	tide_gravity_fini(&g);
	if (rt.rank == 0 && !synthetic) {
		if (rt.size == 1) { gbody = body; gvel = vel; gacc = acc; }
		byid = malloc(sizeof(bh_acc) * m);
		if (!byid) return out_of_memory(n);
		for (uint32_t i = 0; i < n; i++) byid[bh_get_id(&gvel[4 * i])] = gacc[i];
	}
	double mb = median(tb, reps), mm = median(tm, reps), mw = median(tw, reps), mt = median(tt, reps);
	int slow = 0; /* the slowest rank: its whole evaluation (median of its own) */
	for (int q = 1; q < rt.size; q++) slow = per_rank[NV * q + 12] > per_rank[NV * slow + 12] ? q : slow;
	double mt_max = per_rank[NV * slow + 12];
	const char *dev = where == TIDE_WHERE_CPU ? "cpu" : where == TIDE_WHERE_CUDA ? "cuda"
	                 : rt.ncuda ? "any(gpu)" : "any(cpu)";
	if (rt.rank == 0) {
		tide_info("gravity: N %.0f %s%s, theta %g, %s, eps %g, device %s, %d walk task(s)%s\n", ntot,
		       input ? "from " : "", input ? input : dist_name, theta, quad ? "quadrupole" : "monopole", eps, dev, g.nparts,
		       rt.size > 1 ? " per rank" : "");
		tide_info("tree: %.0f cells, %.0f groups (%.1f particles per group)%s\n", tot[0], tot[1],
		       tot[1] > 0 ? ntot / tot[1] : 0.0, rt.size > 1 ? ", all ranks" : "");
		if (rt.size > 1) {
			tide_info("ranks: %d, particles per rank %u .. %u (Morton split); essential nodes sent: "
			       "%.0f cells + %.0f particles, %.3f MB in %.0f messages\n", rt.size, counts[0],
			       counts[rt.size - 1], tot[2], tot[3], tot[4] / 1e6, tot[7] + tot[8]);
			if (synthetic) {
				tide_info("synthetic domain's model of the essential nodes sent: %.0f cells + %.0f "
				          "particles; walk interactions per particle %.0f (own tree %.0f, rank 0)\n", tot[9],
				          tot[10], tot[11] / rt.size, g.syn_own);
				tide_info("synthetic domain's model of the received walks, per particle (rank 0): %.1f "
				          "interactions + %.3f far nodes in expansions (x %.1f) + %s L2P (x %.1f) = %.1f "
				          "work units\n", g.syn_let_parts[0], g.syn_let_parts[1], syn.w_m2l,
				          g.far > 0 ? "1" : "0", syn.w_l2p,
				          g.syn_let_parts[0] + syn.w_m2l * g.syn_let_parts[1] +
				                  (g.far > 0 ? syn.w_l2p : 0.0));
			}
			double bmax = 0;
			for (int q = 0; q < rt.size; q++) bmax = fmax(bmax, per_rank[NV * q + 4]);
			if (g.far_nu < 0)
				tide_info("exchange: all-to-all; bytes sent per rank per evaluation: mean %.0f, max %.0f\n",
				          tot[4] / rt.size, bmax);
			else
				tide_info("exchange: near/far (TIDE_GRAVITY_FAR nu %g): %.0f pairs near (own essential "
				          "nodes), %.0f far (coarse tree); bytes sent per rank per evaluation: mean %.0f, "
				          "max %.0f\n", g.far_nu, tot[7], tot[8], tot[4] / rt.size, bmax);
			if (g.far_nu >= 0)
				tide_info("virtual roots: %s (TIDE_GRAVITY_VROOTS); sent per rank per evaluation: "
				          "messages mean %.2f, max %.0f; bytes mean %.0f, max %.0f\n",
				          g.vgather ? "gathered by recursive doubling" : "each rank's to every rank",
				          vr_sent[0] / rt.size, vr_sent[1], vr_sent[2] / rt.size, vr_sent[3]);
			for (int q = 0; q < rt.size; q++)
				tide_info("  rank %d: %u particles, %.0f cells; sent %.0f essential cells + %.0f "
				       "particles (%.3f MB); walk tasks %.4f s own tree + %.4f s essential nodes\n",
				       q, counts[q], per_rank[NV * q], per_rank[NV * q + 2], per_rank[NV * q + 3],
				       per_rank[NV * q + 4] / 1e6, per_rank[NV * q + 5], per_rank[NV * q + 6]);
			tide_info("walk tasks, all ranks, per evaluation: %.4f s over their own trees + %.4f s "
			       "over the essential nodes received (%.1f %% of the walk time)\n", tot[5], tot[6],
			       tot[5] + tot[6] > 0 ? 100 * tot[6] / (tot[5] + tot[6]) : 0.0);
			tide_info("whole evaluation, the ranks started together: %.4f s on rank 0, %.4f s on the "
			          "slowest rank (%d)\n", mt, mt_max, slow);
			/* the CPU walks' work over received sets (bh_walk_let_tally; none on a GPU) */
			if (tot[13 + BH_LET_TALLY_GROUPS] > 0)
				tide_info("received-set walks (CPU), all ranks, per evaluation: %.0f groups, %.0f "
				          "node-particle + %.0f particle-particle interactions, %.0f far nodes in local "
				          "expansions (M2L), %.0f L2P; CPU time %.4f s; far field %s (theta_l %g)\n",
				          tot[13 + BH_LET_TALLY_GROUPS], tot[13 + BH_LET_TALLY_M2P],
				          tot[13 + BH_LET_TALLY_P2P], tot[13 + BH_LET_TALLY_M2L],
				          tot[13 + BH_LET_TALLY_L2P], tot[13 + BH_LET_TALLY_CPU_NS] * 1e-9,
				          g.far > 0 ? "local" : "direct", (double)(g.far * P.theta));
		}
		tide_info("time [s]: build %.4f  moments %.4f  walk %.4f  (sum %.4f)  total %.4f  "
		       "(first evaluation %.3f, initial conditions %.2f)\n",
		       mb, mm, mw, mb + mm + mw, mt, t_first, t_ic);
	}

	int ret = 0;
	tide_gravity_err e = {0, 0, 0, 0};
	uint32_t ns = (uint32_t)K < n ? (uint32_t)K : n;
	double t_check = 0;
	if (ns > 0 && rt.rank == 0) {
		/* positions by index: the input (several ranks), or the sorted copy put back in order */
		bh_body *pos = all;
		if (rt.size == 1) {
			pos = malloc(sizeof(bh_body) * m);
			if (!pos) return out_of_memory(n);
			for (uint32_t i = 0; i < n; i++) pos[bh_get_id(&vel[4 * i])] = body[i];
		}
		uint32_t *sample = malloc(sizeof(uint32_t) * ns);
		double *ref = malloc(sizeof(double) * 4 * ns);
		/* K distinct random particles: a partial Fisher–Yates shuffle of the indices */
		uint32_t *idx = malloc(sizeof(uint32_t) * n);
		if (!sample || !ref || !idx) return out_of_memory(n);
		for (uint32_t i = 0; i < n; i++) idx[i] = i;
		uint64_t s = (uint64_t)seed * 977 + 3;
		for (uint32_t k = 0; k < ns; k++) {
			s ^= s << 13; s ^= s >> 7; s ^= s << 17;
			uint32_t j = k + (uint32_t)(s % (n - k));
			uint32_t t = idx[k]; idx[k] = idx[j]; idx[j] = t;
			sample[k] = idx[k];
		}
		free(idx);
		t0 = tide_wtime();
		tide_gravity_direct(pos, n, sample, ns, P, ref, rt.ncuda ? TIDE_WHERE_CUDA : TIDE_WHERE_CPU);
		t_check = tide_wtime() - t0;
		e = tide_gravity_errors(byid, sample, ns, ref);
		tide_info("check: %u particles vs double direct sum (%.2f s): |da|/|a| median %.3e, "
		       "99%% %.3e, max %.3e; potential 99%% %.3e\n",
		       ns, t_check, e.median, e.p99, e.max, e.pot_p99);
		free(sample);
		free(ref);
		if (pos != all) free(pos);
	}
	if (output && rt.rank == 0 && tide_bodies_write(output, &in, gbody, gvel, gacc, in.time, NULL))
		ret = 1;
	if (csv && rt.rank == 0) {
		FILE *f = fopen(csv, "r");
		int fresh = f == NULL;
		if (f) fclose(f);
		f = fopen(csv, "a");
		if (!f) {
			fprintf(stderr, "tide gravity: cannot write %s: %s.\n", csv, tide_io_reason(errno));
			ret = 1;
		} else {
			if (fresh)
				fprintf(f, "n,dist,theta,quadrupole,eps,device,walk_tasks,cells,groups,"
				           "t_build_s,t_moments_s,t_walk_s,t_total_s,t_first_s,check_n,"
				           "err_median,err_p99,err_max,pot_err_p99,ranks,let_cells,let_particles,"
				           "let_bytes,walk_exec_s,walk_let_exec_s,let_bytes_max,model_let_cells,"
				           "model_let_particles,model_interactions,t_total_max_s\n");
			double bmax = 0;
			for (int q = 0; q < rt.size; q++) bmax = fmax(bmax, per_rank[NV * q + 4]);
			fprintf(f, "%.0f,%s,%g,%d,%g,%s,%d,%.0f,%.0f,%.6f,%.6f,%.6f,%.6f,%.6f,%u,%.4e,%.4e,%.4e,"
			        "%.4e,%d,%.0f,%.0f,%.0f,%.6f,%.6f,%.0f,%.0f,%.0f,%.1f,%.6f\n",
			        ntot, dist_name, theta, quad, eps, dev, g.nparts, tot[0], tot[1], mb,
			        mm, mw, mt, t_first, ns, e.median, e.p99, e.max, e.pot_p99, rt.size, tot[2],
			        tot[3], tot[4], tot[5], tot[6], bmax, tot[9], tot[10],
			        synthetic ? tot[11] / rt.size : 0.0, mt_max);
			errno = 0;
			int bad = ferror(f), err = errno;
			if (fclose(f) || bad) {
				fprintf(stderr, "tide gravity: cannot write %s: %s.\n", csv,
				        tide_io_reason(err ? err : errno));
				ret = 1;
			}
		}
	}
	free(tb);
	free(per_rank);
	free(byid);
	if (rt.size > 1) { free(gbody); free(gvel); free(gacc); free(all); }
	tide_bodies_free(&in);
	if (modelled) {
		munmap(body, sizeof(bh_body) * (size_t)m);
		munmap(vel, 16 * (size_t)m);
		munmap(acc, sizeof(bh_acc) * (size_t)m);
	} else {
		free(body);
		free(vel);
		free(acc);
	}
	free(counts);
	tide_runtime_shutdown();
	return ret;
}
