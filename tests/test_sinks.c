// SPDX-License-Identifier: LGPL-2.1-or-later
// Sink particles (issue 24; include/tide/sink.h, tasks/sinks.c) on a uniform gas sphere, M = 1,
// R = 1, G = 1 (rho0 = 3 / (4 pi), t_ff = sqrt(3 pi / (32 G rho0)) = 1.1107), isothermal, on a
// lattice, code units.  Modes (the first argument):
//   conserve   a sink of mass 0.3 placed off-centre, moving through the cold sphere, accretes
//              for 60 steps while a new sink forms (threshold rho0, at t = 0.31 t_ff; asserted):
//              the total mass of gas and sinks is conserved to 1e-6; the total momentum and angular momentum (gas,
//              sinks' orbital and spin) change by less than 2 % of what the sinks' own change
//              (a missing term of the bookkeeping, the gas's pull on the sinks, or the
//              accreted momentum, would leave a change of the sinks' size); the sinks' pull on
//              a gas particle equals a direct double-precision sum to 1e-5.
//   laminar    the cold (cs = 0.05) sphere collapses at rest: exactly one sink forms, within
//              [0.9, 1.1] t_ff (the gas reaches the threshold 10^3 rho0 at 0.986 t_ff in the
//              pressureless solution) and within 3 h (h at the threshold) of the centre; it
//              then holds more than half of the mass at 1.03 t_ff; mass conserved to 1e-6.
//   turbulent  the same sphere (12 lattice points across: 912 particles), warmer (cs = 0.1)
//              with Mach 4 turbulence (turbulence key, P(k) ~ k^-4, seed 1), threshold 100 rho0,
//              r_acc 0.07: at least 3 sinks by t = 0.7 t_ff (a collapse without fragments would
//              make one, near t_ff; 4 form); mass conserved to 1e-6.
//   caps       the turbulent sphere with threshold 10 rho0 (up to 18 candidates in a step, 15
//              sinks by 0.7 t_ff) with one candidate per creation pass and region records of
//              room 1 forms the sinks of all candidates in one pass and large records.
//   ranks OUT  the turbulent run to 0.7 t_ff; rank 0 writes the sinks (id, mass, position,
//              velocity) to OUT (test_sinks_ranks.sh runs it on 1 and 2 ranks);
//   compare A B  the two files: the same count, masses within 2 % (one gas particle of a sink's
//              ~20 more or less would be 5 %), positions within 1e-3 R.
//   --cuda     (sinks_cuda) the conserve run with the sink codelets on the GPU against the same
//              on the CPU: the same sinks, masses and positions within 1e-4 (SKIP without a
//              CUDA worker).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/case.h"
#include "tide/codelets.h"
#include "tide/gas_math.h"
#include "tide/sinks.h"
#include "tide/sph_sim.h"
#include "case_load.h"
#include "gas_ic.h"
#include "runtime.h"
#include "sinks_swift.h"
#include "turbulence.h"
#include "test_cuda_mode.h"
#include "test_gas_case.h"

static int failures, rank0 = 1;
/* mode caps: the creation passes' candidates and the region records' first room (0: defaults) */
static int cand_pass;
static uint32_t region0;
static tide_sinks *keep_table;   /* collapse: the table at the end copied here */
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)
#define SAY(...) do { if (rank0) { printf(__VA_ARGS__); fflush(stdout); } } while (0)

#define ETA 1.2
static const double R = 1.0, M = 1.0;

typedef struct setup {
	int nlat, nblocks;
	double cs, mach, thr, racc, eps_sink;
} setup;

static double rho0(void) { return 3.0 * M / (4.0 * M_PI * R * R * R); }
static double tff(void) { return sqrt(3.0 * M_PI / (32.0 * rho0())); }

/* The sphere as a lattice of nlat points across, at rest (or with the turbulent field), and
 * its simulation. */
static int make(const setup *u, tide_case *c, void **mem, tide_block_view *all, tide_sim *sim)
{
	double a = 2.0 * R / u->nlat, h0 = ETA * a;
	test_gas_case(c, "sinks", a, 0.3 * 16 / u->nlat * 1.25, 1.3);
	int n = u->nlat * u->nlat * u->nlat;
	c->gas.eos = TIDE_GAS_ISOTHERMAL;
	c->gas.cs = u->cs;
	c->gas.eta = ETA;
	c->cfl = 0.1;
	test_gas_self_gravity(c, 0.005);
	c->sinks.on = 1;
	c->sinks.density_threshold = u->thr * rho0();
	c->sinks.accretion_radius = u->racc;
	c->sinks.softening = u->eps_sink;
	c->sinks.max = TIDE_SINK_MAX;
	tide_sim_set_aux(c); /* the aux fields first: the block is allocated with them */
	*mem = tide_block_alloc_host((uint32_t)n);
	if (!*mem) return -1;
	*all = tide_block_view_make(*mem, (uint32_t)n, 0);
	for (int i = 0; i < u->nlat; i++)
		for (int j = 0; j < u->nlat; j++)
			for (int k = 0; k < u->nlat; k++) {
				double p[3] = {-R + (i + 0.5) * a, -R + (j + 0.5) * a, -R + (k + 0.5) * a}, v0[3] = {0, 0, 0};
				if (p[0] * p[0] + p[1] * p[1] + p[2] * p[2] < R * R) tide_gas_ic_push(all, p, v0, rho0(), 0, 0, h0); /* m below */
			}
	double m = M / all->count;
	for (uint32_t i = 0; i < all->count; i++) all->TIDE_GAS_MASS[i] = (float)m;
	c->dp = cbrt(m / rho0()); /* m = rho0 dp^3 */
	c->rho0 = rho0();
	c->gas.h_cell = 0.1 * h0;
	if (u->mach > 0) {
		c->turbulence.on = 1;
		c->turbulence.mach = u->mach;
		c->turbulence.slope = -4;
		c->turbulence.solenoidal = 0.5;
		c->turbulence.seed = 1;
		c->turbulence.grid = 32;
		float *vel[3] = {all->vx, all->vy, all->vz}, *vh[3] = {all->vx1, all->vy1, all->vz1};
		if (tide_turb_apply(&c->turbulence, u->cs, all->count, all->x, all->y, all->z, vel, vh)) return -1;
	}
	if (tide_sim_setup(sim, c, all, u->nblocks, tide_runtime_uses_mpi())) return -1;
	if (cand_pass || region0) {
		tide_sinks *T = tide_sim_sinks_table(sim);
		if (cand_pass) T->cand_pass = cand_pass;
		if (region0) T->region0 = region0;
		tide_sim_sinks_release(sim); /* the records made again with that room */
		tide_sim_sinks_table(sim);
	}
	return 0;
}

/* Totals of gas and sinks: mass, momentum, angular momentum (sinks: orbital + spin); the
 * gas's on rank 0 only (0 elsewhere). */
typedef struct totals { double m, p[3], L[3], ps[3], Ls[3]; uint32_t n; } totals;

static void cross_add(double *L, double m, const double *x, const double *v)
{
	L[0] += m * (x[1] * v[2] - x[2] * v[1]);
	L[1] += m * (x[2] * v[0] - x[0] * v[2]);
	L[2] += m * (x[0] * v[1] - x[1] * v[0]);
}

static int totals_of(tide_sim *sim, totals *t)
{
	memset(t, 0, sizeof *t);
	void *gm = NULL;
	tide_block_view g;
	if (tide_sim_gather(sim, 0, &gm, &g)) return -1;
	double m = sim->P.mass[TIDE_FLUID];
	if (sim->rank == 0) {
		t->n = g.count;
		for (uint32_t i = 0; i < g.count; i++) {
			double x[3] = {g.x[i], g.y[i], g.z[i]}, v[3] = {g.vx[i], g.vy[i], g.vz[i]};
			t->m += m;
			for (int k = 0; k < 3; k++) t->p[k] += m * v[k];
			cross_add(t->L, m, x, v);
		}
	}
	free(gm);
	const tide_sinks *T = sim->sinks;
	for (int s = 0; T && s < T->n; s++) {
		const tide_sink_state *q = &T->s[s];
		t->m += q->m;
		for (int k = 0; k < 3; k++) {
			t->ps[k] += q->m * q->v[k];
			t->Ls[k] += q->spin[k];
		}
		cross_add(t->Ls, q->m, q->x, q->v);
	}
	for (int k = 0; k < 3; k++) {
		t->p[k] += t->ps[k];
		t->L[k] += t->Ls[k];
	}
	return 0;
}

static double dist3(const double *a, const double *b)
{
	return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

static void print_sinks(const tide_sinks *T, double t)
{
	for (int s = 0; T && s < T->n; s++)
		SAY("  sink %u: formed t = %.4f (%.4f t_ff), m %.5f, x (%.4f %.4f %.4f), v (%.4f %.4f "
		    "%.4f), |spin| %.3g\n", T->s[s].id, T->s[s].t_form, T->s[s].t_form / tff(), T->s[s].m,
		    T->s[s].x[0], T->s[s].x[1], T->s[s].x[2], T->s[s].v[0], T->s[s].v[1], T->s[s].v[2],
		    sqrt(T->s[s].spin[0] * T->s[s].spin[0] + T->s[s].spin[1] * T->s[s].spin[1] +
		         T->s[s].spin[2] * T->s[s].spin[2]));
	(void)t;
}

/* Runs to t_end (or `steps` steps); returns -1 if the run went unphysical. */
static int run(tide_sim *sim, double t_end, long steps, int verbose)
{
	int next = 1;
	while (sim->t < t_end && sim->step < steps) {
		if (tide_sim_step(sim)) return -1;
		const tide_sinks *T = sim->sinks;
		if (verbose && sim->t >= 0.05 * next * tff()) {
			SAY("%8.4f %8.4f %7ld %12.2f %6d %9.5f %8u\n", sim->t, sim->t / tff(), sim->step,
			    sim->last.rho_max / rho0(), T ? T->n : 0, tide_sinks_mass(T), sim->last.count);
			while (0.05 * next * tff() <= sim->t) next++;
		}
		double fill;
		tide_sim_count(sim, &fill);
		if (fill > 0.75 && tide_sim_rebalance(sim)) return -1;
	}
	return 0;
}

static void check_mass(const totals *t0, const totals *t1)
{
	double e = fabs(t1->m / t0->m - 1);
	SAY("sinks: mass of gas + sinks %.9f -> %.9f (relative change %.2e)\n", t0->m, t1->m, e);
	EXPECT(e < 1e-6, "the total mass changed by %.3g", e);
}

/* ---- conserve ---- */

/* The sinks as PartType5 of a SWIFT file (src/sinks_swift.c), read back by the SWIFT reader. */
static void check_part5(const tide_sinks *T)
{
#ifdef TIDE_HAVE_HDF5
	static tide_sinks_swift buf;
	tide_swift_out types[TIDE_SWIFT_NTYPES];
	memset(types, 0, sizeof types);
	tide_sinks_swift_out(T->s, T->n, &buf, &types[5]);
	tide_swift_header h;
	memset(&h, 0, sizeof h);
	h.box[0] = h.box[1] = h.box[2] = 2.6;
	h.units = tide_swift_units_g1(1, 1);
	char path[] = "/tmp/tide_sinks_part5_XXXXXX";
	int fd = mkstemp(path);
	if (fd >= 0) close(fd);
	EXPECT(fd >= 0 && tide_swift_write(path, &h, types) == 0, "PartType5 not written to %s", path);
	tide_swift_set s;
	int r = tide_swift_read(path, 1u << 5, 0, 0, &s);
	EXPECT(r == 0 && s.count[5] == (uint64_t)T->n, "PartType5 read back: %d, %llu sinks", r,
	       r ? 0ULL : (unsigned long long)s.count[5]);
	double err = 0;
	for (int k = 0; r == 0 && k < T->n && s.count[5] == (uint64_t)T->n; k++) {
		err = fmax(err, fabs(s.mass[k] / T->s[k].m - 1));
		err = fmax(err, dist3(&s.pos[3 * k], T->s[k].x));
		EXPECT(s.id[k] == TIDE_SINK_ID_BASE + T->s[k].id, "PartType5 id %llu", (unsigned long long)s.id[k]);
	}
	if (r == 0) tide_swift_set_free(&s);
	unlink(path);
	SAY("sinks: %d sinks as PartType5 of a SWIFT file, read back: largest error %.2e\n", T->n, err);
	EXPECT(err < 1e-6, "PartType5 differs by %.3g", err);
#else
	(void)T;
	SAY("sinks: PartType5 not checked (tide built without HDF5)\n");
#endif
}

static void place_sink(tide_sim *sim)
{
	tide_sinks *T = tide_sim_sinks_table(sim);
	tide_sink_state *p = &T->s[0];
	memset(p, 0, sizeof *p);
	p->m = 0.3;
	double x[3] = {0.35, 0.1, -0.05}, v[3] = {-0.2, 0.4, 0.1};
	for (int k = 0; k < 3; k++) {
		p->x[k] = x[k];
		p->v[k] = p->vh[k] = v[k];
	}
	T->n = 1;
	T->next_id = 1;
}

/* The sinks' pull on the gas (sink.h) against a direct sum in double. */
static void check_pull(const tide_sim *sim)
{
	const tide_sinks *T = sim->sinks;
	tide_sink_set S;
	memset(&S, 0, sizeof S);
	S.n = T->n;
	S.eps2 = (float)(T->eps * T->eps);
	S.G = (float)T->G;
	S.cfl = 0.1f;
	for (int s = 0; s < T->n; s++) {
		for (int k = 0; k < 3; k++) {
			S.x[s][k] = T->s[s].x[k];
			S.v[s][k] = (float)T->s[s].v[k];
		}
		S.m[s] = (float)T->s[s].m;
	}
	double worst = 0;
	for (int i = 0; i < 20; i++) {
		double x[3] = {-0.5 + 0.05 * i, 0.3 - 0.02 * i, 0.1}, a[3] = {0, 0, 0};
		float af[3] = {0, 0, 0}, pot = 0, dx[3];
		for (int s = 0; s < T->n; s++) {
			tide_sink_pull(&S, s, x, af, &pot, dx);
			double d[3], q2 = T->eps * T->eps;
			for (int k = 0; k < 3; k++) {
				d[k] = x[k] - T->s[s].x[k];
				q2 += d[k] * d[k];
			}
			for (int k = 0; k < 3; k++) a[k] -= T->G * T->s[s].m * d[k] / (q2 * sqrt(q2));
		}
		double an = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
		for (int k = 0; k < 3; k++) worst = fmax(worst, fabs(af[k] - a[k]) / an);
	}
	SAY("sinks: the sinks' pull against a direct double sum at 20 points: largest error %.2e of |a|\n", worst);
	EXPECT(worst < 1e-5, "sink pull off the direct sum by %.3g", worst);
}

static setup conserve_setup = {12, 2, 0.05, 0, 1.0, 0.2, 0.05};

static int conserve(int steps, tide_sinks *out)
{
	tide_case c;
	void *mem;
	tide_block_view all;
	tide_sim sim;
	if (make(&conserve_setup, &c, &mem, &all, &sim)) return -1;
	place_sink(&sim);
	totals t0, t1;
	totals_of(&sim, &t0);
	int bad = run(&sim, 1e9, steps, 0);
	EXPECT(!bad, "the conserve run went unphysical at t = %g", sim.t);
	totals_of(&sim, &t1);
	SAY("sinks: conserve: %ld steps to t = %.4f, %d sinks, %u gas particles left of %u, %llu "
	    "accreted\n", sim.step, sim.t, sim.sinks->n, t1.n, t0.n,
	    (unsigned long long)sim.sinks->n_accreted);
	print_sinks(sim.sinks, sim.t);
	if (out) *out = *sim.sinks;
	if (rank0 && !out) {
		check_mass(&t0, &t1);
		EXPECT(t1.n + sim.sinks->n_accreted == t0.n, "gas %u + accreted %llu != %u", t1.n,
		       (unsigned long long)sim.sinks->n_accreted, t0.n);
		double dp = 0, dps = 0, dL = 0, dLs = 0;
		for (int k = 0; k < 3; k++) {
			dp += (t1.p[k] - t0.p[k]) * (t1.p[k] - t0.p[k]);
			dps += (t1.ps[k] - t0.ps[k]) * (t1.ps[k] - t0.ps[k]);
			dL += (t1.L[k] - t0.L[k]) * (t1.L[k] - t0.L[k]);
			dLs += (t1.Ls[k] - t0.Ls[k]) * (t1.Ls[k] - t0.Ls[k]);
		}
		dp = sqrt(dp); dps = sqrt(dps); dL = sqrt(dL); dLs = sqrt(dLs);
		SAY("sinks: total momentum changed by %.3e, the sinks' by %.3e (ratio %.2e); angular "
		    "momentum by %.3e, the sinks' (orbital + spin) by %.3e (ratio %.2e)\n", dp, dps,
		    dp / dps, dL, dLs, dL / dLs);
		EXPECT(sim.sinks->n_accreted > 50, "only %llu particles accreted",
		       (unsigned long long)sim.sinks->n_accreted);
		EXPECT(sim.sinks->n >= 2, "no sink was created beside the placed one");
		EXPECT(dp < 0.02 * dps, "momentum not conserved: %.3g against the sinks' %.3g", dp, dps);
		EXPECT(dL < 0.02 * dLs, "angular momentum not conserved: %.3g against the sinks' %.3g", dL, dLs);
		check_pull(&sim);
		check_part5(sim.sinks);
	}
	tide_sim_free(&sim);
	tide_block_free_host(mem, all.cap);
	return 0;
}

/* ---- laminar, turbulent ---- */

static int collapse(const setup *u, double t_end_ff, int want_min, int want_max, const char *out)
{
	tide_case c;
	void *mem;
	tide_block_view all;
	tide_sim sim;
	if (make(u, &c, &mem, &all, &sim)) return -1;
	totals t0, t1;
	totals_of(&sim, &t0);
	SAY("sinks: %u particles, %d blocks, cs %.3g, Mach %.3g, threshold %.4g rho0, r_acc %.4g, "
	    "t_ff %.5f\n", all.count, sim.nblocks, u->cs, u->mach, u->thr, u->racc, tff());
	SAY("       t    t/t_ff   steps   rho_max/rho0  sinks  sink mass      gas\n");
	int bad = run(&sim, t_end_ff * tff(), 200000, 1);
	EXPECT(!bad, "the run went unphysical at t = %g", sim.t);
	totals_of(&sim, &t1);
	const tide_sinks *T = sim.sinks;
	SAY("sinks: at t = %.4f (%.4f t_ff), %ld steps: %d sinks holding %.5f; rejected candidates: "
	    "%llu not converging, %llu not bound, %llu not a potential minimum, %llu region too large\n",
	    sim.t, sim.t / tff(), sim.step, T ? T->n : 0, tide_sinks_mass(T),
	    T ? (unsigned long long)T->rejected[0] : 0ULL, T ? (unsigned long long)T->rejected[1] : 0ULL,
	    T ? (unsigned long long)T->rejected[2] : 0ULL, T ? (unsigned long long)T->rejected[3] : 0ULL);
	print_sinks(T, sim.t);
	int n = T ? T->n : 0;
	if (keep_table && T) *keep_table = *T;
	if (out && rank0) {
		FILE *f = fopen(out, "w");
		if (!f) return -1;
		fprintf(f, "%d\n", n);
		for (int s = 0; s < n; s++)
			fprintf(f, "%u %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", T->s[s].id, T->s[s].t_form,
			        T->s[s].m, T->s[s].x[0], T->s[s].x[1], T->s[s].x[2], T->s[s].v[0],
			        T->s[s].v[1], T->s[s].v[2]);
		fclose(f);
	}
	if (!out && rank0) {
		check_mass(&t0, &t1);
		EXPECT(n >= want_min && n <= want_max, "%d sinks formed; expected %d to %d", n, want_min, want_max);
		if (want_max == 1 && n == 1) {
			double h = ETA * cbrt((M / t0.n) / (u->thr * rho0())), o[3] = {0, 0, 0};
			double tf = T->s[0].t_form / tff(), d = dist3(T->s[0].x, o);
			SAY("sinks: laminar: the sink formed at %.4f t_ff, %.4f from the centre (= %.2f h at "
			    "the threshold, h %.4f), holds %.1f %% of the mass\n", tf, d, d / h, h,
			    100 * T->s[0].m / M);
			EXPECT(tf >= 0.9 && tf <= 1.1, "the sink formed at %.4f t_ff, outside [0.9, 1.1]", tf);
			EXPECT(d < 3 * h, "the sink formed %.4f from the centre, more than 3 h = %.4f", d, 3 * h);
			EXPECT(T->s[0].m > 0.5 * M, "the sink holds only %.3f of the mass", T->s[0].m);
		}
	}
	tide_sim_free(&sim);
	tide_block_free_host(mem, all.cap);
	return 0;
}

static const setup laminar_setup = {16, 2, 0.05, 0, 1000, 0.03, 0};
static const setup turbulent_setup = {12, 2, 0.1, 4, 100, 0.07, 0};
/* caps: the turbulent sphere with a threshold of 10 rho0, reached by many particles in several
 * clumps at once (more candidates in a step than the 8 of one pass) */
static const setup caps_setup = {12, 2, 0.1, 4, 10, 0.07, 0};
static const double caps_tend = 0.7;

static int compare(const char *a, const char *b)
{
	FILE *f[2] = {fopen(a, "r"), fopen(b, "r")};
	if (!f[0] || !f[1]) { fprintf(stderr, "cannot read %s or %s\n", a, b); return 1; }
	int n[2];
	if (fscanf(f[0], "%d", &n[0]) != 1 || fscanf(f[1], "%d", &n[1]) != 1) return 1;
	printf("sinks: 1 rank %d sinks, N ranks %d sinks\n", n[0], n[1]);
	EXPECT(n[0] == n[1], "%d sinks on 1 rank, %d on N", n[0], n[1]);
	double dm = 0, dx = 0;
	for (int s = 0; s < n[0] && n[0] == n[1]; s++) {
		double v[2][9];
		unsigned id[2];
		for (int r = 0; r < 2; r++) {
			if (fscanf(f[r], "%u", &id[r]) != 1) return 1;
			for (int k = 0; k < 8; k++)
				if (fscanf(f[r], "%lf", &v[r][k]) != 1) return 1;
		}
		dm = fmax(dm, fabs(v[1][1] / v[0][1] - 1));
		dx = fmax(dx, dist3(&v[0][2], &v[1][2]));
	}
	printf("sinks: N ranks against 1: masses within %.2e (relative), positions within %.2e\n", dm, dx);
	EXPECT(dm < 0.02, "sink masses differ by %.3g", dm);
	EXPECT(dx < 1e-3, "sink positions differ by %.3g", dx);
	fclose(f[0]);
	fclose(f[1]);
	return failures != 0;
}

/* caps: the turbulent run of caps_setup (up to 18 candidates in a step, more than the old cap of
 * 8 per step) with one candidate per creation pass and region records of room 1 (many passes,
 * records grown) against the same with all candidates in one pass (TIDE_SINK_CAND) and records
 * of 65536: the same sinks (count, ids, times of creation; masses and positions within 1e-6;
 * they come out identical). */
static int caps(const setup *u, double tend)
{
	static tide_sinks T[2];
	const int cp[2] = {1, TIDE_SINK_CAND};
	const uint32_t r0[2] = {1, 1u << 16};
	for (int w = 0; w < 2; w++) {
		cand_pass = cp[w];
		region0 = r0[w];
		keep_table = &T[w];
		if (collapse(u, tend, 3, TIDE_SINK_MAX, NULL)) return 1;
		SAY("sinks caps: %d candidates per pass, regions' room %u: %d sinks; up to %u candidates "
		    "in a step, %ld further creation passes, %ld region passes run again for room\n",
		    cp[w], r0[w], T[w].n, T[w].cand_seen, T[w].passes, T[w].regrows);
	}
	keep_table = NULL;
	EXPECT(T[0].cand_seen > 8, "the run never had more than 8 candidates in a step (%u): it does "
	       "not exceed the old cap", T[0].cand_seen);
	EXPECT(T[0].regrows > 0 && T[0].passes > 0, "the small caps were never exceeded");
	EXPECT(T[0].n == T[1].n, "%d sinks with small caps, %d with large ones", T[0].n, T[1].n);
	double dm = 0, dx = 0, dt = 0;
	for (int s = 0; s < T[0].n && T[0].n == T[1].n; s++) {
		EXPECT(T[0].s[s].id == T[1].s[s].id, "sink %d: id %u against %u", s, T[0].s[s].id, T[1].s[s].id);
		dm = fmax(dm, fabs(T[0].s[s].m / T[1].s[s].m - 1));
		dx = fmax(dx, dist3(T[0].s[s].x, T[1].s[s].x));
		dt = fmax(dt, fabs(T[0].s[s].t_form - T[1].s[s].t_form));
	}
	SAY("sinks caps: small against large caps: masses within %.2e, positions within %.2e, times "
	    "of creation within %.2e\n", dm, dx, dt);
	EXPECT(dm <= 1e-6 && dx <= 1e-6 && dt == 0, "the sinks differ (mass %.3g, position %.3g, "
	       "creation time %.3g)", dm, dx, dt);
	return 0;
}

static int cuda_compare(void)
{
	struct starpu_codelet *cl[] = {&tide_sink_gravity_cl, &tide_sink_accrete_cl, &tide_sink_region_cl};
	static tide_sinks T[2];
	for (int w = 0; w < 2; w++) {
		for (int k = 0; k < 3; k++) tide_codelet_restrict(cl[k], w ? TIDE_WHERE_CUDA : TIDE_WHERE_CPU);
		if (conserve(60, &T[w])) return 1;
	}
	EXPECT(T[0].n == T[1].n, "%d sinks on the CPU, %d with CUDA", T[0].n, T[1].n);
	double dm = 0, dx = 0;
	for (int s = 0; s < T[0].n && T[0].n == T[1].n; s++) {
		dm = fmax(dm, fabs(T[1].s[s].m / T[0].s[s].m - 1));
		dx = fmax(dx, dist3(T[0].s[s].x, T[1].s[s].x));
	}
	printf("sinks_cuda: %d sinks, CUDA against CPU: masses within %.2e, positions within %.2e\n",
	       T[0].n, dm, dx);
	EXPECT(dm < 1e-4 && dx < 1e-4, "CUDA differs from the CPU (mass %.3g, position %.3g)", dm, dx);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "compare")) return argc < 4 ? 2 : compare(argv[2], argv[3]);
	tide_runtime rt;
	if (tide_runtime_init(&argc, &argv, NULL, &rt)) return 77;
	rank0 = rt.rank == 0;
	const char *mode = argc > 1 ? argv[1] : "conserve";
	int ret = 0;
	if (test_cuda_requested(argc, argv)) {
		if (test_cuda_missing("sinks_cuda")) { tide_runtime_shutdown(); return TEST_SKIP; }
		ret = cuda_compare();
	} else if (!strcmp(mode, "conserve")) {
		if (argc > 3) conserve_setup.thr = atof(argv[3]);
		ret = conserve(argc > 2 ? atoi(argv[2]) : 60, NULL);
	} else if (!strcmp(mode, "caps")) {
		setup u = caps_setup;
		if (argc > 7) {
			u.nlat = atoi(argv[2]); u.cs = atof(argv[3]); u.mach = atof(argv[4]);
			u.thr = atof(argv[5]); u.racc = atof(argv[6]);
		}
		ret = caps(&u, argc > 7 ? atof(argv[7]) : caps_tend);
	} else if (!strcmp(mode, "laminar")) {
		ret = collapse(&laminar_setup, 1.03, 1, 1, NULL);
	} else if (!strcmp(mode, "turbulent") || !strcmp(mode, "ranks")) {
		setup u = turbulent_setup;
		/* optional: nlat cs mach threshold r_acc t_end (for studies) */
		int ranks = !strcmp(mode, "ranks"), o = ranks ? 3 : 2;
		if (argc > o + 5) {
			u.nlat = atoi(argv[o]); u.cs = atof(argv[o + 1]); u.mach = atof(argv[o + 2]);
			u.thr = atof(argv[o + 3]); u.racc = atof(argv[o + 4]);
		}
		double tend = argc > o + 5 ? atof(argv[o + 5]) : 0.7;
		ret = collapse(&u, tend, 3, TIDE_SINK_MAX, ranks ? argv[2] : NULL);
	} else {
		fprintf(stderr, "usage: test_sinks conserve|laminar|turbulent|ranks OUT|compare A B [--cuda]\n");
		ret = 2;
	}
	tide_runtime_shutdown();
	if (ret || failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
	SAY("sinks %s: all checks passed\n", mode);
	return 0;
}
