// SPDX-License-Identifier: LGPL-2.1-or-later
// Checkpoint directories: writing (into a temporary directory, fsync'ed, swapped in by one
// rename) and reading with verification.  Layout and guarantees: src/checkpoint.h.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "case_load.h"
#include "checkpoint.h"
#include "log.h"

#define BYTE_ORDER_MARK 0x01020304u

uint64_t tide_fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

void tide_ckpt_state_free(tide_ckpt_state *st)
{
	free(st->range);
	free(st->count);
	free(st->cap);
	free(st->owner);
	free(st->out_time);
	st->owner = NULL;
	st->range = NULL;
	st->count = st->cap = NULL;
	st->out_time = NULL;
}

/* ---- header (de)serialisation ---- */

typedef struct buf {
	unsigned char *p;
	size_t n, cap, pos;
	int bad;
} buf;

static void put(buf *b, const void *v, size_t n)
{
	if (b->bad) return;
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 4096;
		while (cap < b->n + n) cap *= 2;
		unsigned char *p = realloc(b->p, cap);
		if (!p) { b->bad = 1; return; }
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, v, n);
	b->n += n;
}

static void get(buf *b, void *v, size_t n)
{
	if (b->bad || b->pos + n > b->n) {
		b->bad = 1;
		memset(v, 0, n);
		return;
	}
	memcpy(v, b->p + b->pos, n);
	b->pos += n;
}

#define PUT(b, x) put(b, &(x), sizeof(x))
#define GET(b, x) get(b, &(x), sizeof(x))

static void put_header(buf *b, const tide_ckpt_state *st)
{
	uint32_t version = TIDE_CKPT_VERSION, bom = BYTE_ORDER_MARK;
	put(b, TIDE_CKPT_MAGIC, 8);
	PUT(b, version);
	PUT(b, bom);
	put(b, st->tide_version, sizeof st->tide_version);
	PUT(b, st->step);
	PUT(b, st->t);
	PUT(b, st->verlet_count);
	PUT(b, st->integrator);
	PUT(b, st->last);
	PUT(b, st->rebalances);
	PUT(b, st->nrigid);
	PUT(b, st->rigid);
	PUT(b, st->rigid_pose);
	PUT(b, st->sinks);
	PUT(b, st->nranks);
	PUT(b, st->n_total);
	PUT(b, st->n_fluid0);
	PUT(b, st->n_bound0);
	PUT(b, st->particles_fnv);
	PUT(b, st->params_fnv);
	PUT(b, st->n_outputs);
	PUT(b, st->next_out);
	PUT(b, st->halo_cap);
	PUT(b, st->nblocks);
	for (int i = 0; i < st->nblocks; i++) {
		PUT(b, st->range[i].l0);
		PUT(b, st->range[i].l1);
		PUT(b, st->range[i].lo1);
		PUT(b, st->range[i].hi1);
		PUT(b, st->range[i].lo2);
		PUT(b, st->range[i].hi2);
		PUT(b, st->range[i].split);
		PUT(b, st->count[i]);
		PUT(b, st->cap[i]);
		int32_t o = st->owner[i];
		PUT(b, o);
	}
	for (int i = 0; i < st->n_outputs; i++) PUT(b, st->out_time[i]);
	uint64_t h = tide_fnv1a(TIDE_FNV_INIT, b->p, b->n);
	PUT(b, h);
}

/* ---- writing ---- */

static int test_delay_ms = -1;

static void test_delay(void)
{
	if (test_delay_ms < 0) {
		const char *v = getenv("TIDE_TEST_CHECKPOINT_DELAY_MS");
		test_delay_ms = v ? atoi(v) : 0;
	}
	if (test_delay_ms > 0) {
		struct timespec ts = {test_delay_ms / 1000, (long)(test_delay_ms % 1000) * 1000000L};
		nanosleep(&ts, NULL);
	}
}

static int fsync_path(const char *path, int dir)
{
	int fd = open(path, dir ? O_RDONLY | O_DIRECTORY : O_RDONLY);
	if (fd < 0) return -1;
	int r = fsync(fd);
	close(fd);
	return r;
}

/* Removes a directory of plain files (a checkpoint or a temporary one). */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		char p[2200];
		while ((e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
			snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
			unlink(p);
		}
		closedir(d);
	}
	rmdir(dir);
}

/* Temporary directories DIR.tmp-* left by a writer that was killed. */
static void remove_stale_tmp(const char *dir)
{
	char parent[1100], base[1100];
	const char *slash = strrchr(dir, '/');
	if (slash) {
		snprintf(parent, sizeof parent, "%.*s", (int)(slash - dir), dir);
		snprintf(base, sizeof base, "%s.tmp-", slash + 1);
	} else {
		snprintf(parent, sizeof parent, ".");
		snprintf(base, sizeof base, "%s.tmp-", dir);
	}
	if (!parent[0]) snprintf(parent, sizeof parent, "/");
	DIR *d = opendir(parent);
	if (!d) return;
	struct dirent *e;
	char p[2300];
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, base, strlen(base))) continue;
		snprintf(p, sizeof p, "%s/%s", parent, e->d_name);
		remove_dir(p);
	}
	closedir(d);
}

static const char *writing_dir = ""; /* the checkpoint being written (its final name) */

/* Names the checkpoint by its final path and the file by its name (not the temporary
 * directory's, which is gone when the user reads this). */
static int write_fail(const char *path, const char *what)
{
	const char *slash = strrchr(path, '/');
	int in_tmp = slash && strstr(path, ".tmp-") && slash > strstr(path, ".tmp-");
	fprintf(stderr, "tide: cannot write the checkpoint %s%s%s%s: %s; any previous checkpoint "
	        "there is kept.\n", writing_dir, in_tmp ? " (file " : "", in_tmp ? slash + 1 : "",
	        in_tmp ? ")" : "", what);
	return -1;
}

static int write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f) return write_fail(path, tide_io_reason(errno));
	size_t w = fwrite(p, 1, n, f);
	int e = errno;
	if (w != n || fflush(f) || fsync(fileno(f))) {
		e = errno ? errno : e;
		fclose(f);
		return write_fail(path, tide_io_reason(e));
	}
	if (fclose(f)) return write_fail(path, tide_io_reason(errno));
	return 0;
}

/* Reads n types stored as uint32_t values (tide_ckpt_field) into bytes; *bad: one is not a
 * tide_ptype. */
static int read_types(FILE *f, uint8_t *t, size_t n, int *bad)
{
	uint32_t w[4096];
	for (size_t i = 0; i < n; i += 4096) {
		size_t m = n - i < 4096 ? n - i : 4096;
		if (fread(w, sizeof *w, m, f) != m) return 0;
		for (size_t k = 0; k < m; k++) {
			if (w[k] > TIDE_NBODY) return !(*bad = 1);
			t[i + k] = (uint8_t)w[k];
		}
	}
	return 1;
}

static int hash_file(const char *path, uint64_t *h, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f) return -1;
	unsigned char b[65536];
	size_t n, total = 0;
	*h = TIDE_FNV_INIT;
	while ((n = fread(b, 1, sizeof b, f)) > 0) {
		*h = tide_fnv1a(*h, b, n);
		total += n;
	}
	int bad = ferror(f);
	fclose(f);
	if (size) *size = total;
	return bad ? -1 : 0;
}

/* Writes n elements of elem bytes and hashes them; the one-byte type as uint32_t values
 * (tide_ckpt_field), a chunk at a time. */
static int write_array(FILE *f, const void *p, size_t elem, size_t n, uint64_t *h)
{
	test_delay();
	if (elem != 1) {
		*h = tide_fnv1a(*h, p, n * elem);
		return fwrite(p, elem, n, f) == n;
	}
	const uint8_t *t = p;
	uint32_t w[4096];
	for (size_t i = 0; i < n; i += 4096) {
		size_t m = n - i < 4096 ? n - i : 4096;
		for (size_t k = 0; k < m; k++) w[k] = t[i + k];
		*h = tide_fnv1a(*h, w, m * sizeof *w);
		if (fwrite(w, sizeof *w, m, f) != m) return 0;
	}
	return 1;
}

/* Writes and hashes `bytes` zero bytes. */
static int write_zeros(FILE *f, size_t bytes, uint64_t *h)
{
	static const unsigned char z[16384];
	while (bytes) {
		size_t m = bytes < sizeof z ? bytes : sizeof z;
		*h = tide_fnv1a(*h, z, m);
		if (fwrite(z, 1, m, f) != m) return 0;
		bytes -= m;
	}
	return 1;
}

static int write_particles(const char *path, const tide_block_view *all, uint64_t *h)
{
	FILE *f = fopen(path, "wb");
	if (!f) return write_fail(path, tide_io_reason(errno));
	*h = TIDE_FNV_INIT;
	int ok = 1;
	size_t n = all->count;
#define TIDE_X_WR(name, T) if (ok) ok = write_array(f, all->name, sizeof(T), n, h);
	TIDE_BLOCK_FIELDS(TIDE_X_WR)
	if (ok) ok = write_zeros(f, TIDE_CKPT_KEY_BYTES * n, h); /* the cell keys' place */
	unsigned k = 0; /* then the run's active aux fields, in order (block.h) */
#define TIDE_X_WRA(name, T) if (k++ < all->naux) TIDE_X_WR(name, T)
	TIDE_BLOCK_AUX_FIELDS(TIDE_X_WRA)
#undef TIDE_X_WRA
#undef TIDE_X_WR
	int e = errno;
	if (!ok || fflush(f) || fsync(fileno(f))) {
		e = errno ? errno : e;
		fclose(f);
		return write_fail(path, tide_io_reason(e));
	}
	if (fclose(f)) return write_fail(path, tide_io_reason(errno));
	return 0;
}

static int write_text(const char *path, const tide_ckpt_state *st, const tide_case *c)
{
	FILE *f = fopen(path, "w");
	if (!f) return write_fail(path, tide_io_reason(errno));
	fprintf(f, "# tide checkpoint (format version %u), written by tide %s; the binary header\n"
	        "# header.bin is what a restart reads; this file is for people.\n",
	        TIDE_CKPT_VERSION, st->tide_version);
	fprintf(f, "case: %s\nstep: %lld\ntime: %.17g s\nlast_dt: %.9g s\nverlet_count: %d\n",
	        c->name, (long long)st->step, st->t, (double)st->last.dt, st->verlet_count);
	fprintf(f, "particles: %llu (at start: %llu fluid, %llu boundary)\nranks: %d\n",
	        (unsigned long long)st->n_total, (unsigned long long)st->n_fluid0,
	        (unsigned long long)st->n_bound0, st->nranks);
	fprintf(f, "outputs: %d, next at %.17g s\nhalo_cap: %u\nblocks: %d\n", st->n_outputs,
	        st->next_out, st->halo_cap, st->nblocks);
	for (int b = 0; b < st->nblocks; b++)
		fprintf(f, "  - {cells: [%d, %d) x [%d, %d) x [%d, %d), particles: %u, capacity: %u, "
		        "rank: %d}\n", st->range[b].l0, st->range[b].l1, st->range[b].lo1, st->range[b].hi1,
		        st->range[b].lo2, st->range[b].hi2, st->count[b], st->cap[b], st->owner[b]);
	fprintf(f, "particles.bin FNV-1a 64: %016llx\nused_parameters.yaml FNV-1a 64: %016llx\n",
	        (unsigned long long)st->particles_fnv, (unsigned long long)st->params_fnv);
	errno = 0;
	int bad = ferror(f) || fflush(f) || fsync(fileno(f)), e = errno;
	if (fclose(f) || bad) return write_fail(path, tide_io_reason(e ? e : errno));
	return 0;
}

int tide_checkpoint_write(const char *dir, tide_ckpt_state *st, const tide_block_view *all,
                          const tide_case *c)
{
	char tmp[1100], p[1200], prev[1100];
	writing_dir = dir;
	if (strlen(dir) > 1000) return write_fail(dir, "the path is too long");
	snprintf(st->tide_version, sizeof st->tide_version, "%s", TIDE_VERSION);
	st->n_total = all->count;
	remove_stale_tmp(dir);
	snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", dir);
	if (!mkdtemp(tmp)) return write_fail(tmp, tide_io_reason(errno));

	test_delay();
	snprintf(p, sizeof p, "%s/used_parameters.yaml", tmp);
	errno = 0;
	if (tide_case_write_used(c, p) || hash_file(p, &st->params_fnv, NULL) || fsync_path(p, 0)) {
		write_fail(p, tide_io_reason(errno));
		goto fail;
	}
	snprintf(p, sizeof p, "%s/particles.bin", tmp);
	if (write_particles(p, all, &st->particles_fnv)) goto fail;
	test_delay();
	buf b = {0};
	put_header(&b, st);
	snprintf(p, sizeof p, "%s/header.bin", tmp);
	if (b.bad) {
		write_fail(p, "out of memory");
		free(b.p);
		goto fail;
	}
	int r = write_file(p, b.p, b.n);
	free(b.p);
	if (r) goto fail;
	snprintf(p, sizeof p, "%s/checkpoint.txt", tmp);
	if (write_text(p, st, c)) goto fail;
	if (fsync_path(tmp, 1)) {
		write_fail(tmp, tide_io_reason(errno));
		goto fail;
	}
	test_delay();

	struct stat sb;
	snprintf(prev, sizeof prev, "%s.prev", dir);
	if (stat(dir, &sb) == 0) {
		/* swap in one step: dir is at every moment the old or the new checkpoint */
		if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE) == 0) {
			remove_dir(tmp);
		} else {
			/* no RENAME_EXCHANGE on this file system: keep the old one as dir.prev until the
			 * new one is in place (a restart falls back to dir.prev) */
			remove_dir(prev);
			if (rename(dir, prev)) {
				write_fail(dir, tide_io_reason(errno));
				goto fail;
			}
			if (rename(tmp, dir)) {
				write_fail(dir, tide_io_reason(errno));
				rename(prev, dir);
				goto fail;
			}
			remove_dir(prev);
		}
	} else if (rename(tmp, dir)) {
		write_fail(dir, tide_io_reason(errno));
		goto fail;
	}
	{
		char parent[1100];
		snprintf(parent, sizeof parent, "%s", dir);
		char *slash = strrchr(parent, '/');
		if (slash) *slash = 0;
		fsync_path(slash ? (parent[0] ? parent : "/") : ".", 1);
	}
	return 0;
fail:
	remove_dir(tmp);
	return -1;
}

/* ---- reading ---- */

static int read_fail(const char *path, const char *what)
{
	fprintf(stderr, "tide: cannot restart from %s: %s.\n", path, what);
	return -1;
}

static int read_all(const char *path, buf *b)
{
	memset(b, 0, sizeof *b);
	FILE *f = fopen(path, "rb");
	if (!f) return read_fail(path, strerror(errno));
	unsigned char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) put(b, chunk, n);
	int bad = ferror(f);
	fclose(f);
	if (bad) return read_fail(path, "read error");
	if (b->bad) return read_fail(path, "out of memory");
	return 0;
}

int tide_checkpoint_read(const char *dir_in, tide_ckpt_state *st, void **mem,
                         tide_block_view *all, tide_case *c)
{
	char dir[1100], p[1200], what[256];
	memset(st, 0, sizeof *st);
	*mem = NULL;
	struct stat sb;
	snprintf(dir, sizeof dir, "%s", dir_in);
	if (stat(dir, &sb) != 0) {
		snprintf(dir, sizeof dir, "%s.prev", dir_in);
		if (stat(dir, &sb) != 0) return read_fail(dir_in, "no such checkpoint directory");
		fprintf(stderr, "tide: %s is missing; restarting from %s (the checkpoint kept while "
		        "the last one was being put in place).\n", dir_in, dir);
	}
	if (!S_ISDIR(sb.st_mode))
		return read_fail(dir, "not a directory (give the checkpoint directory, e.g. "
		                 "runs/NAME/checkpoint)");

	snprintf(p, sizeof p, "%s/header.bin", dir);
	buf b;
	if (read_all(p, &b)) return -1;
	int ret = -1;
	char magic[8];
	uint32_t version, bom;
	get(&b, magic, 8);
	GET(&b, version);
	GET(&b, bom);
	if (b.bad || memcmp(magic, TIDE_CKPT_MAGIC, 8)) {
		read_fail(p, "not a tide checkpoint header (wrong magic number)");
		goto out;
	}
	if (bom != BYTE_ORDER_MARK) {
		read_fail(p, "written on a machine of another byte order");
		goto out;
	}
	if (version != TIDE_CKPT_VERSION) {
		snprintf(what, sizeof what, "checkpoint format version %u, this tide (%s) reads version "
		         "%u", version, TIDE_VERSION, TIDE_CKPT_VERSION);
		read_fail(p, what);
		goto out;
	}
	if (b.n < 8 + 8 ||
	    tide_fnv1a(TIDE_FNV_INIT, b.p, b.n - 8) != *(uint64_t *)(void *)(b.p + b.n - 8)) {
		read_fail(p, "the header's checksum does not match (the file is damaged)");
		goto out;
	}
	get(&b, st->tide_version, sizeof st->tide_version);
	st->tide_version[sizeof st->tide_version - 1] = 0;
	GET(&b, st->step);
	GET(&b, st->t);
	GET(&b, st->verlet_count);
	GET(&b, st->integrator);
	GET(&b, st->last);
	GET(&b, st->rebalances);
	GET(&b, st->nrigid);
	GET(&b, st->rigid);
	GET(&b, st->rigid_pose);
	GET(&b, st->sinks);
	GET(&b, st->nranks);
	GET(&b, st->n_total);
	GET(&b, st->n_fluid0);
	GET(&b, st->n_bound0);
	GET(&b, st->particles_fnv);
	GET(&b, st->params_fnv);
	GET(&b, st->n_outputs);
	GET(&b, st->next_out);
	GET(&b, st->halo_cap);
	GET(&b, st->nblocks);
	if (b.bad || st->nblocks < 1 || st->nblocks > (1 << 24) || st->n_outputs < 0 ||
	    st->n_outputs > (1 << 28) || st->n_total >= UINT32_MAX) {
		read_fail(p, "the header is truncated or holds impossible sizes");
		goto out;
	}
	st->range = malloc(sizeof *st->range * (size_t)st->nblocks);
	st->count = malloc(sizeof *st->count * (size_t)st->nblocks);
	st->cap = malloc(sizeof *st->cap * (size_t)st->nblocks);
	st->owner = malloc(sizeof *st->owner * (size_t)st->nblocks);
	st->out_time = malloc(sizeof *st->out_time * (size_t)(st->n_outputs + 1));
	if (!st->range || !st->count || !st->cap || !st->owner || !st->out_time) {
		read_fail(p, "out of memory");
		goto out;
	}
	uint64_t sum = 0;
	int bad_owner = st->nranks < 1;
	for (int i = 0; i < st->nblocks; i++) {
		GET(&b, st->range[i].l0);
		GET(&b, st->range[i].l1);
		GET(&b, st->range[i].lo1);
		GET(&b, st->range[i].hi1);
		GET(&b, st->range[i].lo2);
		GET(&b, st->range[i].hi2);
		GET(&b, st->range[i].split);
		GET(&b, st->count[i]);
		GET(&b, st->cap[i]);
		int32_t o = -1;
		GET(&b, o);
		st->owner[i] = o;
		bad_owner |= o < 0 || o >= st->nranks;
		sum += st->count[i];
	}
	for (int i = 0; i < st->n_outputs; i++) GET(&b, st->out_time[i]);
	if (b.bad || b.pos + 8 != b.n || sum != st->n_total || bad_owner) {
		read_fail(p, "the header's block table is inconsistent");
		goto out;
	}

	/* the case, as the run used it */
	snprintf(p, sizeof p, "%s/used_parameters.yaml", dir);
	uint64_t h;
	if (hash_file(p, &h, NULL)) {
		read_fail(p, strerror(errno ? errno : EIO));
		goto out;
	}
	if (h != st->params_fnv) {
		read_fail(p, "its checksum does not match the one in header.bin (the file is damaged "
		          "or was edited; give changes with --set instead)");
		goto out;
	}
	if (tide_case_load(p, 0, c)) goto out;
	if (c->integrator != st->integrator) {
		read_fail(p, "its integrator differs from the checkpoint's");
		goto out;
	}

	/* the particles */
	snprintf(p, sizeof p, "%s/particles.bin", dir);
	size_t n = (size_t)st->n_total, size;
	if (hash_file(p, &h, &size)) {
		read_fail(p, strerror(errno ? errno : EIO));
		goto out;
	}
	if (size != n * tide_ckpt_bpp()) {
		snprintf(what, sizeof what, "%zu bytes where %zu particles take %zu (truncated?)", size, n,
		         n * tide_ckpt_bpp());
		read_fail(p, what);
		goto out;
	}
	if (h != st->particles_fnv) {
		read_fail(p, "its checksum does not match the one in header.bin (the file is damaged)");
		goto out;
	}
	*mem = malloc((n ? n : 1) * tide_block_bpp());
	if (!*mem) {
		read_fail(p, "out of host memory");
		goto out;
	}
	*all = tide_block_view_make(*mem, (uint32_t)(n ? n : 1), (uint32_t)n);
	FILE *f = fopen(p, "rb");
	int ok = f != NULL, bad_type = 0;
#define TIDE_X_RD(name, T)                                                                   \
	if (ok) ok = sizeof(T) == 1 ? read_types(f, all->type, n, &bad_type)                     \
	                            : fread(all->name, sizeof(T), n, f) == n;
	TIDE_BLOCK_FIELDS(TIDE_X_RD)
	if (ok) ok = fseek(f, (long)(TIDE_CKPT_KEY_BYTES * n), SEEK_CUR) == 0; /* the keys' place */
	unsigned k = 0;
#define TIDE_X_RDA(name, T) if (k++ < all->naux) TIDE_X_RD(name, T)
	TIDE_BLOCK_AUX_FIELDS(TIDE_X_RDA)
#undef TIDE_X_RDA
#undef TIDE_X_RD
	if (f) fclose(f);
	if (!ok) {
		read_fail(p, bad_type ? "a particle type is not 0 (fluid), 1 (boundary) or 2 (n-body)"
		                      : "read error");
		goto out;
	}
	ret = 0;
out:
	free(b.p);
	if (ret) {
		tide_ckpt_state_free(st);
		free(*mem);
		*mem = NULL;
	}
	return ret;
}
