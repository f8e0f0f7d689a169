/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The data of one VTK XML DataArray, decoded to values (post-processing readers, vtp_read.c):
 *  - binary data, raw bytes (appended raw) or base64 text (inline binary, appended base64), as
 *    VTK lays it out: a header of header_type integers (UInt32 or UInt64) then the bytes —
 *    uncompressed: [nbytes] data; vtkZLibDataCompressor: [nblocks, block size, last block size
 *    (0: a full block), compressed size of each block] then the zlib streams one after another;
 *  - ascii data: numbers separated by white space.
 * Header integers and elements are byte-swapped when the file's byte_order is not the host's. */
#ifndef TIDE_VTK_DATA_H
#define TIDE_VTK_DATA_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "snapshot_read.h"

typedef enum tide_vtk_type {
	TIDE_VTK_INT8, TIDE_VTK_UINT8, TIDE_VTK_INT16, TIDE_VTK_UINT16, TIDE_VTK_INT32,
	TIDE_VTK_UINT32, TIDE_VTK_INT64, TIDE_VTK_UINT64, TIDE_VTK_FLOAT32, TIDE_VTK_FLOAT64
} tide_vtk_type;

/* The type named by a DataArray's type attribute (also the legacy names Char, Int, Float...);
 * 0 or -1. */
int tide_vtk_type_parse(const char *name, tide_vtk_type *t);
size_t tide_vtk_type_size(tide_vtk_type t);

/* Where the bytes come from: a file from its current position, or text in memory; base64
 * text is decoded quartet by quartet (padding may end any quartet: VTK encodes the header and
 * the data as separate base64 streams) with white space skipped. */
typedef struct tide_vtk_bytes {
	FILE *f;                 /* NULL: mem */
	const char *mem;
	size_t len, pos;
	int base64;
	unsigned char q[3];      /* decoded bytes of the current quartet not yet used */
	int qn, qi;
	int bad;                 /* set when a character is not base64 */
} tide_vtk_bytes;

/* One array to decode: what the file says about it and how many values it must hold. */
typedef struct tide_vtk_array {
	const char *path, *name;     /* for messages */
	tide_vtk_type type;
	uint64_t nvalues;            /* points x components */
	int header64, swap, zlib;
	uint64_t limit;              /* at most this many bytes can be there (the file size) */
} tide_vtk_array;

/* Decodes binary data from src and hands the values to tide_field_store(sink, ...) in chunks.
 * Returns 0, or TIDE_READ_BAD (truncated, inconsistent sizes, bad zlib or base64 data) or
 * TIDE_READ_IO after one sentence naming the file and the array. */
int tide_vtk_decode_binary(const tide_vtk_array *a, tide_vtk_bytes *src, const tide_field_sink *sink);
/* The same for ascii text [text, text + len). */
int tide_vtk_decode_ascii(const tide_vtk_array *a, const char *text, size_t len,
                          const tide_field_sink *sink);

#endif
