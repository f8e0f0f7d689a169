// SPDX-License-Identifier: LGPL-2.1-or-later
// Quantities derived from a case's parameters, in one place so every user agrees on them.
#include <math.h>
#include "tide/case.h"

double tide_case_h(const tide_case *c) { return c->coefh * c->dp; }

double tide_case_mass(const tide_case *c) { return c->rho0 * pow(c->dp, c->dim); }

double tide_case_tait_b(const tide_case *c) { return c->c0 * c->c0 * c->rho0 / c->gamma; }
