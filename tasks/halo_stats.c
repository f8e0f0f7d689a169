// SPDX-License-Identifier: LGPL-2.1-or-later
// What the halos of this rank's blocks hold: a measurement for tests and benchmarks (the halo
// widths per block of include/tide/gas_halo.h against one global width), not for the step loop:
// it waits for every halo it reads.
#include <starpu.h>
#include "tide/block_interface.h"
#include "tide/sph_sim.h"

void tide_sim_halo_stats(tide_sim *sim, uint64_t *particles, uint64_t *bytes)
{
	uint64_t n = 0, b = 0;
	for (int i = 0; i < sim->nmine; i++) {
		const tide_sim_block *k = &sim->blk[sim->mine[i]];
		for (int r = 0; r < k->cut.n; r++) {
			starpu_data_acquire(k->H[r], STARPU_R);
			const struct tide_block_iface *h = starpu_data_get_interface_on_node(k->H[r], STARPU_MAIN_RAM);
			n += h->count;
			/* an MPI message's size (block_interface.c): its head, then the masked fields */
			b += sizeof(uint32_t) + sizeof(float) + (uint64_t)h->count * tide_fields_bpp(h->fields);
			starpu_data_release(k->H[r]);
		}
	}
	*particles = n;
	*bytes = b;
}
