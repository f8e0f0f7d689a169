// SPDX-License-Identifier: LGPL-2.1-or-later
// Mass properties of the solid a closed triangle mesh encloses (src/mesh_geometry.h): volume,
// centroid and inertia tensor at unit density, from the divergence theorem.  Each outward
// triangle (a, b, c) and the origin span a tetrahedron of signed volume v = a . (b x c) / 6;
// the signed tetrahedra add up to the solid, and a tetrahedron with a vertex at the origin has
// the exact moments
//   int 1 dV = v,   int x dV = v (a + b + c) / 4,
//   int x x^T dV = v / 20 (a a^T + b b^T + c c^T + s s^T),  s = a + b + c
// (the second from the covariance of a simplex: Tonon, J. Math. Stat. 1(1), 2004; the same
// sums as Eberly's "Polyhedral mass properties", written here from those formulas).  The
// vertices are taken relative to the centre of the mesh's bounding box, so that a small body
// far from the origin loses no digits to the large coordinates.
#include <math.h>
#include <string.h>
#include "mesh_geometry.h"

int tide_mesh_mass(const tide_mesh *m, double *V, double c[3], double J[9])
{
	if (m->open_edges || m->nt == 0) return -1;
	double o[3], v0 = 0, m1[3] = {0, 0, 0}, S[9] = {0};
	for (int a = 0; a < 3; a++) o[a] = 0.5 * (m->lo[a] + m->hi[a]);
	for (size_t t = 0; t < m->nt; t++) {
		double p[3][3], s[3];
		for (int k = 0; k < 3; k++)
			for (int a = 0; a < 3; a++) p[k][a] = m->v[3 * (size_t)m->t[3 * t + k] + a] - o[a];
		double v = (p[0][0] * (p[1][1] * p[2][2] - p[1][2] * p[2][1]) -
		            p[0][1] * (p[1][0] * p[2][2] - p[1][2] * p[2][0]) +
		            p[0][2] * (p[1][0] * p[2][1] - p[1][1] * p[2][0])) / 6.0;
		for (int a = 0; a < 3; a++) s[a] = p[0][a] + p[1][a] + p[2][a];
		v0 += v;
		for (int a = 0; a < 3; a++) m1[a] += v * s[a] / 4.0;
		for (int a = 0; a < 3; a++)
			for (int b = 0; b < 3; b++)
				S[3 * a + b] += v / 20.0 * (p[0][a] * p[0][b] + p[1][a] * p[1][b] + p[2][a] * p[2][b] +
				                            s[a] * s[b]);
	}
	if (!(v0 > 0)) return -1;
	/* about the centroid g (relative to o): S_g = S - V g g^T; J = tr(S_g) E - S_g */
	double g[3], tr = 0;
	for (int a = 0; a < 3; a++) g[a] = m1[a] / v0;
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++) S[3 * a + b] -= v0 * g[a] * g[b];
	for (int a = 0; a < 3; a++) tr += S[4 * a];
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++) J[3 * a + b] = (a == b ? tr : 0.0) - S[3 * a + b];
	/* exactly symmetric (the sums above are, up to the order of round-off) */
	for (int a = 0; a < 3; a++)
		for (int b = a + 1; b < 3; b++) J[3 * b + a] = J[3 * a + b] = 0.5 * (J[3 * a + b] + J[3 * b + a]);
	*V = v0;
	for (int a = 0; a < 3; a++) c[a] = o[a] + g[a];
	return 0;
}
