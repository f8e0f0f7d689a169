// SPDX-License-Identifier: LGPL-2.1-or-later
// snap_copy: a block's particles, only the fields in the staging buffer's mask, copied into that
// staging buffer for a snapshot (tasks/snapshot_stage.c).  The staging buffer is always given in
// main memory (specific_nodes): a GPU half copies device to host on its stream, so a snapshot
// costs no device memory and moves only the fields written, and the next step's tasks on the
// block wait for this copy only, never for the file.
// Buffers: block (R), staging block (W, main memory).
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelet_decl.h"
#include "tide/codelets.h"

static void snap_copy_cpu(void *buffers[], void *cl_arg)
{
	(void)cl_arg;
	tide_block_view src = tide_block_view_of(buffers[0]);
	struct tide_block_iface *dst = TIDE_BLOCK_IFACE(buffers[1]);
	STARPU_ASSERT_MSG(src.count <= dst->cap, "snapshot staging of %u particles for %u", dst->cap,
	                  src.count);
	for (int f = 0; f < TIDE_BLOCK_MAX_FIELDS; f++) {
		if (!(dst->fields >> f & 1u)) continue;
		size_t elem, off;
		tide_block_field(f, &elem, &off);
		memcpy((char *)dst->ptr + off * dst->cap, (const char *)src.x + off * src.cap,
		       elem * src.count);
	}
	dst->count = src.count;
}

/* main memory itself (not any CPU-side NUMA node) for the staging block: where it is registered
 * and where the writer thread reads it, so nothing moves after the copy */
TIDE_CODELET_WITH(snap_copy, snap_copy_cpu, tide_snap_copy_cuda, .nbuffers = 2,
                  .modes = {STARPU_R, STARPU_W}, .specific_nodes = 1,
                  .nodes = {STARPU_SPECIFIC_NODE_LOCAL, STARPU_MAIN_RAM});
