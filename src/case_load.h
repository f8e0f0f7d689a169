/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading a case (src/case_load.c), its overrides and its parameter listing, and building its
 * particles (src/case_build.c): the program's side of a case.  What a case is, and what every
 * layer derives from it, is include/tide/case.h. */
#ifndef TIDE_CASE_LOAD_H
#define TIDE_CASE_LOAD_H
#include <stdio.h>
#include "tide/case.h"
#include "particle_set.h"

/* Reads and validates a case file.  dp_override > 0 replaces the file's dp.  Returns 0, or -1
 * after printing one sentence naming the file, line, key and what is allowed. */
int tide_case_load(const char *path, double dp_override, tide_case *c);

/* The defaults of the scheme, units and gas keys (physics.scheme wcsph, units si; the gas
 * section's documented defaults), for cases made in code. */
void tide_case_gas_defaults(tide_case *c);

/* Applies "--set key.sub=value" overrides (same validation as the file).  Returns 0 or -1. */
int tide_case_set(tide_case *c, const char *assignment);

/* Fills the particle set: boundary particles of the tank walls and obstacles, fluid particles of
 * the fluid boxes (minus any inside obstacles), with hydrostatic initial density.  Ids 0..n-1.
 * Returns 0, -1 (message printed), or -2 when the input gives no fluid particle (message
 * printed: dp larger than every box, or the boxes covered by obstacles). */
int tide_case_build(const tide_case *c, tide_particle_set *s);

/* The particle ids of every box obstacle (first[0][m] .. end[0][m] - 1) and STL solid
 * (first[1][k] ..) as tide_case_build gives them (a counting pass over the boundaries alone),
 * and the end of the tank walls' ids (0 .. tank_end - 1): the moving bodies' id ranges
 * (include/tide/motion.h).  0, or tide_case_build's error. */
int tide_case_body_ids(const tide_case *c, uint32_t first[2][TIDE_CASE_MAX_ITEMS],
                       uint32_t end[2][TIDE_CASE_MAX_ITEMS], uint32_t *tank_end);

/* Before building: refuses (one sentence, -1) a dp giving more than the 4e9 particles that ids
 * allow, or no fluid lattice point at all, both from the boxes and walls (counting would take
 * minutes at 1e9). */
int tide_case_check_size(const tide_case *c);
/* The particle count from the lattice sizes alone, an upper bound (no particle is made). */
double tide_case_particle_estimate(const tide_case *c);

/* "[lo x, lo z]..[hi x, hi z]" (2-D) or with y (3-D), for messages. */
void tide_case_box_text(const tide_case *c, const tide_box *b, char *buf, size_t n);

/* Writes every parameter, defaults included, as YAML ("used_parameters.yaml"). */
int tide_case_write_used(const tide_case *c, const char *path);
/* The same text into an open stream (e.g. to fingerprint a case). */
void tide_case_print(FILE *f, const tide_case *c);

#endif
