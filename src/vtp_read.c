// SPDX-License-Identifier: LGPL-2.1-or-later
// Reader of tide's .vtp snapshots and .pvd series (the layout written by src/vtk_output.c).
// The XML header is parsed only as far as tide writes it: the VTKFile, Piece and DataArray tags
// and their attributes; everything is checked against the point count and the file size before
// a byte of data is used.
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "vtp_read.h"

#define HEADER_MAX 65536   /* tide's header is about 1.5 KiB */
#define CHUNK 8192         /* particles converted per read */
#define MAX_ARRAYS 16

static int say(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("tide: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs(".\n", stderr);
	va_end(ap);
	return code;
}

/* A missing file is the user's mistake (bad input); anything else the system's. */
static int open_error(const char *path)
{
	int e = errno;
	return say(e == ENOENT || e == ENOTDIR || e == EISDIR ? TIDE_READ_BAD : TIDE_READ_IO,
	           "cannot read %s: %s", path, strerror(e));
}

static int not_tide(const char *path, const char *why)
{
	return say(TIDE_READ_BAD, "%s is not a tide particle file (.vtp as written by tide run): %s",
	           path, why);
}

/* ---- the XML header ---- */

/* The value of attribute name="..." inside the tag [tag, end), copied to out; 0 or -1. */
static int attr(const char *tag, const char *end, const char *name, char *out, size_t n)
{
	size_t len = strlen(name);
	for (const char *p = tag; p + len + 2 < end; p++) {
		if ((p[-1] != ' ' && p[-1] != '\n' && p[-1] != '\t') || strncmp(p, name, len) ||
		    p[len] != '=' || p[len + 1] != '"')
			continue;
		const char *v = p + len + 2, *q = memchr(v, '"', (size_t)(end - v));
		if (!q || (size_t)(q - v) >= n) return -1;
		memcpy(out, v, (size_t)(q - v));
		out[q - v] = '\0';
		return 0;
	}
	return -1;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	if (!*s || *s == '-') return -1;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (*end || errno) return -1;
	*v = x;
	return 0;
}

/* The tag that starts with "<name" at or after from and before limit: [*tag, *end) or -1. */
static int find_tag(const char *from, const char *limit, const char *name, const char **tag,
                    const char **end)
{
	const char *t = strstr(from, name);
	if (!t || t >= limit) return -1;
	const char *e = strchr(t, '>');
	if (!e || e > limit) return -1;
	*tag = t + 1;   /* attr() looks one character back for the separator */
	*end = e;
	return 0;
}

typedef struct vtp_array {
	char name[32], type[16];
	uint64_t ncomp, offset;
} vtp_array;

/* What tide writes: name, accepted types (element sizes alike), components. */
typedef struct wanted {
	const char *name, *type, *type2;
	int ncomp;
	size_t elsize;
} wanted;

static const wanted arrays[] = {
	{ "Velocity", "Float32", NULL, 3, 4 },   { "Density", "Float32", NULL, 1, 4 },
	{ "Pressure", "Float32", NULL, 1, 4 },   { "Type", "UInt8", NULL, 1, 1 },
	{ "Id", "UInt32", NULL, 1, 4 },          { "Points", "Float64", NULL, 3, 8 },
	{ "connectivity", "Int32", "Int64", 1, 0 }, { "offsets", "Int32", "Int64", 1, 0 },
};
enum { A_VELOCITY, A_DENSITY, A_PRESSURE, A_TYPE, A_ID, A_POINTS, A_CONN, A_OFFSETS, A_COUNT };

typedef struct header {
	uint64_t n;
	long long data;        /* file offset of the first appended byte (after '_') */
	vtp_array arr[A_COUNT];
	size_t elsize[A_COUNT];
} header;

static int host_little(void)
{
	const uint16_t one = 1;
	return *(const uint8_t *)&one == 1;
}

static int check_root(const char *path, const char *buf, const char *limit)
{
	const char *t, *e;
	char v[64];
	if (find_tag(buf, limit, "<VTKFile", &t, &e)) return not_tide(path, "no <VTKFile> tag");
	if (attr(t, e, "type", v, sizeof v) || strcmp(v, "PolyData"))
		return not_tide(path, "the VTKFile type is not PolyData");
	if (attr(t, e, "header_type", v, sizeof v) || strcmp(v, "UInt64"))
		return not_tide(path, "the VTKFile header_type is not UInt64");
	if (attr(t, e, "byte_order", v, sizeof v) ||
	    (strcmp(v, "LittleEndian") && strcmp(v, "BigEndian")))
		return not_tide(path, "the VTKFile byte_order is neither LittleEndian nor BigEndian");
	if (strcmp(v, host_little() ? "LittleEndian" : "BigEndian"))
		return say(TIDE_READ_BAD, "%s was written with byte order %s, which this machine does "
		           "not have; convert it with ParaView first", path, v);
	return 0;
}

static int check_piece(const char *path, const char *buf, const char *limit, header *h)
{
	const char *t, *e;
	char v[32];
	uint64_t verts;
	if (find_tag(buf, limit, "<Piece", &t, &e)) return not_tide(path, "no <Piece> tag");
	if (attr(t, e, "NumberOfPoints", v, sizeof v) || parse_u64(v, &h->n))
		return not_tide(path, "the Piece has no valid NumberOfPoints");
	if (attr(t, e, "NumberOfVerts", v, sizeof v) || parse_u64(v, &verts) || verts != h->n)
		return not_tide(path, "NumberOfVerts is not NumberOfPoints (one vertex per particle)");
	return 0;
}

static int wanted_index(const char *name)
{
	for (int k = 0; k < A_COUNT; k++)
		if (!strcmp(arrays[k].name, name)) return k;
	return -1;
}

static int read_arrays(const char *path, const char *buf, const char *limit, header *h)
{
	int seen[A_COUNT] = {0};
	char msg[160], v[32];
	const char *from = buf, *t, *e;
	while (!find_tag(from, limit, "<DataArray", &t, &e)) {
		from = e;
		vtp_array a;
		if (attr(t, e, "Name", a.name, sizeof a.name)) return not_tide(path, "a DataArray has no Name");
		int k = wanted_index(a.name);
		if (k < 0) continue;   /* an array tide does not use: allowed, ignored */
		const wanted *w = &arrays[k];
		if (attr(t, e, "type", a.type, sizeof a.type) ||
		    (strcmp(a.type, w->type) && !(w->type2 && !strcmp(a.type, w->type2)))) {
			snprintf(msg, sizeof msg, "the %s array is not of type %s", a.name, w->type);
			return not_tide(path, msg);
		}
		if (attr(t, e, "NumberOfComponents", v, sizeof v) || parse_u64(v, &a.ncomp) ||
		    a.ncomp != (uint64_t)w->ncomp) {
			snprintf(msg, sizeof msg, "the %s array does not have %d component%s", a.name,
			         w->ncomp, w->ncomp > 1 ? "s" : "");
			return not_tide(path, msg);
		}
		if (attr(t, e, "format", v, sizeof v) || strcmp(v, "appended") ||
		    attr(t, e, "offset", v, sizeof v) || parse_u64(v, &a.offset)) {
			snprintf(msg, sizeof msg, "the %s array is not in appended format with an offset",
			         a.name);
			return not_tide(path, msg);
		}
		h->arr[k] = a;
		h->elsize[k] = w->elsize ? w->elsize : strcmp(a.type, "Int64") ? 4 : 8;
		seen[k] = 1;
	}
	for (int k = 0; k < A_COUNT; k++)
		if (!seen[k]) {
			snprintf(msg, sizeof msg, "it has no %s array", arrays[k].name);
			return not_tide(path, msg);
		}
	return 0;
}

/* Parses the header from the first HEADER_MAX bytes. */
static int parse_header(const char *path, FILE *f, header *h)
{
	char *buf = malloc(HEADER_MAX + 1);
	if (!buf) return say(TIDE_READ_IO, "cannot read %s: out of memory", path);
	size_t got = fread(buf, 1, HEADER_MAX, f);
	if (ferror(f)) {
		free(buf);
		return say(TIDE_READ_IO, "cannot read %s: %s", path, strerror(errno ? errno : EIO));
	}
	/* The binary part may hold NUL bytes: the text ends at the first one. */
	buf[got] = '\0';
	const char *limit = strstr(buf, "<AppendedData");
	int rc = 0;
	const char *t, *e;
	char v[16];
	memset(h, 0, sizeof *h);
	if (strncmp(buf, "<?xml", 5) && strncmp(buf, "<VTKFile", 8)) rc = not_tide(path, "it is not XML");
	else if (!limit || find_tag(limit, buf + got, "<AppendedData", &t, &e))
		rc = not_tide(path, "no <AppendedData> section in its first 64 KiB (or it is truncated)");
	else if (attr(t, e, "encoding", v, sizeof v) || strcmp(v, "raw"))
		rc = not_tide(path, "the appended data is not raw (base64 or compressed files are not read)");
	else if (!(rc = check_root(path, buf, limit)) && !(rc = check_piece(path, buf, limit, h)) &&
	         !(rc = read_arrays(path, buf, limit, h))) {
		const char *p = e + 1;
		while (p < buf + got && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
		if (p >= buf + got || *p != '_')
			rc = not_tide(path, "the appended data does not start with '_'");
		else
			h->data = (long long)(p + 1 - buf);
	}
	free(buf);
	return rc;
}

/* ---- the appended arrays ---- */

typedef struct reader {
	const char *path;
	FILE *f;
	long long size;        /* of the file */
	const header *h;
	void *buf;
} reader;

typedef void (*unpack_fn)(void *dst, const void *src, size_t first, size_t count);

/* Checks that array k lies inside the file and that its byte count is the one its type and the
 * point count imply. */
static int check_extent(const reader *r, int k)
{
	const header *h = r->h;
	uint64_t want = h->n * (uint64_t)arrays[k].ncomp * h->elsize[k];
	uint64_t pos = (uint64_t)h->data + h->arr[k].offset;   /* no overflow: offset < 2^63 here */
	if (h->arr[k].offset > (uint64_t)r->size || pos + 8 + want > (uint64_t)r->size)
		return say(TIDE_READ_BAD, "%s is truncated: its %s array needs bytes up to %llu but the "
		           "file has %lld", r->path, arrays[k].name,
		           (unsigned long long)(pos + 8 + want), r->size);
	uint64_t bytes;
	if (fseeko(r->f, (off_t)pos, SEEK_SET) || fread(&bytes, sizeof bytes, 1, r->f) != 1)
		return say(TIDE_READ_IO, "cannot read %s: %s", r->path, strerror(errno ? errno : EIO));
	if (bytes != want)
		return say(TIDE_READ_BAD, "%s is inconsistent: its %s array holds %llu bytes, %llu "
		           "expected for %llu points", r->path, arrays[k].name, (unsigned long long)bytes,
		           (unsigned long long)want, (unsigned long long)h->n);
	return 0;
}

/* Reads array k (positioned by check_extent) chunk by chunk through unpack. */
static int read_array(const reader *r, int k, unpack_fn unpack, void *dst)
{
	int rc = check_extent(r, k);
	if (rc) return rc;
	size_t n = (size_t)r->h->n, el = arrays[k].ncomp * r->h->elsize[k];
	for (size_t first = 0; first < n; first += CHUNK) {
		size_t count = n - first < CHUNK ? n - first : CHUNK;
		if (fread(r->buf, el, count, r->f) != count)
			return say(TIDE_READ_IO, "cannot read %s: %s", r->path,
			           feof(r->f) ? "unexpected end of file" : strerror(errno ? errno : EIO));
		unpack(dst, r->buf, first, count);
	}
	return 0;
}

/* Interleaved 3-component arrays (Points, Velocity) to three separate arrays. */
typedef struct triple {
	void *c[3];
	size_t el;   /* bytes per component */
} triple;

static void unpack_triple(void *dst, const void *src, size_t first, size_t count)
{
	const triple *t = dst;
	const char *p = src;
	for (size_t i = 0; i < count; i++)
		for (int d = 0; d < 3; d++)
			memcpy((char *)t->c[d] + (first + i) * t->el, p + (3 * i + d) * t->el, t->el);
}

static void unpack_4bytes(void *dst, const void *src, size_t first, size_t count)
{
	memcpy((char *)dst + 4 * first, src, 4 * count);
}

static void unpack_type(void *dst, const void *src, size_t first, size_t count)
{
	const uint8_t *t = src;
	for (size_t i = 0; i < count; i++) ((uint32_t *)dst)[first + i] = t[i];
}

static int read_all(const reader *r, tide_particle_set *s, float **pressure)
{
	int rc;
	triple pos = { { s->x, s->y, s->z }, sizeof *s->x }, vel = { { s->vx, s->vy, s->vz }, sizeof *s->vx };
	if ((rc = read_array(r, A_POINTS, unpack_triple, &pos)) ||
	    (rc = read_array(r, A_VELOCITY, unpack_triple, &vel)) ||
	    (rc = read_array(r, A_DENSITY, unpack_4bytes, s->rho)) ||
	    (rc = read_array(r, A_ID, unpack_4bytes, s->id)) ||
	    (rc = read_array(r, A_TYPE, unpack_type, s->type)) ||
	    (rc = pressure ? read_array(r, A_PRESSURE, unpack_4bytes, *pressure)
	                   : check_extent(r, A_PRESSURE)) ||
	    (rc = check_extent(r, A_CONN)) || (rc = check_extent(r, A_OFFSETS)))
		return rc;
	for (size_t i = 0; i < s->n; i++)
		if (s->type[i] != TIDE_FLUID && s->type[i] != TIDE_BOUND)
			return say(TIDE_READ_BAD, "%s is not a tide particle file: particle %zu has Type %u "
			           "(0 fluid and 1 boundary are allowed)", r->path, i, (unsigned)s->type[i]);
	return 0;
}

int tide_vtp_read(const char *path, tide_particle_set *s, float **pressure)
{
	if (pressure) *pressure = NULL;
	s->n = 0;   /* whatever happens, no stale snapshot is left to be taken for this one */
	FILE *f = fopen(path, "rb");
	if (!f) return open_error(path);
	struct stat sb;
	header h;
	int rc = fstat(fileno(f), &sb) ? say(TIDE_READ_IO, "cannot read %s: %s", path, strerror(errno))
	                               : !S_ISREG(sb.st_mode) ? not_tide(path, "it is not a regular file")
	                               : parse_header(path, f, &h);
	if (!rc && h.n > (uint64_t)sb.st_size)   /* each point takes > 8 bytes: a lying header */
		rc = say(TIDE_READ_BAD, "%s is truncated: it declares %llu points in %lld bytes", path,
		         (unsigned long long)h.n, (long long)sb.st_size);
	reader r = { path, f, (long long)sb.st_size, &h, NULL };
	if (!rc) {
		r.buf = malloc(CHUNK * 3 * sizeof(double));
		if (pressure) *pressure = malloc((h.n ? h.n : 1) * sizeof(float));
		if (!r.buf || (pressure && !*pressure) || tide_pset_reserve(s, (size_t)h.n))
			rc = say(TIDE_READ_IO, "cannot read %s: out of memory for %llu particles", path,
			         (unsigned long long)h.n);
	}
	if (!rc) {
		s->n = (size_t)h.n;
		rc = read_all(&r, s, pressure);
	}
	free(r.buf);
	fclose(f);
	if (rc) {
		s->n = 0;
		if (pressure) { free(*pressure); *pressure = NULL; }
	}
	return rc;
}

/* ---- .pvd ---- */

static void xml_unescape(char *s)
{
	static const struct { const char *ent; char c; } ents[] = {
		{ "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' }, { "&quot;", '"' }, { "&apos;", '\'' },
	};
	char *o = s;
	for (const char *p = s; *p;) {
		int done = 0;
		for (size_t k = 0; k < sizeof ents / sizeof ents[0] && !done; k++) {
			size_t len = strlen(ents[k].ent);
			if (!strncmp(p, ents[k].ent, len)) { *o++ = ents[k].c; p += len; done = 1; }
		}
		if (!done) *o++ = *p++;
	}
	*o = '\0';
}

static char *slurp(const char *path, int *rc)
{
	FILE *f = fopen(path, "rb");
	if (!f) { *rc = open_error(path); return NULL; }
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1);
	while (buf) {
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap) break;
		char *b = realloc(buf, 2 * cap + 1);
		if (!b) { free(buf); buf = NULL; break; }
		buf = b;
		cap *= 2;
	}
	*rc = !buf ? say(TIDE_READ_IO, "cannot read %s: out of memory", path)
	    : ferror(f) ? say(TIDE_READ_IO, "cannot read %s: %s", path, strerror(errno ? errno : EIO)) : 0;
	fclose(f);
	if (*rc) { free(buf); return NULL; }
	buf[n] = '\0';
	return buf;
}

static int pvd_add(tide_pvd_list *l, const char *path, const char *file, double t)
{
	char **nf = realloc(l->file, (l->n + 1) * sizeof *nf);
	if (nf) l->file = nf;
	double *nt = nf ? realloc(l->time, (l->n + 1) * sizeof *nt) : NULL;
	if (nt) l->time = nt;
	const char *slash = strrchr(path, '/');
	size_t dir = file[0] == '/' || !slash ? 0 : (size_t)(slash - path) + 1;
	char *full = nt ? malloc(dir + strlen(file) + 1) : NULL;
	if (!full) return say(TIDE_READ_IO, "cannot read %s: out of memory", path);
	memcpy(full, path, dir);
	strcpy(full + dir, file);
	l->file[l->n] = full;
	l->time[l->n++] = t;
	return 0;
}

int tide_pvd_read(const char *path, tide_pvd_list *l)
{
	memset(l, 0, sizeof *l);
	int rc;
	char *buf = slurp(path, &rc);
	if (!buf) return rc;
	const char *end = buf + strlen(buf), *from = buf, *t, *e;
	if (find_tag(buf, end, "<VTKFile", &t, &e) || !strstr(buf, "<Collection"))
		rc = say(TIDE_READ_BAD, "%s is not a ParaView .pvd series: no <VTKFile> with a "
		         "<Collection>", path);
	while (!rc && !find_tag(from, end, "<DataSet", &t, &e)) {
		from = e;
		char ts[64], file[1024], *num_end;
		if (attr(t, e, "timestep", ts, sizeof ts) || attr(t, e, "file", file, sizeof file)) {
			rc = say(TIDE_READ_BAD, "%s: DataSet %zu has no timestep or file attribute", path,
			         l->n + 1);
			break;
		}
		double time = strtod(ts, &num_end);
		if (num_end == ts || *num_end) {
			rc = say(TIDE_READ_BAD, "%s: DataSet %zu has timestep '%s', not a number", path,
			         l->n + 1, ts);
			break;
		}
		xml_unescape(file);
		rc = pvd_add(l, path, file, time);
	}
	if (!rc && l->n == 0) rc = say(TIDE_READ_BAD, "%s lists no snapshot", path);
	free(buf);
	if (rc) tide_pvd_list_free(l);
	return rc;
}

void tide_pvd_list_free(tide_pvd_list *l)
{
	for (size_t i = 0; i < l->n; i++) free(l->file[i]);
	free(l->file);
	free(l->time);
	memset(l, 0, sizeof *l);
}
