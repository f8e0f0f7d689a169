#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The forces split into interior and boundary tasks (issue 25, include/tide/cell_split.h,
# TIDE_FORCES_SPLIT) in whole runs: the 2-D dam break on a 2 x 2 grid of boxes (CPU)
#   - 1 rank, TIDE_FORCES_SPLIT=on against off: bit-identical particles and gauges after every
#     output, and one more task a step for each block (the interior's: the log of
#     TIDE_SUBMIT_COUNT);
#   - 2 ranks, auto (the default: the blocks with a neighbour on the other rank are split) and
#     off: both bit-identical to 1 rank, auto with more tasks than off;
#   - an unknown value: a warning naming it, and auto.
# usage: test_forces_split_run.sh TIDE SRC_ROOT
set -euo pipefail
tide=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
args=(run "$src/cases/dambreak2d.yaml" --dp 0.01 --max-steps 200 --set time.output=0.002
      --blocks 4 --set decomposition=2x1x2 --quiet)
same() { # reference run, other run
	cmp "$work/$1/gauges.csv" "$work/$2/gauges.csv" || { echo "FAIL: $2: gauges differ from $1"; exit 1; }
	local n=0
	for f in "$work/$1"/particles_*.vtp; do
		cmp "$f" "$work/$2/$(basename "$f")" || { echo "FAIL: $2: $(basename "$f") differs from $1"; exit 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 5 ] || { echo "FAIL: $1 wrote $n particle files"; exit 1; }
	echo "ok: $2 = $1 ($n particle files and the gauges, bit for bit)"
}
tasks() { grep -h "^tide: submitted rank" "$work/$1.err" | awk '{ s += $8 } END { print s + 0 }'; }
for mode in off on; do
	TIDE_SUBMIT_COUNT=1 TIDE_FORCES_SPLIT=$mode STARPU_NCPU=2 "$tide" "${args[@]}" \
		--out "$work/r1_$mode" 2> "$work/r1_$mode.err" || { cat "$work/r1_$mode.err"; echo "FAIL: 1 rank, $mode"; exit 1; }
done
same r1_off r1_on
off=$(tasks r1_off) on=$(tasks r1_on) steps=$(grep -c "^tide: submitted rank" "$work/r1_on.err")
[ "$on" -eq $((off + 4 * steps)) ] ||
	{ echo "FAIL: 1 rank: $on tasks split, $off unsplit over $steps steps: not 4 more a step (one per block)"; exit 1; }
echo "ok: 1 rank: $on tasks split, $off unsplit ($steps steps, 4 blocks)"

TIDE_FORCES_SPLIT=bogus STARPU_NCPU=2 "$tide" "${args[@]}" --out "$work/r1_bogus" 2> "$work/r1_bogus.err" ||
	{ cat "$work/r1_bogus.err"; echo "FAIL: TIDE_FORCES_SPLIT=bogus stopped the run"; exit 1; }
grep -q "TIDE_FORCES_SPLIT='bogus' is none of 'auto', 'on', 'off'" "$work/r1_bogus.err" ||
	{ cat "$work/r1_bogus.err"; echo "FAIL: no warning for TIDE_FORCES_SPLIT=bogus"; exit 1; }
same r1_off r1_bogus

if command -v mpirun > /dev/null; then
	mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none -x STARPU_NCPU=1
	     -x STARPU_WORKERS_NOBIND=1 -x STARPU_SILENT=1 -x TIDE_SUBMIT_COUNT=1)
	[ -n "${STARPU_HOME:-}" ] && mpi+=(-x STARPU_HOME)
	for mode in auto off; do
		"${mpi[@]}" -x TIDE_FORCES_SPLIT=$mode -np 2 "$tide" "${args[@]}" --out "$work/r2_$mode" \
			> "$work/r2_$mode.err" 2>&1 || { cat "$work/r2_$mode.err"; echo "FAIL: 2 ranks, $mode"; exit 1; }
		same r1_off r2_$mode
	done
	[ "$(tasks r2_auto)" -gt "$(tasks r2_off)" ] ||
		{ echo "FAIL: 2 ranks: auto submitted $(tasks r2_auto) tasks, off $(tasks r2_off): nothing split"; exit 1; }
	echo "ok: 2 ranks: auto $(tasks r2_auto) tasks, off $(tasks r2_off)"
fi
