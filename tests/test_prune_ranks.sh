#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Pruned task submission (issue 25, tasks/block_lists.c): on 8 ranks with 16 blocks cut into 1-D
# slabs, each rank submits the tasks of its own blocks and of their neighbours only.  Every rank
# prints what it submitted each step (TIDE_SUBMIT_COUNT=1); the test checks
#   - its own blocks are 2 and the blocks it submits for ("near") are those plus the slab on
#     each side: 3 at the ends, 4 inside, never all 16;
#   - the tasks of a step are exactly 2 per own block (cell_sort, integrate), 4 per near block
#     (halo_pack, sph_forces, migrate_pack, migrate_unpack), plus the time step's recursive
#     doubling (1 dt_init + 2 combinations in each of log2 8 = 3 rounds): where every rank
#     used to submit all 16 blocks' (6 x 16 + 16 = 112 a step with the one-hop combination);
#     (a step that measures the gauges adds one more cell_sort per own block and halo_pack
#     per near block);
#     (the forces unsplit, TIDE_FORCES_SPLIT=off: split, a block with an interior adds one
#     task, tests/test_forces_split_run.sh);
#   - with TIDE_PRUNE=0 (every rank every block, as before) the count is 6 x 16 + 8 dt_init + 6;
#   - the particles and gauges equal those of 1 rank bit for bit, pruned or not, and so do the
#     checkpoints written every 20 steps (rank 0 gathers every block, far ones included: the
#     gather must not take a copy it received before as still valid, sph_setup.c).
# usage: test_prune_ranks.sh TIDE SRC_ROOT
set -euo pipefail
tide=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none
     -x STARPU_NCPU=1 -x STARPU_WORKERS_NOBIND=1 -x STARPU_SILENT=1 -x TIDE_SUBMIT_COUNT=1
     -x TIDE_DT_REDUCTION=tree -x TIDE_FORCES_SPLIT=off)
[ -n "${STARPU_HOME:-}" ] && mpi+=(-x STARPU_HOME)
args=(run "$src/cases/dambreak2d.yaml" --dp 0.01 --max-steps 60 --set time.output=0.002
      --blocks 16 --set decomposition=16x1x1 --quiet --checkpoint-every 20steps)
STARPU_NCPU=1 "$tide" "${args[@]}" --out "$work/r1"
check_same() {
	cmp "$work/r1/gauges.csv" "$work/$1/gauges.csv" || { echo "FAIL: $1: gauges differ from 1 rank"; exit 1; }
	cmp "$work/r1/checkpoint/particles.bin" "$work/$1/checkpoint/particles.bin" ||
		{ echo "FAIL: $1: the last checkpoint's particles differ from 1 rank's"; exit 1; }
	for f in "$work/r1"/particles_*.vtp; do
		cmp "$f" "$work/$1/$(basename "$f")" || { echo "FAIL: $1: $(basename "$f") differs from 1 rank"; exit 1; }
	done
}
for prune in 1 0; do
	"${mpi[@]}" -x TIDE_PRUNE=$prune -np 8 "$tide" "${args[@]}" --out "$work/p$prune" \
		> "$work/p$prune.out" 2>&1 || { cat "$work/p$prune.out"; echo "FAIL: 8 ranks (TIDE_PRUNE=$prune) exited with an error"; exit 1; }
	check_same "p$prune"
	grep "^tide: submitted rank" "$work/p$prune.out" > "$work/c$prune"
	[ "$(wc -l < "$work/c$prune")" -eq $((8 * 60)) ] ||
		{ echo "FAIL: TIDE_PRUNE=$prune: $(wc -l < "$work/c$prune") step counts, not 8 ranks x 60 steps"; exit 1; }
	# fields: 3 rank, 5 step, 7 tasks, 9 mine, 11 near, 13 blocks
	awk -v prune=$prune '{
		r = $4; tasks = $8; mine = $10; near = $12; nb = $14
		if (prune) {
			want_near = (r == 0 || r == 7) ? 3 : 4
			if (mine != 2 || near != want_near) { printf "FAIL: rank %d: %d own and %d near blocks, not 2 and %d\n", r, mine, near, want_near; bad = 1; exit 1 }
			want = 2 * mine + 4 * near + 7
		} else {
			if (mine != nb || near != nb) { printf "FAIL: TIDE_PRUNE=0 rank %d: lists %d %d, not all %d blocks\n", r, mine, near, nb; bad = 1; exit 1 }
			want = 6 * nb + 8 + 6
		}
		# a step with gauge output sorts and packs the halos once more (gauge_tasks.c)
		if (tasks == want + mine + near) { gauge++; want = tasks }
		if (tasks != want) { printf "FAIL: TIDE_PRUNE=%d rank %d step %d: %d tasks, not %d\n", prune, r, $6, tasks, want; bad = 1; exit 1 }
		sum += tasks
	} END { if (!bad) printf "ok: TIDE_PRUNE=%d, 8 ranks x 16 slabs: %.1f tasks per rank and step, results = 1 rank\n", prune, sum / NR }' "$work/c$prune"
done
