// SPDX-License-Identifier: LGPL-2.1-or-later
// The code both StarPU data interfaces share (iface_parts.h).
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "iface_parts.h"

size_t tide_iface_parts_bytes(const tide_iface_parts *p)
{
	size_t b = 0;
	for (int k = 0; k < p->n; k++) b += p->len[k];
	return b;
}

void tide_iface_register_nodes(starpu_data_handle_t handle, int home_node, const void *src,
                               size_t size)
{
	for (int node = 0; node < (int)STARPU_MAXNODES; node++) {
		void *loc = starpu_data_get_interface_on_node(handle, node);
		memcpy(loc, src, size);
		if (node != home_node) *(uintptr_t *)loc = 0;
	}
}

int tide_iface_copy_parts(uintptr_t src, unsigned src_node, const tide_iface_parts *s,
                          uintptr_t dst, unsigned dst_node, const tide_iface_parts *d,
                          void *async_data)
{
	int ret = 0;
	for (int k = 0; k < s->n; k++)
		if (s->len[k] && starpu_interface_copy(src, s->off[k], src_node, dst, d->off[k], dst_node,
		                                       s->len[k], async_data))
			ret = -EAGAIN;
	return ret;
}

/* Set by tide_block_messages_sized_only (block_interface.h). */
static int sized_only;

#ifdef TIDE_SIMGRID
#include <mpi.h>
#include <smpi/smpi.h>
/* SMPI's own copy of a message's payload into the receive buffer (SimGrid 3.32; a C++ function,
 * hence its mangled name). */
void tide_smpi_copy_payload(smx_activity_t comm, void *buff, size_t size)
	__asm__("_Z30smpi_comm_copy_buffer_callbackPN7simgrid6kernel8activity8CommImplEPvm");

/* Messages of 1 MiB and more (particle blocks and essential trees: StarPU-MPI's envelopes and
 * tide's step records are bytes) are timed by SimGrid but not copied: the copy and the page
 * faults of fresh receive buffers were 90 % of the wall time of 8 simulated ranks of 4 M
 * particles.  Below SMPI's detached-send threshold (64 KiB) SMPI's copy also frees the sender's
 * staging buffer, so it must run there. */
static void copy_small_only(smx_activity_t comm, void *buff, size_t size)
{
	if (size < ((size_t)1 << 20)) tide_smpi_copy_payload(comm, buff, size);
}

/* StarPU-MPI receives a message that comes before the task that reads it is submitted ("early
 * data": a neighbour's halo of the next step, sent while this rank still waits for the end of
 * its step) into a buffer of its size, posted as one element of MPI_Type_contiguous(size,
 * MPI_BYTE).  SMPI receives a derived datatype into a buffer of its own and then unpacks it
 * into StarPU's with a real copy (Type_Contiguous::unserialize), which copy_small_only does not
 * skip: every early halo then costs its size in memory until the receiving task takes it, 30 to
 * 90 MB per simulated rank of 16 M particles (perf: 97 % of the page faults of 16 ranks).  The
 * MPI profiling interface lets tide post such a receive as the bytes it is: the same size,
 * hence the same simulated time, and no copy.  Only for sized-only messages of 1 MiB or more,
 * whose payload nothing reads. */
int MPI_Irecv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
              MPI_Request *request)
{
	int elem = 0;
	if (sized_only && type != MPI_BYTE && PMPI_Type_size(type, &elem) == MPI_SUCCESS) {
		long long bytes = (long long)elem * count;
		if (bytes >= (1ll << 20) && bytes <= 0x7fffffffll)
			return PMPI_Irecv(buf, (int)bytes, MPI_BYTE, src, tag, comm, request);
	}
	return PMPI_Irecv(buf, count, type, src, tag, comm, request);
}
#endif

void tide_block_messages_sized_only(int on)
{
	sized_only = on;
#ifdef TIDE_SIMGRID
	smpi_comm_set_copy_data_callback(on ? copy_small_only : tide_smpi_copy_payload);
#endif
}

int tide_iface_sized_only(void)
{
	return sized_only;
}

void *tide_iface_pack(unsigned node, const void *head, size_t head_len, uintptr_t base,
                      const tide_iface_parts *p)
{
	char *msg = (char *)starpu_malloc_on_node_flags(node, head_len + tide_iface_parts_bytes(p), 0);
	char *out = msg;
	memcpy(out, head, head_len);
	out += head_len;
	if (sized_only) return msg; /* the parts' pages left untouched */
	for (int k = 0; k < p->n; k++) {
		memcpy(out, (char *)base + p->off[k], p->len[k]);
		out += p->len[k];
	}
	return msg;
}

void tide_iface_unpack(const void *msg, size_t head_len, uintptr_t base, const tide_iface_parts *p)
{
	const char *in = (const char *)msg + head_len;
	if (sized_only) return;
	for (int k = 0; k < p->n; k++) {
		memcpy((char *)base + p->off[k], in, p->len[k]);
		in += p->len[k];
	}
}

void tide_iface_free_message(unsigned node, void *msg, size_t size)
{
	starpu_free_on_node_flags(node, (uintptr_t)msg, size, 0);
}

uint32_t tide_count_bucket(uint32_t count)
{
	return count == 0 ? 0 : 1u + (uint32_t)lrint(4.0 * log2((double)count));
}

uint32_t tide_iface_footprint(uint32_t count)
{
	return starpu_hash_crc32c_be(tide_count_bucket(count), 0);
}

void *tide_iface_to_pointer(void *data_interface, unsigned node)
{
	(void)node;
	return (void *)*(uintptr_t *)data_interface;
}

int tide_iface_pack_meta(const void *data_interface, size_t size, void **ptr,
                         starpu_ssize_t *count)
{
	*count = (starpu_ssize_t)size;
	*ptr = calloc(1, size);
	memcpy(*ptr, data_interface, size);
	return 0;
}

int tide_iface_unpack_meta(void **data_interface, const void *ptr, size_t size,
                           starpu_ssize_t *count)
{
	*count = (starpu_ssize_t)size;
	*data_interface = calloc(1, size);
	memcpy(*data_interface, ptr, size);
	return 0;
}

int tide_iface_free_meta(void *data_interface)
{
	free(data_interface);
	return 0;
}
