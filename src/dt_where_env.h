/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* TIDE_DT_WHERE for tide run: the environment read, the choice (include/tide/dt_where.h) made and
 * applied, the user told. */
#ifndef TIDE_DT_WHERE_ENV_H
#define TIDE_DT_WHERE_ENV_H
/* Applies TIDE_DT_WHERE to tide_dt_combine_cl (after the SPH codelets' own restriction); rank 0
 * warns about an unknown value and says where the combination runs on a GPU rank.  Returns 0,
 * or 2 after the message of a forced kind the rank lacks. */
int tide_dt_where_apply(int ncpu, int ncuda, int rank);
#endif
