// SPDX-License-Identifier: LGPL-2.1-or-later
// Internal units of a gas case (include/tide/units.h, src/case_units.h).  The SP-TL case in cgs
// (cases/sp_tl.yaml) and its code-unit twin (cases/sp_tl_code.yaml: 1e17 cm, 1 solar mass,
// G = 1, values rounded to 4 digits) must become the same internal case: the code twin taken
// into the cgs case's internal units agrees with the converted cgs case within 2e-3 (the
// twin's rounding); G becomes 1; every value the float kernels see lies within 1e-8..1e8 (their
// cubes and products fit a float; the particle mass, 1 / N of the domain's, is the smallest)
// where the cgs values overflow a float (h^3); to_internal then back is the identity to 1e-14;
// the code case's internal units are the identity; the SWIFT Units of the internal case are
// the internal units in cgs (an SI case's in cm and g).
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tide/case.h"
#include "tide/gas_params.h"
#include "case_load.h"
#include "case_units.h"
#include "swift_output.h"
#include "test_util.h"

static int near(double a, double b, double tol) { return fabs(a - b) <= tol * fabs(b); }

/* the case values the comparisons look at */
#define NVAL 14
static void values(const tide_case *c, double v[NVAL])
{
	double w[NVAL] = {c->dp, c->domain.lo[0], c->domain.hi[2], c->sphere[0].r, c->rho0, c->gas.cs,
	                  c->self_gravity.G, c->sinks.density_threshold, c->sinks.accretion_radius,
	                  c->t_end, c->t_out, c->turbulence.mach, tide_case_mass(c),
	                  c->gas.cs * c->gas.cs / (c->self_gravity.G * c->rho0 * c->dp * c->dp)};
	memcpy(v, w, sizeof w);
}
static const char *names[NVAL] = {"dp", "domain.lo.x", "domain.hi.z", "radius", "rho0", "cs", "G",
                                  "sink threshold", "r_acc", "t_end", "t_out", "mach", "m",
                                  "cs^2/(G rho0 dp^2)"};

int main(int argc, char **argv)
{
	const char *root = argc > 1 ? argv[1] : ".";
	char p1[1200], p2[1200];
	snprintf(p1, sizeof p1, "%s/cases/sp_tl.yaml", root);
	snprintf(p2, sizeof p2, "%s/cases/sp_tl_code.yaml", root);
	static tide_case cgs, code, back;
	CHECK(tide_case_load(p1, 0, &cgs) == 0, "%s does not load", p1);
	CHECK(tide_case_load(p2, 0, &code) == 0, "%s does not load", p2);
	if (failures) return 1;
	CHECK(cgs.units == TIDE_UNITS_CGS && cgs.self_gravity.G == 6.674e-8, "sp_tl: units %d G %g", cgs.units,
	      cgs.self_gravity.G);
	/* what a float sees in cgs: h^3 */
	double h = 1.2 * cgs.dp;
	CHECK(h * h * h > FLT_MAX, "h^3 = %g fits a float: the test shows nothing", h * h * h);

	tide_unit_system U = tide_case_internal_units(&cgs), I = tide_case_internal_units(&code);
	CHECK(tide_units_is_identity(&I), "code units: internal units not the identity");
	printf("sp_tl internal units: %.6g cm, %.6g g, %.6g s\n", U.length, U.mass, U.time);
	CHECK(near(U.length, 1.2e18, 1e-15), "length unit %g, want the domain's side 1.2e18", U.length);
	back = cgs;
	tide_case_to_internal(&cgs, &U);
	CHECK(cgs.units == TIDE_UNITS_CODE && cgs.code_time == U.time && cgs.code_length == U.length,
	      "internal case: units %d, code_time %g", cgs.units, cgs.code_time);
	tide_swift_units su = tide_swift_case_units(&cgs);
	CHECK(su.length == U.length && su.mass == U.mass && su.time == U.time, "SWIFT units %g %g %g", su.length,
	      su.mass, su.time);

	/* the code twin into the same internal units: lengths in 1e17 cm, masses in 1.989e33 g */
	tide_unit_system W = tide_units_g1_of(U.length / 1e17, U.mass / 1.989e33, 1.0);
	tide_case_rescale(&code, &W, 1);
	double a[NVAL], b[NVAL];
	values(&cgs, a);
	values(&code, b);
	for (int i = 0; i < NVAL; i++) {
		printf("  %-20s cgs -> internal %-12.6g code -> internal %-12.6g\n", names[i], a[i], b[i]);
		CHECK(near(a[i], b[i], 2e-3), "%s: %g from cgs, %g from code units", names[i], a[i], b[i]);
		CHECK(fabs(a[i]) == 0 || (fabs(a[i]) > 1e-8 && fabs(a[i]) < 1e8), "%s internal %g outside 1e-8..1e8", names[i], a[i]);
	}
	CHECK(near(cgs.self_gravity.G, 1.0, 1e-14), "internal G %.17g", cgs.self_gravity.G);

	/* back to cgs */
	tide_case_rescale(&cgs, &U, 0);
	values(&cgs, a);
	values(&back, b);
	for (int i = 0; i < NVAL; i++)
		CHECK(near(a[i], b[i], 1e-14), "%s: %.17g after the round trip, %.17g given", names[i], a[i], b[i]);

	/* an SI case: the SWIFT units in cm and g */
	back.units = TIDE_UNITS_SI;
	back.self_gravity.G = 6.674e-11;
	U = tide_case_internal_units(&back);
	tide_case_to_internal(&back, &U);
	su = tide_swift_case_units(&back);
	CHECK(near(su.length, 100 * U.length, 1e-15) && near(su.mass, 1000 * U.mass, 1e-15), "SI: SWIFT units %g cm %g g",
	      su.length, su.mass);
	if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
	else printf("units: all checks passed\n");
	return failures ? 1 : 0;
}
