/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Checkpoints: everything a run needs to continue exactly where it stopped, in one directory.
 *
 *   DIR/header.bin           magic "TIDECKPT", format version, byte order mark, tide version,
 *                            the integrator state (step, time, verlet_count, the last step's
 *                            reduction record including its dt), the blocks (layer range
 *                            [l0, l1), particle count and capacity of each, halo capacity),
 *                            the rank count that wrote it, the output state (outputs written,
 *                            their times, next output time), the initial particle counts,
 *                            FNV-1a 64-bit checksums of particles.bin and used_parameters.yaml,
 *                            and a checksum of the header itself (last 8 bytes)
 *   DIR/particles.bin        every field of TIDE_BLOCK_FIELDS (block.h), one array after the
 *                            other in that order, then the run's active aux fields (aux0 ..,
 *                            none for WCSPH: the case's scheme says how many), each of n_total
 *                            elements, particles in gathered order (block by block, in-block
 *                            order kept); the type as a uint32_t, as before blocks held it in
 *                            a byte, then 4 zero bytes per particle where the cell key was
 *                            (tide_ckpt_field: 84 + 4 naux bytes per particle)
 *   DIR/used_parameters.yaml the case as run (tide_case_write_used), loaded on restart
 *   DIR/checkpoint.txt       the header in words, for people (not read back)
 *
 * Numbers are in the writing machine's byte order (the mark refuses a foreign one).  A
 * checkpoint is written into DIR.tmp-XXXXXX beside DIR, every file fsync'ed, then swapped with
 * DIR in one atomic rename (renameat2 RENAME_EXCHANGE; where the file system lacks it, DIR is
 * first renamed DIR.prev, which a restart falls back to), and the old one removed: at every
 * moment DIR (or DIR.prev) is a complete checkpoint.
 *
 * Test hook: TIDE_TEST_CHECKPOINT_DELAY_MS=N makes the writer sleep N ms before each file and
 * each particle field (so a test can kill it in the middle of a write). */
#ifndef TIDE_CHECKPOINT_H
#define TIDE_CHECKPOINT_H
#include <stdint.h>
#include "tide/block.h"
#include "tide/case.h"
#include "tide/sph_params.h"
#include "tide/sinks.h"

#define TIDE_CKPT_MAGIC "TIDECKPT"
#define TIDE_CKPT_VERSION 5u  /* 2: blocks are boxes (2-D / 3-D decompositions); 3: floating
                               * bodies' states; 4: the sink table; 5: the blocks' owners */

/* Element size and offset per particle of field f (block.h's numbers) in particles.bin, whose
 * layout predates blocks' one-byte type and their dropping of the cell key: every field in
 * field-number order, the type 4 bytes, and after it the 4 bytes a cell key had (written 0,
 * skipped on reading: the first step's sort makes the cells). */
#define TIDE_CKPT_TYPE_BYTES 4u
#define TIDE_CKPT_KEY_BYTES 4u
static inline size_t tide_ckpt_field(int f, size_t *elem)
{
	size_t off = 0, e;
	for (int i = 0; i <= f; i++) {
		tide_block_offset(i, 0, &e);
		if (i == TIDE_F_type) e = TIDE_CKPT_TYPE_BYTES;
		if (i < f) off += e + (i == TIDE_F_type ? TIDE_CKPT_KEY_BYTES : 0);
	}
	if (elem) *elem = e;
	return off;
}
/* Bytes per particle of particles.bin in this run (84 + 4 naux). */
static inline size_t tide_ckpt_bpp(void)
{
	return tide_block_bpp() - 1 + TIDE_CKPT_TYPE_BYTES + TIDE_CKPT_KEY_BYTES;
}

typedef struct tide_ckpt_state {
	char tide_version[32];
	/* integrator */
	int64_t step;
	double t;
	int32_t verlet_count;
	int32_t integrator;           /* enum tide_integrator of the run (checked against the case) */
	tide_step_reduce last;        /* the last step's reduction; last.dt is its time step */
	int32_t rebalances;
	/* floating bodies (include/tide/rigid.h): their states and the poses their particles are
	 * at, by rigid index (nrigid = 0: none) */
	int32_t nrigid;
	tide_rigid rigid[TIDE_MAX_FLOAT];
	tide_pose rigid_pose[TIDE_MAX_FLOAT];
	/* sink particles (include/tide/sinks.h; n = 0: none) */
	tide_sinks_saved sinks;
	/* blocks */
	int32_t nblocks;
	uint32_t halo_cap;
	tide_block_arg *range;        /* [nblocks] */
	uint32_t *count, *cap;        /* [nblocks] */
	int *owner;                   /* [nblocks] the rank of each block (a restart on as many ranks
	                               * keeps them: block_owners hilbert placed them by measured cost) */
	int32_t nranks;               /* ranks of the run that wrote it */
	/* particles */
	uint64_t n_total;             /* particles in particles.bin (sum of count) */
	uint64_t n_fluid0, n_bound0;  /* particles at the start of the run */
	/* outputs */
	int32_t n_outputs;            /* particles_NNNN.vtp written so far */
	double next_out;              /* simulated time of the next output */
	double *out_time;             /* [n_outputs] */
	/* filled by the writer / checked by the reader */
	uint64_t particles_fnv, params_fnv;
} tide_ckpt_state;

/* Writes the checkpoint directory dir (atomically replacing any previous one) from the gathered
 * particles `all` (n_total = all->count) and the case.  Rank 0 only.  0 or -1 (one sentence
 * naming the path and the reason printed; the previous checkpoint is left as it was). */
int tide_checkpoint_write(const char *dir, tide_ckpt_state *st, const tide_block_view *all,
                          const tide_case *c);

/* Reads and verifies dir (magic, version, byte order, sizes, checksums; falls back to dir.prev
 * when dir is missing), fills *st (arrays malloc'ed: tide_ckpt_state_free), the particles into
 * a host block *mem / *all, and loads the case from dir/used_parameters.yaml.  0 or -1 (one
 * sentence naming the file and what is wrong). */
int tide_checkpoint_read(const char *dir, tide_ckpt_state *st, void **mem, tide_block_view *all,
                         tide_case *c);

void tide_ckpt_state_free(tide_ckpt_state *st);

/* FNV-1a 64-bit hash of n bytes, continuing from h (start with TIDE_FNV_INIT). */
#define TIDE_FNV_INIT 0xcbf29ce484222325ull
uint64_t tide_fnv1a(uint64_t h, const void *p, size_t n);

#endif
