/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading VTK XML PolyData back (post-processing: tide probe): a .vtp snapshot — tide's own or
 * any valid one, e.g. re-saved by ParaView or vtkXMLPolyDataWriter — and the .pvd series that
 * lists snapshots with their times.  The XML goes through expat; the arrays may be appended
 * (raw or base64), inline binary (base64) or ascii, uncompressed or vtkZLibDataCompressor
 * blocks, with UInt32 or UInt64 headers, in either byte order, Float32 or Float64 (any numeric
 * type), in any order, over one or several Pieces.  Point data arrays are found by name
 * (Velocity, Density, Pressure, Type, Id); the positions are the <Points> array. */
#ifndef TIDE_VTP_READ_H
#define TIDE_VTP_READ_H
#include <stddef.h>
#include "particle_set.h"
#include "snapshot_read.h"

/* Reads the .vtp at path into s (its arrays are grown as needed and s->n set; s may hold an
 * earlier snapshot) as tide_snapshot_read does: need, have and pressure alike. */
int tide_vtp_read_fields(const char *path, unsigned need, tide_particle_set *s,
                         float **pressure, unsigned *have);

/* tide_vtp_read_fields needing every field tide writes by default (Pressure only when pressure
 * is not NULL, which then receives its malloc'ed copy; the caller frees it). */
int tide_vtp_read(const char *path, tide_particle_set *s, float **pressure);

/* Reads the .pvd series at path.  Returns the codes above (an empty series is BAD). */
int tide_pvd_read(const char *path, tide_pvd_list *l);

#endif
