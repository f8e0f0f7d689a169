// SPDX-License-Identifier: LGPL-2.1-or-later
// Reader of the XDMF series (DIR/particles.xmf, as xdmf_output.c writes it) for tide probe:
// expat walks the XML; each uniform grid gives one snapshot, its time from <Time Value="..."/>
// and its file from the heavy-data reference FILE:/dataset of its <Geometry>'s DataItem.
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <expat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "h5_read.h"

typedef struct xmf_parse {
	const char *path;
	XML_Parser p;
	tide_pvd_list *l;
	int rc, in_grid, grid_depth, depth, in_geometry, in_item, ngrid;
	double time;
	int have_time;
	char ref[1100];              /* the geometry DataItem's text */
	size_t nref;
} xmf_parse;

static const char *attr(const XML_Char **atts, const char *name)
{
	for (int k = 0; atts[k]; k += 2)
		if (!strcmp(atts[k], name)) return atts[k + 1];
	return NULL;
}

static void fail_stop(xmf_parse *x, int rc)
{
	x->rc = rc;
	XML_StopParser(x->p, XML_FALSE);
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **atts)
{
	xmf_parse *x = ud;
	x->depth++;
	if (x->rc) return;
	if (x->depth == 1 && strcmp(name, "Xdmf")) {
		fail_stop(x, tide_read_fail(TIDE_READ_BAD, "%s is not an XDMF series: its root element is "
		                            "<%s>, not <Xdmf>", x->path, name));
	} else if (!strcmp(name, "Grid")) {
		const char *gt = attr(atts, "GridType");
		if (!gt || !strcmp(gt, "Uniform")) {
			x->in_grid = 1;
			x->grid_depth = x->depth;
			x->have_time = 0;
			x->nref = 0;
			x->ngrid++;
		}
	} else if (x->in_grid && !strcmp(name, "Time")) {
		const char *v = attr(atts, "Value");
		char *end;
		x->time = v ? strtod(v, &end) : NAN;
		if (!v || end == v || *end || !isfinite(x->time))
			fail_stop(x, tide_read_fail(TIDE_READ_BAD, "%s: grid %d has a Time without a valid "
			                            "Value", x->path, x->ngrid));
		x->have_time = 1;
	} else if (x->in_grid && !strcmp(name, "Geometry")) {
		x->in_geometry = 1;
	} else if (x->in_geometry && !strcmp(name, "DataItem") && !x->nref) {
		x->in_item = 1;
	}
}

static int add_grid(xmf_parse *x)
{
	char *ref = x->ref;
	ref[x->nref] = '\0';
	while (*ref == ' ' || *ref == '\n' || *ref == '\t' || *ref == '\r') ref++;
	size_t len = strlen(ref);
	while (len && (ref[len - 1] == ' ' || ref[len - 1] == '\n' || ref[len - 1] == '\t' ||
	               ref[len - 1] == '\r'))
		ref[--len] = '\0';
	char *sep = NULL;
	for (char *p = strstr(ref, ":/"); p; p = strstr(p + 1, ":/")) sep = p;
	if (!x->have_time || !sep || sep == ref)
		return tide_read_fail(TIDE_READ_BAD, "%s: grid %d has no %s", x->path, x->ngrid,
		                      !x->have_time ? "<Time Value>" : "geometry in an HDF5 file "
		                      "(DataItem FILE:/dataset)");
	*sep = '\0';
	return tide_pvd_list_add(x->l, x->path, ref, x->time);
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
	xmf_parse *x = ud;
	if (!x->rc) {
		if (x->in_item && !strcmp(name, "DataItem")) x->in_item = 0;
		else if (x->in_geometry && !strcmp(name, "Geometry")) x->in_geometry = 0;
		else if (x->in_grid && x->depth == x->grid_depth) {
			x->in_grid = 0;
			int rc = add_grid(x);
			if (rc) fail_stop(x, rc);
		}
	}
	x->depth--;
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len)
{
	xmf_parse *x = ud;
	if (x->rc || !x->in_item) return;
	if (x->nref + (size_t)len >= sizeof x->ref) {
		fail_stop(x, tide_read_fail(TIDE_READ_BAD, "%s: grid %d names a file path longer than "
		                            "%zu characters", x->path, x->ngrid, sizeof x->ref - 1));
		return;
	}
	memcpy(x->ref + x->nref, s, (size_t)len);
	x->nref += (size_t)len;
}

int tide_xmf_read(const char *path, tide_pvd_list *l)
{
	memset(l, 0, sizeof *l);
	int open_rc;
	FILE *f = tide_read_open(path, &open_rc);
	if (!f) return open_rc;
	xmf_parse *x = calloc(1, sizeof *x);
	char buf[8192];
	int rc = 0;
	if (x) x->p = XML_ParserCreate(NULL);
	if (!x || !x->p) rc = tide_read_nomem(path);
	else {
		x->path = path;
		x->l = l;
		XML_SetUserData(x->p, x);
		XML_SetElementHandler(x->p, on_start, on_end);
		XML_SetCharacterDataHandler(x->p, on_text);
	}
	while (!rc) {
		size_t got = fread(buf, 1, sizeof buf, f);
		if (ferror(f)) {
			rc = tide_read_ioerr(path);
			break;
		}
		if (XML_Parse(x->p, buf, (int)got, got < sizeof buf) == XML_STATUS_ERROR)
			rc = x->rc ? x->rc
			   : tide_read_fail(TIDE_READ_BAD, "%s is not a valid XDMF series: line %lu: %s", path,
			                    (unsigned long)XML_GetCurrentLineNumber(x->p),
			                    XML_ErrorString(XML_GetErrorCode(x->p)));
		if (got < sizeof buf) break;
	}
	if (!rc && l->n == 0) rc = tide_read_fail(TIDE_READ_BAD, "%s lists no snapshot", path);
	if (x && x->p) XML_ParserFree(x->p);
	free(x);
	fclose(f);
	if (rc) tide_pvd_list_free(l);
	return rc;
}
