/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Advice that error messages of every layer append (the program's, src/log.h, and the task
 * graph's, which print their own errors with fprintf and know nothing of the program's log). */
#ifndef TIDE_ADVICE_H
#define TIDE_ADVICE_H

/* What to do when the host runs out of memory, appended to "tide: out of host memory for ..." */
#define TIDE_OOM_ADVICE "; use a larger --dp (fewer particles), or more memory (more MPI ranks " \
	"on more nodes)"

#endif
