/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A gas case's internal units (include/tide/units.h): which ones a case in cgs or SI gets, and
 * its values converted into them and back.  The one home of the list of the case's dimensional
 * keys and their dimensions. */
#ifndef TIDE_CASE_UNITS_H
#define TIDE_CASE_UNITS_H
#include "tide/case.h"
#include "tide/units.h"

/* The internal units of case c: the identity for code units and for water runs; for a gas case
 * in cgs or SI, the domain's largest side L, the mass rho0 L^dim, and the time that makes G = 1
 * with self-gravity (1 / sqrt(G rho0): the free-fall scale), else L / c0 with c0 the gas's
 * initial sound speed (tide_case_derive: gas.cs, or the ideal gas's at gas.u or at the
 * generator's reference state).  Every value the float
 * kernels see is then O(1) up to the case's own contrasts. */
tide_unit_system tide_case_internal_units(const tide_case *c);

/* Converts every dimensional value of c from the case's units into u (to_internal 1) or back
 * (0); the inverse of each other to double rounding. */
void tide_case_rescale(tide_case *c, const tide_unit_system *u, int to_internal);

/* c, a case in cgs or SI, into its internal units u (tide_case_internal_units, not the
 * identity): its values converted, units: code with code_length, code_mass (cgs) and code_time
 * (s) saying what they are, so that SWIFT snapshots' Units group and initial.file's conversion
 * (gas_input.h) hold. */
void tide_case_to_internal(tide_case *c, const tide_unit_system *u);

/* The units the outputs of a run of case c convert internal values with (tide_units_to_case):
 * the internal units in the case's given units for a case run in them, else the identity. */
tide_unit_system tide_case_output_units(const tide_case *c);

/* The units (enum tide_units) of the outputs of a run of case c: those the case was given in
 * (a case run in internal units writes in them), else the case's. */
int tide_case_output_system(const tide_case *c);

/* The name of the unit of a quantity of dimensions d in the outputs of a run of case c, as the
 * headers of gauges.csv and statistics.csv and the .h5 datasets' "units" attribute write it:
 * "cm/s", "g/cm^3", "erg" in cgs; "m/s", "kg/m^3", "J" in SI (and in code units, which name
 * no unit of their own).  per_width: a 2-D case's extensive quantity (mass, energy, momentum,
 * force: per unit of width, "kg/m", "J/m", "kg/s", "N/m").  "?" for a dimension not listed. */
const char *tide_case_unit_name(const tide_case *c, tide_dim d, int per_width);

#endif
