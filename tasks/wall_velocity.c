// SPDX-License-Identifier: LGPL-2.1-or-later
// The prescribed moving bodies' own velocities for the pair code under mDBC noslip/freeslip
// (include/tide/sph_pair.h, tide_wall_velocity): there the ghost pass overwrites the walls'
// velocities with its mirror, which the viscous terms read, while the continuity equation and
// the contact must see the walls move as they do.  A fixed wall's own velocity is zero and a
// floating body's particles keep theirs, so only the prescribed bodies need one: their rigid
// velocity fields u0 + w x (x - c), put into the parameters every force task gets before the
// step's force passes.  The time is the step's start t: the velocity body_motion gave the
// particles there (the end of the last step, or the first step's body_motion at 0) is the one
// the step's ghost pass mirrors about.  With mdbc_before_corrector (symplectic, floating bodies,
// noslip/freeslip: tasks/sph_step.c) the corrector's ghost pass mirrors about the half step's
// velocity, whose time the host does not know when it submits (dt is on the device); the own
// velocity stays t's there, half a step behind for a prescribed body, zero error for the fixed
// walls and the floating bodies.
#include "tide/motion.h"
#include "tide/sph_pair.h"
#include "tide/sph_sim.h"

_Static_assert(TIDE_MAX_WALL == TIDE_MOTION_MAX_BODIES, "the wall table holds every moving body");

void tide_sim_wall_velocities(tide_sim *sim)
{
	tide_sph_params *P = &sim->P;
	P->nwall = 0;
	if (!tide_walls_mirrored(P)) return;
	const tide_motion_table *T = &sim->c->motion;
	for (int k = 0; k < T->nbody; k++) {
		if (T->body[k].rigid) continue; /* a floating body: its particles are not mirrored */
		double u0[3], w[3], c[3];
		tide_motion_velocity_field(T, k, sim->t, u0, w, c);
		int n = P->nwall++;
		P->wall_id0[n] = T->body[k].id0;
		P->wall_id1[n] = T->body[k].id1;
		for (int q = 0; q < 3; q++) {
			P->wall_u0[n][q] = (float)u0[q];
			P->wall_w[n][q] = (float)w[q];
			P->wall_c[n][q] = (float)c[q];
		}
	}
}
