#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Any StarPU scheduler gives the same physics: the 2-D dam break run for 150 steps under lws,
# eager, dmda, dmdas and heteroprio (the README's list), on 1 and 3 blocks, must write identical
# gauges (the surge front is measured from every particle) and identical particle files, and
# StarPU must know each scheduler (it falls back to its default on a name it does not know).  Forces are computed per block in a fixed order and the time step is a
# min-reduction, so the results are bit for bit the same whichever worker runs which task.
# usage: test_schedulers.sh TIDE SRC_ROOT
set -euo pipefail
tide=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
run() { # sched blocks
	STARPU_SCHED=$1 "$tide" run "$src/cases/dambreak2d.yaml" --dp 0.01 --max-steps 150 \
		--set time.output=0.002 --blocks "$2" --out "$work/$1_$2" --quiet 2>"$work/$1_$2.err" ||
		{ cat "$work/$1_$2.err"; echo "FAIL: the run under $1 ($2 blocks) failed"; exit 1; }
	# StarPU falls back to its default on a name it does not know: tide's summary records the
	# policy StarPU uses, and tide warns
	if grep -q "scheduling policy .* was not found\|is not a StarPU scheduling policy" "$work/$1_$2.err" ||
		! grep -q "\"sched\": \"$1\"" "$work/$1_$2/run_summary.json"; then
		cat "$work/$1_$2.err"; grep sched "$work/$1_$2/run_summary.json"
		echo "FAIL: StarPU does not know the scheduler $1"; exit 1
	fi
}
for b in 1 3; do
	run lws $b
	for s in eager dmda dmdas heteroprio; do
		run $s $b
		cmp "$work/lws_$b/gauges.csv" "$work/${s}_$b/gauges.csv" || { echo "FAIL: $s ($b blocks) gauges differ from lws"; exit 1; }
		last=$(ls "$work/lws_$b"/particles_*.vtp | tail -n1)
		cmp "$last" "$work/${s}_$b/$(basename "$last")" || { echo "FAIL: $s ($b blocks) particles differ from lws"; exit 1; }
	done
done
echo "schedulers: lws, eager, dmda, dmdas, heteroprio give identical results on 1 and 3 blocks"
