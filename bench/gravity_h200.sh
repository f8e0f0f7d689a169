#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/gravity_h200.sh OUT — the Barnes–Hut benchmark of issue 5 on one GPU node, from the
# repository root with build/ (CUDA build) and .deps/lib (StarPU, FxT, libyaml) present:
#   1. tests/test_bh: the CPU accuracy tests, then with --cuda the CUDA codelets against the CPU ones;
#   2. the ladder: Plummer spheres of 1, 16.8 and 33.5 million particles, theta 0.5, 0.6, 0.75,
#      quadrupoles, single precision, on the GPU: median build / moments / walk / total times of 5
#      evaluations and the error distribution against a double-precision direct sum (on the GPU)
#      on 1000 random particles;
#   3. the CPU tree (all cores) at 1 million particles, theta 0.6, for the GPU/CPU ratio.
# Writes OUT/gravity_ladder.csv, OUT/test_bh.txt, OUT/ladder.txt, OUT/machine.txt.  About 3-4 min.
set -uo pipefail
out=${1:-bench/out/gravity}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/.deps/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export STARPU_HOME=${STARPU_HOME:-/tmp/tide-starpu-home}
export STARPU_SILENT=1
tide=./build/tide
csv="$out/gravity_ladder.csv"
rm -f "$csv"
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; nproc; git rev-parse HEAD; } \
	>"$out/machine.txt" 2>&1
timeout 300 ./build/tests/test_bh >"$out/test_bh.txt" 2>&1
echo "test_bh exit $?" >>"$out/test_bh.txt"
timeout 300 ./build/tests/test_bh . --cuda >>"$out/test_bh.txt" 2>&1
echo "test_bh --cuda exit $? (77: no CUDA worker)" >>"$out/test_bh.txt"
tail -n 12 "$out/test_bh.txt"
for n in 1048576 16777216 33554432; do
	for theta in 0.5 0.6 0.75; do
		timeout 120 "$tide" gravity --n "$n" --dist plummer --theta "$theta" --quadrupole \
			--device cuda --repeat 5 --check 1000 --csv "$csv" 2>&1 | tee -a "$out/ladder.txt"
	done
done
timeout 200 "$tide" gravity --n 1048576 --dist plummer --theta 0.6 --quadrupole --device cpu \
	--repeat 2 --check 1000 --csv "$csv" 2>&1 | tee -a "$out/ladder.txt"
column -s, -t <"$csv" 2>/dev/null || cat "$csv"
