// SPDX-License-Identifier: LGPL-2.1-or-later
// Host blocks made from a case (src/host_blocks.h): the program builds the particles of a case
// (src/case_build.c) into the block layout that the task graph registers (tasks/sph_setup.c).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"    /* tide_sort_scratch_bytes */
#include "tide/sph_sim.h"
#include "case_load.h"
#include "gas_ic.h"
#include "bonnor_ebert.h"
#include "gas_generator.h"
#include "tide/gas_math.h"
#include "turbulence.h"
#include "host_blocks.h"
#include "tide/lattice.h"
#include "log.h"

/* The fields a particle set does not have, for particles 0..n-1 of a fresh block: the Verlet
 * history equal to the present (fluid; a boundary particle's vx1..vz1 hold its normal, block.h,
 * put there by the caller), no forces, no cell key, the active aux fields zero (laminar+sps:
 * no stress before the first force pass). */
static void start_history(tide_block_view *v, size_t n)
{
	float *aux[TIDE_BLOCK_MAX_AUX] = {
#define TIDE_X_AUXP(name, T) v->name,
		TIDE_BLOCK_AUX_FIELDS(TIDE_X_AUXP)
#undef TIDE_X_AUXP
	};
	for (unsigned k = 0; k < v->naux; k++) memset(aux[k], 0, n * sizeof(float));
	for (size_t i = 0; i < n; i++) {
		if (v->type[i] == TIDE_FLUID) {
			v->vx1[i] = v->vx[i];
			v->vy1[i] = v->vy[i];
			v->vz1[i] = v->vz[i];
		}
		v->rho1[i] = v->rho[i];
		v->ax[i] = v->ay[i] = v->az[i] = v->drho[i] = 0.f;
	}
}

int tide_host_block_from_set(const tide_particle_set *s, void **mem, tide_block_view *v)
{
	uint32_t cap = (uint32_t)(s->n ? s->n : 1);
	*mem = malloc((size_t)cap * tide_block_bpp());
	if (!*mem) {
		fprintf(stderr, "tide: out of host memory for %zu particles%s.\n", s->n, TIDE_OOM_ADVICE);
		return -1;
	}
	*v = tide_block_view_make(*mem, cap, (uint32_t)s->n);
	for (size_t i = 0; i < s->n; i++) {
		v->x[i] = s->x[i]; v->y[i] = s->y[i]; v->z[i] = s->z[i];
		v->vx[i] = s->vx[i]; v->vy[i] = s->vy[i]; v->vz[i] = s->vz[i];
		v->rho[i] = s->rho[i];
		v->id[i] = s->id[i];
		v->type[i] = s->type[i];
		int nb = s->type[i] != TIDE_FLUID && s->nx; /* the normal of a boundary particle */
		v->TIDE_BN_X[i] = nb ? s->nx[i] : 0.f;
		v->TIDE_BN_Y[i] = nb ? s->ny[i] : 0.f;
		v->TIDE_BN_Z[i] = nb ? s->nz[i] : 0.f;
	}
	start_history(v, s->n);
	return 0;
}

double tide_host_run_bytes(double n, int nblocks, int size, int rank, int workers, int output)
{
	double bpp = tide_block_bpp();
	if (nblocks < 1) nblocks = 1;
	uint32_t cnt = (uint32_t)(n / nblocks);
	double cap = nblocks == 1 ? tide_sim_block_cap((uint32_t)n, 1, 0, 0)
	                          : tide_sim_block_cap(cnt, nblocks, cnt, 0);
	double mine = ceil((double)nblocks / (size > 0 ? size : 1)) * cap * bpp;
	double setup = nblocks == 1 ? mine : n * bpp + mine;
	/* the scratch's index lists: at most a block's capacity, none for one block */
	double scratch = (double)tide_sort_scratch_bytes((size_t)cap, nblocks > 1 ? (size_t)cap : 0);
	double run = mine + (double)(workers > 0 ? workers : 0) * scratch +
	             (output && rank == 0 ? n * bpp : 0);
	return setup > run ? setup : run;
}

/* The case's turbulent velocities (turbulence.h) at Mach numbers of the gas's sound speed at
 * rho0 and gas.u (the equation of state's own formula, gas_math.h). */
static int add_turbulence(const tide_case *c, tide_block_view *v, size_t n)
{
	tide_gas_params G = {.eos = c->gas.eos, .gamma = (float)c->gas.gamma,
	                     .cs2 = (float)(c->gas.cs * c->gas.cs), .rho_crit = (float)c->gas.rho_crit};
	double cs = tide_gas_sound(&G, (float)c->rho0, (float)c->gas.u);
	float *vel[3] = {v->vx, v->vy, v->vz}, *vh[3] = {v->vx1, v->vy1, v->vz1};
	tide_info("turbulence: Mach %g (c_s = %g), P(k) ~ k^%g, solenoidal weight %g, seed %d, "
	          "grid %d^3\n", c->turbulence.mach, cs, c->turbulence.slope,
	          c->turbulence.solenoidal, c->turbulence.seed, c->turbulence.grid);
	return tide_turb_apply(&c->turbulence, cs, n, v->x, v->y, v->z, vel, vh);
}

int tide_host_block_build(const tide_case *c, int nblocks, void **mem, tide_block_view *v,
                          size_t *n_fluid, size_t *n_bound)
{
	/* first pass: count; second: write the fields in place */
	tide_particle_set s = {.mode = TIDE_PSET_COUNT};
	double t0 = tide_wtime(), est = tide_case_particle_estimate(c);
	/* counting and making 1e9 particles takes minutes: say so rather than stay silent */
	if (est > 2e7) tide_info("building about %.3g particles (counted, then made)\n", est);
	*mem = NULL;
	int gen = c->generator.type != TIDE_GEN_NONE; /* the generator's gas, every field set */
	int bad = gen ? 0 : tide_case_build(c, &s);
	if (bad) return bad; /* -2: the input gives no fluid */
	double t1 = tide_wtime();
	size_t n = gen ? tide_gen_build(c, NULL) : s.n;
	uint32_t cap = nblocks == 1 ? tide_sim_block_cap((uint32_t)n, 1, 0, 0) : (uint32_t)(n ? n : 1);
	*mem = tide_block_alloc_host_pin(cap, nblocks == 1); /* else a temporary */
	if (!*mem) {
		fprintf(stderr, "tide: out of host memory for %s of %zu particles (%.1f GiB)%s.\n",
		        nblocks == 1 ? "a block" : "the set", n,
		        (double)cap * tide_block_bpp() / 1073741824.0, TIDE_OOM_ADVICE);
		return -1;
	}
	*v = tide_block_view_make(*mem, cap, 0);
	if (gen && tide_gen_build(c, v) != n) {
		fprintf(stderr, "tide: internal error: the generator made %u particles after counting "
		        "%zu.\n", v->count, n);
		tide_block_free_host(*mem, cap);
		*mem = NULL;
		return -1;
	}
	s = (tide_particle_set){.n = 0, .cap = n, .x = v->x, .y = v->y, .z = v->z, .vx = v->vx,
	                        .vy = v->vy, .vz = v->vz, .rho = v->rho, .id = v->id,
	                        .type = v->type, .nx = v->TIDE_BN_X, .ny = v->TIDE_BN_Y,
	                        .nz = v->TIDE_BN_Z, .mode = TIDE_PSET_FIXED};
	if (!gen && (tide_case_build(c, &s) || s.n != n)) {
		if (s.n != n)
			fprintf(stderr, "tide: internal error: the case builder made %zu particles after "
			        "counting %zu.\n", s.n, n);
		tide_block_free_host(*mem, cap);
		*mem = NULL;
		return -1;
	}
	if (!gen) start_history(v, n);
	/* the Bonnor-Ebert profile first: the gas's h follows its densities */
	if (!gen && c->bonnor_ebert.on && tide_bonnor_ebert_apply(c, v, n)) {
		tide_block_free_host(*mem, cap);
		*mem = NULL;
		return -1;
	}
	if (!gen && c->scheme == TIDE_SCHEME_GAS) tide_gas_ic_start(c, v, n);
	/* every rank builds the whole set: the same velocities whatever the number of ranks */
	if (c->scheme == TIDE_SCHEME_GAS && c->turbulence.on && add_turbulence(c, v, n)) {
		fprintf(stderr, "tide: out of host memory for the turbulence grid of %d^3 points%s.\n",
		        c->turbulence.grid, TIDE_OOM_ADVICE);
		tide_block_free_host(*mem, cap);
		*mem = NULL;
		return -1;
	}
	size_t nf = 0;
	for (size_t i = 0; i < n; i++) nf += v->type[i] == TIDE_FLUID;
	v->count = (uint32_t)n;
	tide_debug("built %zu particles into a host block of %u: counted in %.2f s, made in %.2f s\n",
	           n, cap, t1 - t0, tide_wtime() - t1);
	*n_fluid = nf;
	*n_bound = n - nf;
	return 0;
}

void tide_set_view_of_block(const tide_block_view *v, tide_particle_set *s)
{
	memset(s, 0, sizeof *s);
	s->n = s->cap = v->count;
	s->x = v->x; s->y = v->y; s->z = v->z;
	s->vx = v->vx; s->vy = v->vy; s->vz = v->vz;
	s->rho = v->rho; s->id = v->id; s->type = v->type;
	if (v->naux >= 2) { s->gas_h = v->aux0; s->gas_u = v->aux1; }
}

int tide_host_block_lattice(const tide_case *c, const tide_lattice *L, int nblocks, void **mem,
                            tide_block_view *v)
{
	size_t n = tide_lattice_count(L);
	uint32_t cap = nblocks == 1 ? tide_sim_block_cap((uint32_t)n, 1, 0, 0) : (uint32_t)(n ? n : 1);
	*mem = tide_block_alloc_host_pin(cap, nblocks == 1);
	if (!*mem) {
		fprintf(stderr, "tide: out of host memory for the synthetic box of %zu particles%s.\n", n,
		        TIDE_OOM_ADVICE);
		return -1;
	}
	*v = tide_block_view_make(*mem, cap, 0);
	size_t i = 0;
	for (uint32_t a = 0; a < L->n[0]; a++)
		for (uint32_t b = 0; b < L->n[1]; b++)
			for (uint32_t k = 0; k < L->n[2]; k++, i++) {
				v->x[i] = tide_lattice_coord(L, 0, a);
				v->y[i] = tide_lattice_coord(L, 1, b);
				v->z[i] = tide_lattice_coord(L, 2, k);
				v->vx[i] = v->vy[i] = v->vz[i] = 0.f;
				v->rho[i] = (float)c->rho0;
				v->id[i] = (uint32_t)i;
				v->type[i] = TIDE_FLUID;
				v->TIDE_BN_X[i] = v->TIDE_BN_Y[i] = v->TIDE_BN_Z[i] = 0.f;
			}
	start_history(v, n);
	v->count = (uint32_t)n;
	return 0;
}
