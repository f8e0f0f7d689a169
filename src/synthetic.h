/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* tide run --synthetic N (src/synthetic.c, issue 25): the case's physics on a uniform box of
 * fluid of about N particles per rank instead of its geometry (include/tide/lattice.h). */
#ifndef TIDE_SYNTHETIC_H
#define TIDE_SYNTHETIC_H
#include "tide/case.h"
#include "tide/lattice.h"
#include "step_trace.h"

/* Turns c into the synthetic box of about per_rank * nranks particles: a lattice of spacing dp
 * from domain.lo, cube-like (square in 2-D, the last axis taking the remainder), which is the
 * new domain; no walls, bodies, gauges, periodicity, gravity or self-gravity (a fluid at rest).
 * 0, or -1 after one sentence (the gas scheme, or more than 2^32 particles on a line). */
int tide_synthetic_case(tide_case *c, double per_rank, int nranks, tide_lattice *L);

/* The step the host reads when no task computes it (a simulation build): the fluid at rest,
 * dt = physics.cfl h / c0 (the acoustic limit), every particle there, nothing unhealthy. */
void tide_synthetic_step(const tide_case *c, size_t count, tide_step_reduce *r);
/* tide_sim's on_reduce giving that step (arg: the tide_step_reduce) every step. */
int tide_synthetic_reduce(void *arg, long step, tide_step_reduce *r);
#endif
