// SPDX-License-Identifier: LGPL-2.1-or-later
// Decoding a VTK XML DataArray's data (src/vtk_data.h): base64, the block header,
// zlib blocks (zlib's uncompress), byte order, element types, ascii numbers.  Values are
// produced a chunk at a time, so a large array needs no full-size copy; every size is checked
// against the point count and the file size before anything is allocated from it.
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "vtk_data.h"

#define CHUNK 8192   /* values converted per call of the sink */

static const struct { const char *name; tide_vtk_type t; } type_names[] = {
	{ "Int8", TIDE_VTK_INT8 },     { "UInt8", TIDE_VTK_UINT8 },     { "Int16", TIDE_VTK_INT16 },
	{ "UInt16", TIDE_VTK_UINT16 }, { "Int32", TIDE_VTK_INT32 },     { "UInt32", TIDE_VTK_UINT32 },
	{ "Int64", TIDE_VTK_INT64 },   { "UInt64", TIDE_VTK_UINT64 },   { "Float32", TIDE_VTK_FLOAT32 },
	{ "Float64", TIDE_VTK_FLOAT64 },
	/* the names of VTK's first XML files */
	{ "Char", TIDE_VTK_INT8 },     { "UnsignedChar", TIDE_VTK_UINT8 }, { "Short", TIDE_VTK_INT16 },
	{ "UnsignedShort", TIDE_VTK_UINT16 }, { "Int", TIDE_VTK_INT32 }, { "UnsignedInt", TIDE_VTK_UINT32 },
	{ "Float", TIDE_VTK_FLOAT32 }, { "Double", TIDE_VTK_FLOAT64 },
};

int tide_vtk_type_parse(const char *name, tide_vtk_type *t)
{
	for (size_t k = 0; k < sizeof type_names / sizeof type_names[0]; k++)
		if (!strcmp(type_names[k].name, name)) { *t = type_names[k].t; return 0; }
	return -1;
}

size_t tide_vtk_type_size(tide_vtk_type t)
{
	static const size_t size[] = { 1, 1, 2, 2, 4, 4, 8, 8, 4, 8 };
	return size[t];
}

/* ---- bytes ---- */

static int b64_value(int c)
{
	if (c >= 'A' && c <= 'Z') return c - 'A';
	if (c >= 'a' && c <= 'z') return c - 'a' + 26;
	if (c >= '0' && c <= '9') return c - '0' + 52;
	if (c == '+') return 62;
	if (c == '/') return 63;
	if (c == '=') return 64;
	return -1;
}

/* The next non-blank character of the text, or EOF. */
static int next_char(tide_vtk_bytes *b)
{
	for (;;) {
		int c;
		if (b->f) c = getc(b->f);
		else c = b->pos < b->len ? (unsigned char)b->mem[b->pos++] : EOF;
		if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return c;
	}
}

/* Decodes the next quartet into b->q; 0, or -1 at the end of the text or a bad character. */
static int next_quartet(tide_vtk_bytes *b)
{
	int v[4];
	for (int k = 0; k < 4; k++) {
		int c = next_char(b);
		if (c == EOF || c == '<') return -1;   /* '<': the closing tag of appended data */
		v[k] = b64_value(c);
		if (v[k] < 0 || (v[k] == 64 && k < 2)) { b->bad = 1; return -1; }
	}
	if (v[2] == 64 && v[3] != 64) { b->bad = 1; return -1; }
	b->q[0] = (unsigned char)(v[0] << 2 | v[1] >> 4);
	b->q[1] = (unsigned char)((v[1] & 15) << 4 | (v[2] & 63) >> 2);
	b->q[2] = (unsigned char)((v[2] & 3) << 6 | (v[3] & 63));
	b->qn = v[2] == 64 ? 1 : v[3] == 64 ? 2 : 3;
	b->qi = 0;
	return 0;
}

/* Reads n bytes; 0, or -1 when the input ends first (or is not base64: b->bad). */
static int get_bytes(tide_vtk_bytes *b, void *dst, size_t n)
{
	unsigned char *o = dst;
	if (!b->base64) {
		if (b->f) return fread(o, 1, n, b->f) == n ? 0 : -1;
		if (b->len - b->pos < n) return -1;
		memcpy(o, b->mem + b->pos, n);
		b->pos += n;
		return 0;
	}
	for (size_t k = 0; k < n; k++) {
		if (b->qi == b->qn && next_quartet(b)) return -1;
		o[k] = b->q[b->qi++];
	}
	return 0;
}

/* ---- values ---- */

static void swap_bytes(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n / 2; i++) {
		unsigned char t = p[i];
		p[i] = p[n - 1 - i];
		p[n - 1 - i] = t;
	}
}

static double element(tide_vtk_type t, const unsigned char *p, int swap)
{
	unsigned char e[8];
	size_t n = tide_vtk_type_size(t);
	memcpy(e, p, n);
	if (swap) swap_bytes(e, n);
	switch (t) {
	case TIDE_VTK_INT8: { int8_t v; memcpy(&v, e, 1); return v; }
	case TIDE_VTK_UINT8: return e[0];
	case TIDE_VTK_INT16: { int16_t v; memcpy(&v, e, 2); return v; }
	case TIDE_VTK_UINT16: { uint16_t v; memcpy(&v, e, 2); return v; }
	case TIDE_VTK_INT32: { int32_t v; memcpy(&v, e, 4); return v; }
	case TIDE_VTK_UINT32: { uint32_t v; memcpy(&v, e, 4); return v; }
	case TIDE_VTK_INT64: { int64_t v; memcpy(&v, e, 8); return (double)v; }
	case TIDE_VTK_UINT64: { uint64_t v; memcpy(&v, e, 8); return (double)v; }
	case TIDE_VTK_FLOAT32: { float v; memcpy(&v, e, 4); return v; }
	case TIDE_VTK_FLOAT64: { double v; memcpy(&v, e, 8); return v; }
	}
	return NAN;
}

/* Turns a stream of element bytes into values for the sink; an element may straddle two
 * pieces of the stream (a block size that is not a multiple of the element size). */
typedef struct converter {
	const tide_vtk_array *a;
	const tide_field_sink *sink;
	size_t el;
	unsigned char carry[8];
	size_t ncarry;
	uint64_t done;           /* values handed over */
	double v[CHUNK];
	size_t nv;
} converter;

static int flush(converter *c)
{
	int rc = c->nv ? tide_field_store(c->sink, c->done, c->v, c->nv) : 0;
	c->done += c->nv;
	c->nv = 0;
	return rc;
}

static int push_value(converter *c, const unsigned char *p)
{
	c->v[c->nv++] = element(c->a->type, p, c->a->swap);
	return c->nv == CHUNK ? flush(c) : 0;
}

static int feed(converter *c, const unsigned char *p, size_t n)
{
	int rc = 0;
	while (n && c->ncarry && !rc) {
		c->carry[c->ncarry++] = *p++;
		n--;
		if (c->ncarry == c->el) { rc = push_value(c, c->carry); c->ncarry = 0; }
	}
	for (; n >= c->el && !rc; p += c->el, n -= c->el) rc = push_value(c, p);
	for (; n && !rc; n--) c->carry[c->ncarry++] = *p++;
	return rc;
}

/* ---- binary data ---- */

static int truncated(const tide_vtk_array *a, const tide_vtk_bytes *b, const char *what)
{
	if (b->bad)
		return tide_read_fail(TIDE_READ_BAD, "%s is damaged: the %s array's %s is not valid base64",
		                      a->path, a->name, what);
	if (b->f && ferror(b->f))
		return tide_read_ioerr(a->path);
	return tide_read_fail(TIDE_READ_BAD, "%s is truncated: the %s array's %s ends early", a->path,
	                      a->name, what);
}

static int header_int(const tide_vtk_array *a, tide_vtk_bytes *b, uint64_t *v)
{
	unsigned char e[8];
	size_t n = a->header64 ? 8 : 4;
	if (get_bytes(b, e, n)) return -1;
	if (a->swap) swap_bytes(e, n);
	if (a->header64) memcpy(v, e, 8);
	else { uint32_t u; memcpy(&u, e, 4); *v = u; }
	return 0;
}

static int wrong_size(const tide_vtk_array *a, uint64_t bytes, uint64_t want)
{
	return tide_read_fail(TIDE_READ_BAD, "%s is inconsistent: its %s array holds %llu bytes, %llu "
	                      "expected for %llu values of %zu bytes", a->path, a->name,
	                      (unsigned long long)bytes, (unsigned long long)want,
	                      (unsigned long long)a->nvalues, tide_vtk_type_size(a->type));
}

static int decode_plain(const tide_vtk_array *a, tide_vtk_bytes *b, converter *c, uint64_t want)
{
	uint64_t bytes;
	if (header_int(a, b, &bytes)) return truncated(a, b, "header");
	if (bytes != want) return wrong_size(a, bytes, want);
	unsigned char buf[CHUNK];
	int rc = 0;
	for (uint64_t left = want; left && !rc;) {
		size_t k = left < sizeof buf ? (size_t)left : sizeof buf;
		if (get_bytes(b, buf, k)) return truncated(a, b, "data");
		rc = feed(c, buf, k);
		left -= k;
	}
	return rc;
}

static int decode_zlib(const tide_vtk_array *a, tide_vtk_bytes *b, converter *c, uint64_t want)
{
	uint64_t nb, bs, last;
	if (header_int(a, b, &nb) || header_int(a, b, &bs) || header_int(a, b, &last))
		return truncated(a, b, "compression header");
	/* Each block takes at least a few bytes of the file, and blocks are what one call of
	 * uncompress can hold. */
	if (nb > a->limit || (nb && (bs == 0 || bs > (1u << 30) || last > bs)))
		return tide_read_fail(TIDE_READ_BAD, "%s is damaged: the %s array's compression header "
		                      "(%llu blocks of %llu bytes, last %llu) is impossible", a->path,
		                      a->name, (unsigned long long)nb, (unsigned long long)bs,
		                      (unsigned long long)last);
	uint64_t total = nb ? (nb - 1) * bs + (last ? last : bs) : 0;
	if (total != want) return wrong_size(a, total, want);
	uint64_t *csize = malloc((nb ? nb : 1) * sizeof *csize);
	unsigned char *ubuf = nb ? malloc(bs) : NULL, *cbuf = NULL;
	int rc = csize && (ubuf || !nb) ? 0
	       : tide_read_fail(TIDE_READ_IO, "cannot read %s: out of memory for the %s array",
	                        a->path, a->name);
	for (uint64_t k = 0; k < nb && !rc; k++)
		if (header_int(a, b, &csize[k])) rc = truncated(a, b, "compression header");
	uint64_t cmax = nb ? compressBound((uLong)bs) : 0;
	if (!rc) cbuf = malloc(cmax ? cmax : 1);
	if (!rc && !cbuf) rc = tide_read_nomem(a->path);
	for (uint64_t k = 0; k < nb && !rc; k++) {
		uint64_t usize = k + 1 == nb && last ? last : bs;
		if (csize[k] > cmax || csize[k] > a->limit) {
			rc = tide_read_fail(TIDE_READ_BAD, "%s is damaged: block %llu of the %s array "
			                    "claims %llu compressed bytes for %llu", a->path,
			                    (unsigned long long)k + 1, a->name, (unsigned long long)csize[k],
			                    (unsigned long long)usize);
			break;
		}
		if (get_bytes(b, cbuf, (size_t)csize[k])) { rc = truncated(a, b, "compressed data"); break; }
		uLongf got = (uLongf)usize;
		int z = uncompress(ubuf, &got, cbuf, (uLong)csize[k]);
		if (z != Z_OK || got != usize) {
			rc = tide_read_fail(TIDE_READ_BAD, "%s is damaged: block %llu of the %s array is not "
			                    "valid zlib data (%s)", a->path, (unsigned long long)k + 1, a->name,
			                    z == Z_OK ? "wrong uncompressed size" : z == Z_DATA_ERROR
			                    ? "corrupt stream" : z == Z_BUF_ERROR ? "more data than the header says"
			                    : zError(z));
			break;
		}
		rc = feed(c, ubuf, (size_t)usize);
	}
	free(cbuf);
	free(ubuf);
	free(csize);
	return rc;
}

int tide_vtk_decode_binary(const tide_vtk_array *a, tide_vtk_bytes *src, const tide_field_sink *sink)
{
	converter *c = calloc(1, sizeof *c);
	if (!c) return tide_read_nomem(a->path);
	c->a = a;
	c->sink = sink;
	c->el = tide_vtk_type_size(a->type);
	uint64_t want = a->nvalues * c->el;
	int rc = a->zlib ? decode_zlib(a, src, c, want) : decode_plain(a, src, c, want);
	if (!rc) rc = flush(c);
	free(c);
	return rc;
}

int tide_vtk_decode_ascii(const tide_vtk_array *a, const char *text, size_t len,
                          const tide_field_sink *sink)
{
	double *v = malloc(CHUNK * sizeof *v);
	if (!v) return tide_read_nomem(a->path);
	uint64_t count = 0, done = 0;
	size_t nv = 0;
	int rc = 0;
	const char *p = text, *end = text + len;
	while (!rc) {
		while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
		if (p == end) break;
		char tok[64], *stop;
		size_t k = 0;
		while (p + k < end && !(p[k] == ' ' || p[k] == '\n' || p[k] == '\r' || p[k] == '\t')) k++;
		if (k >= sizeof tok) k = sizeof tok - 1;
		memcpy(tok, p, k);
		tok[k] = '\0';
		p += k;
		errno = 0;
		double x = strtod(tok, &stop);
		if (stop == tok || *stop) {
			rc = tide_read_fail(TIDE_READ_BAD, "%s is damaged: its ascii %s array holds '%s', not "
			                    "a number", a->path, a->name, tok);
			break;
		}
		if (++count > a->nvalues) break;
		v[nv++] = x;
		if (nv == CHUNK) { rc = tide_field_store(sink, done, v, nv); done += nv; nv = 0; }
	}
	if (!rc && nv) rc = tide_field_store(sink, done, v, nv);
	if (!rc && count != a->nvalues)
		rc = tide_read_fail(TIDE_READ_BAD, "%s is inconsistent: its ascii %s array holds %s%llu "
		                    "values, %llu expected", a->path, a->name,
		                    count > a->nvalues ? "more than " : "",
		                    (unsigned long long)(count > a->nvalues ? a->nvalues : count),
		                    (unsigned long long)a->nvalues);
	free(v);
	return rc;
}
