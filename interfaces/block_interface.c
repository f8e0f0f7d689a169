// SPDX-License-Identifier: LGPL-2.1-or-later
// StarPU data interface of a particle block: one allocation of `cap` particles per memory node,
// structure of arrays (block.h).  Copies between memory nodes and MPI packing move only the used
// part (`count` elements) of each field that holds data (the handle's field mask: halos carry
// only what sph_forces reads), and carry the count and the largest h (hmax) with them.
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/codelet_decl.h" /* tide_perfmodel_size */
#include "iface_parts.h"

_Static_assert(offsetof(struct tide_block_iface, ptr) == 0, "the base first (iface_parts.h)");

static struct starpu_data_interface_ops tide_block_ops;

static void block_register_handle(starpu_data_handle_t handle, int home_node, void *data_interface)
{
	tide_iface_register_nodes(handle, home_node, data_interface, sizeof(struct tide_block_iface));
}

static size_t block_bytes(uint32_t cap) { return (size_t)cap * tide_block_bpp(); }

/* When an allocation fails, StarPU frees cached copies and tries again later, for ever if no
 * memory is ever freed (a GPU taken by another process, a block too big for it): the run would
 * hang.  Failures are normal for a moment while StarPU evicts, so tide gives up only when a
 * node has failed every allocation for TIDE_ALLOC_WAIT_S seconds (default 60), with a sentence
 * and exit code 1.  StarPU is stuck then, so nothing more can be saved; the last checkpoint
 * on disk is complete (checkpoints are written atomically).  Watched: the particle blocks,
 * halos and migrants (this interface) and, through StarPU's vector interface, the cell tables
 * and the sort scratch. */
static double alloc_failing_since[STARPU_MAXNODES];
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;

static double alloc_wait_s(void)
{
	const char *v = getenv("TIDE_ALLOC_WAIT_S");
	double s = v ? atof(v) : 60.0;
	return s > 0 ? s : 60.0;
}

static void alloc_failed(unsigned node, size_t bytes)
{
	double now = starpu_timing_now() * 1e-6, wait = alloc_wait_s();
	pthread_mutex_lock(&alloc_lock);
	if (alloc_failing_since[node] == 0) alloc_failing_since[node] = now;
	double since = alloc_failing_since[node];
	pthread_mutex_unlock(&alloc_lock);
	if (now - since < wait) return;
	char name[64];
	starpu_memory_node_get_name(node, name, sizeof name);
	int cuda = starpu_node_get_kind(node) == STARPU_CUDA_RAM;
	fprintf(stderr, "tide: out of memory on %s (%s): %.1f MiB for particle data could not be "
	        "allocated for %.0f s (%.0f of %.0f MiB in use); %s.\n", cuda ? "a GPU" : "the host",
	        name, bytes / 1048576.0, now - since, starpu_memory_get_used(node) / 1048576.0,
	        starpu_memory_get_total(node) / 1048576.0,
	        cuda ? "use more blocks (--blocks), more GPUs or a larger --dp, and check that no "
	               "other process holds the GPU's memory (nvidia-smi)"
	             : "use a larger --dp or more MPI ranks on more nodes");
	fflush(NULL);
	_exit(1); /* under mpirun, a rank that exits stops the others */
}

static void alloc_succeeded(unsigned node)
{
	if (alloc_failing_since[node] == 0) return;
	pthread_mutex_lock(&alloc_lock);
	alloc_failing_since[node] = 0;
	pthread_mutex_unlock(&alloc_lock);
}

static starpu_ssize_t block_allocate(void *data_interface, unsigned node)
{
	struct tide_block_iface *b = data_interface;
	size_t bytes = block_bytes(b->cap);
	uintptr_t p = starpu_malloc_on_node(node, bytes ? bytes : 1);
	if (!p) {
		alloc_failed(node, bytes);
		return -ENOMEM;
	}
	alloc_succeeded(node);
	b->ptr = p;
	return (starpu_ssize_t)bytes;
}

/* StarPU's own vector allocation, watched the same way (cell tables, sort scratch). */
static starpu_ssize_t (*vector_allocate)(void *data_interface, unsigned node);

static starpu_ssize_t vector_allocate_watched(void *data_interface, unsigned node)
{
	starpu_ssize_t r = vector_allocate(data_interface, node);
	if (r == -ENOMEM) {
		struct starpu_vector_interface *v = data_interface;
		alloc_failed(node, v->nx * v->elemsize);
	} else if (r >= 0) {
		alloc_succeeded(node);
	}
	return r;
}

static void block_free(void *data_interface, unsigned node)
{
	struct tide_block_iface *b = data_interface;
	size_t bytes = block_bytes(b->cap);
	starpu_free_on_node(node, b->ptr, bytes ? bytes : 1);
	b->ptr = 0;
}

_Static_assert(TIDE_BLOCK_MAX_FIELDS <= TIDE_IFACE_MAX_PARTS, "a part per field");

/* The used part (count elements) of every field in the mask, in an allocation of cap. */
static tide_iface_parts fields_parts(uint32_t fields, uint32_t cap, uint32_t count)
{
	tide_iface_parts p = {.n = 0};
	for (int f = 0; f < TIDE_BLOCK_MAX_FIELDS; f++) {
		if (!(fields >> f & 1u)) continue;
		size_t elem, off;
		tide_block_field(f, &elem, &off);
		p.off[p.n] = off * cap;
		p.len[p.n++] = elem * count;
	}
	return p;
}

static tide_iface_parts block_parts(const struct tide_block_iface *b)
{
	return fields_parts(b->fields, b->cap, b->count);
}

/* The count and hmax go with the data. */
static int block_copy(void *src_interface, unsigned src_node, void *dst_interface,
                      unsigned dst_node, void *async_data)
{
	struct tide_block_iface *src = src_interface, *dst = dst_interface;
	dst->count = src->count;
	dst->hmax = src->hmax;
	if (src->count == 0) return 0;
	/* the source's fields and count at the destination's capacity */
	tide_iface_parts s = block_parts(src), d = fields_parts(src->fields, dst->cap, src->count);
	return tide_iface_copy_parts(src->ptr, src_node, &s, dst->ptr, dst_node, &d, async_data);
}

static const struct starpu_data_copy_methods block_copy_methods = {.any_to_any = block_copy};

static size_t block_get_size(starpu_data_handle_t handle)
{
	struct tide_block_iface *b = starpu_data_get_interface_on_node(handle, STARPU_MAIN_RAM);
	return (size_t)b->count * tide_fields_bpp(b->fields);
}

static size_t block_get_alloc_size(starpu_data_handle_t handle)
{
	struct tide_block_iface *b = starpu_data_get_interface_on_node(handle, STARPU_MAIN_RAM);
	return block_bytes(b->cap);
}

/* A block's cost class: its particle count.  A halo buffer's (any mask other than all fields)
 * is none: the task that fills it decides its count, and the count its main-memory copy shows
 * when a task is submitted is not the halo's (measured: always its registered 0), so that a
 * simulation build, which registers halos with their real count (tasks/sph_setup.c), finds the
 * models calibrated by real runs. */
static uint32_t block_footprint(starpu_data_handle_t handle)
{
	struct tide_block_iface *b = starpu_data_get_interface_on_node(handle, STARPU_MAIN_RAM);
	return tide_iface_footprint(b->fields == tide_block_all_fields() ? b->count : 0);
}

static int block_compare(void *a, void *b)
{
	const struct tide_block_iface *x = a, *y = b;
	return x->cap == y->cap && x->fields == y->fields;
}

/* An allocation holds every field whatever the mask: the capacity alone decides reuse. */
static int block_alloc_compare(void *a, void *b)
{
	return ((struct tide_block_iface *)a)->cap == ((struct tide_block_iface *)b)->cap;
}

/* A cached allocation given to another handle (a halo's buffer to a migrant buffer of the same
 * capacity, say) brings its memory only.  Without this StarPU copies the whole cached interface
 * over the new one, mask and count included: a migrant buffer took a halo's mask on a GPU
 * run's host replica, and its MPI message no longer matched the receiver's (2 ranks sharing
 * the H200, 2-D dam break: "received particle block of 2 particles for a capacity of 5828"). */
static void block_reuse(void *dst_interface, const void *cached_interface, unsigned node)
{
	(void)node;
	((struct tide_block_iface *)dst_interface)->ptr =
	        ((const struct tide_block_iface *)cached_interface)->ptr;
}

/* MPI packing: [uint32 count][float hmax][used part of the first field in the mask][of the
 * next]... */
typedef struct block_head {
	uint32_t count;
	float hmax;
} block_head;

static int block_pack(starpu_data_handle_t handle, unsigned node, void **ptr, starpu_ssize_t *count)
{
	struct tide_block_iface *b = starpu_data_get_interface_on_node(handle, node);
	*count = (starpu_ssize_t)(sizeof(block_head) + (size_t)b->count * tide_fields_bpp(b->fields));
	if (!ptr) return 0;
	tide_iface_parts p = block_parts(b);
	block_head head = {b->count, b->hmax};
	*ptr = tide_iface_pack(node, &head, sizeof head, b->ptr, &p);
	return 0;
}

static int block_peek(starpu_data_handle_t handle, unsigned node, void *ptr, size_t size)
{
	struct tide_block_iface *b = starpu_data_get_interface_on_node(handle, node);
	block_head head;
	memcpy(&head, ptr, sizeof head);
	uint32_t n = head.count;
	/* a message of its size only: its head may not have come, its size says the count (and
	 * the block keeps its hmax) */
	if (tide_iface_sized_only()) {
		n = (uint32_t)((size - sizeof head) / tide_fields_bpp(b->fields));
		head.hmax = b->hmax;
	}
	STARPU_ASSERT_MSG(n <= b->cap && size == sizeof head + (size_t)n * tide_fields_bpp(b->fields),
	                  "received particle block of %u particles for a capacity of %u", n, b->cap);
	b->count = n;
	b->hmax = head.hmax;
	tide_iface_parts p = block_parts(b);
	tide_iface_unpack(ptr, sizeof head, b->ptr, &p);
	return 0;
}

static int block_unpack(starpu_data_handle_t handle, unsigned node, void *ptr, size_t size)
{
	block_peek(handle, node, ptr, size);
	tide_iface_free_message(node, ptr, size);
	return 0;
}

static starpu_ssize_t block_describe(void *data_interface, char *buf, size_t size)
{
	struct tide_block_iface *b = data_interface;
	return snprintf(buf, size, "B%u/%u", b->count, b->cap);
}

static int block_pack_meta(void *data_interface, void **ptr, starpu_ssize_t *count)
{
	return tide_iface_pack_meta(data_interface, sizeof(struct tide_block_iface), ptr, count);
}

static int block_unpack_meta(void **data_interface, void *ptr, starpu_ssize_t *count)
{
	return tide_iface_unpack_meta(data_interface, ptr, sizeof(struct tide_block_iface), count);
}

static struct starpu_data_interface_ops tide_block_ops = {
	.register_data_handle = block_register_handle,
	.allocate_data_on_node = block_allocate,
	.free_data_on_node = block_free,
	.copy_methods = &block_copy_methods,
	.get_size = block_get_size,
	.get_alloc_size = block_get_alloc_size,
	.footprint = block_footprint,
	.compare = block_compare,
	.alloc_compare = block_alloc_compare,
	.reuse_data_on_node = block_reuse,
	.interfaceid = STARPU_UNKNOWN_INTERFACE_ID,
	.interface_size = sizeof(struct tide_block_iface),
	.to_pointer = tide_iface_to_pointer,
	.pack_data = block_pack,
	.peek_data = block_peek,
	.unpack_data = block_unpack,
	.describe = block_describe,
	.name = "TIDE_BLOCK_INTERFACE",
	.pack_meta = block_pack_meta,
	.unpack_meta = block_unpack_meta,
	.free_meta = tide_iface_free_meta,
};

void tide_block_register(starpu_data_handle_t *h, int home_node, void *ptr, uint32_t cap,
                         uint32_t count)
{
	tide_block_register_fields(h, home_node, ptr, cap, count, TIDE_ALL_FIELDS);
}

void tide_block_register_fields(starpu_data_handle_t *h, int home_node, void *ptr, uint32_t cap,
                                uint32_t count, uint32_t fields)
{
	if (tide_block_ops.interfaceid == STARPU_UNKNOWN_INTERFACE_ID) {
		tide_block_ops.interfaceid = starpu_data_interface_get_next_id();
		/* StarPU exports its vector interface's operations; only the allocation is wrapped */
		vector_allocate = starpu_interface_vector_ops.allocate_data_on_node;
		starpu_interface_vector_ops.allocate_data_on_node = vector_allocate_watched;
	}
	struct tide_block_iface b = {.ptr = (uintptr_t)ptr, .cap = cap, .count = count, .fields = fields,
	                             .hmax = -1.f};
	starpu_data_register(h, home_node, &b, &tide_block_ops);
}

uint32_t tide_block_count(starpu_data_handle_t h)
{
	return ((struct tide_block_iface *)starpu_data_get_interface_on_node(h, STARPU_MAIN_RAM))->count;
}

uint32_t tide_block_cap(starpu_data_handle_t h)
{
	return ((struct tide_block_iface *)starpu_data_get_interface_on_node(h, STARPU_MAIN_RAM))->cap;
}

size_t tide_perfmodel_size(struct starpu_task *task, unsigned nimpl)
{
	(void)nimpl;
	size_t n = 0;
	unsigned nb = STARPU_TASK_GET_NBUFFERS(task);
	for (unsigned i = 0; i < nb; i++) {
		starpu_data_handle_t h = STARPU_TASK_GET_HANDLE(task, i);
		if (starpu_data_get_interface_id(h) != tide_block_ops.interfaceid) continue;
		const struct tide_block_iface *b = starpu_data_get_interface_on_node(h, STARPU_MAIN_RAM);
		if (b->fields == tide_block_all_fields()) n += b->count;
	}
	/* a task of no block: the work its submitter gave as its flops (the gravity tasks: particles,
	 * essential items, walk interactions, tasks/gravity.c), so that its footprint, the hash of
	 * this size, separates its sizes in the history as the regression reads them */
	if (!n && task->flops >= 1.0) return (size_t)task->flops;
	return n ? n : 1;
}
