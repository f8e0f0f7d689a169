// SPDX-License-Identifier: LGPL-2.1-or-later
// The XDMF 3 description (DIR/particles.xmf) of the HDF5 particle files: a temporal collection
// with one uniform Polyvertex grid per .h5, its datasets named as h5_output.c writes them.
// Plain text, no HDF5 needed; written through tide_atomic_file so a reader never sees half.
#include <stdio.h>
#include <string.h>
#include "h5_output.h"

/* One heavy-data reference: Dimensions, number type and the file:/dataset path. */
static void data_item(FILE *f, const char *file, size_t n, int ncomp, const char *type, int prec,
                      const char *dataset)
{
	fprintf(f, "          <DataItem Dimensions=\"%zu", n);
	if (ncomp > 1) fprintf(f, " %d", ncomp);
	fprintf(f, "\" NumberType=\"%s\" Precision=\"%d\" Format=\"HDF\">", type, prec);
	tide_xml_escaped(f, file);
	fprintf(f, ":/%s</DataItem>\n", dataset);
}

static void attribute(FILE *f, const char *file, size_t n, const char *name, int ncomp,
                      const char *type, int prec)
{
	fprintf(f, "        <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"Node\">\n", name,
	        ncomp > 1 ? "Vector" : "Scalar");
	data_item(f, file, n, ncomp, type, prec, name);
	fputs("        </Attribute>\n", f);
}

int tide_xdmf_write(const tide_pvd *x)
{
	tide_atomic_file af;
	if (tide_atomic_open(&af, x->path)) return -1;
	FILE *f = af.f;
	fputs("<?xml version=\"1.0\"?>\n"
	      "<Xdmf Version=\"3.0\">\n"
	      "  <Domain>\n"
	      "    <Grid Name=\"particles\" GridType=\"Collection\" CollectionType=\"Temporal\">\n", f);
	for (size_t i = 0; i < x->n; i++) {
		const char *file = x->file[i];
		size_t n = x->count[i];
		/* the grid is named after its file (particles_0007.h5: particles_0007) */
		const char *base = strrchr(file, '/');
		base = base ? base + 1 : file;
		size_t len = strlen(base);
		if (len > 3 && !strcmp(base + len - 3, ".h5")) len -= 3;
		char name[256];
		snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), base);
		fputs("      <Grid Name=\"", f);
		tide_xml_escaped(f, name);
		fputs("\" GridType=\"Uniform\">\n", f);
		fprintf(f, "        <Time Value=\"%.17g\"/>\n", x->time[i]);
		fprintf(f, "        <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"%zu\" "
		           "NodesPerElement=\"1\">\n", n);
		data_item(f, file, n, 1, "UInt", 4, "Connectivity");
		fputs("        </Topology>\n", f);
		fputs("        <Geometry GeometryType=\"XYZ\">\n", f);
		/* the arrays this file holds (output.fields and output.precision when it was written) */
		unsigned m = x->layout[i];
		data_item(f, file, n, 3, "Float", m & TIDE_LAYOUT_SINGLE ? 4 : 8, "Position");
		fputs("        </Geometry>\n", f);
		if (m & TIDE_OUT_VELOCITY) attribute(f, file, n, "Velocity", 3, "Float", 4);
		if (m & TIDE_OUT_DENSITY) attribute(f, file, n, "Density", 1, "Float", 4);
		if (m & TIDE_OUT_PRESSURE) attribute(f, file, n, "Pressure", 1, "Float", 4);
		if (m & TIDE_OUT_TYPE) attribute(f, file, n, "Type", 1, "UChar", 1);
		if (m & TIDE_OUT_ID) attribute(f, file, n, "Id", 1, "UInt", 4);
		if (m & TIDE_OUT_INTERNAL_ENERGY) attribute(f, file, n, "InternalEnergy", 1, "Float", 4);
		if (m & TIDE_OUT_SMOOTHING_LENGTH) attribute(f, file, n, "SmoothingLength", 1, "Float", 4);
		if (m & TIDE_OUT_SOUND_SPEED) attribute(f, file, n, "SoundSpeed", 1, "Float", 4);
		if (m & TIDE_OUT_MASS) attribute(f, file, n, "Masses", 1, "Float", 4);
		if (m & TIDE_OUT_BODY) attribute(f, file, n, "Body", 1, "Int", 4);
		fputs("      </Grid>\n", f);
	}
	int ok = fputs("    </Grid>\n  </Domain>\n</Xdmf>\n", f) >= 0;
	return tide_atomic_commit(&af, ok);
}
