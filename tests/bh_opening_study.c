// SPDX-License-Identifier: LGPL-2.1-or-later
// Study of the Barnes–Hut opening test (not a test; built next to them): builds the tree of one
// distribution once on the CPU, then for each candidate definition of rcrit = l/theta + delta
// walks the groups of a sample of particles exactly as bh_walk does (bh_accept against the
// group's box), counting the interactions, and compares the accelerations with a double
// direct sum.  One line per definition x theta x order: 99th percentile and median of
// |da|/|a|, multipole and particle interactions per particle.
//   bh_opening_study DIST N SAMPLE DEF[:ALPHA] ...   (DIST plummer|uniform|sphere)
// DEF: diag (l = cube diagonal, delta from the cube centre), side (l = cube side), bbox (l =
// largest side of the particles' box, delta from the box centre), bboxdiag (l = its diagonal),
// bmax (rcrit = bmax/theta, bmax = largest distance of a particle from the com), bmaxd (rcrit =
// bmax/theta + delta_bbox).  ALPHA multiplies l (default 1).
// The groups are the build's (TIDE_BH_GROUPS=cells|cells:K|leaves).  The columns wm2p and wp2p
// count the interactions per warp (one list per group, whatever its fill) per BH_GROUP
// particles: what the GPU walk pays.  The sample misses rare expensive groups: time the GPU walk before trusting it.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "tide/bh_gravity.h"
#include "bh_ic.h"
#include "tide/bh_interact.h"

typedef struct geo {
	float lo[3], hi[3], bmax;
} geo;

static float rcrit_of(const char *def, float alpha, const bh_cell *C, const bh_mom *M, const geo *G,
                      float theta)
{
	float bc[3], bs[3];
	for (int d = 0; d < 3; d++) { bc[d] = 0.5f * (G->lo[d] + G->hi[d]); bs[d] = G->hi[d] - G->lo[d]; }
	float dcx = M->x - C->cx, dcy = M->y - C->cy, dcz = M->z - C->cz;
	float dcube = sqrtf(dcx * dcx + dcy * dcy + dcz * dcz);
	float bx = M->x - bc[0], by = M->y - bc[1], bz = M->z - bc[2];
	float dbox = sqrtf(bx * bx + by * by + bz * bz);
	float maxs = fmaxf(bs[0], fmaxf(bs[1], bs[2]));
	float diag = sqrtf(bs[0] * bs[0] + bs[1] * bs[1] + bs[2] * bs[2]);
	if (!strcmp(def, "diag")) return alpha * 3.4641016f * C->half / theta + dcube;
	if (!strcmp(def, "side")) return alpha * 2.f * C->half / theta + dcube;
	if (!strcmp(def, "bbox")) return alpha * maxs / theta + dbox;
	if (!strcmp(def, "bboxdiag")) return alpha * diag / theta + dbox;
	if (!strcmp(def, "bmax")) return alpha * G->bmax / theta;
	if (!strcmp(def, "bmaxd")) return alpha * G->bmax / theta + dbox;
	fprintf(stderr, "unknown definition %s\n", def);
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: bh_opening_study DIST N SAMPLE DEF[:ALPHA] ...\n");
		return 2;
	}
	enum bh_dist dist;
	if (bh_dist_parse(argv[1], &dist)) return 2;
	uint32_t n = (uint32_t)atof(argv[2]), want = (uint32_t)atof(argv[3]);
	if (starpu_init(NULL) != 0) return 77;
	bh_body *body = malloc(sizeof(bh_body) * n);
	float *vel = calloc(4 * (size_t)n, sizeof(float));
	bh_acc *acc = calloc(n, sizeof(bh_acc));
	bh_ic_make(dist, n, 7, body, vel);
	bh_params P = {.theta = 0.5f, .eps = 0.f, .G = 1.f, .quadrupole = 1};
	tide_gravity g;
	tide_gravity_init(&g, body, vel, acc, n, P, 0, TIDE_WHERE_CPU);
	tide_gravity_submit_build(&g);
	tide_gravity_submit_moments(&g);
	starpu_task_wait_for_all();
	starpu_data_acquire(g.hmeta, STARPU_R);
	starpu_data_acquire(g.hcells, STARPU_R);
	starpu_data_acquire(g.hmom, STARPU_R);
	starpu_data_acquire(g.hgroups, STARPU_R);
	const int32_t *meta = starpu_data_get_local_ptr(g.hmeta);
	int32_t nc = meta[BH_META_NCELLS], ngr = meta[BH_META_NGROUPS];
	bh_cell *cells = malloc(sizeof(bh_cell) * nc);
	bh_mom *mom = malloc(sizeof(bh_mom) * nc);
	bh_group *groups = malloc(sizeof(bh_group) * ngr);
	memcpy(cells, starpu_data_get_local_ptr(g.hcells), sizeof(bh_cell) * nc);
	memcpy(mom, starpu_data_get_local_ptr(g.hmom), sizeof(bh_mom) * nc);
	memcpy(groups, starpu_data_get_local_ptr(g.hgroups), sizeof(bh_group) * ngr);
	starpu_data_release(g.hmeta); starpu_data_release(g.hcells);
	starpu_data_release(g.hmom); starpu_data_release(g.hgroups);
	tide_gravity_fini(&g); /* body: Morton order now */

	/* exact geometry of every cell from its particles */
	geo *G = malloc(sizeof(geo) * nc);
	for (int32_t c = 0; c < nc; c++) {
		const bh_cell *C = &cells[c];
		geo *q = &G[c];
		for (int d = 0; d < 3; d++) { q->lo[d] = INFINITY; q->hi[d] = -INFINITY; }
		float b2 = 0.f;
		for (int32_t i = C->pbegin; i < C->pend; i++) {
			const float *p = &body[i].x;
			for (int d = 0; d < 3; d++) { q->lo[d] = fminf(q->lo[d], p[d]); q->hi[d] = fmaxf(q->hi[d], p[d]); }
			float dx = p[0] - mom[c].x, dy = p[1] - mom[c].y, dz = p[2] - mom[c].z;
			b2 = fmaxf(b2, dx * dx + dy * dy + dz * dz);
		}
		q->bmax = sqrtf(b2);
	}
	/* sample: every k-th group */
	int32_t step = (int32_t)((double)n / want); if (step < 1) step = 1;
	uint32_t *sample = malloc(sizeof(uint32_t) * n);
	int32_t *sgroups = malloc(sizeof(int32_t) * ngr);
	uint32_t ns = 0; int32_t nsg = 0;
	for (int32_t k = 0; k < ngr; k += step) {
		sgroups[nsg++] = k;
		for (int32_t i = groups[k].begin; i < groups[k].end; i++) sample[ns++] = (uint32_t)i;
	}
	double *ref = malloc(sizeof(double) * 4 * ns);
	tide_gravity_direct(body, n, sample, ns, P, ref, TIDE_WHERE_CPU);
	bh_acc *sacc = malloc(sizeof(bh_acc) * n);
	uint32_t *iden = malloc(sizeof(uint32_t) * ns);
	for (uint32_t k = 0; k < ns; k++) iden[k] = k;
	printf("# %s N %u: %d cells, %d groups, %u sample particles in %d groups\n", argv[1], n, nc, ngr,
	       ns, nsg);
	printf("%-10s %-5s %5s %-4s %10s %10s %9s %9s %9s %9s %9s\n", "def", "alpha", "theta", "ord", "p99",
	       "median", "m2p/p", "p2p/p", "tot/p", "wm2p", "wp2p");
	const float thetas[] = {0.5f, 0.6f, 0.75f};
	for (int a = 4; a < argc; a++) {
		char def[64];
		snprintf(def, sizeof def, "%s", argv[a]);
		float alpha = 1.f;
		char *colon = strchr(def, ':');
		if (colon) { *colon = 0; alpha = (float)atof(colon + 1); }
		for (int t = 0; t < 3; t++) {
			float theta = thetas[t];
			for (int32_t c = 0; c < nc; c++) {
				float r = rcrit_of(def, alpha, &cells[c], &mom[c], &G[c], theta);
				mom[c].rcrit2 = r * r;
			}
			for (int quad = 0; quad < 2; quad++) {
				double nm = 0, npp = 0, wm = 0, wp = 0;
				uint32_t k0 = 0;
				int32_t stack[8 * (BH_MAXLEVEL + 2)];
				for (int32_t s = 0; s < nsg; s++) {
					int32_t p0 = groups[sgroups[s]].begin, p1 = groups[sgroups[s]].end, np = p1 - p0;
					float lo[3] = {body[p0].x, body[p0].y, body[p0].z}, hi[3] = {lo[0], lo[1], lo[2]};
					for (int32_t i = p0 + 1; i < p1; i++)
						for (int d = 0; d < 3; d++) {
							lo[d] = fminf(lo[d], (&body[i].x)[d]); hi[d] = fmaxf(hi[d], (&body[i].x)[d]);
						}
					bh_box box = {0.5f * (lo[0] + hi[0]), 0.5f * (lo[1] + hi[1]), 0.5f * (lo[2] + hi[2]),
					              0.5f * (hi[0] - lo[0]), 0.5f * (hi[1] - lo[1]), 0.5f * (hi[2] - lo[2])};
					bh_acc A[BH_GROUP];
					memset(A, 0, sizeof A);
					int top = 0;
					stack[top++] = 0;
					while (top > 0) {
						int32_t c = stack[--top];
						const bh_cell *C = &cells[c];
						if (bh_accept(&mom[c], C, &box)) {
							nm += np;
							wm += 1;
							for (int32_t i = 0; i < np; i++)
								bh_m2p(&A[i], body[p0 + i].x, body[p0 + i].y, body[p0 + i].z, &mom[c], 0.f, quad);
						} else if (C->nchild == 0) {
							npp += (double)np * (C->pend - C->pbegin);
							wp += C->pend - C->pbegin;
							for (int32_t i = 0; i < np; i++)
								for (int32_t j = C->pbegin; j < C->pend; j++)
									bh_p2p(&A[i], body[p0 + i].x, body[p0 + i].y, body[p0 + i].z, &body[j], 0.f);
						} else {
							for (int32_t k = C->nchild - 1; k >= 0; k--) stack[top++] = C->child + k;
						}
					}
					for (int32_t i = 0; i < np; i++) sacc[k0++] = A[i];
				}
				tide_gravity_err e = tide_gravity_errors(sacc, iden, ns, ref);
				printf("%-10s %5.3f %5.2f %-4s %10.3e %10.3e %9.0f %9.0f %9.0f %9.0f %9.0f\n", def,
				       alpha, theta, quad ? "quad" : "mono", e.p99, e.median, nm / ns, npp / ns,
				       (nm + npp) / ns, wm * BH_GROUP / ns, wp * BH_GROUP / ns);
				fflush(stdout);
			}
		}
	}
	starpu_shutdown();
	return 0;
}
