// SPDX-License-Identifier: LGPL-2.1-or-later
// tide_swift_write_ranks (src/swift_io.h) under mpirun: every rank gives its own gas (with its
// fields) and N-body particles, uneven counts and a rank without gas included; rank 0 reads the
// file back and finds every rank's particles, in rank order, with the values each gave, and the
// Header's counts the totals; the same particles written by one rank give the same read.  Also
// a rank whose fields differ is refused on every rank.  Plain MPI, no StarPU.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#include "swift_io.h"

static int failures;
#define CHECK(c, ...) do { if (!(c)) { failures++; fprintf(stderr, "FAIL rank %d line %d: ", rank, __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

enum { MAXN = 64 };

/* Particle i (global index over all ranks) of type k: every field a function of (k, i). */
typedef struct part_arrays {
	double pos[3 * MAXN];
	float vel[3 * MAXN], mass[MAXN], pot[MAXN], acc[3 * MAXN], u[MAXN], h[MAXN], rho[MAXN];
	uint64_t id[MAXN];
} part_arrays;

static void make(int k, uint64_t first, uint64_t n, part_arrays *a)
{
	for (uint64_t j = 0; j < n; j++) {
		uint64_t i = first + j;
		for (int c = 0; c < 3; c++) {
			a->pos[3 * j + c] = 1e5 * k + 0.1 * i + c + 1e-9 * i;
			a->vel[3 * j + c] = (float)(k - 0.5 * i + c);
			a->acc[3 * j + c] = (float)(0.25 * i * (c + 1));
		}
		a->mass[j] = (float)(1.0 / (1 + i + k));
		a->pot[j] = (float)(-1.0 - i);
		a->u[j] = (float)(0.5 + i);
		a->h[j] = (float)(0.01 * (i + 1));
		a->rho[j] = (float)(3 + i);
		a->id[j] = 100000 * (uint64_t)k + i + 1;
	}
}

static tide_swift_out out_of(int k, uint64_t n, const part_arrays *a)
{
	return (tide_swift_out){.n = n, .pos = a->pos, .vel = a->vel, .mass = a->mass, .id = a->id,
	                        .pot = a->pot, .acc = a->acc, .u = k == 0 ? a->u : NULL,
	                        .h = k == 0 ? a->h : NULL, .rho = k == 0 ? a->rho : NULL};
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	/* counts per rank: gas 25, 0, 15, 7, ...; N-body 5, 10, 5, 10, ... */
	uint64_t ng[16], nd[16], fg = 0, fd = 0, NG = 0, ND = 0;
	for (int r = 0; r < size && r < 16; r++) {
		ng[r] = r == 1 ? 0 : r == 0 ? 25 : 15 - (uint64_t)r;
		nd[r] = r % 2 ? 10 : 5;
		if (r < rank) { fg += ng[r]; fd += nd[r]; }
		NG += ng[r];
		ND += nd[r];
	}
	char dir[256] = "";
	if (rank == 0) {
		snprintf(dir, sizeof dir, "%s/tide_swift_ranks.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if (!mkdtemp(dir)) dir[0] = '\0';
	}
	MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
	if (!dir[0]) { if (rank == 0) fprintf(stderr, "no temporary directory\n"); MPI_Abort(MPI_COMM_WORLD, 1); }
	char path[300], path1[300], bad[300];
	snprintf(path, sizeof path, "%s/ranks.hdf5", dir);
	snprintf(path1, sizeof path1, "%s/one.hdf5", dir);
	snprintf(bad, sizeof bad, "%s/bad.hdf5", dir);

	static part_arrays gas, dm;
	make(0, fg, ng[rank], &gas);
	make(1, fd, nd[rank], &dm);
	tide_swift_out t[TIDE_SWIFT_NTYPES];
	memset(t, 0, sizeof t);
	t[0] = out_of(0, ng[rank], &gas);
	t[1] = out_of(1, nd[rank], &dm);
	tide_swift_header hd = {.time = 0.75, .box = {1, 2, 3}, .units = tide_swift_units_g1(1, 1)};
	CHECK(tide_swift_write_ranks(path, &hd, t, MPI_COMM_WORLD) == 0, "parallel write");

	/* a rank giving other fields: refused everywhere, no file */
	tide_swift_out tb[TIDE_SWIFT_NTYPES];
	memcpy(tb, t, sizeof tb);
	if (rank == size - 1) tb[1].pot = NULL;
	CHECK(size == 1 || tide_swift_write_ranks(bad, &hd, tb, MPI_COMM_WORLD) == 1, "other fields not refused");
	CHECK(access(bad, F_OK) != 0, "%s written", bad);

	if (rank == 0) {
		static part_arrays all_g, all_d;
		make(0, 0, NG, &all_g);
		make(1, 0, ND, &all_d);
		tide_swift_out one[TIDE_SWIFT_NTYPES];
		memset(one, 0, sizeof one);
		one[0] = out_of(0, NG, &all_g);
		one[1] = out_of(1, ND, &all_d);
		CHECK(tide_swift_write(path1, &hd, one) == 0, "serial write");
		tide_swift_set s, s1;
		CHECK(tide_swift_read(path, 0x3f, TIDE_SWIFT_GAS | TIDE_SWIFT_FORCES, 0, &s) == 0, "read");
		CHECK(tide_swift_read(path1, 0x3f, TIDE_SWIFT_GAS | TIDE_SWIFT_FORCES, 0, &s1) == 0, "read 1");
		CHECK(s.count[0] == NG && s.count[1] == ND && s.n == NG + ND, "counts %llu %llu",
		      (unsigned long long)s.count[0], (unsigned long long)s.count[1]);
		CHECK(s.have_time && s.time == 0.75, "time");
		int diff = 0;
		for (uint64_t i = 0; i < s.n && s.n == NG + ND; i++) {
			int k = i < NG;
			const part_arrays *a = k ? &all_g : &all_d;
			uint64_t j = k ? i : i - NG;
			for (int c = 0; c < 3; c++)
				diff += s.pos[3 * i + c] != a->pos[3 * j + c] || s.vel[3 * i + c] != a->vel[3 * j + c] ||
				        s.acc[3 * i + c] != a->acc[3 * j + c] || s.acc[3 * i + c] != s1.acc[3 * i + c];
			diff += s.mass[i] != a->mass[j] || s.id[i] != a->id[j] || s.pot[i] != a->pot[j] ||
			        s.type[i] != (k ? 0 : 1) || s.pos[3 * i] != s1.pos[3 * i] || s.id[i] != s1.id[i];
			if (k) diff += s.u[i] != a->u[j] || s.h[i] != a->h[j] || s.rho[i] != a->rho[j];
		}
		CHECK(diff == 0, "%d values differ from what the ranks gave", diff);
		tide_swift_set_free(&s);
		tide_swift_set_free(&s1);
		remove(path);
		remove(path1);
		rmdir(dir);
	}
	int all = 0;
	MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0) printf("swift_io_ranks (%d ranks): %s\n", size, all ? "FAILED" : "all checks passed");
	MPI_Finalize();
	return all ? 1 : 0;
}
