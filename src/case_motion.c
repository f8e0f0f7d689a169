// SPDX-License-Identifier: LGPL-2.1-or-later
// The `motion` key of obstacles and STL solids (docs/case-format.md): reading and checking its
// segments, writing them into used_parameters.yaml, and deriving the moving bodies' table that
// the codelet body_motion gets (include/tide/motion.h): the segments in the codelet's form (wave
// makers through the Biesel transfer function, src/wavemaker.c) and each body's particle ids.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include "tide/case.h"
#include "case_ctx.h"
#include "case_load.h"
#include "wavemaker.h"

const char *const tide_motion_type_names[] = {"linear", "sine", "rotation", "rotation_sine",
                                              "piston", "flap", "piston_jonswap", NULL};

/* The keys of a segment, and which each type allows (bit j: name j) and requires. */
enum { F_TYPE, F_START, F_END, F_VELOCITY, F_AMPLITUDE, F_PERIOD, F_PHASE, F_CENTRE, F_AXIS,
       F_RATE, F_HEIGHT, F_DEPTH, F_DIRECTION, F_RAMP, F_HINGE, F_GAMMA, F_SEED, F_COMP, F_N };
static const char *const names[] = {"type", "start", "end", "velocity", "amplitude", "period",
                                    "phase", "centre", "axis", "angular_velocity", "height",
                                    "depth", "direction", "ramp", "hinge_height", "gamma", "seed",
                                    "components", NULL};
#define B(f) (1u << (f))
#define COMMON (B(F_TYPE) | B(F_START) | B(F_END))
static const unsigned allowed[] = {
	[TIDE_MOT_LINEAR] = COMMON | B(F_VELOCITY),
	[TIDE_MOT_SINE] = COMMON | B(F_AMPLITUDE) | B(F_PERIOD) | B(F_PHASE),
	[TIDE_MOT_ROTATION] = COMMON | B(F_CENTRE) | B(F_AXIS) | B(F_RATE),
	[TIDE_MOT_ROTATION_SINE] = COMMON | B(F_CENTRE) | B(F_AXIS) | B(F_AMPLITUDE) | B(F_PERIOD) | B(F_PHASE),
	[TIDE_MOT_PISTON] = COMMON | B(F_HEIGHT) | B(F_PERIOD) | B(F_DEPTH) | B(F_DIRECTION) | B(F_RAMP) | B(F_PHASE),
	[TIDE_MOT_FLAP] = COMMON | B(F_HEIGHT) | B(F_PERIOD) | B(F_DEPTH) | B(F_CENTRE) | B(F_AXIS) |
	                  B(F_RAMP) | B(F_PHASE) | B(F_HINGE),
	[TIDE_MOT_PISTON_JONSWAP] = COMMON | B(F_HEIGHT) | B(F_PERIOD) | B(F_DEPTH) | B(F_DIRECTION) |
	                            B(F_RAMP) | B(F_GAMMA) | B(F_SEED) | B(F_COMP),
};
/* required (the axis in 3-D only: 2-D rotations are about y) */
static const unsigned required[] = {
	[TIDE_MOT_LINEAR] = B(F_VELOCITY),
	[TIDE_MOT_SINE] = B(F_AMPLITUDE) | B(F_PERIOD),
	[TIDE_MOT_ROTATION] = B(F_CENTRE) | B(F_AXIS) | B(F_RATE),
	[TIDE_MOT_ROTATION_SINE] = B(F_CENTRE) | B(F_AXIS) | B(F_AMPLITUDE) | B(F_PERIOD),
	[TIDE_MOT_PISTON] = B(F_HEIGHT) | B(F_PERIOD) | B(F_DEPTH),
	[TIDE_MOT_FLAP] = B(F_HEIGHT) | B(F_PERIOD) | B(F_DEPTH) | B(F_CENTRE),
	[TIDE_MOT_PISTON_JONSWAP] = B(F_HEIGHT) | B(F_PERIOD) | B(F_DEPTH),
};

static void allowed_text(int type, char *buf, size_t n)
{
	buf[0] = 0;
	for (int j = 0; j < F_N; j++)
		if (allowed[type] >> j & 1u)
			snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? ", " : "", names[j]);
}

/* A nonzero vector (an axis, a direction), made unit. */
static int get_unit(struct ctx *x, const yaml_node_t *v, const char *path, double out[3])
{
	if (tide_case_get_vec(x, v, path, out)) return -1;
	double n = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
	if (!(n > 0))
		return tide_case_fail(x, tide_case_line_of(v), "key '%s' has zero length; allowed: a nonzero "
		            "vector.", path);
	return 0;
}

static int get_segment(struct ctx *x, const yaml_node_t *item, const char *p, tide_motion_input *m)
{
	const yaml_node_t *v[F_N];
	char q[320], al[200];
	int line = tide_case_line_of(item);
	if (tide_case_get_fields(x, item, p, names, v)) return -1;
	*m = (tide_motion_input){.end = INFINITY, .vec = {1, 0, 0}, .axis = {0, 1, 0}, .ramp = 2,
	                         .gamma = 3.3, .seed = 1, .components = 32};
	snprintf(q, sizeof q, "%s.type", p);
	if (!v[F_TYPE])
		return tide_case_fail(x, line, "missing required key '%s'; allowed: linear, sine, rotation, "
		            "rotation_sine, piston, flap, piston_jonswap.", q);
	if (tide_case_get_name(x, v[F_TYPE], q, tide_motion_type_names, &m->type)) return -1;
	int t = m->type, d3 = x->c->dim == 3;
	allowed_text(t, al, sizeof al);
	for (int j = 0; j < F_N; j++) {
		snprintf(q, sizeof q, "%s.%s", p, names[j]);
		if (v[j] && !(allowed[t] >> j & 1u))
			return tide_case_fail(x, tide_case_line_of(v[j]), "key '%s' is not a key of motion type "
			            "'%s'; allowed for %s: %s.", q, tide_motion_type_names[t],
			            tide_motion_type_names[t], al);
		if (j == F_AXIS && !d3) {
			if (v[j])
				return tide_case_fail(x, tide_case_line_of(v[j]), "key '%s' is for 3-D cases: a 2-D "
				            "case (x-z plane) rotates about the y axis; allowed: no axis.", q);
			continue;
		}
		if (!v[j] && (required[t] >> j & 1u))
			return tide_case_fail(x, line, "missing required key '%s' (motion type '%s'); allowed for "
			            "%s: %s.", q, tide_motion_type_names[t], tide_motion_type_names[t], al);
	}
#define Q(f) (snprintf(q, sizeof q, "%s.%s", p, names[f]), q)
	if (v[F_START] && tide_case_get_num(x, v[F_START], Q(F_START), R_GE, 0, 0, &m->start)) return -1;
	if (v[F_END] && tide_case_get_num(x, v[F_END], Q(F_END), R_GT, 0, 0, &m->end)) return -1;
	if (v[F_END] && !(m->end > m->start))
		return tide_case_fail(x, tide_case_line_of(v[F_END]), "key '%s' = %g is not after start = %g; "
		            "allowed: end > start.", Q(F_END), m->end, m->start);
	int vecamp = t == TIDE_MOT_SINE;
	if (v[F_VELOCITY] && tide_case_get_vec(x, v[F_VELOCITY], Q(F_VELOCITY), m->vec)) return -1;
	if (v[F_AMPLITUDE] && vecamp && tide_case_get_vec(x, v[F_AMPLITUDE], Q(F_AMPLITUDE), m->vec)) return -1;
	if (v[F_AMPLITUDE] && !vecamp &&
	    tide_case_get_num(x, v[F_AMPLITUDE], Q(F_AMPLITUDE), 0, 0, 0, &m->amplitude)) return -1;
	if (v[F_PERIOD] && tide_case_get_num(x, v[F_PERIOD], Q(F_PERIOD), R_GT, 0, 0, &m->period)) return -1;
	if (v[F_PHASE] && tide_case_get_num(x, v[F_PHASE], Q(F_PHASE), 0, 0, 0, &m->phase)) return -1;
	if (v[F_CENTRE] && tide_case_get_vec(x, v[F_CENTRE], Q(F_CENTRE), m->centre)) return -1;
	if (v[F_AXIS] && get_unit(x, v[F_AXIS], Q(F_AXIS), m->axis)) return -1;
	if (v[F_RATE] && tide_case_get_num(x, v[F_RATE], Q(F_RATE), 0, 0, 0, &m->rate)) return -1;
	if (v[F_HEIGHT] && tide_case_get_num(x, v[F_HEIGHT], Q(F_HEIGHT), R_GT, 0, 0, &m->height)) return -1;
	if (v[F_DEPTH] && tide_case_get_num(x, v[F_DEPTH], Q(F_DEPTH), R_GT, 0, 0, &m->depth)) return -1;
	if (v[F_DIRECTION] && get_unit(x, v[F_DIRECTION], Q(F_DIRECTION), m->vec)) return -1;
	if (v[F_RAMP] && tide_case_get_num(x, v[F_RAMP], Q(F_RAMP), R_GE | R_LE, 0, 1000, &m->ramp)) return -1;
	if (v[F_HINGE] && tide_case_get_num(x, v[F_HINGE], Q(F_HINGE), 0, 0, 0, &m->hinge_height)) return -1;
	if (v[F_GAMMA] && tide_case_get_num(x, v[F_GAMMA], Q(F_GAMMA), R_GE | R_LE, 1, 20, &m->gamma)) return -1;
	if (v[F_SEED] && tide_case_get_num(x, v[F_SEED], Q(F_SEED), R_GE | R_LE, 0, 4294967295.0, &m->seed)) return -1;
	if (v[F_COMP] && tide_case_get_num(x, v[F_COMP], Q(F_COMP), R_GE | R_LE, 1, TIDE_MOTION_MAX_COMP,
	                                   &m->components)) return -1;
	for (int j = F_SEED; j <= F_COMP; j++)
		if (v[j] && (j == F_SEED ? m->seed : m->components) != floor(j == F_SEED ? m->seed : m->components))
			return tide_case_fail(x, tide_case_line_of(v[j]), "key '%s' = %g is not a whole number; "
			            "allowed: an integer.", Q(j), j == F_SEED ? m->seed : m->components);
	if (t == TIDE_MOT_FLAP && !(m->hinge_height < m->depth))
		return tide_case_fail(x, tide_case_line_of(v[F_HINGE]), "key '%s' = %g is not below the "
		            "still water level; allowed: hinge_height < depth = %g.", Q(F_HINGE),
		            m->hinge_height, m->depth);
#undef Q
	return 0;
}

int tide_case_get_motion(struct ctx *x, const yaml_node_t *v, const char *path, int kind, int item)
{
	tide_case *c = x->c;
	int list = v->type == YAML_SEQUENCE_NODE, n = 1;
	yaml_node_item_t *it = NULL;
	if (list) {
		it = v->data.sequence.items.start;
		n = (int)(v->data.sequence.items.top - it);
		if (n < 1)
			return tide_case_fail(x, tide_case_line_of(v), "key '%s' is an empty list; allowed: a "
			            "segment {type: ..., ...} or a list of them.", path);
	}
	if (c->nmotion + n > TIDE_MOTION_MAX_SEGS)
		return tide_case_fail(x, tide_case_line_of(v), "key '%s' brings the motion segments of the "
		            "case to %d; allowed: at most %d in all.", path, c->nmotion + n,
		            TIDE_MOTION_MAX_SEGS);
	int bodies = c->tank_motion[1] > 0;
	for (int i = 0; i < TIDE_CASE_MAX_ITEMS; i++)
		bodies += (c->obstacle_motion[i][1] > 0) + (c->solid_motion[i][1] > 0);
	if (bodies + 1 > TIDE_MOTION_MAX_BODIES)
		return tide_case_fail(x, tide_case_line_of(v), "key '%s' makes more than %d moving bodies; "
		            "allowed: at most %d.", path, TIDE_MOTION_MAX_BODIES, TIDE_MOTION_MAX_BODIES);
	int first = c->nmotion;
	for (int s = 0; s < n; s++) {
		const yaml_node_t *seg = list ? yaml_document_get_node(x->doc, it[s]) : v;
		char p[240];
		if (list) snprintf(p, sizeof p, "%s[%d]", path, s);
		else snprintf(p, sizeof p, "%s", path);
		tide_motion_input *m = &c->motion_in[first + s];
		if (get_segment(x, seg, p, m)) return -1;
		/* a tank that is a wave maker would make waves inside itself: not what sloshing is */
		if (kind == 2 && m->type >= TIDE_MOT_PISTON)
			return tide_case_fail(x, tide_case_line_of(seg), "key '%s.type' = '%s' is a wave maker; "
			            "allowed for tank.motion: linear, sine, rotation, rotation_sine.", p,
			            tide_motion_type_names[m->type]);
		if (s > 0 && m->start < m[-1].end)
			return tide_case_fail(x, tide_case_line_of(seg), "key '%s.start' = %g lies before the end "
			            "of the previous segment (%g s): segments overlap in time; allowed: start "
			            ">= %g (segments in time order).", p, m->start, m[-1].end, m[-1].end);
	}
	c->nmotion += n;
	int *slot = kind == 2 ? c->tank_motion : (kind ? c->solid_motion : c->obstacle_motion)[item];
	slot[0] = first;
	slot[1] = n;
	return 0;
}

/* The codelet's form of segment m (g: gravity's magnitude, for wave makers). */
static void derive_segment(const tide_case *c, const tide_motion_input *m, double g,
                           tide_motion_table *T, tide_motion_seg *s)
{
	const double deg = M_PI / 180.0;
	*s = (tide_motion_seg){.t0 = m->start, .t1 = m->end, .e = {0, 1, 0}};
	memcpy(s->c, m->centre, sizeof s->c);
	if (c->dim == 3) memcpy(s->e, m->axis, sizeof s->e);
	s->phase = m->phase * deg;
	if (m->period > 0) s->omega = 2.0 * M_PI / m->period;
	switch (m->type) {
	case TIDE_MOT_LINEAR:
		s->profile = TIDE_PROFILE_LINEAR;
		memcpy(s->a, m->vec, sizeof s->a);
		break;
	case TIDE_MOT_SINE:
		s->profile = TIDE_PROFILE_SINE;
		memcpy(s->a, m->vec, sizeof s->a);
		break;
	case TIDE_MOT_ROTATION:
		s->rot = 1;
		s->profile = TIDE_PROFILE_LINEAR;
		s->amp = m->rate * deg;
		break;
	case TIDE_MOT_ROTATION_SINE:
		s->rot = 1;
		s->profile = TIDE_PROFILE_SINE;
		s->amp = m->amplitude * deg;
		break;
	case TIDE_MOT_PISTON_JONSWAP: { /* each component's stroke from its own transfer function */
		int n = (int)m->components;
		double a[TIDE_MOTION_MAX_COMP], f[TIDE_MOTION_MAX_COMP], phi[TIDE_MOTION_MAX_COMP];
		tide_jonswap(m->height, m->period, m->gamma, n, (unsigned long long)m->seed, a, f, phi);
		s->profile = TIDE_PROFILE_RAMPED_SUM;
		s->ramp = m->ramp * m->period;
		s->comp0 = T->ncomp;
		s->ncomp = n;
		memcpy(s->a, m->vec, sizeof s->a);
		for (int i = 0; i < n; i++) {
			double kd = tide_wave_number(1.0 / f[i], m->depth, g) * m->depth;
			double *q = T->comp[T->ncomp++];
			q[0] = a[i] / tide_piston_transfer(kd); /* H/S = a/X: X, the displacement amplitude */
			q[1] = 2.0 * M_PI * f[i];
			q[2] = phi[i];
		}
		break;
	}
	default: { /* wave makers: the stroke S that makes the target height H */
		double kd = tide_wave_number(m->period, m->depth, g) * m->depth;
		int flap = m->type == TIDE_MOT_FLAP;
		double hs = flap ? tide_flap_transfer(kd, m->hinge_height / m->depth) : tide_piston_transfer(kd);
		double S = m->height / hs;
		s->profile = TIDE_PROFILE_RAMPED_SINE;
		s->ramp = m->ramp * m->period;
		if (flap) {
			s->rot = 1;
			s->amp = atan(0.5 * S / (m->depth - m->hinge_height));
		} else {
			for (int k = 0; k < 3; k++) s->a[k] = 0.5 * S * m->vec[k];
		}
	}
	}
}

static const char *const kind_names[] = {"obstacles", "solids", "tank"};

/* The moving body of item i of kind (0 obstacle, 1 solid, 2 the tank) with segments sl, ids
 * [id0, id1) and reference point ref, into the table. */
static int add_moving(struct ctx *x, int kind, int i, const int sl[2], uint32_t id0, uint32_t id1,
                      const double ref[3], double g)
{
	tide_case *c = x->c;
	tide_motion_table *T = &c->motion;
	char what[32];
	if (kind == 2) snprintf(what, sizeof what, "tank");
	else snprintf(what, sizeof what, "%s[%d]", kind_names[kind], i);
	for (int s = 0; s < sl[1]; s++) {
		const tide_motion_input *m = &c->motion_in[sl[0] + s];
		int wm = m->type == TIDE_MOT_PISTON || m->type == TIDE_MOT_FLAP ||
		         m->type == TIDE_MOT_PISTON_JONSWAP;
		if (m->type == TIDE_MOT_PISTON_JONSWAP && T->ncomp + (int)m->components > TIDE_MOTION_MAX_COMP)
			return tide_case_fail(x, 0, "%s brings the irregular wave makers' components to %d; "
			            "allowed: at most %d in all.", what, T->ncomp + (int)m->components,
			            TIDE_MOTION_MAX_COMP);
		if (wm && !(g > 0))
			return tide_case_fail(x, x->line[tide_case_find_key("physics.gravity")],
			            "key 'physics.gravity' is zero, but %s is a %s wave maker (its stroke comes "
			            "from the dispersion relation); allowed: a nonzero gravity.", what,
			            tide_motion_type_names[m->type]);
		derive_segment(c, m, g, T, &T->seg[T->nseg + s]);
	}
	tide_motion_body *B = &T->body[T->nbody];
	*B = (tide_motion_body){id0, id1, T->nseg, sl[1], {ref[0], ref[1], ref[2]}, 0};
	T->nseg += sl[1];
	T->nbody++;
	return 0;
}

int tide_case_derive_motion(struct ctx *x)
{
	tide_case *c = x->c;
	memset(&c->motion, 0, sizeof c->motion);
	if (!c->nmotion && !c->nfloating) return 0;
	double g = sqrt(c->gravity[0] * c->gravity[0] + c->gravity[1] * c->gravity[1] +
	                c->gravity[2] * c->gravity[2]);
	uint32_t first[2][TIDE_CASE_MAX_ITEMS], end[2][TIDE_CASE_MAX_ITEMS], tank_end = 0;
	if (tide_case_body_ids(c, first, end, &tank_end)) return -1;
	/* moving obstacles, then solids (gauges.c finds the moving obstacles first), then the tank */
	for (int kind = 0; kind < 2; kind++) {
		int n = kind ? c->nsolid : c->nobstacle;
		for (int i = 0; i < n; i++) {
			const int *sl = kind ? c->solid_motion[i] : c->obstacle_motion[i];
			if (!sl[1]) continue;
			const double *lo = kind ? c->solid[i].lo : c->obstacle[i].lo;
			const double *hi = kind ? c->solid[i].hi : c->obstacle[i].hi;
			double ref[3];
			for (int a = 0; a < 3; a++) ref[a] = c->dim == 2 && a == 1 ? 0.0 : 0.5 * (lo[a] + hi[a]);
			if (add_moving(x, kind, i, sl, first[kind][i], end[kind][i], ref, g)) return -1;
		}
	}
	if (c->tank_motion[1]) { /* the tank's walls: ids [0, tank_end), the builder's first */
		if (c->periodic)
			return tide_case_fail(x, x->line[tide_case_find_key("tank.motion")], "key 'tank.motion' is "
			            "given, but the case is periodic (its tank is open along a periodic axis and "
			            "the period is fixed in space); allowed: a moving tank without 'periodic'.");
		double ref[3];
		for (int a = 0; a < 3; a++)
			ref[a] = c->dim == 2 && a == 1 ? 0.0 : 0.5 * (c->tank.box.lo[a] + c->tank.box.hi[a]);
		if (add_moving(x, 2, 0, c->tank_motion, 0, tank_end, ref, g)) return -1;
	}
	return tide_case_derive_floating(x, first, end);
}

/* How far a point of the tank's outer box can move under tank.motion from t = 0 to time.end
 * [m]: a bound for the derived domain (the segments' displacements added up; a rotation moves
 * a point at distance r from its centre by at most the chord 2 r sin(angle / 2)). */
double tide_case_tank_sweep(const tide_case *c, const tide_box *outer)
{
	double D = 0;
	for (int s = 0; s < c->tank_motion[1]; s++) {
		const tide_motion_input *m = &c->motion_in[c->tank_motion[0] + s];
		double dur = fmax(0.0, fmin(m->end, c->t_end) - m->start);
		double len = sqrt(m->vec[0] * m->vec[0] + m->vec[1] * m->vec[1] + m->vec[2] * m->vec[2]);
		double r = 0, ang = 0;
		for (int k = 0; k < 8; k++) { /* farthest corner from the axis point, moved so far */
			double d2 = 0;
			for (int a = 0; a < 3; a++) {
				double p = k >> a & 1 ? outer->hi[a] : outer->lo[a];
				d2 += (p - m->centre[a]) * (p - m->centre[a]);
			}
			r = fmax(r, sqrt(d2) + D);
		}
		switch (m->type) {
		case TIDE_MOT_LINEAR: D += len * dur; continue;
		case TIDE_MOT_SINE: D += 2 * len; continue;
		case TIDE_MOT_ROTATION: ang = fabs(m->rate) * M_PI / 180 * dur; break;
		default: ang = 2 * fabs(m->amplitude) * M_PI / 180; break;
		}
		D += 2 * r * sin(fmin(ang, M_PI) / 2);
	}
	return D;
}

/* ---- used_parameters.yaml ------------------------------------------------------------------ */

static void put_vec(FILE *f, const tide_case *c, const char *key, const double *v)
{
	char b[32];
	fprintf(f, ", %s: [", key);
	for (int j = 0; j < c->dim; j++) fprintf(f, "%s%s", j ? ", " : "", tide_case_num(v[axes_of(c->dim)[j]], b));
	fputc(']', f);
}

void tide_case_put_motion(FILE *f, const tide_case *c, int first, int n)
{
	char b[32];
	fputs(", motion: [", f);
	for (int s = 0; s < n; s++) {
		const tide_motion_input *m = &c->motion_in[first + s];
		unsigned a = allowed[m->type];
		fprintf(f, "%s{type: %s, start: %s", s ? ", " : "", tide_motion_type_names[m->type],
		        tide_case_num(m->start, b));
		if (isfinite(m->end)) fprintf(f, ", end: %s", tide_case_num(m->end, b));
		if (a & B(F_VELOCITY)) put_vec(f, c, "velocity", m->vec);
		if (a & B(F_DIRECTION)) put_vec(f, c, "direction", m->vec);
		if (m->type == TIDE_MOT_SINE) put_vec(f, c, "amplitude", m->vec);
		else if (a & B(F_AMPLITUDE)) fprintf(f, ", amplitude: %s", tide_case_num(m->amplitude, b));
		if (a & B(F_RATE)) fprintf(f, ", angular_velocity: %s", tide_case_num(m->rate, b));
		if (a & B(F_CENTRE)) put_vec(f, c, "centre", m->centre);
		if ((a & B(F_AXIS)) && c->dim == 3) put_vec(f, c, "axis", m->axis);
		if (a & B(F_HEIGHT)) fprintf(f, ", height: %s", tide_case_num(m->height, b));
		if (a & B(F_PERIOD)) fprintf(f, ", period: %s", tide_case_num(m->period, b));
		if (a & B(F_PHASE)) fprintf(f, ", phase: %s", tide_case_num(m->phase, b));
		if (a & B(F_DEPTH)) fprintf(f, ", depth: %s", tide_case_num(m->depth, b));
		if (a & B(F_RAMP)) fprintf(f, ", ramp: %s", tide_case_num(m->ramp, b));
		if (a & B(F_HINGE)) fprintf(f, ", hinge_height: %s", tide_case_num(m->hinge_height, b));
		if (a & B(F_GAMMA))
			fprintf(f, ", gamma: %s, seed: %.0f, components: %.0f", tide_case_num(m->gamma, b),
			        m->seed, m->components);
		fputc('}', f);
	}
	fputc(']', f);
}
