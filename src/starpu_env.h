/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* StarPU's environment variables that tide relies on, checked before StarPU starts: StarPU
 * aborts with an assertion and a core dump on a negative or non-integer count (STARPU_NCPU=-1,
 * STARPU_NCPU=abc), and silently falls back to its default policy on an unknown STARPU_SCHED. */
#ifndef TIDE_STARPU_ENV_H
#define TIDE_STARPU_ENV_H
#include <stddef.h>

/* 0 when every checked integer variable is unset or an integer in its range; otherwise -1 with
 * one sentence in err naming the variable, its value and what is allowed. */
int tide_starpu_env_check(char *err, size_t n);

/* STARPU_SCHED when it is set to a name that is not one of StarPU's policies (NULL otherwise);
 * *known gets the names StarPU knows, separated by spaces. */
const char *tide_starpu_sched_unknown(char *known, size_t n);

#endif
