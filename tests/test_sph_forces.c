// SPDX-License-Identifier: LGPL-2.1-or-later
// sph_forces (with cell_sort and halo_pack before it, over blocks made by tide_sim_setup) against
// an O(N^2) double-precision reference written here from the equations (sph_interact.h's header
// comment, shared/reference/sph-multigpu.md):
//   continuity   drho_i = sum_j m_j v_ij . grad_i W_ij  (+ density diffusion, fluid-fluid pairs)
//   momentum     a_i = -sum_j m_j (p_i/rho_i^2 + p_j/rho_j^2 + Pi_ij) grad_i W_ij + g  (fluid i;
//                boundary i: a = 0)
//   Monaghan     Pi_ij = -alpha cbar mu / rhobar if v_ij.r_ij < 0, mu = h v_ij.r_ij/(r^2 + 0.01h^2)
//   Tait         p = B((rho/rho0)^7 - 1), B = c0^2 rho0 / 7, c = c0 (rho/rho0)^3
//   diffusion    drho_i += delta h c0 2 (rho_i - rho_j - rhoH_ij)/(r^2 + eta^2) r^2 F m_j/rho_j,
//                rhoH = 0 (Molteni) or rho0((1 + rho0 g.r_ij/B)^(1/7) - 1) (Fourtakas; with
//                g = (0, 0, -|g|) rho0|g|(z_j - z_i)/B; the periodic runs add g_x = 3 m/s^2, a
//                channel's driving force, which a |g|-along-z form gets wrong)
// for 2-D and 3-D, both kernels, no / Molteni / Fourtakas diffusion, a perturbed lattice and
// random positions with a minimum separation, mixed fluid and boundary particles (at rest: walls
// are fixed), random fluid velocities and densities around rho0.  Checked, matching particles by id:
//  - a and drho within 1e-4 of the largest magnitude over all particles, with 1 and 3 blocks;
//  - 1 block and 3 blocks agree within 1e-5 (the halos carry every neighbour across a face);
//  - the step reduction (CFL dt, vmax, fluid density range, no bad particle) matches the
//    reference's, dt from tide_particle_dt's documented formula;
//  - a closed free system (no gravity, no boundary) has sum_i m_i a_i ~ 0: the pair forces are
//    antisymmetric.  (Continuity is not antisymmetric, so nothing is asserted about sum drho.)
//  - periodic along x (case key periodic): the reference takes the minimum image of every pair
//    (dx - L round(dx / L)), the codelets see the other side only through the halos' images;
//    a and drho within 1e-4 of the reference with 1 block (its own neighbour across the
//    periodic faces), 2 blocks (each other's neighbour twice) and 4 blocks; in 3-D also
//    periodic along x and y at once (the images across both faces at the corners).
//  - floating bodies (floating_config): 1 block = 3 blocks and, with --cuda, CUDA = CPU; under
//    mDBC (moving floating particles) also the floating particles' accelerations against the
//    reference, whose contact term (sph_pair.h's formula, written out here) is checked to carry
//    a tenth of the largest at least, so CUDA = CPU covers the contact pairs too.
// With --cuda (the test sph_forces_cuda) the CUDA codelets must also give the CPU values within
// 1e-5 in every configuration, and their step reduction the reference's as above; without a CUDA
// worker that test exits 77 (SKIP).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/sph_sim.h"
#include "runtime.h"
#include "test_cuda_mode.h"

static int failures;
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static double urand(void)
{
	rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

enum layout { LATTICE, RANDOM };
static const char *diff_name[] = {"none", "molteni", "fourtakas"};

/* ---- the reference, in double precision ---- */

static double ref_w_f(int kernel, double q)   /* (dW/dr)/r * h^2/alpha as a function of q */
{
	if (q >= 2.0) return 0.0;
	if (kernel == 0) return q < 1.0 ? -3.0 + 2.25 * q : -0.75 * (2.0 - q) * (2.0 - q) / q;
	double t = 1.0 - 0.5 * q;
	return -5.0 * t * t * t;   /* d/dq [(1-q/2)^4 (2q+1)] = -5q(1-q/2)^3 */
}

static double ref_alpha(int kernel, int dim, double h)
{
	if (kernel == 0) return dim == 2 ? 10.0 / (7.0 * M_PI * h * h) : 1.0 / (M_PI * h * h * h);
	return dim == 2 ? 7.0 / (4.0 * M_PI * h * h) : 21.0 / (16.0 * M_PI * h * h * h);
}

typedef struct ref_out {
	double *ax, *ay, *az, *drho, *mumax;
} ref_out;

/* The floating body (c->motion's rigid bodies, in order) particle id belongs to, or -1. */
static int ref_body(const tide_case *c, uint32_t id)
{
	for (int k = 0, f = 0; k < c->motion.nbody; k++) {
		if (!c->motion.body[k].rigid) continue;
		if (id >= c->motion.body[k].id0 && id < c->motion.body[k].id1) return f;
		f++;
	}
	return -1;
}

static void reference(const tide_case *c, const tide_block_view *v, ref_out *o, double *contact)
{
	uint32_t n = v->count;
	double h = c->coefh * c->dp, m = c->rho0 * pow(c->dp, c->dim);
	double B = c->c0 * c->c0 * c->rho0 / 7.0, eta2 = 0.01 * h * h;
	double aF = ref_alpha(c->kernel, c->dim, h) / (h * h);
	double *p = malloc(sizeof(double) * n), *cs = malloc(sizeof(double) * n);
	for (uint32_t i = 0; i < n; i++) {
		double t = v->rho[i] / c->rho0;
		p[i] = B * (pow(t, 7.0) - 1.0);
		cs[i] = c->c0 * t * t * t;
	}
	/* under mDBC a floating particle takes its fluid neighbours' momentum terms (no gravity)
	 * and meets a boundary particle of another body by the contact force of sph_pair.h's
	 * formula: a_i = max(0, kc (dp - r) - gc v_ij.r_ij / r) r_ij / r for r < dp, kc = (c0/dp)^2,
	 * gc = 2 c0 / dp (*contact: the largest |a_i| of that term alone) */
	int mdbc = c->boundary == TIDE_BOUNDARY_MDBC;
	double kc = c->c0 * c->c0 / (c->dp * c->dp), gc = 2.0 * c->c0 / c->dp;
	if (contact) *contact = 0;
	for (uint32_t i = 0; i < n; i++) {
		int fi = v->type[i] == TIDE_FLUID;
		int bi = fi ? -1 : ref_body(c, v->id[i]), flt = mdbc && bi >= 0;
		double ax = 0, ay = 0, az = 0, dr = 0, mumax = 0, cx = 0, cy = 0, cz = 0;
		double rhoi = v->rho[i];
		for (uint32_t j = 0; j < n; j++) {
			if (j == i) continue;
			if (flt && v->type[j] != TIDE_FLUID) {
				if (ref_body(c, v->id[j]) == bi) continue;
				double dx = v->x[i] - v->x[j], dy = v->y[i] - v->y[j], dz = v->z[i] - v->z[j];
				double r = sqrt(dx * dx + dy * dy + dz * dz);
				double vr = ((double)v->vx[i] - v->vx[j]) * dx + ((double)v->vy[i] - v->vy[j]) * dy +
				            ((double)v->vz[i] - v->vz[j]) * dz;
				double f = r < c->dp ? kc * (c->dp - r) - gc * vr / r : 0;
				if (f > 0) { cx += f * dx / r; cy += f * dy / r; cz += f * dz / r; }
				continue;
			}
			double dx = v->x[i] - v->x[j], dy = v->y[i] - v->y[j], dz = v->z[i] - v->z[j];
			double Lx = c->domain.hi[0] - c->domain.lo[0], Ly = c->domain.hi[1] - c->domain.lo[1];
			if (c->periodic & 1) dx -= Lx * round(dx / Lx); /* the minimum image */
			if (c->periodic & 2) dy -= Ly * round(dy / Ly);
			double r2 = dx * dx + dy * dy + dz * dz;
			if (r2 >= 4.0 * h * h) continue;
			double r = sqrt(r2);
			double F = aF * ref_w_f(c->kernel, r / h);
			double dvx = (double)v->vx[i] - v->vx[j], dvy = (double)v->vy[i] - v->vy[j],
			       dvz = (double)v->vz[i] - v->vz[j];
			double vr = dvx * dx + dvy * dy + dvz * dz;
			double rhoj = v->rho[j];
			dr += m * vr * F;
			double mu = h * vr / (r2 + eta2);
			if (fabs(mu) > mumax) mumax = fabs(mu);
			if (!fi && !flt) continue;
			double Pi = vr < 0 ? -c->visco * 0.5 * (cs[i] + cs[j]) * mu / (0.5 * (rhoi + rhoj)) : 0;
			double coef = -m * (p[i] / (rhoi * rhoi) + p[j] / (rhoj * rhoj) + Pi) * F;
			ax += coef * dx; ay += coef * dy; az += coef * dz;
			if (fi && c->diffusion && v->type[j] == TIDE_FLUID) {
				double rhoH = 0;
				if (c->diffusion == TIDE_DIFF_FOURTAKAS)
					rhoH = c->rho0 * (pow(1.0 + c->rho0 * (c->gravity[0] * dx + c->gravity[1] *
					                      dy + c->gravity[2] * dz) / B, 1.0 / 7.0) - 1.0);
				dr += c->delta * h * c->c0 * 2.0 * (rhoi - rhoj - rhoH) / (r2 + eta2) * r2 * F *
				      m / rhoj;
			}
		}
		if (fi) {
			ax += c->gravity[0]; ay += c->gravity[1]; az += c->gravity[2];
		} else if (flt) {
			ax += cx; ay += cy; az += cz;
			if (contact) *contact = fmax(*contact, sqrt(cx * cx + cy * cy + cz * cz));
		} else {
			ax = ay = az = 0;
		}
		o->ax[i] = ax; o->ay[i] = ay; o->az[i] = az; o->drho[i] = dr; o->mumax[i] = mumax;
	}
	free(p); free(cs);
}

/* ---- configurations ---- */

static void make_case(tide_case *c, int dim, int kernel, int diffusion, double gz)
{
	memset(c, 0, sizeof *c);
	snprintf(c->name, sizeof c->name, "forces");
	snprintf(c->path, sizeof c->path, "(test)");
	c->dim = dim;
	c->dp = 0.01;
	c->coefh = 2.0;
	c->kernel = kernel;
	c->rho0 = 1000;
	c->gamma = 7;
	c->c0 = 30;
	c->visco = 0.1;
	c->diffusion = diffusion;
	c->delta = 0.1;
	c->gravity[2] = gz;
	c->cfl = 0.2;
	c->verlet_steps = 40;
	/* elongated along x so the blocks are slabs along x; 15 (2-D) or 6 (3-D) cell layers */
	c->domain.hi[0] = dim == 2 ? 0.6 : 0.24;
	c->domain.hi[1] = dim == 2 ? 0.0 : 0.1;
	c->domain.hi[2] = dim == 2 ? 0.3 : 0.1;
}

/* Under mDBC the halos are 3 cells deep (include/tide/case.h, tide_case_halo_layers) and every
 * block as wide: the 3-D domain's 6 cell layers along x become 9, for 3 blocks. */
static void mdbc_room(tide_case *c)
{
	if (c->boundary == TIDE_BOUNDARY_MDBC && !c->periodic && c->dim == 3) c->domain.hi[0] = 0.36;
}

/* Fills v (cap >= lattice count) with particles strictly inside the domain. */
static void make_particles(const tide_case *c, enum layout lay, int with_bound, tide_block_view *v)
{
	double dp = c->dp, lo[3], hi[3];
	int nl[3];
	for (int d = 0; d < 3; d++) {
		lo[d] = c->domain.lo[d];
		hi[d] = c->domain.hi[d];
		nl[d] = (c->dim == 2 && d == 1) ? 1 : (int)floor((hi[d] - lo[d]) / dp + 1e-9);
	}
	uint32_t n = 0;
	if (lay == LATTICE) {
		for (int i = 0; i < nl[0]; i++)
			for (int j = 0; j < nl[1]; j++)
				for (int k = 0; k < nl[2]; k++) {
					double p[3] = {lo[0] + (i + 0.5) * dp, c->dim == 2 ? 0.0 : lo[1] + (j + 0.5) * dp,
					               lo[2] + (k + 0.5) * dp};
					for (int d = 0; d < 3; d++)
						if (!(c->dim == 2 && d == 1)) p[d] += 0.4 * dp * (urand() - 0.5);
					v->x[n] = p[0]; v->y[n] = p[1]; v->z[n] = p[2];
					n++;
				}
	} else {
		/* dart throwing: 60 % of the lattice count, no two closer than 0.6 dp */
		uint32_t want = (uint32_t)(0.6 * nl[0] * nl[1] * nl[2]);
		double min2 = 0.36 * dp * dp;
		long tries = 0;
		while (n < want && tries < 50L * want) {
			tries++;
			double p[3];
			for (int d = 0; d < 3; d++)
				p[d] = (c->dim == 2 && d == 1) ? 0.0 : lo[d] + 0.2 * dp + urand() * (hi[d] - lo[d] - 0.4 * dp);
			int ok = 1;
			for (uint32_t j = 0; j < n && ok; j++) {
				double dx = p[0] - v->x[j], dy = p[1] - v->y[j], dz = p[2] - v->z[j];
				ok = dx * dx + dy * dy + dz * dz >= min2;
			}
			if (!ok) continue;
			v->x[n] = p[0]; v->y[n] = p[1]; v->z[n] = p[2];
			n++;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		v->vx[i] = v->vx1[i] = (float)(urand() - 0.5);
		v->vy[i] = v->vy1[i] = c->dim == 2 ? 0.f : (float)(urand() - 0.5);
		v->vz[i] = v->vz1[i] = (float)(urand() - 0.5);
		v->rho[i] = v->rho1[i] = (float)(c->rho0 * (1.0 + 0.02 * (urand() - 0.5)));
		v->ax[i] = v->ay[i] = v->az[i] = v->drho[i] = 0.f;
		/* a floor of boundary particles and a sprinkle of boundary particles in the fluid */
		int bound = with_bound && (v->z[i] < c->domain.lo[2] + 2.5 * dp || urand() < 0.07);
		v->type[i] = bound ? TIDE_BOUND : TIDE_FLUID;
		/* walls are fixed (DBC: the integrator never moves them, and sph_interact.h skips
		 * boundary-boundary pairs because their v_ij is 0), so boundary particles are at rest */
		if (bound) v->vx[i] = v->vx1[i] = v->vy[i] = v->vy1[i] = v->vz[i] = v->vz1[i] = 0.f;
	}
	/* ids in a shuffled order, so that matching by id is not matching by position */
	for (uint32_t i = 0; i < n; i++) v->id[i] = i;
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = (uint32_t)(urand() * i);
		uint32_t t = v->id[i - 1]; v->id[i - 1] = v->id[j]; v->id[j] = t;
	}
	v->count = n;
}

/* ---- the codelets, as tasks/sph_step.c submits them ---- */

typedef struct run_result {
	float *ax, *ay, *az, *drho;   /* indexed by particle id */
	tide_step_reduce red;
	uint32_t n;
	long nsubmit;   /* tasks submitted (the split adds one per split block) */
} run_result;

static int run_forces(const tide_case *c, const tide_block_view *all, int nblocks, int cuda_only,
                      int cpu_only, run_result *res)
{
	tide_sim sim;
	if (tide_sim_setup(&sim, c, all, nblocks, tide_runtime_uses_mpi())) return -1;
	if (sim.nblocks != nblocks) {
		fprintf(stderr, "asked for %d blocks, got %d\n", nblocks, sim.nblocks);
		return -1;
	}
	struct starpu_codelet sort = tide_cell_sort_cl, halo = tide_halo_pack_cl,
	                      forces = tide_sph_forces_cl;
	enum tide_where w = cuda_only ? TIDE_WHERE_CUDA : cpu_only ? TIDE_WHERE_CPU : TIDE_WHERE_ANY;
	tide_codelet_restrict(&sort, w);
	tide_codelet_restrict(&halo, w);
	tide_codelet_restrict(&forces, w);
	tide_sim_submit_forces_with(&sim, &sort, &halo, &forces);
	res->nsubmit = sim.nsubmit;
	starpu_data_acquire(sim.red, STARPU_R);
	res->red = sim.red_host;
	starpu_data_release(sim.red);

	void *mem = NULL;
	tide_block_view g;
	if (tide_sim_gather(&sim, 0, &mem, &g)) return -1;
	res->n = g.count;
	int bad = 0;
	for (uint32_t i = 0; i < g.count; i++) {
		uint32_t id = g.id[i];
		if (id >= all->count) { bad++; continue; }
		res->ax[id] = g.ax[i]; res->ay[id] = g.ay[i]; res->az[id] = g.az[i];
		res->drho[id] = g.drho[i];
	}
	free(mem);
	tide_sim_free(&sim);
	if (bad || res->n != all->count) {
		fprintf(stderr, "gathered %u particles (%d bad ids), expected %u\n", res->n, bad,
		        all->count);
		return -1;
	}
	return 0;
}

static void result_alloc(run_result *r, uint32_t n)
{
	r->ax = calloc(n, sizeof(float)); r->ay = calloc(n, sizeof(float));
	r->az = calloc(n, sizeof(float)); r->drho = calloc(n, sizeof(float));
}
static void result_free(run_result *r) { free(r->ax); free(r->ay); free(r->az); free(r->drho); }

/* Max |a - a_ref| / max |a_ref| and the same for drho; arrays by id. */
static void compare(const run_result *r, const double *ax, const double *ay, const double *az,
                    const double *dr, uint32_t n, double *ea, double *ed, uint32_t *worst_a,
                    uint32_t *worst_d)
{
	double amax = 0, dmax = 0, da = 0, dd = 0;
	*worst_a = *worst_d = 0;
	for (uint32_t i = 0; i < n; i++) {
		double a = sqrt(ax[i] * ax[i] + ay[i] * ay[i] + az[i] * az[i]);
		if (a > amax) amax = a;
		if (fabs(dr[i]) > dmax) dmax = fabs(dr[i]);
		double ex = r->ax[i] - ax[i], ey = r->ay[i] - ay[i], ez = r->az[i] - az[i];
		double e = sqrt(ex * ex + ey * ey + ez * ez);
		if (!(e <= da)) { da = e; *worst_a = i; }   /* NaN counts as worst */
		e = fabs(r->drho[i] - dr[i]);
		if (!(e <= dd)) { dd = e; *worst_d = i; }
	}
	*ea = amax > 0 ? da / amax : da;
	*ed = dmax > 0 ? dd / dmax : dd;
}

static void one_config(int dim, int kernel, int diffusion, enum layout lay, int periodic,
                       int mdbc, int have_cuda)
{
	tide_case c;
	make_case(&c, dim, kernel, diffusion, -9.81);
	c.periodic = periodic;
	c.boundary = mdbc ? TIDE_BOUNDARY_MDBC : TIDE_BOUNDARY_DBC;
	mdbc_room(&c);
	/* cells of 2h = 0.034 m: the period is no whole number of them (the last is wider) */
	if (periodic) c.coefh = 1.7;
	/* a body force along the periodic axis too: Fourtakas' hydrostatic term along g, not z */
	if (periodic) c.gravity[0] = 3.0;
	uint32_t cap = 4000;
	void *mem = malloc((size_t)cap * TIDE_BLOCK_BPP);
	tide_block_view v = tide_block_view_make(mem, cap, 0);
	make_particles(&c, lay, 1, &v);
	uint32_t n = v.count;
	char what[128];
	snprintf(what, sizeof what, "%dD %s %s diffusion=%s n=%u%s%s", dim,
	         kernel ? "wendland" : "cubic", lay == LATTICE ? "lattice" : "random",
	         diff_name[diffusion], n, periodic == 3 ? " periodic x+y" : periodic ? " periodic x" : "",
	         mdbc ? " mdbc" : "");

	/* reference, then rearranged by id */
	double *buf = malloc(sizeof(double) * 5 * n), *byid = malloc(sizeof(double) * 5 * n);
	ref_out o = {buf, buf + n, buf + 2 * n, buf + 3 * n, buf + 4 * n};
	reference(&c, &v, &o, NULL);
	/* mDBC: a boundary particle's continuity sum and signal speed are not used (its density is
	 * its ghost node's): the codelets report drho = 0 and its dt from the sound speed alone */
	for (uint32_t i = 0; i < n && mdbc; i++)
		if (v.type[i] != TIDE_FLUID) o.drho[i] = o.mumax[i] = 0.0;
	double *rax = byid, *ray = byid + n, *raz = byid + 2 * n, *rdr = byid + 3 * n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = v.id[i];
		rax[id] = o.ax[i]; ray[id] = o.ay[i]; raz[id] = o.az[i]; rdr[id] = o.drho[i];
	}
	/* reference step reduction, as tide_particle_dt documents it */
	double h = c.coefh * c.dp, dt_ref = 1e300, vmax = 0, rmin = 1e300, rmax = 0;
	for (uint32_t i = 0; i < n; i++) {
		double ci = c.c0 * pow(v.rho[i] / c.rho0, 3.0);
		double dt = h / (ci + o.mumax[i]);
		if (v.type[i] == TIDE_FLUID) {
			double a = sqrt(o.ax[i] * o.ax[i] + o.ay[i] * o.ay[i] + o.az[i] * o.az[i]);
			if (a > 0 && sqrt(h / a) < dt) dt = sqrt(h / a);
			double sp = sqrt((double)v.vx[i] * v.vx[i] + (double)v.vy[i] * v.vy[i] +
			                 (double)v.vz[i] * v.vz[i]);
			if (sp > vmax) vmax = sp;
			if (v.rho[i] < rmin) rmin = v.rho[i];
			if (v.rho[i] > rmax) rmax = v.rho[i];
		}
		dt *= c.cfl;
		if (dt < dt_ref) dt_ref = dt;
	}

	run_result r1, r3;
	result_alloc(&r1, n);
	result_alloc(&r3, n);
	int nb3 = periodic ? 4 : 3; /* periodic: 1, 2 (below) and 4 blocks */
	int ok1 = run_forces(&c, &v, 1, 0, 1, &r1) == 0;
	int ok3 = run_forces(&c, &v, nb3, 0, 1, &r3) == 0;
	if (periodic) {
		run_result r2;
		result_alloc(&r2, n);
		int ok2 = run_forces(&c, &v, 2, 0, 1, &r2) == 0;
		EXPECT(ok2, "%s: running the codelets on 2 blocks failed", what);
		double ea, ed;
		uint32_t wa, wd;
		compare(&r2, rax, ray, raz, rdr, n, &ea, &ed, &wa, &wd);
		if (ok2)
			EXPECT(ea < 1e-4 && ed < 1e-4, "%s, 2 blocks: a and drho differ from the reference "
			       "by %.3g and %.3g of the largest (limit 1e-4); worst ids %u, %u", what, ea, ed,
			       wa, wd);
		printf("%-52s 2 blocks: a err %.2e  drho err %.2e\n", what, ea, ed);
		result_free(&r2);
	}
	EXPECT(ok1 && ok3, "%s: running the codelets failed (1 block: %s, %d blocks: %s)", what,
	       ok1 ? "ok" : "failed", nb3, ok3 ? "ok" : "failed");
	if (ok1 && ok3) {
		for (int k = 0; k < 2; k++) {
			const run_result *r = k ? &r3 : &r1;
			double ea, ed;
			uint32_t wa, wd;
			compare(r, rax, ray, raz, rdr, n, &ea, &ed, &wa, &wd);
			EXPECT(ea < 1e-4, "%s, %d blocks: acceleration differs from the reference by %.3g of "
			       "the largest |a| (limit 1e-4); worst particle id %u: (%.7g, %.7g, %.7g), "
			       "reference (%.7g, %.7g, %.7g)", what, k ? nb3 : 1, ea, wa, r->ax[wa],
			       r->ay[wa], r->az[wa], rax[wa], ray[wa], raz[wa]);
			EXPECT(ed < 1e-4, "%s, %d blocks: drho differs from the reference by %.3g of the "
			       "largest |drho| (limit 1e-4); worst particle id %u: %.7g, reference %.7g",
			       what, k ? nb3 : 1, ed, wd, r->drho[wd], rdr[wd]);
			if (k == 0) printf("%-52s a err %.2e  drho err %.2e", what, ea, ed);
			else printf("  | %d blocks: %.2e %.2e", nb3, ea, ed);
			const tide_step_reduce *R = &r->red;
			double edt = fabs(R->dt - dt_ref) / dt_ref;
			EXPECT(edt < 1e-4 && fabs(R->vmax - vmax) <= 1e-6 * vmax && R->rho_min == (float)rmin &&
			       R->rho_max == (float)rmax && R->nbad == 0,
			       "%s, %d blocks: step reduction dt %.9g vmax %.9g rho [%.9g, %.9g] nbad %u, "
			       "reference dt %.9g (rel. diff %.3g) vmax %.9g rho [%.9g, %.9g] nbad 0",
			       what, k ? nb3 : 1, R->dt, R->vmax, R->rho_min, R->rho_max, R->nbad, dt_ref,
			       edt, vmax, rmin, rmax);
		}
		/* 1 vs 3 blocks */
		double *d1 = malloc(sizeof(double) * 4 * n);
		for (uint32_t i = 0; i < n; i++) {
			d1[i] = r1.ax[i]; d1[n + i] = r1.ay[i]; d1[2 * n + i] = r1.az[i];
			d1[3 * n + i] = r1.drho[i];
		}
		double ea, ed;
		uint32_t wa, wd;
		compare(&r3, d1, d1 + n, d1 + 2 * n, d1 + 3 * n, n, &ea, &ed, &wa, &wd);
		EXPECT(ea < 1e-5 && ed < 1e-5, "%s: %d blocks differ from 1 block by %.3g (a) and %.3g "
		       "(drho) of the largest magnitude (limit 1e-5); worst ids %u, %u", what, nb3, ea, ed,
		       wa, wd);
		printf("  | 1 vs %d: %.1e %.1e\n", nb3, ea, ed);
		if (have_cuda) {
			run_result rg;
			result_alloc(&rg, n);
			int okg = run_forces(&c, &v, nb3, 1, 0, &rg) == 0;
			EXPECT(okg, "%s: the CUDA codelets failed", what);
			if (okg) {
				compare(&rg, d1, d1 + n, d1 + 2 * n, d1 + 3 * n, n, &ea, &ed, &wa, &wd);
				EXPECT(ea < 1e-5 && ed < 1e-5, "%s: CUDA differs from the CPU by %.3g (a) and "
				       "%.3g (drho) of the largest magnitude (limit 1e-5)", what, ea, ed);
				/* the CUDA pass's step record against the reference's, as the CPU's above */
				const tide_step_reduce *R = &rg.red;
				double edt = fabs(R->dt - dt_ref) / dt_ref;
				EXPECT(edt < 1e-4 && fabs(R->vmax - vmax) <= 1e-6 * vmax &&
				       R->rho_min == (float)rmin && R->rho_max == (float)rmax && R->nbad == 0 &&
				       R->count == n,
				       "%s, CUDA: step reduction dt %.9g vmax %.9g rho [%.9g, %.9g] nbad %u count "
				       "%u, reference dt %.9g (rel. diff %.3g) vmax %.9g rho [%.9g, %.9g] nbad 0 "
				       "count %u", what, R->dt, R->vmax, R->rho_min, R->rho_max, R->nbad, R->count,
				       dt_ref, edt, vmax, rmin, rmax, n);
				printf("    CUDA vs CPU: %.1e %.1e, dt vs reference %.1e\n", ea, ed, edt);
			}
			result_free(&rg);
		}
		free(d1);
	}
	result_free(&r1);
	result_free(&r3);
	free(buf);
	free(byid);
	free(mem);
}

/* No gravity, no boundary: sum_i m a_i = 0 by the antisymmetry of every pair term. */
static void momentum(int dim, int kernel, enum layout lay)
{
	tide_case c;
	make_case(&c, dim, kernel, TIDE_DIFF_NONE, 0.0);
	uint32_t cap = 4000;
	void *mem = malloc((size_t)cap * TIDE_BLOCK_BPP);
	tide_block_view v = tide_block_view_make(mem, cap, 0);
	make_particles(&c, lay, 0, &v);
	uint32_t n = v.count;
	run_result r;
	result_alloc(&r, n);
	double m = c.rho0 * pow(c.dp, c.dim);
	int ok = run_forces(&c, &v, 3, 0, 0, &r) == 0;
	EXPECT(ok, "momentum %dD: running the codelets failed", dim);
	if (ok) {
		double s[3] = {0, 0, 0}, sabs = 0;
		for (uint32_t i = 0; i < n; i++) {
			s[0] += m * r.ax[i]; s[1] += m * r.ay[i]; s[2] += m * r.az[i];
			sabs += m * sqrt((double)r.ax[i] * r.ax[i] + (double)r.ay[i] * r.ay[i] +
			                 (double)r.az[i] * r.az[i]);
		}
		double ns = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
		EXPECT(ns < 1e-4 * sabs, "momentum %dD %s %s: |sum m a| = %.3g, %.3g of sum |m a| = "
		       "%.3g (limit 1e-4)", dim, kernel ? "wendland" : "cubic",
		       lay == LATTICE ? "lattice" : "random", ns, ns / sabs, sabs);
		printf("momentum %dD %-8s %-7s n=%u: |sum m a| / sum |m a| = %.2e\n", dim,
		       kernel ? "wendland" : "cubic", lay == LATTICE ? "lattice" : "random", n, ns / sabs);
	}
	result_free(&r);
	free(mem);
}

/* Two floating bodies: the boundary particles with ids in [0, n/3) and [n/3, 2n/3); under mDBC
 * they move (random velocities: the contact's dashpot). */
static void make_floating(tide_case *c, tide_block_view *v, int mdbc)
{
	uint32_t n = v->count;
	for (uint32_t i = 0; i < n && mdbc; i++)
		if (v->type[i] != TIDE_FLUID && v->id[i] < 2 * n / 3) {
			v->vx[i] = (float)(urand() - 0.5);
			v->vy[i] = c->dim == 2 ? 0.f : (float)(urand() - 0.5);
			v->vz[i] = (float)(urand() - 0.5);
		}
	c->motion.nbody = 2;
	c->motion.body[0].id0 = 0;
	c->motion.body[0].id1 = n / 3;
	c->motion.body[0].rigid = 1;
	c->motion.body[1].id0 = n / 3;
	c->motion.body[1].id1 = 2 * n / 3;
	c->motion.body[1].rigid = 2;
	c->nfloating = 2;
	tide_sim_set_aux(c); /* the halos carry the ids (block.h), before any block exists */
}

/* Floating bodies (issue 22): the boundary particles whose ids fall in two ranges are the
 * particles of two floating bodies (tide_sim_params' id ranges), the others fixed walls.  A
 * floating particle takes its fluid neighbours' pair terms and meets the other body's and the
 * walls' particles as fluid meets a wall (sph_forces.c); 1 block = 3 blocks, and CUDA = CPU
 * within 1e-5 of the largest magnitude, with the floating particles' accelerations nonzero (the
 * comparison would otherwise pass on zeros). */
static void floating_config(int dim, int kernel, int mdbc, int have_cuda)
{
	tide_case c;
	make_case(&c, dim, kernel, TIDE_DIFF_FOURTAKAS, -9.81);
	c.boundary = mdbc ? TIDE_BOUNDARY_MDBC : TIDE_BOUNDARY_DBC;
	mdbc_room(&c);
	uint32_t cap = 4000;
	void *mem = malloc((size_t)cap * TIDE_BLOCK_BPP);
	tide_block_view v = tide_block_view_make(mem, cap, 0);
	make_particles(&c, RANDOM, 1, &v);
	uint32_t n = v.count;
	make_floating(&c, &v, mdbc);
	char what[96];
	snprintf(what, sizeof what, "%dD %s floating bodies n=%u%s", dim, kernel ? "wendland" : "cubic",
	         n, mdbc ? " mdbc" : "");
	run_result r1, r3, rg;
	result_alloc(&r1, n);
	result_alloc(&r3, n);
	result_alloc(&rg, n);
	int ok1 = run_forces(&c, &v, 1, 0, 1, &r1) == 0, ok3 = run_forces(&c, &v, 3, 0, 1, &r3) == 0;
	EXPECT(ok1 && ok3, "%s: running the codelets failed", what);
	if (ok1 && ok3) {
		double *d1 = malloc(sizeof(double) * 4 * n), afl = 0;
		for (uint32_t i = 0; i < n; i++) {
			d1[i] = r1.ax[i]; d1[n + i] = r1.ay[i]; d1[2 * n + i] = r1.az[i];
			d1[3 * n + i] = r1.drho[i];
		}
		for (uint32_t i = 0; i < n; i++)
			if (v.type[i] != TIDE_FLUID && v.id[i] < 2 * n / 3) {
				uint32_t id = v.id[i];
				afl = fmax(afl, sqrt(d1[id] * d1[id] + d1[n + id] * d1[n + id] +
				                     d1[2 * n + id] * d1[2 * n + id]));
			}
		EXPECT(afl > 0, "%s: no floating particle has an acceleration", what);
		double ea, ed;
		uint32_t wa, wd;
		if (mdbc) {
			/* the floating particles against the reference: fluid terms + contact */
			double *buf = malloc(sizeof(double) * 5 * n), cmax = 0, emax = 0, rmax = 0;
			ref_out o = {buf, buf + n, buf + 2 * n, buf + 3 * n, buf + 4 * n};
			reference(&c, &v, &o, &cmax);
			for (uint32_t i = 0; i < n; i++) {
				uint32_t id = v.id[i];
				if (v.type[i] == TIDE_FLUID || id >= 2 * n / 3) continue;
				double ex = d1[id] - o.ax[i], ey = d1[n + id] - o.ay[i], ez = d1[2 * n + id] - o.az[i];
				emax = fmax(emax, sqrt(ex * ex + ey * ey + ez * ez));
				rmax = fmax(rmax, sqrt(o.ax[i] * o.ax[i] + o.ay[i] * o.ay[i] + o.az[i] * o.az[i]));
			}
			EXPECT(emax <= 1e-4 * rmax, "%s: the floating particles' a differ from the reference "
			       "by %.3g of the largest (limit 1e-4)", what, emax / rmax);
			EXPECT(cmax > 0.1 * rmax, "%s: the contact term (largest %.3g) is not tested: largest "
			       "|a| %.3g", what, cmax, rmax);
			printf("%-52s floating a vs reference %.1e (contact term up to %.2g of the largest)\n",
			       what, emax / rmax, cmax / rmax);
			free(buf);
		}
		compare(&r3, d1, d1 + n, d1 + 2 * n, d1 + 3 * n, n, &ea, &ed, &wa, &wd);
		EXPECT(ea < 1e-5 && ed < 1e-5, "%s: 3 blocks differ from 1 block by %.3g (a) and %.3g "
		       "(drho); worst ids %u, %u", what, ea, ed, wa, wd);
		printf("%-52s largest floating |a| %.3g  | 1 vs 3 blocks: %.1e %.1e", what, afl, ea, ed);
		if (have_cuda) {
			int okg = run_forces(&c, &v, 3, 1, 0, &rg) == 0;
			EXPECT(okg, "%s: the CUDA codelets failed", what);
			if (okg) {
				compare(&rg, d1, d1 + n, d1 + 2 * n, d1 + 3 * n, n, &ea, &ed, &wa, &wd);
				EXPECT(ea < 1e-5 && ed < 1e-5, "%s: CUDA differs from the CPU by %.3g (a) and "
				       "%.3g (drho) of the largest magnitude (limit 1e-5); worst ids %u, %u",
				       what, ea, ed, wa, wd);
				printf("  | CUDA vs CPU: %.1e %.1e", ea, ed);
			}
		}
		printf("\n");
		free(d1);
	}
	result_free(&r1);
	result_free(&r3);
	result_free(&rg);
	free(mem);
	c.nfloating = 0;
	tide_sim_set_aux(&c);
}

/* The split of the forces into interior and boundary tasks (include/tide/cell_split.h,
 * TIDE_FORCES_SPLIT=on) gives the same bits as the unsplit task (off): accelerations, density
 * rates and the step record, on boxes cut along two or three axes (interiors of 1-4 cell layers,
 * edges and corners among the boundary cells), with walls, under mDBC, with floating bodies
 * (their contact pairs) and across a periodic face; on the CPU workers, or with --cuda (the test
 * forces_split_cuda) on the CUDA worker.  The split must have happened (one more task per block
 * with an interior). */
static void split_config(int dim, int kernel, int diffusion, int periodic, int mdbc, int floating,
                         int cuda)
{
	tide_case c;
	make_case(&c, dim, kernel, diffusion, -9.81);
	c.periodic = periodic;
	c.boundary = mdbc ? TIDE_BOUNDARY_MDBC : TIDE_BOUNDARY_DBC;
	/* cells of 2h = 0.04 m: 8 x 6 x 5 of them in 3-D, 15 x 7 in 2-D; a periodic case is cut
	 * along its slab axis only (tasks/sph_setup.c) */
	c.domain.hi[0] = dim == 2 ? 0.6 : 0.32;
	c.domain.hi[1] = dim == 2 ? 0.0 : 0.24;
	c.domain.hi[2] = dim == 2 ? 0.3 : 0.2;
	/* under mDBC every block is at least 3 cells wide (its halos' depth, mdbc_room): the 3-D
	 * domain's 5 cells along z take one block there */
	int mdbc3 = mdbc && dim == 3;
	const char *decomp = periodic ? "2x1x1" : dim == 2 ? "3x1x2" : mdbc3 ? "2x2x1" : "2x2x2";
	int nb = periodic ? 2 : dim == 2 ? 6 : mdbc3 ? 4 : 8;
	snprintf(c.decomp, sizeof c.decomp, "%s", decomp);
	uint32_t cap = 16000;
	void *mem = malloc((size_t)cap * TIDE_BLOCK_BPP);
	tide_block_view v = tide_block_view_make(mem, cap, 0);
	make_particles(&c, LATTICE, 1, &v);
	uint32_t n = v.count;
	if (floating) make_floating(&c, &v, mdbc); /* as floating_config */
	char what[128];
	snprintf(what, sizeof what, "split %dD %s diffusion=%s %s n=%u%s%s%s%s", dim,
	         kernel ? "wendland" : "cubic", diff_name[diffusion], decomp, n,
	         periodic ? " periodic x" : "", mdbc ? " mdbc" : "", floating ? " floating" : "",
	         cuda ? " (CUDA)" : "");
	run_result r[2];
	int ok[2];
	for (int on = 0; on < 2; on++) {
		result_alloc(&r[on], n);
		setenv("TIDE_FORCES_SPLIT", on ? "on" : "off", 1);
		ok[on] = run_forces(&c, &v, nb, cuda, !cuda, &r[on]) == 0;
	}
	unsetenv("TIDE_FORCES_SPLIT");
	EXPECT(ok[0] && ok[1], "%s: running the codelets failed", what);
	if (ok[0] && ok[1]) {
		uint32_t diff = 0, first = n;
		for (uint32_t i = 0; i < n; i++)
			if (memcmp(&r[0].ax[i], &r[1].ax[i], 4) || memcmp(&r[0].ay[i], &r[1].ay[i], 4) ||
			    memcmp(&r[0].az[i], &r[1].az[i], 4) || memcmp(&r[0].drho[i], &r[1].drho[i], 4)) {
				if (!diff++) first = i;
			}
		EXPECT(diff == 0, "%s: %u particles differ split against unsplit, the first id %u: a "
		       "(%.9g, %.9g, %.9g) drho %.9g against (%.9g, %.9g, %.9g) %.9g", what, diff, first,
		       first < n ? r[1].ax[first] : 0.f, first < n ? r[1].ay[first] : 0.f,
		       first < n ? r[1].az[first] : 0.f, first < n ? r[1].drho[first] : 0.f,
		       first < n ? r[0].ax[first] : 0.f, first < n ? r[0].ay[first] : 0.f,
		       first < n ? r[0].az[first] : 0.f, first < n ? r[0].drho[first] : 0.f);
		const tide_step_reduce *a = &r[0].red, *b = &r[1].red;
		EXPECT(a->dt == b->dt && a->vmax == b->vmax && a->rho_min == b->rho_min &&
		       a->rho_max == b->rho_max && a->fill == b->fill && a->nbad == b->nbad &&
		       a->count == b->count && a->count == n,
		       "%s: the step record differs: split dt %.9g vmax %.9g rho [%.9g, %.9g] fill %.6g "
		       "nbad %u count %u, unsplit %.9g %.9g [%.9g, %.9g] %.6g %u %u (of %u particles)",
		       what, b->dt, b->vmax, b->rho_min, b->rho_max, b->fill, b->nbad, b->count, a->dt,
		       a->vmax, a->rho_min, a->rho_max, a->fill, a->nbad, a->count, n);
		EXPECT(r[1].nsubmit >= r[0].nsubmit + nb, "%s: %ld tasks split, %ld unsplit: not every "
		       "one of the %d blocks was split", what, r[1].nsubmit, r[0].nsubmit, nb);
		double amax = 0;
		for (uint32_t i = 0; i < n; i++) amax = fmax(amax, fabs(r[0].ax[i]) + fabs(r[0].az[i]));
		EXPECT(amax > 0, "%s: every acceleration is zero", what);
		printf("%-72s %u particles, %ld tasks (%ld unsplit): same bits\n", what, n,
		       r[1].nsubmit, r[0].nsubmit);
	}
	result_free(&r[0]);
	result_free(&r[1]);
	free(mem);
	c.nfloating = 0;
	tide_sim_set_aux(&c);
}

static int split_main(int cuda)
{
	for (int dim = 2; dim <= 3; dim++)
		for (int kernel = 0; kernel < 2; kernel++)
			split_config(dim, kernel, kernel ? TIDE_DIFF_FOURTAKAS : TIDE_DIFF_MOLTENI, 0, 0, 0,
			             cuda);
	for (int dim = 2; dim <= 3; dim++) {
		split_config(dim, 1, TIDE_DIFF_FOURTAKAS, 0, 1, 0, cuda);   /* mDBC */
		split_config(dim, 1, TIDE_DIFF_FOURTAKAS, 0, 0, 1, cuda);   /* floating, DBC */
		split_config(dim, 1, TIDE_DIFF_FOURTAKAS, 0, 1, 1, cuda);   /* floating, contact */
		split_config(dim, 1, TIDE_DIFF_FOURTAKAS, 1, 0, 0, cuda);   /* periodic x */
	}
	starpu_shutdown();
	if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
	printf("forces_split: split = unsplit bit for bit in every case (%s)\n",
	       cuda ? "CUDA" : "CPU; the CUDA half is forces_split_cuda");
	return 0;
}

int main(int argc, char **argv)
{
	int have_cuda = test_cuda_requested(argc, argv), split = 0;
	for (int i = 1; i < argc; i++) split |= !strcmp(argv[i], "--split");
	if (starpu_init(NULL) != 0) { fprintf(stderr, "StarPU init failed\n"); return 77; }
	if (have_cuda && test_cuda_missing(split ? "forces_split_cuda" : "sph_forces_cuda")) {
		starpu_shutdown();
		return TEST_SKIP;
	}
	if (split) return split_main(have_cuda);
	printf("sph_forces test: %u CPU, %u CUDA workers\n", starpu_cpu_worker_get_count(),
	       starpu_cuda_worker_get_count());
	for (int dim = 2; dim <= 3; dim++)
		for (int kernel = 0; kernel < 2; kernel++)
			for (int diff = 0; diff < 3; diff++)
				for (int lay = 0; lay < 2; lay++)
					one_config(dim, kernel, diff, lay, 0, 0, have_cuda);
	/* mDBC: the boundary particles' pair sums skipped (GPU) or dropped (CPU) */
	for (int dim = 2; dim <= 3; dim++)
		for (int kernel = 0; kernel < 2; kernel++)
			one_config(dim, kernel, TIDE_DIFF_FOURTAKAS, RANDOM, 0, 1, have_cuda);
	/* periodic along x: both kernels, a lattice and random positions, Fourtakas' diffusion */
	for (int dim = 2; dim <= 3; dim++)
		for (int kernel = 0; kernel < 2; kernel++)
			for (int lay = 0; lay < 2; lay++) {
				one_config(dim, kernel, TIDE_DIFF_FOURTAKAS, lay, 1, 0, have_cuda);
				/* and along x and y at once: the corner images */
				if (dim == 3)
					one_config(dim, kernel, TIDE_DIFF_FOURTAKAS, lay, 3, 0, have_cuda);
			}
	for (int dim = 2; dim <= 3; dim++)
		for (int kernel = 0; kernel < 2; kernel++)
			for (int mdbc = 0; mdbc < 2; mdbc++) floating_config(dim, kernel, mdbc, have_cuda);
	/* the CUDA half compares codelets; momentum conservation is the CPU half's */
	for (int dim = 2; dim <= 3 && !have_cuda; dim++)
		for (int kernel = 0; kernel < 2; kernel++)
			for (int lay = 0; lay < 2; lay++) momentum(dim, kernel, lay);
	starpu_shutdown();
	if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
	printf("sph_forces: all cases agree with the reference%s\n",
	       have_cuda ? ", CUDA = CPU within 1e-5 in every case" : " (CPU; the CUDA half is sph_forces_cuda)");
	return 0;
}
