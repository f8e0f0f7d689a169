// SPDX-License-Identifier: LGPL-2.1-or-later
// StarPU's allocation cache hands a freed replica's buffer to the next handle of the same
// capacity.  The particle-block interface must take only the memory: a halo's field mask
// (TIDE_HALO_FIELDS) carried over to a migrant buffer made its MPI message disagree with the
// receiver's (seen on 2 ranks sharing the H200).  A halo handle with no home node is written
// by a CPU task (StarPU allocates its main-memory replica), unregistered (the buffer goes to
// the cache), then a migrant handle of the same capacity is written the same way: it must
// keep its own mask, capacity and count, and pack to 4 + count x (its bytes per particle).
// StarPU caches main-memory buffers only when it pins them, i.e. with a GPU: without one that
// round trip cannot fail, so the interface's reuse operation is also called directly.
#include <stdio.h>
#include <stdlib.h>
#include <starpu.h>
#include "tide/block.h"
#include "tide/block_interface.h"
#include "test_util.h"

static void set_count_cpu(void *buffers[], void *cl_arg)
{
	uint32_t n;
	starpu_codelet_unpack_args(cl_arg, &n, 0);
	TIDE_BLOCK_IFACE(buffers[0])->count = n;
}

static struct starpu_codelet set_count_cl = {
	.cpu_funcs = {set_count_cpu}, .nbuffers = 1, .modes = {STARPU_W}, .name = "set_count",
};

static void write_count(starpu_data_handle_t h, uint32_t n)
{
	int ret = starpu_task_insert(&set_count_cl, STARPU_W, h, STARPU_VALUE, &n, sizeof n, 0);
	STARPU_CHECK_RETURN_VALUE(ret, "task insert");
	starpu_task_wait_for_all();
}

int main(int argc, char **argv)
{
	(void)argc; (void)argv;
	setenv("STARPU_NCPU", "1", 0);
	if (starpu_init(NULL) != 0) { fprintf(stderr, "starpu_init failed\n"); return 77; }
	const uint32_t cap = 5828;

	/* the operation itself: memory from the cached interface, the rest stays */
	starpu_data_handle_t probe;
	tide_block_register(&probe, -1, NULL, cap, 0);
	struct starpu_data_interface_ops *ops = starpu_data_get_interface_ops(probe);
	CHECK(ops->reuse_data_on_node != NULL, "the block interface has no reuse_data_on_node");
	if (ops->reuse_data_on_node) {
		struct tide_block_iface cached = {.ptr = 0x1000, .cap = cap, .count = 7,
		                                  .fields = TIDE_HALO_FIELDS};
		struct tide_block_iface dst = {.ptr = 0, .cap = cap, .count = 0, .fields = TIDE_ALL_FIELDS};
		ops->reuse_data_on_node(&dst, &cached, STARPU_MAIN_RAM);
		CHECK(dst.ptr == 0x1000 && dst.fields == TIDE_ALL_FIELDS && dst.count == 0 &&
		      dst.cap == cap, "reuse gave ptr %#lx mask %#x count %u cap %u",
		      (unsigned long)dst.ptr, dst.fields, dst.count, dst.cap);
	}
	starpu_data_unregister(probe);

	/* the round trip through StarPU's cache */
	for (int round = 0; round < 3; round++) {
		starpu_data_handle_t halo, mig;
		tide_block_register_fields(&halo, -1, NULL, cap, 0, TIDE_HALO_FIELDS);
		write_count(halo, 0);
		starpu_data_unregister(halo);

		tide_block_register(&mig, -1, NULL, cap, 0);
		write_count(mig, 2);
		starpu_data_acquire(mig, STARPU_R);
		const struct tide_block_iface *b = starpu_data_get_interface_on_node(mig, STARPU_MAIN_RAM);
		CHECK(b->fields == TIDE_ALL_FIELDS, "round %d: migrant mask %#x, want %#x", round,
		      b->fields, TIDE_ALL_FIELDS);
		CHECK(b->cap == cap && b->count == 2, "round %d: cap %u count %u", round, b->cap, b->count);
		CHECK(b->ptr != 0, "round %d: no memory", round);
		void *buf = NULL;
		starpu_ssize_t size = 0;
		starpu_data_pack(mig, &buf, &size);
		/* the head: count and hmax (block_interface.h) */
		size_t head = sizeof(uint32_t) + sizeof(float);
		CHECK((size_t)size == head + 2 * tide_fields_bpp(TIDE_ALL_FIELDS),
		      "round %d: packed %zd bytes, want %zu", round, size,
		      head + 2 * tide_fields_bpp(TIDE_ALL_FIELDS));
		starpu_free_on_node_flags(STARPU_MAIN_RAM, (uintptr_t)buf, size, 0);
		starpu_data_release(mig);
		starpu_data_unregister(mig);
	}
	starpu_shutdown();
	if (failures) { fprintf(stderr, "%d failures\n", failures); return 1; }
	printf("block_reuse: cached buffers keep the new handle's mask, capacity and count\n");
	return 0;
}
