// SPDX-License-Identifier: LGPL-2.1-or-later
// StarPU data interface of a particle block: one allocation of `cap` particles per memory node,
// structure of arrays (block.h).  Copies between memory nodes and MPI packing move only the used
// part (`count` elements) of each field that holds data (the handle's field mask: halos carry
// only what sph_forces reads), and carry the count with them.
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <starpu.h>
#include "tide/block_interface.h"

static struct starpu_data_interface_ops tide_block_ops;

static void block_register_handle(starpu_data_handle_t handle, int home_node, void *data_interface)
{
	struct tide_block_iface *src = data_interface;
	for (int node = 0; node < (int)STARPU_MAXNODES; node++) {
		struct tide_block_iface *loc = starpu_data_get_interface_on_node(handle, node);
		loc->cap = src->cap;
		loc->count = src->count;
		loc->fields = src->fields;
		loc->ptr = node == home_node ? src->ptr : 0;
	}
}

static size_t block_bytes(uint32_t cap) { return (size_t)cap * TIDE_BLOCK_BPP; }

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

/* Copy the used part of every field in the mask; the count goes with it. */
static int block_copy(void *src_interface, unsigned src_node, void *dst_interface,
                      unsigned dst_node, void *async_data)
{
	struct tide_block_iface *src = src_interface, *dst = dst_interface;
	int ret = 0;
	dst->count = src->count;
	if (src->count == 0) return 0;
	for (int f = 0; f < TIDE_BLOCK_NFIELDS; f++) {
		if (!(src->fields >> f & 1u)) continue;
		size_t elem, off;
		tide_block_field(f, &elem, &off);
		if (starpu_interface_copy(src->ptr, off * src->cap, src_node, dst->ptr, off * dst->cap,
		                          dst_node, elem * src->count, async_data))
			ret = -EAGAIN;
	}
	return ret;
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

uint32_t tide_count_bucket(uint32_t count)
{
	return count == 0 ? 0 : 1u + (uint32_t)lrint(4.0 * log2((double)count));
}

static uint32_t block_footprint(starpu_data_handle_t handle)
{
	struct tide_block_iface *b = starpu_data_get_interface_on_node(handle, STARPU_MAIN_RAM);
	return starpu_hash_crc32c_be(tide_count_bucket(b->count), 0);
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

/* MPI packing: [uint32 count][used part of the first field in the mask][of the next]... */
static int block_pack(starpu_data_handle_t handle, unsigned node, void **ptr, starpu_ssize_t *count)
{
	struct tide_block_iface *b = starpu_data_get_interface_on_node(handle, node);
	*count = (starpu_ssize_t)(sizeof(uint32_t) + (size_t)b->count * tide_fields_bpp(b->fields));
	if (!ptr) return 0;
	char *out = (char *)starpu_malloc_on_node_flags(node, *count, 0);
	*ptr = out;
	memcpy(out, &b->count, sizeof(uint32_t));
	out += sizeof(uint32_t);
	for (int f = 0; f < TIDE_BLOCK_NFIELDS; f++) {
		if (!(b->fields >> f & 1u)) continue;
		size_t elem, off;
		tide_block_field(f, &elem, &off);
		memcpy(out, (char *)b->ptr + off * b->cap, elem * b->count);
		out += elem * b->count;
	}
	return 0;
}

static int block_peek(starpu_data_handle_t handle, unsigned node, void *ptr, size_t size)
{
	struct tide_block_iface *b = starpu_data_get_interface_on_node(handle, node);
	const char *in = ptr;
	uint32_t n;
	memcpy(&n, in, sizeof n);
	in += sizeof n;
	STARPU_ASSERT_MSG(n <= b->cap && size == sizeof n + (size_t)n * tide_fields_bpp(b->fields),
	                  "received particle block of %u particles for a capacity of %u", n, b->cap);
	b->count = n;
	for (int f = 0; f < TIDE_BLOCK_NFIELDS; f++) {
		if (!(b->fields >> f & 1u)) continue;
		size_t elem, off;
		tide_block_field(f, &elem, &off);
		memcpy((char *)b->ptr + off * b->cap, in, elem * n);
		in += elem * n;
	}
	return 0;
}

static int block_unpack(starpu_data_handle_t handle, unsigned node, void *ptr, size_t size)
{
	block_peek(handle, node, ptr, size);
	starpu_free_on_node_flags(node, (uintptr_t)ptr, size, 0);
	return 0;
}

static starpu_ssize_t block_describe(void *data_interface, char *buf, size_t size)
{
	struct tide_block_iface *b = data_interface;
	return snprintf(buf, size, "B%u/%u", b->count, b->cap);
}

static starpu_ssize_t block_size_meta(void) { return sizeof(struct tide_block_iface); }

static int block_pack_meta(void *data_interface, void **ptr, starpu_ssize_t *count)
{
	*count = block_size_meta();
	*ptr = calloc(1, *count);
	memcpy(*ptr, data_interface, *count);
	return 0;
}

static int block_unpack_meta(void **data_interface, void *ptr, starpu_ssize_t *count)
{
	*count = block_size_meta();
	*data_interface = calloc(1, *count);
	memcpy(*data_interface, ptr, *count);
	return 0;
}

static int block_free_meta(void *data_interface)
{
	free(data_interface);
	return 0;
}

static void *block_to_pointer(void *data_interface, unsigned node)
{
	(void)node;
	return (void *)((struct tide_block_iface *)data_interface)->ptr;
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
	.to_pointer = block_to_pointer,
	.pack_data = block_pack,
	.peek_data = block_peek,
	.unpack_data = block_unpack,
	.describe = block_describe,
	.name = "TIDE_BLOCK_INTERFACE",
	.pack_meta = block_pack_meta,
	.unpack_meta = block_unpack_meta,
	.free_meta = block_free_meta,
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
	struct tide_block_iface b = {.ptr = (uintptr_t)ptr, .cap = cap, .count = count, .fields = fields};
	starpu_data_register(h, home_node, &b, &tide_block_ops);
}

/* Host blocks are pinned (page-locked) so that copies to and from a GPU run at full speed and
 * asynchronously.  A block larger than a quarter of the machine's memory (a billion particles:
 * 81 GiB) is first tried in pageable memory: locking most of the RAM starves everything else,
 * and StarPU aborts the process when its pinned allocation fails instead of returning an
 * error.  If the system refuses that much pageable memory, the block is pinned through the
 * CUDA runtime directly (host_pinned.cu), whose failure is an error message.
 *
 * A block's replica counts towards StarPU's memory limit (STARPU_MALLOC_COUNT).  StarPU takes
 * the size of the main memory from hwloc, which on some virtual machines is far below what the
 * system has; when StarPU refuses a block for that reason and the user set no
 * STARPU_LIMIT_CPU_MEM, the block is allocated uncounted (with a note).
 *
 * A 64-byte header in front of the arrays records how the block was allocated, so
 * tide_block_free_host() needs no flag from the caller and the arrays keep their alignment. */
#define HOST_HEADER 64
#define HOST_CUDA (1 << 30) /* header flag: tide_cuda_host_alloc */

#ifdef TIDE_USE_CUDA
void *tide_cuda_host_alloc(size_t bytes);
void tide_cuda_host_free(void *p);
#endif

/* First touch of fresh memory costs a page fault per 4 KiB page, 0.3 GB/s on the virtual
 * machines tide was measured on: five minutes for a billion particles.  Huge pages and a
 * thread per core (up to 16) fault it in at 1-2 GB/s or more before the case builder writes
 * it. */
typedef struct prefault_part { char *p; size_t n; } prefault_part;

static void *prefault_worker(void *arg)
{
	prefault_part *w = arg;
	memset(w->p, 0, w->n);
	return NULL;
}

static void prefault(void *ptr, size_t bytes)
{
	uintptr_t lo = ((uintptr_t)ptr + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1);
	uintptr_t hi = ((uintptr_t)ptr + bytes) & ~(uintptr_t)((2u << 20) - 1);
	if (hi > lo) madvise((void *)lo, hi - lo, MADV_HUGEPAGE); /* advice: failure is harmless */
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int nt = ncpu < 1 ? 1 : (ncpu > 16 ? 16 : (int)ncpu), started = 0;
	pthread_t th[16];
	prefault_part part[16];
	size_t chunk = (bytes / (size_t)nt + 4095) & ~(size_t)4095;
	for (int t = 0; t < nt; t++) {
		size_t off = (size_t)t * chunk;
		part[t].p = (char *)ptr + off;
		part[t].n = off >= bytes ? 0 : (bytes - off < chunk ? bytes - off : chunk);
	}
	for (int t = 1; t < nt; t++)
		if (!pthread_create(&th[t], NULL, prefault_worker, &part[t])) started = t;
		else break;
	/* this thread does its part and those of threads that could not start */
	for (int t = started + 1; t < nt; t++) memset(part[t].p, 0, part[t].n);
	memset(part[0].p, 0, part[0].n);
	for (int t = 1; t <= started; t++) pthread_join(th[t], NULL);
}

/* starpu_malloc_flags, retried uncounted when only StarPU's accounting refused (see above). */
static int host_malloc(void **p, size_t bytes, int *flags)
{
	if (!starpu_malloc_flags(p, bytes, *flags)) return 0;
	if (!(*flags & STARPU_MALLOC_COUNT) || getenv("STARPU_LIMIT_CPU_MEM")) return -1;
	*flags &= ~STARPU_MALLOC_COUNT;
	if (starpu_malloc_flags(p, bytes, *flags)) return -1;
	fprintf(stderr, "tide: note: StarPU counts %.1f GiB of main memory (hwloc's figure), too "
	        "little for a block of %.1f GiB; the block is allocated outside its count.\n",
	        starpu_memory_get_total(STARPU_MAIN_RAM) / 1073741824.0, bytes / 1073741824.0);
	return 0;
}

void *tide_block_alloc_host_pin(uint32_t cap, int pin)
{
	void *p = NULL;
	size_t bytes = block_bytes(cap) + HOST_HEADER;
	double ram = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
	/* a block's replica counts towards StarPU's memory limit; a host-only temporary does not */
	int flags = pin ? STARPU_MALLOC_COUNT : 0, big = ram > 0 && (double)bytes > 0.25 * ram;
	/* StarPU pins only for GPUs; without one the memory is plain and gets the prefault */
	int gpu = starpu_cuda_worker_get_count() > 0;
	if (pin && gpu && !big) flags |= STARPU_MALLOC_PINNED;
	if (!host_malloc(&p, bytes, &flags)) {
		if (!(flags & STARPU_MALLOC_PINNED) && bytes > ((size_t)1 << 30)) prefault(p, bytes);
		if (pin && gpu && big)
			fprintf(stderr, "tide: note: the block of %u particles (%.1f GiB) is not pinned: it "
			        "is more than a quarter of this machine's memory; host-GPU copies are "
			        "slower.\n", cap, bytes / 1073741824.0);
	} else {
#ifdef TIDE_USE_CUDA
		if (!(pin && gpu && big) || !(p = tide_cuda_host_alloc(bytes))) return NULL;
		flags = HOST_CUDA;
		fprintf(stderr, "tide: note: the system refused %.1f GiB of pageable memory for a block "
		        "of %u particles; it is pinned through CUDA instead.\n", bytes / 1073741824.0, cap);
#else
		return NULL;
#endif
	}
	*(int *)p = flags;
	return (char *)p + HOST_HEADER;
}

void *tide_block_alloc_host(uint32_t cap) { return tide_block_alloc_host_pin(cap, 1); }

void tide_block_free_host(void *ptr, uint32_t cap)
{
	if (!ptr) return;
	char *p = (char *)ptr - HOST_HEADER;
	int flags = *(int *)p;
#ifdef TIDE_USE_CUDA
	if (flags == HOST_CUDA) {
		tide_cuda_host_free(p);
		return;
	}
#endif
	starpu_free_flags(p, block_bytes(cap) + HOST_HEADER, flags);
}

uint32_t tide_block_count(starpu_data_handle_t h)
{
	return ((struct tide_block_iface *)starpu_data_get_interface_on_node(h, STARPU_MAIN_RAM))->count;
}

uint32_t tide_block_cap(starpu_data_handle_t h)
{
	return ((struct tide_block_iface *)starpu_data_get_interface_on_node(h, STARPU_MAIN_RAM))->cap;
}
