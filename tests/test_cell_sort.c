// SPDX-License-Identifier: LGPL-2.1-or-later
// cell_sort against a simple reference: qsort of the keys and a brute-force count per cell, for
// empty input, one particle, all particles in one cell, particles exactly on cell faces, and
// random blocks up to a few million particles.  With --cuda (the test cell_sort_cuda) the CUDA
// codelet must also give exactly the CPU result; without a CUDA worker that test exits 77 (SKIP).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelets.h"
#include "tide/codelet_decl.h"
#include "tide/sph_params.h"
#include "test_cuda_mode.h"

static int failures;
#define EXPECT(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static uint64_t rng = 88172645463325252ull;
static double urand(void)
{
	rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static tide_sph_params make_params(int nx, int ny, int nz, double cell)
{
	tide_sph_params P;
	memset(&P, 0, sizeof P);
	tide_grid *g = &P.grid;
	g->cell = (float)cell;
	g->inv_cell = 1.0 / cell;
	g->n[0] = nx; g->n[1] = ny; g->n[2] = nz;
	g->origin[0] = -1.0; g->origin[1] = 2.0; g->origin[2] = 0.5;
	g->axis[0] = 0; g->axis[1] = 1; g->axis[2] = 2;
	g->plane = (uint32_t)ny * (uint32_t)nz;
	return P;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Runs the codelet on one block with the given worker type; returns the block view (host). */
static void run_sort(const tide_sph_params *P, tide_block_arg A, void *mem, uint32_t cap,
                     uint32_t n, uint32_t *start, uint32_t ncell, enum starpu_worker_archtype where)
{
	starpu_data_handle_t B, C, S;
	tide_block_register(&B, STARPU_MAIN_RAM, mem, cap, n);
	starpu_vector_data_register(&C, STARPU_MAIN_RAM, (uintptr_t)start, ncell + 1, sizeof(uint32_t));
	starpu_vector_data_register(&S, -1, 0, tide_sort_scratch_bytes(cap, 0), 1);
	struct starpu_codelet cl = tide_cell_sort_cl;
	tide_codelet_restrict(&cl, where == STARPU_CPU_WORKER ? TIDE_WHERE_CPU : TIDE_WHERE_CUDA);
	int ret = starpu_task_insert(&cl, STARPU_RW, B, STARPU_W, C, STARPU_SCRATCH, S,
	                             STARPU_VALUE, P, sizeof *P, STARPU_VALUE, &A, sizeof A, 0);
	STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert");
	starpu_task_wait_for_all();
	starpu_data_unregister(B);
	starpu_data_unregister(C);
	starpu_data_unregister(S);
}

/* Checks a sorted block against the reference built from the original positions. */
static void check(const char *what, const tide_sph_params *P, tide_block_arg A,
                  const tide_block_view *orig, const tide_block_view *v, const uint32_t *start,
                  uint32_t ncell)
{
	uint32_t n = orig->count;
	uint32_t base = (uint32_t)A.l0 * P->grid.plane;
	uint32_t *ref = malloc(sizeof(uint32_t) * (n + 1));
	uint32_t *cnt = calloc(ncell, sizeof(uint32_t));
	for (uint32_t i = 0; i < n; i++) {
		int c[3];
		tide_cell_of(&P->grid, orig->x[i], orig->y[i], orig->z[i], c);
		ref[i] = tide_cell_key(&P->grid, c);
		cnt[ref[i] - base]++;
	}
	qsort(ref, n, sizeof *ref, cmp_u32);
	int bad_keys = 0, bad_pos = 0, bad_start = 0;
	for (uint32_t i = 0; i < n; i++) {
		/* the cell the starts give particle i (block.h: no key is kept) */
		uint32_t key_i = tide_box_key(&P->grid, &A, tide_sorted_cell(start, ncell, i));
		if (key_i != ref[i]) bad_keys++;
		/* the particle now at i is the one with id v->id[i]; its fields moved with it */
		uint32_t o = v->id[i];
		if (o >= n || orig->x[o] != v->x[i] || orig->z[o] != v->z[i] || orig->rho[o] != v->rho[i])
			bad_pos++;
		/* ... every one of them, bit for bit (not the work space) */
		for (int f = 0; f < TIDE_BLOCK_NFIELDS && o < n; f++) {
			size_t elem, off;
			if (tide_block_field_is_work(f)) continue;
			tide_block_field(f, &elem, &off);
			if (memcmp((const char *)v->x + off * v->cap + elem * i,
			           (const char *)orig->x + off * orig->cap + elem * o, elem)) {
				bad_pos++;
				break;
			}
		}
		int c[3];
		tide_cell_of(&P->grid, v->x[i], v->y[i], v->z[i], c);
		if (tide_cell_key(&P->grid, c) != key_i) bad_keys++;
	}
	uint32_t acc = 0;
	for (uint32_t k = 0; k < ncell; k++) {
		if (start[k] != acc) bad_start++;
		acc += cnt[k];
	}
	if (start[ncell] != n) bad_start++;
	/* ids are a permutation */
	char *seen = calloc(n + 1, 1);
	int dup = 0;
	for (uint32_t i = 0; i < n; i++) { if (v->id[i] >= n || seen[v->id[i]]) dup++; else seen[v->id[i]] = 1; }
	EXPECT(!bad_keys && !bad_pos && !bad_start && !dup,
	       "%s: %d wrong keys, %d particles with wrong fields, %d wrong cell starts, %d lost ids",
	       what, bad_keys, bad_pos, bad_start, dup);
	free(ref); free(cnt); free(seen);
}

enum layout { RANDOM, ONE_CELL, ON_FACES };

/* spare: the block's capacity beyond n.  The sort reorders the fields through the block's own
 * work space (block.h, tide_sort_space), 8-byte aligned or not as the capacity is even or odd,
 * and with or without room to move to an 8-byte boundary (spare 0): all four occur below. */
static void one_case_cap(const char *what, uint32_t n, uint32_t spare, enum layout lay, int have_cuda)
{
	int nx = 24, ny = 7, nz = 13;
	double cell = 0.04;
	tide_sph_params P = make_params(nx, ny, nz, cell);
	tide_block_arg A = {.l0 = 5, .l1 = 17, .lo1 = 0, .hi1 = ny, .lo2 = 0, .hi2 = nz, .split = 1};
	uint32_t ncell = (uint32_t)(A.l1 - A.l0) * P.grid.plane;
	uint32_t cap = n + spare > 0 ? n + spare : 1;
	void *mem = tide_block_alloc_host(cap), *ref = malloc((size_t)cap * TIDE_BLOCK_BPP);
	tide_block_view v = tide_block_view_make(mem, cap, n);
	for (uint32_t i = 0; i < n; i++) {
		double x, y, z;
		if (lay == ONE_CELL) {
			x = P.grid.origin[0] + (7 + urand()) * cell;
			y = P.grid.origin[1] + (3 + urand()) * cell;
			z = P.grid.origin[2] + (9 + urand()) * cell;
		} else if (lay == ON_FACES) {
			/* on cell faces (where rounding decides the cell); the block's own lower face
			 * is left out, since a particle below it belongs to the lower block */
			x = P.grid.origin[0] + (A.l0 + 1 + (int)(urand() * (A.l1 - A.l0 - 1))) * cell;
			y = P.grid.origin[1] + (int)(urand() * ny) * cell;
			z = P.grid.origin[2] + (int)(urand() * nz) * cell;
		} else {
			x = P.grid.origin[0] + (A.l0 + urand() * (A.l1 - A.l0)) * cell;
			y = P.grid.origin[1] + urand() * ny * cell;
			z = P.grid.origin[2] + urand() * nz * cell;
		}
		v.x[i] = x; v.y[i] = y; v.z[i] = z;
		v.vx[i] = v.vy[i] = v.vz[i] = (float)i;
		v.rho[i] = 1000.f + (float)(i % 1000);
		v.id[i] = i;
		v.type[i] = i & 1;
	}
	memcpy(ref, mem, (size_t)cap * TIDE_BLOCK_BPP);
	tide_block_view orig = tide_block_view_make(ref, cap, n);
	uint32_t *start = malloc(sizeof(uint32_t) * (ncell + 1));
	run_sort(&P, A, mem, cap, n, start, ncell, STARPU_CPU_WORKER);
	check(what, &P, A, &orig, &v, start, ncell);
	if (have_cuda) {
		void *gmem = tide_block_alloc_host(cap);
		memcpy(gmem, ref, (size_t)cap * TIDE_BLOCK_BPP);
		uint32_t *gstart = malloc(sizeof(uint32_t) * (ncell + 1));
		run_sort(&P, A, gmem, cap, n, gstart, ncell, STARPU_CUDA_WORKER);
		tide_block_view g = tide_block_view_make(gmem, cap, n);
		int diff = memcmp(start, gstart, sizeof(uint32_t) * (ncell + 1)) != 0;
		/* every field the sort moves, bit for bit (not the work space it sorts in) */
		for (int f = 0; f < TIDE_BLOCK_NFIELDS && !diff; f++) {
			size_t elem, off;
			if (tide_block_field_is_work(f)) continue;
			tide_block_field(f, &elem, &off);
			diff = memcmp((char *)g.x + off * cap, (char *)v.x + off * cap, elem * n) != 0;
		}
		EXPECT(!diff, "%s: CUDA cell_sort differs from the CPU result", what);
		tide_block_free_host(gmem, cap);
		free(gstart);
	}
	tide_block_free_host(mem, cap);
	free(ref);
	free(start);
}

static void one_case(const char *what, uint32_t n, enum layout lay, int have_cuda)
{
	one_case_cap(what, n, 17, lay, have_cuda);
}

int main(int argc, char **argv)
{
	int have_cuda = test_cuda_requested(argc, argv);
	if (starpu_init(NULL) != 0) { fprintf(stderr, "StarPU init failed\n"); return 77; }
	if (have_cuda && test_cuda_missing("cell_sort_cuda")) { starpu_shutdown(); return TEST_SKIP; }
	printf("cell_sort test: %u CPU, %u CUDA workers\n", starpu_cpu_worker_get_count(),
	       starpu_cuda_worker_get_count());
	one_case("empty", 0, RANDOM, have_cuda);
	one_case("one particle", 1, RANDOM, have_cuda);
	one_case("all in one cell", 5000, ONE_CELL, have_cuda);
	one_case("on cell faces", 20000, ON_FACES, have_cuda);
	uint32_t sizes[] = {2, 17, 255, 256, 257, 4099, 100000, 1000003, 3000000};
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		char what[64];
		snprintf(what, sizeof what, "random %u", sizes[k]);
		one_case(what, sizes[k], RANDOM, have_cuda);
	}
	/* full blocks (no spare capacity), odd and even capacities; 4100 + 17 is odd too */
	one_case_cap("full, odd capacity", 100001, 0, RANDOM, have_cuda);
	one_case_cap("full, even capacity", 100000, 0, RANDOM, have_cuda);
	one_case_cap("one spare, odd capacity", 4100, 1, RANDOM, have_cuda);
	/* the GPU check of the foundation issue: TIDE_CELL_SORT_BIG=16000000 on the GPU node */
	const char *big = getenv("TIDE_CELL_SORT_BIG");
	if (big && atol(big) > 0) {
		char what[64];
		snprintf(what, sizeof what, "random %ld", atol(big));
		one_case(what, (uint32_t)atol(big), RANDOM, have_cuda);
	}
	starpu_shutdown();
	if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
	printf("cell_sort: all cases agree with the reference%s\n",
	       have_cuda ? ", CUDA = CPU in every case" : " (CPU; the CUDA half is cell_sort_cuda)");
	return 0;
}
