#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/block_owners.sh — how evenly the ranks share a case's cost with blocks given as boxes of
# blocks (block_owners: boxes) or as runs along a Hilbert curve (block_owners: hilbert), for
# several rank and block counts.  The figure is the run's own log line (src/cmd_run.c): the
# estimated cost of each rank's particles (tide_decomp_cost) as max/mean - 1, from a 1-step run
# (no timing: it is the same on any machine).  Writes DIR/block_owners.csv.
#
# usage: bench/block_owners.sh [--case FILE] [--ranks "4 8 16"] [--blocks "16 64 256"]
#          [--decomp 3d] [--out DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(dirname "$here")
die() { printf 'block_owners.sh: %s\n' "$*" >&2; exit 2; }
case_file=$repo/cases/dambreak3obs.yaml ranks="4 8 16" blocks="16 64 256" decomp=3d
out=$repo/bench/out/block_owners
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || die "option $1 needs a value"
	case $1 in
	--case) case_file=$2 ;; --ranks) ranks=$2 ;; --blocks) blocks=$2 ;; --decomp) decomp=$2 ;;
	--out) out=$2 ;;
	*) die "unknown option $1" ;;
	esac
	shift 2
done
tide=${TIDE:-$repo/build/tide}
[ -x "$tide" ] || die "no build at $tide (bash tools/build.sh)"
mkdir -p "$out"
csv=$out/block_owners.csv
echo "case,ranks,blocks,owners,blocks_per_rank,estimated_imbalance_pct" > "$csv"
printf '%6s %7s %8s %24s\n' ranks blocks owners "max/mean - 1 (estimated)"
for np in $ranks; do
	for nb in $blocks; do
		[ "$nb" -ge "$np" ] || continue
		for o in boxes hilbert; do
			line=$(mpirun --allow-run-as-root --oversubscribe --bind-to none -x STARPU_NCPU=1 \
				-x STARPU_SILENT=1 -x STARPU_WORKERS_NOBIND=1 -np "$np" "$tide" run "$case_file" \
				--max-steps 1 --blocks "$nb" --set decomposition="$decomp" --set block_owners=$o \
				--no-output --out "$out/run" --overwrite 2>&1 | grep "blocks of each rank" || true)
			[ -n "$line" ] || die "$np ranks, $nb blocks, $o: no 'blocks of each rank' line (did the run fail?)"
			per=$(sed 's/.*): \(.*\);.*/\1/; s/ //g' <<< "$line")
			pct=$(sed 's/.*max\/mean - 1 = \([0-9.]*\) %.*/\1/' <<< "$line")
			echo "$(basename "$case_file" .yaml),$np,$nb,$o,$per,$pct" >> "$csv"
			printf '%6s %7s %8s %23s%%\n' "$np" "$nb" "$o" "$pct"
		done
	done
done
echo "wrote $csv"
