// SPDX-License-Identifier: LGPL-2.1-or-later
// Host memory of a particle block (block_interface.h): tide_block_alloc_host and its kin, with
// interfaces/host_pinned.cu for the one case where the CUDA runtime pins it directly.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <starpu.h>
#include "tide/block_interface.h"

static size_t block_bytes(uint32_t cap) { return (size_t)cap * tide_block_bpp(); }

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
