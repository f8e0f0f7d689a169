/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading tide's own output back (post-processing: tide probe): a .vtp snapshot as written by
 * tide_vtp_write (VTK XML PolyData, binary appended raw, UInt64 headers) and the .pvd series
 * that lists the snapshots with their times.  Only that layout is accepted: the reader checks
 * every array's name, type, component count and byte count against the point count and the file
 * size, so a foreign, truncated or damaged file is refused with one sentence naming the file and
 * what is wrong, never read as garbage. */
#ifndef TIDE_VTP_READ_H
#define TIDE_VTP_READ_H
#include <stddef.h>
#include "particle_set.h"

/* Return codes of the readers, chosen to be the command's exit codes. */
enum { TIDE_READ_OK = 0, TIDE_READ_IO = 1, TIDE_READ_BAD = 2 };

/* Reads the snapshot at path into s (its arrays are grown as needed and s->n set; s may hold an
 * earlier snapshot).  pressure, when not NULL, receives a malloc'ed copy of the file's Pressure
 * array (the caller frees it).  Returns TIDE_READ_OK, TIDE_READ_BAD (missing file, not a tide
 * .vtp, truncated, inconsistent sizes, byte order of another machine) or TIDE_READ_IO (a read
 * error or out of memory), after printing one sentence. */
int tide_vtp_read(const char *path, tide_particle_set *s, float **pressure);

/* The snapshots of a .pvd series, in file order. */
typedef struct tide_pvd_list {
	size_t n;
	char **file;    /* paths usable as given: a relative name is joined to the .pvd's directory */
	double *time;
} tide_pvd_list;

/* Reads the series at path.  Returns the codes of tide_vtp_read (an empty series is BAD). */
int tide_pvd_read(const char *path, tide_pvd_list *l);
void tide_pvd_list_free(tide_pvd_list *l);

#endif
