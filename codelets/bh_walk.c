// SPDX-License-Identifier: LGPL-2.1-or-later
// bh_walk: potential and acceleration of the particles [r0, r1) (Morton order).  The unit of
// work is a group of up to BH_GROUP particles of one leaf: the tree is traversed once per group
// against the group's bounding box (bh_accept), and every accepted node or opened leaf acts on all
// particles of the group.  This is the same algorithm as the warp-per-group CUDA walk, so both
// give the same interaction lists.  Several walk tasks on disjoint ranges spread over the cores.
// bh_walk_let walks the same groups through the essential nodes received from another rank and
// adds their field: cells marked BH_LET_MULTIPOLE passed the test against this rank's whole box
// and are used without testing, the other cells are tested against each group as usual.
#include <starpu.h>
#include "tide/bh_codelets.h"
#include "tide/let_interface.h"

size_t bh_walk_scratch_bytes(void)
{
#ifdef TIDE_USE_CUDA
	if (starpu_cuda_worker_get_count() > 0) return tide_bh_walk_cuda_scratch_bytes();
#endif
	return 256;
}

static void group_box(const bh_body *b, int32_t p0, int32_t p1, bh_box *box)
{
	float lo[3] = {b[p0].x, b[p0].y, b[p0].z}, hi[3] = {b[p0].x, b[p0].y, b[p0].z};
	for (int32_t i = p0 + 1; i < p1; i++) {
		const float *p = &b[i].x;
		for (int d = 0; d < 3; d++) {
			lo[d] = p[d] < lo[d] ? p[d] : lo[d];
			hi[d] = p[d] > hi[d] ? p[d] : hi[d];
		}
	}
	box->cx = 0.5f * (lo[0] + hi[0]); box->hx = 0.5f * (hi[0] - lo[0]);
	box->cy = 0.5f * (lo[1] + hi[1]); box->hy = 0.5f * (hi[1] - lo[1]);
	box->cz = 0.5f * (lo[2] + hi[2]); box->hz = 0.5f * (hi[2] - lo[2]);
}

/* The field of a source tree (cells, mom; src: the particles its leaves index) on the groups of
 * the particles tgt[r0, r1).  let = 0: the local tree (src = tgt), out = the field without the
 * self-energy; let = 1: received essential nodes, out += their field. */
static void walk_groups(const bh_body *tgt, const bh_group *groups, int32_t ng, const bh_cell *cells,
                        const bh_mom *mom, const bh_body *src, bh_acc *out, int let, bh_params P,
                        bh_range R)
{
	float eps2 = P.eps * P.eps, self = P.eps > 0.f && !let ? 1.f / P.eps : 0.f;
	/* depth-first, one node at a time: at most 7 pending siblings per level */
	int32_t stack[8 * (BH_MAXLEVEL + 2)];
	for (int32_t g = 0; g < ng; g++) {
		int32_t p0 = groups[g].begin, p1 = groups[g].end;
		if (p0 < (int32_t)R.r0) p0 = (int32_t)R.r0;
		if (p1 > (int32_t)R.r1) p1 = (int32_t)R.r1;
		if (p0 >= p1) continue;
		int32_t np = p1 - p0;
		bh_box box;
		group_box(tgt, p0, p1, &box);
		bh_acc a[BH_GROUP] = {{0, 0, 0, 0}};
		int top = 0;
		stack[top++] = 0;
		while (top > 0) {
			int32_t c = stack[--top];
			const bh_cell *C = &cells[c];
			if (C->nchild == BH_LET_MULTIPOLE || bh_accept(&mom[c], C, &box)) {
				for (int32_t i = 0; i < np; i++)
					bh_m2p(&a[i], tgt[p0 + i].x, tgt[p0 + i].y, tgt[p0 + i].z, &mom[c],
					       eps2, P.quadrupole);
			} else if (C->nchild == 0) {
				for (int32_t i = 0; i < np; i++)
					for (int32_t j = C->pbegin; j < C->pend; j++)
						bh_p2p(&a[i], tgt[p0 + i].x, tgt[p0 + i].y, tgt[p0 + i].z,
						       &src[j], eps2);
			} else {
				for (int32_t k = C->nchild - 1; k >= 0; k--) stack[top++] = C->child + k;
			}
		}
		for (int32_t i = 0; i < np; i++) {
			bh_acc *o = &out[p0 + i - (int32_t)R.r0];
			bh_acc f = {P.G * a[i].ax, P.G * a[i].ay, P.G * a[i].az,
			            P.G * (a[i].pot + tgt[p0 + i].m * self)}; /* no self-energy */
			if (let) { o->ax += f.ax; o->ay += f.ay; o->az += f.az; o->pot += f.pot; }
			else *o = f;
		}
	}
}

static void walk_cpu(void *buffers[], void *cl_arg)
{
	bh_params P;
	bh_range R;
	starpu_codelet_unpack_args(cl_arg, &P, &R);
	const bh_body *body = (const bh_body *)STARPU_VECTOR_GET_PTR(buffers[0]);
	const int32_t *meta = (const int32_t *)STARPU_VECTOR_GET_PTR(buffers[3]);
	walk_groups(body, (const bh_group *)STARPU_VECTOR_GET_PTR(buffers[4]), meta[BH_META_NGROUPS],
	            (const bh_cell *)STARPU_VECTOR_GET_PTR(buffers[1]),
	            (const bh_mom *)STARPU_VECTOR_GET_PTR(buffers[2]), body,
	            (bh_acc *)STARPU_VECTOR_GET_PTR(buffers[5]), 0, P, R);
}

static void walk_let_cpu(void *buffers[], void *cl_arg)
{
	bh_params P;
	bh_range R;
	starpu_codelet_unpack_args(cl_arg, &P, &R);
	const int32_t *meta = (const int32_t *)STARPU_VECTOR_GET_PTR(buffers[1]);
	const struct tide_let_iface *L = TIDE_LET_IFACE(buffers[3]);
	if (L->ncells == 0) return;
	void *let = (void *)L->ptr;
	walk_groups((const bh_body *)STARPU_VECTOR_GET_PTR(buffers[0]),
	            (const bh_group *)STARPU_VECTOR_GET_PTR(buffers[2]), meta[BH_META_NGROUPS],
	            bh_let_cells(let), bh_let_moms(let, L->cap_cells), bh_let_parts(let, L->cap_cells),
	            (bh_acc *)STARPU_VECTOR_GET_PTR(buffers[4]), 1, P, R);
}

static struct starpu_perfmodel walk_model = {
	.type = STARPU_HISTORY_BASED,
	.symbol = "tide_bh_walk",
};

struct starpu_codelet tide_bh_walk_cl = {
	.name = "bh_walk",
	.cpu_funcs = {walk_cpu},
#ifdef TIDE_USE_CUDA
	.cuda_funcs = {tide_bh_walk_cuda},
	.cuda_flags = {STARPU_CUDA_ASYNC},
#endif
	.nbuffers = 7,
	.modes = {STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_W, STARPU_SCRATCH},
	.model = &walk_model,
};

static struct starpu_perfmodel walk_let_model = {
	.type = STARPU_HISTORY_BASED,
	.symbol = "tide_bh_walk_let",
};

struct starpu_codelet tide_bh_walk_let_cl = {
	.name = "bh_walk_let",
	.cpu_funcs = {walk_let_cpu},
#ifdef TIDE_USE_CUDA
	.cuda_funcs = {tide_bh_walk_let_cuda},
	.cuda_flags = {STARPU_CUDA_ASYNC},
#endif
	.nbuffers = 6,
	.modes = {STARPU_R, STARPU_R, STARPU_R, STARPU_R, STARPU_RW, STARPU_SCRATCH},
	.model = &walk_let_model,
};
