/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Numeric command-line options (src/num_opts.c): the one parser behind the numbers of tide
 * gravity, tide nbody and tide run.  An integer option takes a whole number (1e6 is allowed, 3.7
 * is not), a real option a finite number; both must lie in their range.  Bad values, and an
 * option given twice, get one sentence on stderr naming the command, the option, the value and
 * what is allowed. */
#ifndef TIDE_NUM_OPTS_H
#define TIDE_NUM_OPTS_H

typedef struct tide_num_opt {
	const char *name;      /* "--n" */
	int integer;           /* 1: a whole number */
	double lo, hi;         /* the range; hi = INFINITY: no upper bound */
	int lo_open;           /* 1: lo itself is excluded (x > lo) */
	double *value;         /* where the parsed value goes */
	const char *given;     /* set by the parser: the text given (NULL: not given yet) */
} tide_num_opt;

/* Parses value for option opt when opt is in table[0..n): 0 done, -1 bad value or a repeat
 * (message printed, "tide CMD: ..."), 1 opt is not in the table. */
int tide_num_opt_parse(const char *cmd, tide_num_opt *table, int n, const char *opt,
                       const char *value);

/* An option that must be given once: *prev is the value given before (NULL: none).  0 and *prev
 * = value, or -1 after the sentence "tide CMD: option OPT is given twice ...". */
int tide_opt_once(const char *cmd, const char *opt, const char **prev, const char *value);
#endif
