// SPDX-License-Identifier: LGPL-2.1-or-later
// N-body time loop: kick-drift-kick leapfrog on the Barnes–Hut forces, and tide nbody.
//   initial forces; per step: kick dt/2, drift dt, build, moments, walk, kick dt/2.
// All of it is submitted as tasks; the host only waits at outputs, where it reads the particles
// to compute the diagnostics in double (a handful per run, so not worth a reduction codelet).
// Under mpirun every rank makes the same initial particles and keeps its Morton share; at each
// output all particles are gathered on rank 0 (StarPU-MPI), which computes the diagnostics,
// splits them again along their Morton order and sends each rank its new share, so that the
// ranks' pieces of space stay compact as the particles move (the counts per rank never change).
#include <errno.h>
#include <math.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include <starpu_mpi.h>
#include "bh_nbody.h"
#include "cmd_agree.h"
#include "commands.h"
#include "host_memory.h"
#include "log.h"
#include "num_opts.h"
#include "rank_agree.h"
#include "runtime.h"

static void diagnose(const bh_body *body, const float *vel, const bh_acc *acc, uint32_t n, double t,
                     bh_nbody_diag *d)
{
	const double fr[3] = {0.1, 0.5, 0.9};
	double r[3];
	bh_lagrange_radii(body, n, fr, 3, r);
	memset(d, 0, sizeof *d);
	d->t = t; d->r10 = r[0]; d->r50 = r[1]; d->r90 = r[2];
	for (uint32_t i = 0; i < n; i++) {
		const bh_body *b = &body[i];
		const float *v = &vel[4 * i];
		double m = b->m;
		d->ekin += 0.5 * m * ((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
		d->epot += 0.5 * m * acc[i].pot;
		for (int k = 0; k < 3; k++) d->p[k] += m * v[k];
		d->L[0] += m * ((double)b->y * v[2] - (double)b->z * v[1]);
		d->L[1] += m * ((double)b->z * v[0] - (double)b->x * v[2]);
		d->L[2] += m * ((double)b->x * v[1] - (double)b->y * v[0]);
	}
	d->etot = d->ekin + d->epot;
}

/* Rank 0 cannot hold all particles at an output: the other ranks wait for it in the scatter,
 * so the process ends (mpirun then stops the job) after one sentence. */
static void out_of_memory(uint32_t n)
{
	fprintf(stderr, "tide nbody: out of host memory for the %u particles gathered on rank 0 for "
	        "the diagnostics; use a smaller --n or more memory on rank 0's node.\n", n);
	fflush(stderr);
	exit(1);
}

/* A snapshot of n particles in any order (ids in vel): 0, or -1 after the writer's sentence. */
static int snapshot(const char *dir, int index, const tide_bodies *b, const bh_body *body,
                    const float *vel, const bh_acc *acc, double t, const double *state)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/snapshot_%04d.hdf5", dir, index);
	return tide_bodies_write(path, b, body, vel, acc, t, state) ? -1 : 0;
}

/* What one output writes: the diagnostics row (d != NULL) and the snapshot (snap_dir != NULL). */
typedef struct nbody_out {
	bh_nbody_diag *d;
	const char *snap_dir;
	int snap_index;
	const tide_bodies *b;
	const double *state;     /* the trees' shared root and the force parameters (swift_io.h) */
	int snap_failed;         /* a snapshot could not be written: no more are tried */
} nbody_out;

static void write_output(nbody_out *o, const bh_body *b, const float *v, const bh_acc *a,
                         uint32_t n, double t)
{
	if (o->d) diagnose(b, v, a, n, t, o->d);
	if (o->snap_dir && !o->snap_failed &&
	    snapshot(o->snap_dir, o->snap_index, o->b, b, v, a, t, o->state))
		o->snap_failed = 1;
}

/* All particles on rank 0 (gathered in g's arrays' layout), there the diagnostics, the snapshot
 * and the new Morton split, then every rank's new share back. */
static void output_ranks(tide_gravity *g, uint32_t n, double t, nbody_out *out)
{
	uint32_t m = n ? n : 1;
	bh_body *b = NULL, *nb = NULL;
	float *v = NULL, *nv = NULL;
	bh_acc *a = NULL, *na = NULL;
	if (g->rank == 0) {
		b = malloc(sizeof(bh_body) * m); v = malloc(16 * (size_t)m); a = malloc(sizeof(bh_acc) * m);
		nb = malloc(sizeof(bh_body) * m); nv = malloc(16 * (size_t)m); na = malloc(sizeof(bh_acc) * m);
		if (!b || !v || !a || !nb || !nv || !na) out_of_memory(n);
	}
	tide_gravity_gather(g, 0, b, v, a);
	if (out->d) memset(out->d, 0, sizeof *out->d);
	if (g->rank == 0) {
		write_output(out, b, v, a, n, t);
		uint32_t *order = malloc(sizeof(uint32_t) * m), *counts = malloc(sizeof(uint32_t) * g->size);
		if (!order || !counts) out_of_memory(n);
		bh_split_morton(b, n, g->size, order, counts);
		for (uint32_t i = 0; i < n; i++) {
			nb[i] = b[order[i]];
			memcpy(&nv[4 * i], &v[4 * (size_t)order[i]], 16);
			na[i] = a[order[i]];
		}
		free(order); free(counts);
	}
	tide_gravity_scatter(g, 0, nb, nv, na);
	free(b); free(v); free(a); free(nb); free(nv); free(na);
}

int bh_nbody_run(const bh_nbody_opts *o, bh_nbody_diag *diag, int cap, int *ndiag)
{
	int mpi = tide_runtime_uses_mpi();
	int rank = mpi ? starpu_mpi_world_rank() : 0, size = mpi ? starpu_mpi_world_size() : 1;
	uint32_t n = o->in ? o->in->n : o->n, m = n ? n : 1;
	double t0 = o->in ? o->in->time : 0;
	bh_body *body = malloc(sizeof(bh_body) * m);
	float *vel = malloc(16 * (size_t)m);
	bh_acc *acc = calloc(m, sizeof(bh_acc));
	uint32_t *counts = malloc(sizeof(uint32_t) * size);
	if (!body || !vel || !acc || !counts) {
		fprintf(stderr, "tide nbody: out of host memory for %u particles; use a smaller --n.\n", n);
		free(body); free(vel); free(acc); free(counts);
		return -1;
	}
	if (o->in) {
		memcpy(body, o->in->body, sizeof(bh_body) * n);
		memcpy(vel, o->in->vel, 16 * (size_t)n);
	} else if (bh_ic_make(o->dist, n, o->seed, body, vel)) {
		fprintf(stderr, "tide nbody: out of host memory for %u particles; use a smaller --n.\n", n);
		free(body); free(vel); free(acc); free(counts);
		return -1;
	}
	/* each particle's index in the input, for the snapshots (bh_take_share sets it on several
	 * ranks) */
	for (uint32_t i = 0; i < n; i++) bh_set_id(&vel[4 * i], i);
	counts[0] = n;
	/* the ranks' trees share a root cell of twice the initial box: room to move (a run
	 * continued from its snapshot takes the root it had, so it builds the same trees) */
	float box[6];
	bh_bounding_box(body, n, box);
	for (int k = 0; k < 3; k++) {
		float c = 0.5f * (box[k] + box[3 + k]), h = box[3 + k] - box[k];
		box[k] = c - h; box[3 + k] = c + h;
	}
	const double *st = o->in && o->in->have_state ? o->in->state : NULL;
	for (int k = 0; st && k < 6; k++) box[k] = (float)st[k];
	double state[TIDE_NBODY_STATE] = {box[0], box[1], box[2], box[3], box[4], box[5],
	                                  o->P.theta, o->P.eps, o->P.quadrupole};
	/* the accelerations of the snapshot are those of the step's last kick on every rank count:
	 * used when this run computes forces the same way, they make the continuation that run */
	int reuse = st && o->in->acc && st[6] == state[6] && st[7] == state[7] && st[8] == state[8];
	if (size > 1) {
		bh_body *all = body;
		float *all_vel = vel;
		free(acc);
		int bad = bh_take_share(all, all_vel, n, rank, size, &body, &vel, &acc, counts);
		free(all); free(all_vel);
		if (bad) {
			fprintf(stderr, "tide nbody: out of host memory for %u particles.\n", n);
			free(counts);
			return -1;
		}
	}
	/* rank 0 opens the CSV and makes the snapshot directory; every rank learns whether it could */
	FILE *f = NULL;
	int open_bad = 0;
	if (o->csv && rank == 0) {
		f = fopen(o->csv, "w");
		if (!f) {
			fprintf(stderr, "tide nbody: cannot write %s: %s.\n", o->csv, tide_io_reason(errno));
			open_bad = 1;
		} else if (o->in) {
			fprintf(f, "# G = 1 units of the input (length unit %.9g cm, mass unit %.9g g, time "
			        "unit %.9g s, as in its snapshots' Units group); energies in G M^2/L with M, L "
			        "those units; %d rank(s)\n", o->in->units.length, o->in->units.mass,
			        o->in->units.time, size);
		} else {
			fprintf(f, "# G = 1, total mass M = 1, length unit = Plummer scale radius / ball radius; "
			           "time unit sqrt(L^3/(G M)); energies in G M^2/L, momentum M sqrt(G M/L), "
			           "angular momentum M sqrt(G M L); %d rank(s)\n", size);
		}
		if (f) fprintf(f, "step,t,r10,r50,r90,E_kin,E_pot,E_tot,p_x,p_y,p_z,L_x,L_y,L_z\n");
	}
	if (o->snap_dir && rank == 0 && !open_bad && mkdir(o->snap_dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "tide nbody: cannot create the snapshot directory %s: %s.\n", o->snap_dir,
		        tide_io_reason(errno));
		open_bad = 1;
	}
	tide_rank_view me = {.status = open_bad};
	tide_rank_verdict verdict;
	tide_ranks_agree(&me, &verdict);
	if (verdict.rank0.status) {
		if (f) fclose(f);
		free(body); free(vel); free(acc); free(counts);
		return -1;
	}
	tide_bodies gen;
	tide_bodies_generated(&gen, n);
	nbody_out out = {.snap_dir = o->snap_dir, .b = o->in ? o->in : &gen, .state = state};
	for (uint32_t i = 0; reuse && i < counts[size > 1 ? rank : 0]; i++)
		acc[i] = o->in->acc[bh_get_id(&vel[4 * i])];
	tide_gravity g;
	tide_gravity_init_ranks(&g, body, vel, acc, counts, box, o->P, 0, o->where, mpi);
	if (!reuse) tide_gravity_submit_forces(&g);
	long steps = (long)ceil((o->t_end - t0) / o->dt - 1e-9);
	if (steps < 0) steps = 0;
	int nd = 0;
	float dt = (float)o->dt, half = 0.5f * dt;
	for (long s = 0; s <= steps; s++) {
		if (s > 0) {
			tide_gravity_submit_kick(&g, half);
			tide_gravity_submit_drift(&g, dt);
			tide_gravity_submit_forces(&g);
			tide_gravity_submit_kick(&g, half);
		}
		int diag_now = s % o->out_every == 0 || s == steps;
		int snap_now = o->snap_dir && (s % o->snap_every == 0 || s == steps);
		bh_nbody_diag d;
		if (diag_now || snap_now) {
			double t = t0 + s * o->dt;
			out.d = diag_now ? &d : NULL;
			out.snap_dir = snap_now ? o->snap_dir : NULL;
			if (g.mpi) {
				output_ranks(&g, n, t, &out);
			} else {
				tide_gravity_acquire(&g);
				write_output(&out, g.body, g.vel, g.acc, n, t);
				tide_gravity_release(&g);
			}
			out.snap_index += snap_now;
		}
		if (diag_now) {
			/* full: the last row keeps the latest output */
			if (nd < cap) diag[nd++] = d;
			else if (cap > 0) diag[cap - 1] = d;
			tide_debug("step %ld  t = %.4g  E_tot %.9g  r50 %.4g\n", s, d.t, d.etot, d.r50);
			if (f)
				fprintf(f, "%ld,%.6g,%.6g,%.6g,%.6g,%.9g,%.9g,%.9g,%.3e,%.3e,%.3e,%.3e,%.3e,%.3e\n",
				        s, d.t, d.r10, d.r50, d.r90, d.ekin, d.epot, d.etot, d.p[0], d.p[1],
				        d.p[2], d.L[0], d.L[1], d.L[2]);
		}
	}
	tide_gravity_wait(&g);
	tide_gravity_fini(&g);
	int ret = out.snap_failed ? -1 : 0;
	if (f) {
		errno = 0;
		int bad = ferror(f), e = errno;
		if (fclose(f) || bad) {
			fprintf(stderr, "tide nbody: cannot write %s: %s.\n", o->csv,
			        tide_io_reason(e ? e : errno));
			ret = -1;
		}
	}
	free(body); free(vel); free(acc); free(counts);
	*ndiag = nd;
	return ret;
}

/* More steps than a run could finish (1e9 steps of 10^4 particles are days), a sign of a mistyped
 * --t-end or --dt. */
#define NBODY_MAX_STEPS 1e9

int tide_cmd_nbody(int argc, char **argv)
{
	bh_nbody_opts o = {.dist = BH_DIST_PLUMMER, .n = 10000, .seed = 1, .dt = 0.01, .t_end = 10,
	                   .out_every = 10, .P = {.theta = 0.6f, .eps = 0.02f, .G = 1.f, .quadrupole = 1},
	                   .where = TIDE_WHERE_ANY, .csv = "nbody.csv"};
	double n = o.n, seed = (double)o.seed, every = o.out_every, theta = o.P.theta, eps = o.P.eps;
	double snap_every = 0;
	const char *dist = NULL, *csv = NULL, *input = NULL, *snap_dir = NULL;
	/* the same rules as tide gravity's options (src/cmd_gravity.c) */
	tide_num_opt num[] = {
		{"--n", 1, 1, BH_MAX_N, 0, &n, NULL},
		{"--dt", 0, 0, INFINITY, 1, &o.dt, NULL},
		{"--t-end", 0, 0, INFINITY, 0, &o.t_end, NULL},
		{"--out-every", 1, 1, NBODY_MAX_STEPS, 0, &every, NULL},
		{"--theta", 0, 0, 2, 1, &theta, NULL},
		{"--eps", 0, 0, INFINITY, 0, &eps, NULL},
		{"--seed", 1, 0, 9007199254740992.0, 0, &seed, NULL},
		{"--snapshot-every", 0, 0, INFINITY, 1, &snap_every, NULL},
	};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: tide nbody [--dist plummer|sphere|uniform] [--n N] [--input FILE]\n"
			       "                  [--dt DT] [--t-end T] [--out-every K] [--theta T] [--eps E]\n"
			       "                  [--monopole] [--seed S] [--csv FILE] [--snapshots DIR]\n"
			       "                  [--snapshot-every TS] [--quiet|--verbose]\n\n"
			       "Leapfrog (kick-drift-kick) N-body run on Barnes-Hut forces, G = M = 1.  Every K\n"
			       "steps writes Lagrangian radii (10/50/90 %%), kinetic, potential and total energy,\n"
			       "momentum and angular momentum to the CSV (default nbody.csv).  Defaults: plummer,\n"
			       "N 10000, dt 0.01, t-end 10, K 10, theta 0.6 with quadrupoles, eps 0.02.\n"
			       "--input FILE starts from the particles of a SWIFT/GADGET HDF5 file (every particle\n"
			       "of PartType0..5, velocities converted to G = 1 with the file's Units; the run\n"
			       "starts at its Header Time, T is the time to end at) or of a text file of\n"
			       "'x y z m [vx vy vz]' lines; not with --dist, --n or --seed.\n"
			       "--snapshots DIR writes DIR/snapshot_NNNN.hdf5 (SWIFT/GADGET layout: positions,\n"
			       "velocities, masses, ids, potentials, accelerations, Header Time) every TS time\n"
			       "units (a whole number of steps; default every K steps) and at the end; such a\n"
			       "snapshot given to --input continues the run.\n"
			       "Allowed values (the rules of tide gravity): N an integer from 1 to 1.5e9, DT a\n"
			       "finite number > 0, T finite >= 0 with T/DT at most 1e9 steps, K an integer from\n"
			       "1 to 1e9, theta > 0 and <= 2, eps finite >= 0, S an integer from 0 to 2^53;\n"
			       "each option at most once.  N particles need %zu bytes each at the start: more\n"
			       "than the available main memory is refused.\n"
			       "Under mpirun the particles are split over the ranks along their Morton order,\n"
			       "with essential nodes exchanged every step; at each output rank 0 collects all\n"
			       "particles for the diagnostics (written by rank 0) and splits them again.\n"
			       "--quiet prints nothing, --verbose every diagnostic row as the run goes.\n"
			       "Exit codes: 0 done, 1 out of memory or the CSV or a snapshot could not be\n"
			       "written, 2 bad usage or a bad --input file.\n",
			       (size_t)BH_IC_BYTES_PER_PARTICLE);
			return 0;
		}
		if (!strcmp(a, "--monopole")) { o.P.quadrupole = 0; continue; }
		if (!strcmp(a, "--quiet")) { tide_verbosity = 0; continue; }
		if (!strcmp(a, "--verbose")) { tide_verbosity = 2; continue; }
		if (!v) { fprintf(stderr, "tide nbody: option '%s' needs a value.\n", a); return 2; }
		i++;
		int r = tide_num_opt_parse("nbody", num, (int)(sizeof num / sizeof num[0]), a, v);
		if (r < 0) return 2;
		if (r == 0) continue;
		if (!strcmp(a, "--dist")) {
			if (tide_opt_once("nbody", a, &dist, v)) return 2;
			if (bh_dist_parse(v, &o.dist)) {
				fprintf(stderr, "tide nbody: --dist must be plummer, uniform or sphere, not '%s'.\n", v);
				return 2;
			}
		} else if (!strcmp(a, "--csv")) {
			if (tide_opt_once("nbody", a, &csv, v)) return 2;
			o.csv = v;
		} else if (!strcmp(a, "--input")) {
			if (tide_opt_once("nbody", a, &input, v)) return 2;
		} else if (!strcmp(a, "--snapshots")) {
			if (tide_opt_once("nbody", a, &snap_dir, v)) return 2;
		} else { fprintf(stderr, "tide nbody: unknown option '%s'.\n", a); return 2; }
	}
	o.n = (uint32_t)n;
	o.seed = (uint64_t)seed;
	o.out_every = (int)every;
	o.P.theta = (float)theta;
	o.P.eps = (float)eps;
	if (input && (num[0].given || dist || num[6].given)) {
		fprintf(stderr, "tide nbody: --input %s gives the particles; leave out %s.\n", input,
		        num[0].given ? "--n" : dist ? "--dist" : "--seed");
		return 2;
	}
	if (num[7].given && !snap_dir) {
		fprintf(stderr, "tide nbody: --snapshot-every needs --snapshots DIR.\n");
		return 2;
	}
	/* snapshots fall on steps: TS must be a whole number of them */
	double snap_steps = num[7].given ? round(snap_every / o.dt) : o.out_every;
	if (num[7].given && (snap_steps < 1 || fabs(snap_steps * o.dt - snap_every) > 1e-9 * snap_every)) {
		fprintf(stderr, "tide nbody: --snapshot-every %g is not a whole number (>= 1) of steps "
		        "--dt %g; give a multiple of --dt.\n", snap_every, o.dt);
		return 2;
	}
	o.snap_dir = snap_dir;
	o.snap_every = snap_steps > 1e18 ? (long)1e18 : (long)snap_steps;
	double steps = ceil(o.t_end / o.dt - 1e-9);
	if (!(steps <= NBODY_MAX_STEPS)) {
		fprintf(stderr, "tide nbody: --t-end %g with --dt %g gives %.3g steps, more than the %.0e "
		        "allowed; use a shorter --t-end or a larger --dt.\n", o.t_end, o.dt, steps,
		        NBODY_MAX_STEPS);
		return 2;
	}
	char what[160];
	snprintf(what, sizeof what, "tide nbody: out of host memory: --n %u", o.n);
	if (!input && tide_host_memory_check(what, n * (double)BH_IC_BYTES_PER_PARTICLE, "positions, "
	                                     "velocities, accelerations and the initial conditions' "
	                                     "scratch", "use a smaller --n"))
		return 1;
	/* every rank must run the same particles and steps (--csv, written by rank 0 alone, may
	 * differ) */
	tide_cmd_key key;
	tide_cmd_key_init(&key, "nbody", argc, argv);
	tide_cmd_key_add(&key, "--dist", "%s", bh_dist_name(o.dist));
	tide_cmd_key_add(&key, "--n", "%u", (unsigned)o.n);
	tide_cmd_key_add(&key, "--dt", "%.17g", o.dt);
	tide_cmd_key_add(&key, "--t-end", "%.17g", o.t_end);
	tide_cmd_key_add(&key, "--out-every", "%d", o.out_every);
	tide_cmd_key_add(&key, "--theta", "%.9g", (double)o.P.theta);
	tide_cmd_key_add(&key, "--eps", "%.9g", (double)o.P.eps);
	tide_cmd_key_add(&key, "--monopole", "%s", o.P.quadrupole ? "off" : "on");
	tide_cmd_key_add(&key, "--seed", "%llu", (unsigned long long)o.seed);
	tide_cmd_key_add(&key, "--input", "%s", input ? input : "(none)");
	tide_cmd_key_add(&key, "--snapshots", "%s", snap_dir ? snap_dir : "(none)");
	tide_cmd_key_add(&key, "--snapshot-every", "%ld", o.snap_every);
	tide_runtime rt;
	int started = tide_runtime_init(&argc, &argv, &key, &rt);
	if (started) return started;
	tide_bodies in;
	if (input) {
		int bad = tide_bodies_load(input, &in);
		if (!bad) {
			snprintf(what, sizeof what, "tide nbody: out of host memory: %.100s (%u particles)",
			         input, in.n);
			bad = tide_bodies_memory_agree(what, in.n * (double)BH_IC_BYTES_PER_PARTICLE,
			                               "positions, velocities and accelerations", "use a "
			                               "machine with more memory, or more MPI ranks on more nodes");
			if (bad) tide_bodies_free(&in);
		}
		if (!bad && o.t_end < in.time) {
			if (tide_log_rank == 0)
				fprintf(stderr, "tide nbody: --t-end %g is before the time %g of %s; give the time "
				        "to end at, after the input's.\n", o.t_end, in.time, input);
			tide_bodies_free(&in);
			bad = 2;
		}
		if (bad) {
			tide_runtime_shutdown();
			return bad;
		}
		o.in = &in;
		o.n = in.n;
		steps = ceil((o.t_end - in.time) / o.dt - 1e-9);
	}
	/* the summary needs the first and the last output only */
	bh_nbody_diag d[2];
	int nd = 0;
	double t0 = tide_wtime();
	int ret = bh_nbody_run(&o, d, 2, &nd);
	if (ret == 0 && nd > 0)
		tide_info("nbody: %u particles, %ld outputs to %s in %.2f s; E_tot %.6f -> %.6f "
		       "(drift %.2e), r50 %.4f -> %.4f\n", o.n, (long)(steps / o.out_every) + 1 +
		       ((long)steps % o.out_every != 0), o.csv, tide_wtime() - t0, d[0].etot,
		       d[nd - 1].etot, fabs(d[nd - 1].etot - d[0].etot) / fabs(d[0].etot), d[0].r50,
		       d[nd - 1].r50);
	if (input) tide_bodies_free(&in);
	tide_runtime_shutdown();
	return ret ? 1 : 0;
}
