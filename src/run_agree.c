// SPDX-License-Identifier: LGPL-2.1-or-later
// tide run's start-up agreement of the MPI ranks: every rank loads the same input (the case or
// the checkpoint, with the --set overrides) and compares it with rank 0's, checks the block count
// and that the particles fit in memory everywhere, and learns rank 0's verdicts; the case's
// messages are said once (the other ranks' stderr is quieted while they load).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tide/case.h"
#include "tide/decomposition.h"
#include "tide/gauge_tasks.h"
#include "tide/sph_sim.h"
#include "case_load.h"
#include "checkpoint.h"
#include "host_blocks.h"
#include "host_memory.h"
#include "output.h"
#include "rank_agree.h"
#include "run_agree.h"

/* The case (or the checkpoint and its case) with the --set overrides.  0, or 1 after a
 * message. */
int tide_run_load_input(const run_opts *o, tide_case *c, tide_ckpt_state *cs, void **mem,
                      tide_block_view *all)
{
	int bad = o->restart ? tide_checkpoint_read(o->restart, cs, mem, all, c)
	                     : tide_case_load(o->case_path, o->dp, c);
	tide_case c0 = *c;
	for (int i = 0; i < o->nsets && !bad; i++) bad = tide_case_set(c, o->sets[i]);
	if (!bad && !o->restart) tide_sim_set_aux(c); /* --set may have chosen the scheme */
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
int tide_run_agree_with_ranks(const run_opts *o, const tide_runtime *rt, const tide_case *c,
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
			/* the options were compared before StarPU started (tide_run_key) */
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
			tide_run_load_input(o, &c2, &cs2, &mem2, &all2);
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
	int saved = tide_quiet_stderr(quiet);
	int bad = tide_host_memory_check(prefix, need, what, "use a larger dp (fewer particles), or "
	                                 "more MPI ranks on more nodes");
	tide_restore_stderr(saved);
	return bad != 0;
}

/* Collective: does the fresh run fit on every rank's node?  All ranks stop together (exit code
 * 2) when one does not; rank 0 says why, or else the first rank that does not fit. */
int tide_run_build_fits_everywhere(const run_opts *o, const tide_case *c, int nb,
                                 const tide_runtime *rt)
{
	tide_rank_view me = {.status = build_too_big(o, c, nb, rt, rt->rank != 0)};
	tide_rank_verdict v;
	tide_ranks_agree(&me, &v);
	if (!v.rank0.status && v.first_bad == rt->rank) build_too_big(o, c, nb, rt, 0);
	return !v.rank0.status && v.first_bad < 0;
}

/* Rank 0's verdict (an exit code), learnt by every rank. */
int tide_rank0_says(int verdict)
{
	tide_rank_view me = {.status = verdict};
	tide_rank_verdict v;
	tide_ranks_agree(&me, &v);
	return v.rank0.status;
}
