/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading particle snapshots back for post-processing (tide probe): what every reader shares.
 * A snapshot is a VTK XML PolyData file (.vtp, vtp_read.h) or one of tide's HDF5 files (.h5,
 * h5_read.h); a series is a ParaView .pvd or an XDMF .xmf listing snapshots with their times.
 * A file may hold only some of the particle fields (output.fields): the caller says which it
 * needs, a missing one is named, the others are reported in a mask.  Every value is checked
 * (finite, positive density, known particle type) before it is used, so a damaged file is
 * refused with one sentence naming the file and the problem, never read as garbage. */
#ifndef TIDE_SNAPSHOT_READ_H
#define TIDE_SNAPSHOT_READ_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "particle_set.h"

/* Return codes of the readers, chosen to be the command's exit codes. */
enum { TIDE_READ_OK = 0, TIDE_READ_IO = 1, TIDE_READ_BAD = 2 };

/* The per-particle fields a snapshot may hold, and their bits in the need/have masks. */
enum tide_field {
	TIDE_FIELD_POSITION, TIDE_FIELD_VELOCITY, TIDE_FIELD_DENSITY, TIDE_FIELD_PRESSURE,
	TIDE_FIELD_TYPE, TIDE_FIELD_ID, TIDE_NFIELDS
};
#define TIDE_READ_BIT(f) (1u << (f))
/* Everything tide writes by default. */
#define TIDE_FIELDS_ALL ((1u << TIDE_NFIELDS) - 1u)

/* The array names: as in tide's files (.vtp point data; Position is the .vtp's <Points>). */
const char *tide_field_name(int field);
/* Components of each field (3 for position and velocity, else 1). */
int tide_field_ncomp(int field);

/* Prints "tide: " fmt "." and a newline on stderr; returns code. */
int tide_read_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "cannot read PATH: out of memory" and "cannot read PATH: " the reason in errno (EIO when 0),
 * as tide_read_fail; they return TIDE_READ_IO. */
int tide_read_nomem(const char *path);
int tide_read_ioerr(const char *path);

/* fopen(path, "rb"), or NULL with *rc set after the sentence (a missing file is BAD). */
FILE *tide_read_open(const char *path, int *rc);

/* Where decoded values of one array go: values [first, first + count) of the array, flattened
 * (value k is component k % ncomp of particle base + k / ncomp), into the set (or the pressure
 * copy), each checked first.  Returns 0, or TIDE_READ_BAD after naming path, the array and the
 * particle. */
typedef struct tide_field_sink {
	const char *path;
	int field;
	tide_particle_set *s;
	float *pressure;
	size_t base;           /* the particle of the array's first value (pieces of a .vtp) */
} tide_field_sink;
int tide_field_store(const tide_field_sink *k, uint64_t first, const double *v, size_t count);

/* After a read: the fields of the set not in the mask have filler values (0; ids 0..n-1). */
void tide_fields_fill_missing(tide_particle_set *s, unsigned have);
/* The sentence for a needed field the file lacks (TIDE_READ_BAD). */
int tide_field_missing(const char *path, int field, unsigned need);

/* Reads the snapshot at path by its extension (.vtp or .h5): the fields in need must be there
 * (position always is needed); have receives the fields found; pressure (when not NULL) a
 * malloc'ed copy of the Pressure array if the file has one, else NULL.  The snapshot's time,
 * where the file records it (a .h5's time attribute), goes to *t with *have_t = 1.
 * Returns TIDE_READ_OK, _BAD or _IO after one sentence; on failure s->n is 0. */
int tide_snapshot_read(const char *path, unsigned need, tide_particle_set *s, float **pressure,
                       unsigned *have, double *t, int *have_t);

/* The snapshots of a series, in file order. */
typedef struct tide_pvd_list {
	size_t n;
	char **file;    /* paths usable as given: a relative name is joined to the series' directory */
	double *time;
} tide_pvd_list;
/* Reads a .pvd or .xmf series (by extension).  An empty series is BAD. */
int tide_series_read(const char *path, tide_pvd_list *l);
/* Appends file (joined to the directory of series_path when relative) at time t; 0 or IO. */
int tide_pvd_list_add(tide_pvd_list *l, const char *series_path, const char *file, double t);
void tide_pvd_list_free(tide_pvd_list *l);

#endif
