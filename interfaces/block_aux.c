// SPDX-License-Identifier: LGPL-2.1-or-later
// The run's optional aux fields of the particle blocks (block.h): how many are active and which
// of them halos carry.  One value per process, set once at setup before any block exists, so
// every allocation, copy, message, sort, migration, checkpoint and snapshot of the run agrees.
#include <stdio.h>
#include <stdlib.h>
#include "tide/block.h"

_Static_assert(TIDE_BLOCK_MAX_FIELDS <= 32, "field masks are 32 bits");

static unsigned naux;
static uint32_t halo_aux;
static int halo_ids;

void tide_block_set_halo_ids(int on) { halo_ids = on != 0; }

void tide_block_set_aux(unsigned n, uint32_t halo)
{
	if (n > TIDE_BLOCK_MAX_AUX) {
		fprintf(stderr, "tide: %u aux fields asked for, at most %d exist (block.h)\n", n,
		        TIDE_BLOCK_MAX_AUX);
		abort(); /* a programming error, not input */
	}
	naux = n;
	uint32_t active = ((1u << n) - 1u) << TIDE_F_aux0;
	halo_aux = halo & active;
}

unsigned tide_block_naux(void) { return naux; }
int tide_block_nfields(void) { return TIDE_BLOCK_NFIELDS + (int)naux; }
size_t tide_block_bpp(void) { return TIDE_BLOCK_BPP + naux * sizeof(float); }

uint32_t tide_block_all_fields(void)
{
	return TIDE_BASE_FIELDS | ((1u << naux) - 1u) << TIDE_F_aux0;
}

uint32_t tide_block_halo_fields(void)
{
	return TIDE_HALO_BASE_FIELDS | halo_aux | (halo_ids ? TIDE_FIELD_BIT(id) : 0u);
}
