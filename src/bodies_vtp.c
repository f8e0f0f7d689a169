// SPDX-License-Identifier: LGPL-2.1-or-later
// bodies_NNNN.vtp: the moving and floating bodies of one output as VTK PolyData (issue 22), a
// vertex per body at its centre carrying its orientation axes, velocities, force and torque,
// so ParaView shows them beside the particles (Glyph filter on AxisX..AxisZ or Velocity).  A
// few dozen numbers per body: written by the snapshot writer thread with the particle files,
// from the rows computed at the output's step (src/bodies_csv.c, the same as bodies.csv's).
// Binary appended raw with UInt64 headers, as the particle files (src/vtk_output.c).
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "output.h"

/* The arrays of the file, in order: name, VTK type, components, and where a row keeps them. */
enum { A_BODY, A_FLOATING, A_AXISX, A_AXISY, A_AXISZ, A_QUAT, A_VEL, A_OMEGA, A_FORCE, A_TORQUE,
       A_POINTS, A_CONN, A_OFFS, A_N };
static const struct {
	const char *section, *name, *type;
	int ncomp, size;
} arr[A_N] = {
	{"PointData", "Body", "Int32", 1, 4},
	{"PointData", "Floating", "UInt8", 1, 1},
	{"PointData", "AxisX", "Float64", 3, 8},
	{"PointData", "AxisY", "Float64", 3, 8},
	{"PointData", "AxisZ", "Float64", 3, 8},
	{"PointData", "Quaternion", "Float64", 4, 8},
	{"PointData", "Velocity", "Float64", 3, 8},
	{"PointData", "AngularVelocity", "Float64", 3, 8},
	{"PointData", "Force", "Float64", 3, 8},
	{"PointData", "Torque", "Float64", 3, 8},
	{"Points", "Points", "Float64", 3, 8},
	{"Verts", "connectivity", "Int32", 1, 4},
	{"Verts", "offsets", "Int32", 1, 4},
};

/* Array a of body b into out (its components). */
static void fill(int a, int b, const tide_body_row *r, void *out)
{
	double R[9], *d = out;
	switch (a) {
	case A_BODY: *(int32_t *)out = b + 1; return;
	case A_FLOATING: *(uint8_t *)out = (uint8_t)r->floating; return;
	case A_CONN: *(int32_t *)out = b; return;
	case A_OFFS: *(int32_t *)out = b + 1; return;
	case A_AXISX: case A_AXISY: case A_AXISZ:
		/* the body's axis e_j turned by its rotation: column j of R(q) */
		tide_quat_matrix(r->q, R);
		for (int i = 0; i < 3; i++) d[i] = R[3 * i + (a - A_AXISX)];
		return;
	case A_QUAT: for (int i = 0; i < 4; i++) d[i] = r->q[i]; return;
	default: {
		const double *src = a == A_VEL ? r->v : a == A_OMEGA ? r->w : a == A_FORCE ? r->F
		                  : a == A_TORQUE ? r->T : r->x;
		for (int i = 0; i < 3; i++) d[i] = src[i];
	}
	}
}

int tide_bodies_vtp_write(const char *path, const tide_body_row *rows, int n)
{
	tide_atomic_file af;
	if (tide_atomic_open(&af, path)) return -1;
	FILE *f = af.f;
	fprintf(f, "<?xml version=\"1.0\"?>\n"
	           "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n"
	           "  <PolyData>\n"
	           "    <Piece NumberOfPoints=\"%d\" NumberOfVerts=\"%d\" NumberOfLines=\"0\" "
	           "NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n",
	        tide_host_little_endian() ? "LittleEndian" : "BigEndian", n, n);
	uint64_t offset = 0;
	for (int a = 0; a < A_N; a++) {
		if (a == 0 || strcmp(arr[a].section, arr[a - 1].section)) {
			if (a) fprintf(f, "      </%s>\n", arr[a - 1].section);
			if (a == 0) fprintf(f, "      <PointData Scalars=\"Body\" Vectors=\"Velocity\">\n");
			else fprintf(f, "      <%s>\n", arr[a].section);
		}
		fprintf(f, "        <DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\" "
		           "format=\"appended\" offset=\"%llu\"/>\n",
		        arr[a].type, arr[a].name, arr[a].ncomp, (unsigned long long)offset);
		offset += sizeof(uint64_t) + (uint64_t)n * arr[a].ncomp * arr[a].size;
	}
	fprintf(f, "      </%s>\n    </Piece>\n  </PolyData>\n  <AppendedData encoding=\"raw\">\n   _",
	        arr[A_N - 1].section);
	int ok = 1;
	for (int a = 0; a < A_N && ok; a++) {
		uint64_t bytes = (uint64_t)n * arr[a].ncomp * arr[a].size;
		ok = fwrite(&bytes, sizeof bytes, 1, f) == 1;
		for (int b = 0; b < n && ok; b++) {
			double buf[4];
			fill(a, b, &rows[b], buf);
			ok = fwrite(buf, (size_t)arr[a].size, (size_t)arr[a].ncomp, f) == (size_t)arr[a].ncomp;
		}
	}
	if (ok) ok = fputs("\n  </AppendedData>\n</VTKFile>\n", f) >= 0;
	return tide_atomic_commit(&af, ok);
}
