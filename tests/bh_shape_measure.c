// SPDX-License-Identifier: LGPL-2.1-or-later
// The own tree's cost on one rank's piece of the synthetic domain (bh_shape_measure.h): the tree
// built and walked by the real codelets, then counted and checked as bh_opening_study does.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <starpu.h>
#include "tide/gravity_synth.h"
#include "bh_ic.h"
#include "bh_shape_measure.h"

static double cpu_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

void bh_shape_measure(int R, uint32_t n, uint32_t want, int repeat, bh_shape_result *res)
{
	int plummer = R == 0;
	if (plummer) R = 1;
	/* rank 0's piece of the synthetic domain of R ranks, and its model of the own walk */
	bh_params P = {.theta = 0.6f, .eps = 0.f, .G = 1.f, .quadrupole = 1};
	tide_gravity_synth syn;
	tide_gravity_synth_init(&syn, R, n, P, BH_GROUP_CELL, BH_VROOT_BOXES);
	double piece[6];
	tide_gravity_synth_piece(&syn, 0, piece);
	float lo[3], hi[3];
	for (int d = 0; d < 3; d++) { lo[d] = (float)piece[d]; hi[d] = (float)piece[3 + d]; }
	double model = plummer ? 0 : tide_gravity_synth_walk(&syn, 0, 0, NULL, -1.f);
	bh_body *body = malloc(sizeof(bh_body) * n);
	float *vel = calloc(4 * (size_t)n, sizeof(float));
	bh_acc *acc = calloc(n, sizeof(bh_acc));
	bh_ic_make(plummer ? BH_DIST_PLUMMER : BH_DIST_UNIFORM, n, 7, body, vel);
	if (!plummer)
		for (uint32_t i = 0; i < n; i++) {
			float *p = &body[i].x;
			for (int d = 0; d < 3; d++) p[d] = lo[d] + (p[d] + 1.f) * 0.5f * (hi[d] - lo[d]);
			if (body[i].x >= hi[0] || body[i].y >= hi[1] || body[i].z >= hi[2]) {
				/* rounding onto the far face: keep the piece half-open like a Morton cell */
				body[i].x = fminf(body[i].x, nextafterf(hi[0], lo[0]));
				body[i].y = fminf(body[i].y, nextafterf(hi[1], lo[1]));
				body[i].z = fminf(body[i].z, nextafterf(hi[2], lo[2]));
			}
		}
	tide_gravity g;
	tide_gravity_init(&g, body, vel, acc, n, P, 0, TIDE_WHERE_CPU);
	if (!plummer) { /* the common root of the synthetic domain */
		const float ulo[3] = {-1, -1, -1}, uhi[3] = {1, 1, 1};
		bh_root_cube(ulo, uhi, &g.universe);
	}
	tide_gravity_submit_build(&g);
	tide_gravity_submit_moments(&g);
	double best = 1e30;
	for (int r = 0; r < repeat; r++) {
		starpu_task_wait_for_all();
		double t0 = cpu_s();
		tide_gravity_submit_walk(&g);
		starpu_task_wait_for_all();
		double t = cpu_s() - t0;
		best = t < best ? t : best;
	}
	/* the tree on the host, read in place */
	starpu_data_handle_t tree[4] = {g.hmeta, g.hcells, g.hmom, g.hgroups};
	for (int k = 0; k < 4; k++) starpu_data_acquire(tree[k], STARPU_R);
	const int32_t *meta = starpu_data_get_local_ptr(g.hmeta);
	int32_t nc = meta[BH_META_NCELLS], ngr = meta[BH_META_NGROUPS];
	const bh_cell *cells = starpu_data_get_local_ptr(g.hcells);
	const bh_mom *mom = starpu_data_get_local_ptr(g.hmom);
	const bh_group *groups = starpu_data_get_local_ptr(g.hgroups);
	tide_gravity_acquire(&g); /* bodies in Morton order, acc in the same order */

	double occ = 0, big = 0;
	int32_t leaves = 0;
	for (int32_t c = 0; c < nc; c++)
		if (cells[c].nchild == 0) {
			double k = cells[c].pend - cells[c].pbegin;
			leaves++;
			occ += k * k;
			if (k > 16) big += k;
		}
	double nm = 0, npp = 0, wm = 0, wp = 0;
	int32_t *stack = malloc(sizeof(int32_t) * 8 * (BH_MAXLEVEL + 2));
	for (int32_t s = 0; s < ngr; s++) {
		int32_t p0 = groups[s].begin, p1 = groups[s].end, np = p1 - p0;
		float blo[3] = {body[p0].x, body[p0].y, body[p0].z}, bhi[3] = {blo[0], blo[1], blo[2]};
		for (int32_t i = p0 + 1; i < p1; i++)
			for (int d = 0; d < 3; d++) {
				blo[d] = fminf(blo[d], (&body[i].x)[d]);
				bhi[d] = fmaxf(bhi[d], (&body[i].x)[d]);
			}
		bh_box box = {0.5f * (blo[0] + bhi[0]), 0.5f * (blo[1] + bhi[1]), 0.5f * (blo[2] + bhi[2]),
		              0.5f * (bhi[0] - blo[0]), 0.5f * (bhi[1] - blo[1]), 0.5f * (bhi[2] - blo[2])};
		int top = 0;
		stack[top++] = 0;
		while (top > 0) {
			int32_t c = stack[--top];
			const bh_cell *C = &cells[c];
			if (bh_accept(&mom[c], C, &box)) { nm += np; wm += 1; }
			else if (C->nchild == 0) {
				npp += (double)np * (C->pend - C->pbegin);
				wp += C->pend - C->pbegin;
			} else
				for (int32_t k = C->nchild - 1; k >= 0; k--) stack[top++] = C->child + k;
		}
	}
	uint32_t step = n / want > 0 ? n / want : 1, ns = 0;
	uint32_t *sample = malloc(sizeof(uint32_t) * (n / step + 1));
	for (uint32_t i = 0; i < n; i += step) sample[ns++] = i;
	double *ref = malloc(sizeof(double) * 4 * ns);
	tide_gravity_direct(body, n, sample, ns, P, ref, TIDE_WHERE_CPU);
	tide_gravity_err e = tide_gravity_errors(acc, sample, ns, ref);
	memset(res, 0, sizeof *res);
	res->cells = nc; res->leaves = leaves; res->leaf_occ = occ / n; res->share_gt16 = big / n;
	res->m2p = nm / n; res->p2p = npp / n; res->warp_m2p = wm * BH_GROUP / n;
	res->warp_p2p = wp * BH_GROUP / n; res->model = model; res->walk_cpu_s = best; res->err = e;
	tide_gravity_release(&g);
	for (int k = 0; k < 4; k++) starpu_data_release(tree[k]);
	tide_gravity_fini(&g);
	free(stack); free(sample); free(ref); free(body); free(vel); free(acc);
}
