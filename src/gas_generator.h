/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A gas case's generated initial conditions (section generator; docs/case-format.md): the
 * case's keys turned into src/gas_ic.c's generators, in the case's units.  dp is the lattice
 * spacing of the generator's reference state (the shock tube's left state, the Sedov gas, the
 * spheres' lattice before any stretching, the top hat's inside); the particle mass follows
 * from it, and the case's rho0 is derived from that mass as m / dp^3 (tide_case_derive), so
 * that tide_case_mass is the generator's mass. */
#ifndef TIDE_GAS_GENERATOR_H
#define TIDE_GAS_GENERATOR_H
#include <stddef.h>
#include "tide/block.h"
#include "tide/case.h"
#include "gas_ic.h"

/* The particle mass of the case's generator (c->generator.type != TIDE_GEN_NONE). */
double tide_gen_mass(const tide_case *c);

/* The specific energy of the generator's reference state (the shock tube's left state, the
 * Sedov gas's background, the sphere): the case's initial sound speed c0 is the gas's at it. */
double tide_gen_u(const tide_case *c);

/* With v NULL, the number of particles the generator makes; else appends them to v (room for
 * them; ids from v->count) with every field of the gas scheme set.  Returns the count. */
size_t tide_gen_build(const tide_case *c, tide_block_view *v);

/* The case's glass (positions: glass): g->p NULL with positions: lattice.  0, or -1 with why. */
int tide_gen_glass(const tide_case *c, tide_glass *g, char *why, size_t nwhy);

/* The box the generator's particles fill (checked against the domain). */
void tide_gen_box(const tide_case *c, tide_box *b);

#endif
