/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sink table of a run (host only; tasks/sinks.c keeps it, the same on every rank; the
 * per-particle maths and the codelets' records are in sink.h).  What the program reads of it:
 * output (sinks.csv, PartType5), the log, checkpoints.
 *
 * Each sink moves by the gas's leapfrog (gas_math.h tide_gas_kick, in double): its half-step
 * velocity vh, kicked by 0.5 (dt_last + dt) a with a = the gas's pull / m + the other sinks'
 * (Plummer-softened, eps); its position drifted by dt vh; v = vh + 0.5 dt a predicted at the
 * step's end.  Accretion adds the gas's mass, momentum and position's first moment (the sink
 * moves to the centre of mass) and keeps the angular momentum about that centre as the sink's
 * spin, so that mass, momentum and angular momentum are conserved exactly in the bookkeeping. */
#ifndef TIDE_SINKS_H
#define TIDE_SINKS_H
#include <stdint.h>
#include <starpu.h>
#include "tide/sink.h"

typedef struct tide_sink_state {
	uint32_t id;          /* 0, 1, ... in creation order */
	uint32_t pad;
	double m;             /* mass */
	double x[3], v[3];    /* position, velocity (predicted at the step's end) */
	double vh[3];         /* the leapfrog's half-step velocity */
	double a[3];          /* acceleration of the last kick */
	double spin[3];       /* angular momentum of the accreted gas about the sink */
	double m_acc;         /* mass accreted since creation (the creation's included) */
	double t_form;        /* time of creation */
	double dtk;           /* the time step of its last kick */
} tide_sink_state;

typedef struct tide_sinks {
	/* parameters (the case's sinks section; G and the gas softening from self_gravity) */
	double rho_thr, r_acc, eps, eps_gas, G, cfl;
	int max;
	/* the table */
	int n;
	uint32_t next_id;
	tide_sink_state s[TIDE_SINK_MAX];
	/* counters: gas particles accreted in all and in the last step; candidates rejected by
	 * each creation test (converging, bound, potential minimum; the fourth, once a region too
	 * large, is no longer used: records grow) */
	uint64_t n_accreted;
	uint32_t acc_step;
	uint64_t rejected[4];
	int grav_pending;     /* sink_gravity submitted this step */
	/* the blocks' records (registered for nrec blocks) */
	int nrec;
	starpu_data_handle_t *hf, *ha, *hr;
	tide_sink_force *f;
	tide_sink_accrete_rec *a;
	tide_sink_region_rec **r;
	uint32_t *rcap;       /* the room of each r[b] (grown when a region pass needs more) */
	/* the creation passes: candidates tested per pass (default TIDE_SINK_CAND_PASS, at most
	 * TIDE_SINK_CAND), the room a region record starts with (TIDE_SINK_REGION); tests set them
	 * small to check that more candidates or region particles than that change nothing */
	int cand_pass;
	uint32_t region0;
	/* over the run: creation passes after a step's first, region passes run again for room,
	 * the most candidates a step's first pass found */
	long passes, regrows;
	uint32_t cand_seen;
} tide_sinks;

/* The table as a checkpoint keeps it (fixed size). */
typedef struct tide_sinks_saved {
	int32_t n;
	uint32_t next_id;
	uint64_t n_accreted;
	uint64_t rejected[4];
	tide_sink_state s[TIDE_SINK_MAX];
} tide_sinks_saved;

struct tide_sim;
/* The table T (NULL: none) into *out; and back into a run's table (n = 0: nothing). */
void tide_sinks_save(const tide_sinks *T, tide_sinks_saved *out);
void tide_sim_sinks_restore(struct tide_sim *sim, const tide_sinks_saved *in);
/* The run's sink table (made at the first call: none before), or NULL without sinks. */
tide_sinks *tide_sim_sinks_table(struct tide_sim *sim);
/* Total mass of the sinks. */
double tide_sinks_mass(const tide_sinks *T);

#endif
