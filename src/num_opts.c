// SPDX-License-Identifier: LGPL-2.1-or-later
// Numeric command-line options (src/num_opts.h).  atof and a cast would turn "abc"
// into 0 particles, "3.7" into 3 and 5e9 into a wrapped 32-bit count; strtod with a check of the
// whole text, finiteness, wholeness and the range turns each into one sentence instead.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "num_opts.h"

/* "an integer from 1 to 1500000000", "a finite number > 0", ... */
static void allowed(const tide_num_opt *o, char *buf, size_t n)
{
	const char *what = o->integer ? "an integer" : "a finite number";
	if (isinf(o->hi))
		snprintf(buf, n, "%s %s %.17g", what, o->lo_open ? ">" : ">=", o->lo);
	else if (o->lo_open)
		snprintf(buf, n, "%s > %.17g and <= %.17g", what, o->lo, o->hi);
	else
		snprintf(buf, n, "%s from %.17g to %.17g", what, o->lo, o->hi);
}

int tide_opt_once(const char *cmd, const char *opt, const char **prev, const char *value)
{
	if (*prev) {
		fprintf(stderr, "tide %s: option %s is given twice ('%s' and '%s'); give it once.\n", cmd,
		        opt, *prev, value);
		return -1;
	}
	*prev = value;
	return 0;
}

int tide_num_opt_parse(const char *cmd, tide_num_opt *table, int n, const char *opt,
                       const char *value)
{
	tide_num_opt *o = NULL;
	for (int i = 0; i < n && !o; i++)
		if (!strcmp(table[i].name, opt)) o = &table[i];
	if (!o) return 1;
	if (tide_opt_once(cmd, opt, &o->given, value)) return -1;
	char *end;
	errno = 0;
	double v = strtod(value, &end);
	int ok = end != value && !*end && errno != ERANGE && isfinite(v) && (!o->integer || v == floor(v)) &&
	         (o->lo_open ? v > o->lo : v >= o->lo) && v <= o->hi;
	if (!ok) {
		char a[128];
		allowed(o, a, sizeof a);
		fprintf(stderr, "tide %s: option %s = '%s' is not allowed; allowed: %s.\n", cmd, opt,
		        value, a);
		return -1;
	}
	*o->value = v;
	return 0;
}
