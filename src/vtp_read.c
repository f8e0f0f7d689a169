// SPDX-License-Identifier: LGPL-2.1-or-later
// Reader of VTK XML PolyData snapshots (.vtp) and ParaView .pvd series (src/vtp_read.h).
// expat parses the XML; it is stopped at <AppendedData>, whose bytes are not XML, and the
// appended arrays are then read from the file at their offsets.  The data of each array is
// decoded by vtk_data.c.  Everything the header declares is checked (types, components, point
// counts against the file size) before an array is allocated from it.
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <expat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "vtk_data.h"
#include "vtp_read.h"

#define FEED 65536   /* bytes handed to expat per call */

enum { FMT_APPENDED, FMT_BINARY, FMT_ASCII };

typedef struct varray {
	int present, format, ncomp;
	tide_vtk_type type;
	uint64_t offset;             /* appended: from the byte after '_' */
	char *text;                  /* inline: the element's text */
	size_t len, cap;
} varray;

typedef struct vpiece {
	uint64_t n;
	varray a[TIDE_NFIELDS];
} vpiece;

enum { SEC_NONE, SEC_POINTS, SEC_POINTDATA };

typedef struct vparse {
	const char *path;
	XML_Parser p;
	int rc, done, depth, seen_root;
	int header64, swap, zlib, byte_order;
	int section, points_seen;    /* the current Piece child; <Points> holds one array */
	int cur, cur_depth;          /* the array whose text is collected (-1: none) */
	vpiece *piece;
	size_t np;
	long long appended;          /* file offset of the first appended byte (-1: none) */
	int appended_b64;
	uint64_t size;               /* of the file */
} vparse;

static int host_little(void)
{
	const uint16_t one = 1;
	return *(const uint8_t *)&one == 1;
}

static const char *attr(const XML_Char **atts, const char *name)
{
	for (int k = 0; atts[k]; k += 2)
		if (!strcmp(atts[k], name)) return atts[k + 1];
	return NULL;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	if (!s || !*s || *s == '-') return -1;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (*end || errno) return -1;
	*v = x;
	return 0;
}

/* Stops the parse with a failure already printed. */
static void stop(vparse *v, int rc)
{
	v->rc = rc;
	XML_StopParser(v->p, XML_FALSE);
}

static void not_vtp(vparse *v, const char *why, const char *what)
{
	stop(v, tide_read_fail(TIDE_READ_BAD, "%s is not a VTK PolyData file (.vtp): %s%s", v->path,
	                       why, what ? what : ""));
}

static void root(vparse *v, const XML_Char **atts)
{
	const char *type = attr(atts, "type"), *ht = attr(atts, "header_type");
	const char *bo = attr(atts, "byte_order"), *comp = attr(atts, "compressor");
	if (!type || strcmp(type, "PolyData")) {
		not_vtp(v, "its VTKFile type is ", type ? type : "not given");
		return;
	}
	/* VTK files before version 1.0 have no header_type: their headers are UInt32. */
	if (ht && strcmp(ht, "UInt32") && strcmp(ht, "UInt64")) {
		not_vtp(v, "header_type must be UInt32 or UInt64, not ", ht);
		return;
	}
	v->header64 = ht && !strcmp(ht, "UInt64");
	if (bo && strcmp(bo, "LittleEndian") && strcmp(bo, "BigEndian")) {
		not_vtp(v, "byte_order must be LittleEndian or BigEndian, not ", bo);
		return;
	}
	v->byte_order = bo != NULL;
	v->swap = bo && strcmp(bo, host_little() ? "LittleEndian" : "BigEndian") != 0;
	if (comp && strcmp(comp, "vtkZLibDataCompressor")) {
		stop(v, tide_read_fail(TIDE_READ_BAD, "%s is compressed with %s, which tide cannot read "
		                       "(only vtkZLibDataCompressor); re-save it with zlib or no "
		                       "compression", v->path, comp));
		return;
	}
	v->zlib = comp != NULL;
}

static void piece(vparse *v, const XML_Char **atts)
{
	vpiece *np = realloc(v->piece, (v->np + 1) * sizeof *np);
	if (!np) { stop(v, tide_read_nomem(v->path)); return; }
	v->piece = np;
	vpiece *pc = &v->piece[v->np++];
	memset(pc, 0, sizeof *pc);
	if (parse_u64(attr(atts, "NumberOfPoints"), &pc->n))
		not_vtp(v, "a Piece has no valid NumberOfPoints", NULL);
}

static int field_of(const char *name)
{
	for (int f = 1; name && f < TIDE_NFIELDS; f++)
		if (!strcmp(name, tide_field_name(f))) return f;
	return -1;
}

static void data_array(vparse *v, const XML_Char **atts)
{
	int f = -1;
	if (v->section == SEC_POINTS && !v->points_seen++) f = TIDE_FIELD_POSITION;
	else if (v->section == SEC_POINTDATA) f = field_of(attr(atts, "Name"));
	if (f < 0 || v->piece[v->np - 1].a[f].present) return;   /* not an array tide uses */
	varray *a = &v->piece[v->np - 1].a[f];
	const char *type = attr(atts, "type"), *fmt = attr(atts, "format");
	const char *nc = attr(atts, "NumberOfComponents");
	uint64_t ncomp = 1;
	char msg[160];
	if (!type || tide_vtk_type_parse(type, &a->type)) {
		snprintf(msg, sizeof msg, "the %s array's type is %s, not a VTK number type",
		         tide_field_name(f), type ? type : "not given");
		not_vtp(v, msg, NULL);
		return;
	}
	if (nc && (parse_u64(nc, &ncomp) || ncomp == 0 || ncomp > 16)) {
		snprintf(msg, sizeof msg, "the %s array's NumberOfComponents is '%s'", tide_field_name(f), nc);
		not_vtp(v, msg, NULL);
		return;
	}
	a->ncomp = (int)ncomp;
	if (fmt && !strcmp(fmt, "appended")) {
		a->format = FMT_APPENDED;
		if (parse_u64(attr(atts, "offset"), &a->offset)) {
			snprintf(msg, sizeof msg, "the appended %s array has no valid offset", tide_field_name(f));
			not_vtp(v, msg, NULL);
			return;
		}
	} else if (fmt && (!strcmp(fmt, "binary") || !strcmp(fmt, "ascii"))) {
		a->format = !strcmp(fmt, "binary") ? FMT_BINARY : FMT_ASCII;
		v->cur = f;
		v->cur_depth = v->depth;
	} else {
		snprintf(msg, sizeof msg, "the %s array's format is %s (appended, binary or ascii are "
		         "allowed)", tide_field_name(f), fmt ? fmt : "not given");
		not_vtp(v, msg, NULL);
		return;
	}
	a->present = 1;
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **atts)
{
	vparse *v = ud;
	if (v->done) return;
	v->depth++;
	if (v->depth == 1) {
		v->seen_root = 1;
		if (strcmp(name, "VTKFile")) not_vtp(v, "its root element is ", name);
		else root(v, atts);
	} else if (v->depth == 2 && !strcmp(name, "AppendedData")) {
		const char *enc = attr(atts, "encoding");
		if (!enc || (strcmp(enc, "raw") && strcmp(enc, "base64"))) {
			not_vtp(v, "the AppendedData encoding is neither raw nor base64: ", enc ? enc : "none");
			return;
		}
		v->appended_b64 = !strcmp(enc, "base64");
		/* The appended bytes start after the '_' that follows this tag; expat must not see
		 * them. */
		v->appended = (long long)XML_GetCurrentByteIndex(v->p) + XML_GetCurrentByteCount(v->p);
		v->done = 1;
		XML_StopParser(v->p, XML_FALSE);
	} else if (v->depth == 3 && !strcmp(name, "Piece")) {
		piece(v, atts);
	} else if (v->depth == 4 && v->np) {
		v->section = !strcmp(name, "Points") ? SEC_POINTS
		           : !strcmp(name, "PointData") ? SEC_POINTDATA : SEC_NONE;
		v->points_seen = 0;
	} else if (v->depth == 5 && !strcmp(name, "DataArray") && v->np) {
		data_array(v, atts);
	}
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
	vparse *v = ud;
	(void)name;
	if (v->done) return;
	if (v->depth == v->cur_depth) v->cur = -1;
	if (v->depth == 4) v->section = SEC_NONE;
	v->depth--;
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
	vparse *v = ud;
	if (v->done || v->cur < 0 || v->depth != v->cur_depth) return;
	varray *a = &v->piece[v->np - 1].a[v->cur];
	if (a->len + (size_t)len + 1 > a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 4096;
		while (cap < a->len + (size_t)len + 1) cap *= 2;
		char *t = realloc(a->text, cap);
		if (!t) { stop(v, tide_read_nomem(v->path)); return; }
		a->text = t;
		a->cap = cap;
	}
	memcpy(a->text + a->len, s, (size_t)len);
	a->len += (size_t)len;
}

/* Runs expat over the file up to <AppendedData> (or the end). */
static int parse_xml(vparse *v, FILE *f)
{
	char *buf = malloc(FEED);
	if (!buf) return tide_read_nomem(v->path);
	v->p = XML_ParserCreate(NULL);
	if (!v->p) { free(buf); return tide_read_nomem(v->path); }
	XML_SetUserData(v->p, v);
	XML_SetElementHandler(v->p, on_start, on_end);
	XML_SetCharacterDataHandler(v->p, on_text);
	for (;;) {
		size_t got = fread(buf, 1, FEED, f);
		if (ferror(f)) {
			v->rc = tide_read_ioerr(v->path);
			break;
		}
		int last = got < FEED;
		if (XML_Parse(v->p, buf, (int)got, last) == XML_STATUS_ERROR) {
			if (!v->rc && !v->done) {
				enum XML_Error code = XML_GetErrorCode(v->p);
				const char *why = XML_ErrorString(code);
				unsigned long line = XML_GetCurrentLineNumber(v->p);
				/* an XML file cut short, even inside its first tag */
				int cut = code == XML_ERROR_UNCLOSED_TOKEN || code == XML_ERROR_NO_ELEMENTS ||
				          code == XML_ERROR_PARTIAL_CHAR;
				v->rc = v->seen_root || cut
				      ? tide_read_fail(TIDE_READ_BAD, "%s is truncated or damaged: its XML breaks "
				                       "off at line %lu (%s)", v->path, line, why)
				      : tide_read_fail(TIDE_READ_BAD, "%s is not XML (line %lu: %s)", v->path,
				                       line, why);
			}
			break;
		}
		if (last) break;
	}
	XML_ParserFree(v->p);
	free(buf);
	return v->rc;
}

static int blank(int c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/* The appended data starts after '_' (white space may come first). */
static int find_underscore(vparse *v, FILE *f)
{
	if (fseeko(f, (off_t)v->appended, SEEK_SET))
		return tide_read_ioerr(v->path);
	int c;
	do c = getc(f); while (blank(c));
	if (c != '_')
		return tide_read_fail(TIDE_READ_BAD, "%s is %s: its appended data does not start with '_'",
		                      v->path, c == EOF ? "truncated" : "damaged");
	v->appended = ftello(f);
	return 0;
}

/* A file cut anywhere after its header loses its last lines: appended data must be followed
 * by the closing tags (what expat checks for a file without appended data). */
static int check_end(vparse *v, FILE *f)
{
	char tail[512];
	long long from = v->size > sizeof tail - 1 ? (long long)(v->size - (sizeof tail - 1)) : 0;
	size_t got = 0;
	if (!fseeko(f, (off_t)from, SEEK_SET)) got = fread(tail, 1, sizeof tail - 1, f);
	tail[got] = '\0';
	size_t n = got;
	while (n && blank(tail[n - 1])) tail[--n] = '\0';
	const char *end = "</VTKFile>", *close = "</AppendedData>";
	size_t k = strlen(end);
	int ok = n >= k && !strcmp(tail + n - k, end);
	if (ok) {
		n -= k;
		while (n && blank(tail[n - 1])) n--;
		ok = n >= strlen(close) && !strncmp(tail + n - strlen(close), close, strlen(close));
	}
	if (!ok)
		return tide_read_fail(TIDE_READ_BAD, "%s is truncated: it does not end with </AppendedData> "
		                      "and </VTKFile>", v->path);
	return 0;
}

/* The structure checks: every piece has what is needed, with the right components. */
static int check_pieces(vparse *v, unsigned need, unsigned *have, uint64_t *total)
{
	if (!v->np) return tide_read_fail(TIDE_READ_BAD, "%s holds no PolyData Piece", v->path);
	*have = TIDE_FIELDS_ALL;
	*total = 0;
	int binary = 0;
	for (size_t k = 0; k < v->np; k++) {
		vpiece *pc = &v->piece[k];
		for (int f = 0; f < TIDE_NFIELDS; f++) {
			varray *a = &pc->a[f];
			if (!a->present) { *have &= ~TIDE_READ_BIT(f); continue; }
			if (a->ncomp != tide_field_ncomp(f))
				return tide_read_fail(TIDE_READ_BAD, "%s: its %s array has %d component%s, %d "
				                      "expected", v->path, tide_field_name(f), a->ncomp,
				                      a->ncomp > 1 ? "s" : "", tide_field_ncomp(f));
			if (a->format == FMT_APPENDED && v->appended < 0)
				return tide_read_fail(TIDE_READ_BAD, "%s is truncated or damaged: its %s array "
				                      "is appended but the file has no <AppendedData>", v->path,
				                      tide_field_name(f));
			binary |= a->format != FMT_ASCII;
		}
		*total += pc->n;
	}
	for (int f = 0; f < TIDE_NFIELDS; f++)
		if ((need | TIDE_READ_BIT(TIDE_FIELD_POSITION)) & ~*have & TIDE_READ_BIT(f))
			return tide_field_missing(v->path, f, need);
	if (binary && !v->byte_order)
		return tide_read_fail(TIDE_READ_BAD, "%s has binary data but no byte_order attribute on "
		                      "its VTKFile", v->path);
	/* Each point takes bytes in the file (the positions alone), unless zlib packs them. */
	if (*total > (v->zlib ? 400 : 1) * v->size)
		return tide_read_fail(TIDE_READ_BAD, "%s is truncated or damaged: it declares %llu "
		                      "points in %llu bytes", v->path, (unsigned long long)*total,
		                      (unsigned long long)v->size);
	return 0;
}

static int read_array(vparse *v, FILE *f, const vpiece *pc, int field, size_t base,
                      tide_particle_set *s, float *pressure)
{
	const varray *a = &pc->a[field];
	tide_vtk_array arr = { v->path, tide_field_name(field), a->type, pc->n * (uint64_t)a->ncomp,
	                       v->header64, v->swap, v->zlib, v->size };
	tide_field_sink sink = { v->path, field, s, pressure, base };
	if (a->format == FMT_ASCII)
		return tide_vtk_decode_ascii(&arr, a->text ? a->text : "", a->len, &sink);
	tide_vtk_bytes b = { 0 };
	if (a->format == FMT_BINARY) {
		b.mem = a->text ? a->text : "";
		b.len = a->len;
		b.base64 = 1;
	} else {
		if (a->offset > v->size || (uint64_t)v->appended + a->offset > v->size)
			return tide_read_fail(TIDE_READ_BAD, "%s is truncated: its %s array starts at byte "
			                      "%llu of %llu", v->path, arr.name,
			                      (unsigned long long)(v->appended + a->offset),
			                      (unsigned long long)v->size);
		if (fseeko(f, (off_t)(v->appended + (long long)a->offset), SEEK_SET))
			return tide_read_ioerr(v->path);
		b.f = f;
		b.base64 = v->appended_b64;
	}
	return tide_vtk_decode_binary(&arr, &b, &sink);
}

static int read_data(vparse *v, FILE *f, unsigned need, tide_particle_set *s, float **pressure,
                     unsigned *have)
{
	uint64_t total = 0;
	int rc = check_pieces(v, need, have, &total);
	if (rc) return rc;
	int want_p = pressure && (*have & TIDE_READ_BIT(TIDE_FIELD_PRESSURE));
	if (want_p) *pressure = malloc((total ? total : 1) * sizeof(float));
	if ((want_p && !*pressure) || tide_pset_reserve(s, (size_t)total))
		return tide_read_fail(TIDE_READ_IO, "cannot read %s: out of memory for %llu particles",
		                      v->path, (unsigned long long)total);
	s->n = (size_t)total;
	size_t base = 0;
	for (size_t k = 0; k < v->np && !rc; k++) {
		for (int fl = 0; fl < TIDE_NFIELDS && !rc; fl++)
			if (v->piece[k].a[fl].present && (fl != TIDE_FIELD_PRESSURE || want_p))
				rc = read_array(v, f, &v->piece[k], fl, base, s, want_p ? *pressure : NULL);
		base += (size_t)v->piece[k].n;
	}
	if (!rc) tide_fields_fill_missing(s, *have);
	return rc;
}

int tide_vtp_read_fields(const char *path, unsigned need, tide_particle_set *s,
                         float **pressure, unsigned *have)
{
	if (pressure) *pressure = NULL;
	s->n = 0;   /* whatever happens, no stale snapshot is left to be taken for this one */
	int open_rc;
	FILE *f = tide_read_open(path, &open_rc);
	if (!f) return open_rc;
	struct stat sb;
	vparse v = { 0 };
	v.path = path;
	v.cur = v.cur_depth = -1;
	v.appended = -1;
	int rc = fstat(fileno(f), &sb) ? tide_read_ioerr(path)
	       : !S_ISREG(sb.st_mode) ? tide_read_fail(TIDE_READ_BAD, "%s is not a regular file", path) : 0;
	v.size = rc ? 0 : (uint64_t)sb.st_size;
	if (!rc) rc = parse_xml(&v, f);
	if (!rc && v.appended >= 0) rc = check_end(&v, f);
	if (!rc && v.appended >= 0) rc = find_underscore(&v, f);
	unsigned got = 0;
	if (!rc) rc = read_data(&v, f, need, s, pressure, &got);
	for (size_t k = 0; k < v.np; k++)
		for (int fl = 0; fl < TIDE_NFIELDS; fl++) free(v.piece[k].a[fl].text);
	free(v.piece);
	fclose(f);
	if (rc) {
		s->n = 0;
		if (pressure) { free(*pressure); *pressure = NULL; }
	}
	if (have) *have = rc ? 0 : got;
	return rc;
}

int tide_vtp_read(const char *path, tide_particle_set *s, float **pressure)
{
	unsigned need = TIDE_FIELDS_ALL & ~TIDE_READ_BIT(TIDE_FIELD_PRESSURE);
	if (pressure) need |= TIDE_READ_BIT(TIDE_FIELD_PRESSURE);
	return tide_vtp_read_fields(path, need, s, pressure, NULL);
}

/* ---- .pvd ---- */

typedef struct pvd_parse {
	const char *path;
	XML_Parser p;
	tide_pvd_list *l;
	int rc, depth, collection;
} pvd_parse;

static void XMLCALL pvd_start(void *ud, const XML_Char *name, const XML_Char **atts)
{
	pvd_parse *q = ud;
	q->depth++;
	if (q->rc) return;
	if (q->depth == 1 && strcmp(name, "VTKFile")) {
		q->rc = tide_read_fail(TIDE_READ_BAD, "%s is not a ParaView .pvd series: its root element "
		                       "is <%s>, not <VTKFile>", q->path, name);
	} else if (q->depth == 2 && !strcmp(name, "Collection")) {
		q->collection = 1;
	} else if (q->depth == 3 && q->collection && !strcmp(name, "DataSet")) {
		const char *ts = attr(atts, "timestep"), *file = attr(atts, "file");
		char *end;
		double t = ts ? strtod(ts, &end) : 0.0;
		if (!ts || !file)
			q->rc = tide_read_fail(TIDE_READ_BAD, "%s: DataSet %zu has no timestep or file "
			                       "attribute", q->path, q->l->n + 1);
		else if (end == ts || *end)
			q->rc = tide_read_fail(TIDE_READ_BAD, "%s: DataSet %zu has timestep '%s', not a number",
			                       q->path, q->l->n + 1, ts);
		else
			q->rc = tide_pvd_list_add(q->l, q->path, file, t);
	}
	if (q->rc) XML_StopParser(q->p, XML_FALSE);
}

static void XMLCALL pvd_end(void *ud, const XML_Char *name)
{
	(void)name;
	((pvd_parse *)ud)->depth--;
}

int tide_pvd_read(const char *path, tide_pvd_list *l)
{
	memset(l, 0, sizeof *l);
	int open_rc;
	FILE *f = tide_read_open(path, &open_rc);
	if (!f) return open_rc;
	pvd_parse q = { path, XML_ParserCreate(NULL), l, 0, 0, 0 };
	char *buf = malloc(FEED);
	if (!q.p || !buf) q.rc = tide_read_nomem(path);
	else {
		XML_SetUserData(q.p, &q);
		XML_SetElementHandler(q.p, pvd_start, pvd_end);
	}
	while (!q.rc) {
		size_t got = fread(buf, 1, FEED, f);
		if (ferror(f)) {
			q.rc = tide_read_ioerr(path);
			break;
		}
		if (XML_Parse(q.p, buf, (int)got, got < FEED) == XML_STATUS_ERROR && !q.rc)
			q.rc = tide_read_fail(TIDE_READ_BAD, "%s is not a valid .pvd series: line %lu: %s",
			                      path, (unsigned long)XML_GetCurrentLineNumber(q.p),
			                      XML_ErrorString(XML_GetErrorCode(q.p)));
		if (got < FEED) break;
	}
	if (!q.rc && !q.collection)
		q.rc = tide_read_fail(TIDE_READ_BAD, "%s is not a ParaView .pvd series: no <VTKFile> with "
		                      "a <Collection>", path);
	if (!q.rc && l->n == 0) q.rc = tide_read_fail(TIDE_READ_BAD, "%s lists no snapshot", path);
	if (q.p) XML_ParserFree(q.p);
	free(buf);
	fclose(f);
	if (q.rc) tide_pvd_list_free(l);
	return q.rc;
}
