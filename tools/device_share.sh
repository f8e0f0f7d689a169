#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/device_share.sh — ranks sharing the one GPU of the node (the distributed-SPH issue's
# "2 ranks sharing the H200 lose no more than 10 % against 1 rank at 13 million particles"):
# SPHERIC test 2 at dp 0.00395 m (13.3 M particles), GPU alone, 1 rank with 1, 2 and 4 blocks
# and 2 ranks with 2, 4 and 8 blocks, then 2 ranks (2 and 4 blocks) and 4 ranks (8 blocks) under
# CUDA MPS when the node has it; TIDE_SHARE_B1, _B2, _B4, _MPS1, _MPS2, _MPS4 replace those lists
# of block counts (empty: none).  The
# time per step is the summary's later_steps (the mean of the steps after the first).  Writes
# $OUT/share.csv (ranks, blocks, mps, particles, ms per step) and prints it.  build/ and
# .deps/lib as for tools/device_perf.sh; TIDE_SHARE_STEPS (default 25), TIDE_SHARE_DP, and
# TIDE_SHARE_ARGS (more options for every tide run, e.g. --balance-every 5).
set -uo pipefail
out=${OUT:-/tmp/tide-device}; mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/.deps/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export STARPU_HOME=${STARPU_HOME:-/tmp/tide-starpu-home} STARPU_SILENT=1
t=$PWD/build/tide dp=${TIDE_SHARE_DP:-0.00395} steps=${TIDE_SHARE_STEPS:-25}
read -r -a more <<< "${TIDE_SHARE_ARGS:-}"
csv=$out/share.csv
echo "ranks,blocks,mps,particles,ms_per_step,first_step_s" > "$csv"
later() { # summary -> "particles,ms,first"
	python3 - "$1" <<'PY'
import csv, sys
r = list(csv.reader(open(sys.argv[1]))); h = [c.split('[')[0] for c in r[0]]; v = dict(zip(h, r[1]))
print('%d,%.2f,%.2f' % (int(v['n_fluid']) + int(v['n_bound']), 1e3 * float(v['later_steps']),
                        float(v['first_step'])))
PY
}
one() { # ranks blocks mps
	local d=/tmp/share_$1_$2_$3
	rm -rf "$d"
	if [ "$1" = 1 ]; then
		STARPU_NCPU=1 timeout 120 "$t" run cases/spheric2.yaml --dp "$dp" --max-steps "$steps" \
			--blocks "$2" --no-output --quiet --out "$d" ${more[@]+"${more[@]}"} > "$d.log" 2>&1
	else
		timeout 150 mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$1" \
			-x STARPU_NCPU=1 -x STARPU_SILENT -x STARPU_HOME -x LD_LIBRARY_PATH \
			"$t" run cases/spheric2.yaml --dp "$dp" --max-steps "$steps" --blocks "$2" \
			--no-output --quiet --out "$d" ${more[@]+"${more[@]}"} > "$d.log" 2>&1
	fi
	if [ -f "$d/run_summary.csv" ]; then echo "$1,$2,$3,$(later "$d/run_summary.csv")" >> "$csv"
	else echo "ranks $1 blocks $2 mps $3 failed: $(tail -n 2 "$d.log")"; fi
}
for b in ${TIDE_SHARE_B1-1 2 4}; do one 1 $b 0; done
for b in ${TIDE_SHARE_B2-2 4 8}; do one 2 $b 0; done
for b in ${TIDE_SHARE_B4-}; do one 4 $b 0; done
if command -v nvidia-cuda-mps-control > /dev/null; then
	if nvidia-cuda-mps-control -d; then
		sleep 1
		for b in ${TIDE_SHARE_MPS2-2 4}; do one 2 $b 1; done
		for b in ${TIDE_SHARE_MPS4-8}; do one 4 $b 1; done
		for b in ${TIDE_SHARE_MPS1-1}; do one 1 $b 1; done
		echo quit | nvidia-cuda-mps-control
	fi
fi
cat "$csv"
