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

/* Applies "--set key.sub=value" overrides (same validation as the file).  Returns 0 or -1. */
int tide_case_set(tide_case *c, const char *assignment);

/* Fills the particle set: boundary particles of the tank walls and obstacles, fluid particles of
 * the fluid boxes (minus any inside obstacles), with hydrostatic initial density.  Ids 0..n-1.
 * Returns 0 or -1 (message printed). */
int tide_case_build(const tide_case *c, tide_particle_set *s);

/* Writes every parameter, defaults included, as YAML ("used_parameters.yaml"). */
int tide_case_write_used(const tide_case *c, const char *path);
/* The same text into an open stream (e.g. to fingerprint a case). */
void tide_case_print(FILE *f, const tide_case *c);

#endif
