/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The field of a monopole + traceless quadrupole in double precision, the reference of the
 * interaction tests (test_bh_interact, test_bh_local). */
#ifndef TIDE_TEST_BH_FIELD_REF_H
#define TIDE_TEST_BH_FIELD_REF_H
#include <math.h>

/* The formulas in double: d from the particle to the source, r^2 = d^2 + eps^2,
 *   phi = -M/r - (d.Q.d)/(2 r^5),  a = M d/r^3 - Q d/r^5 + 5/2 (d.Q.d) d/r^7. */
static inline void bh_field_ref(double dx, double dy, double dz, double m, const double q[6], double eps2,
                                double out[6])
{
	double r2 = dx * dx + dy * dy + dz * dz + eps2, r = sqrt(r2);
	double qx = q[0] * dx + q[1] * dy + q[2] * dz;
	double qy = q[1] * dx + q[3] * dy + q[4] * dz;
	double qz = q[2] * dx + q[4] * dy + q[5] * dz;
	double dqd = qx * dx + qy * dy + qz * dz, r3 = r2 * r, r5 = r3 * r2, r7 = r5 * r2;
	out[0] = m * dx / r3 - qx / r5 + 2.5 * dqd * dx / r7;
	out[1] = m * dy / r3 - qy / r5 + 2.5 * dqd * dy / r7;
	out[2] = m * dz / r3 - qz / r5 + 2.5 * dqd * dz / r7;
	out[3] = -m / r - 0.5 * dqd / r5;
	/* the scales of the acceleration and the potential: the sums of their terms' magnitudes
	 * (a quadrupole's terms partly cancel the monopole's, float rounds each term) */
	double ad = sqrt(dx * dx + dy * dy + dz * dz), qn = sqrt(qx * qx + qy * qy + qz * qz);
	out[4] = m * ad / r3 + qn / r5 + 2.5 * fabs(dqd) * ad / r7;
	out[5] = m / r + 0.5 * fabs(dqd) / r5;
}
#endif
