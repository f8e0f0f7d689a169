#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/device_output.sh — issue 18's figures on the GPU node, in one command (a package from
# TIDE_DEV_HDF5=1 tools/device_pack.sh carried along; writes under $OUT):
#  1. the snapshot test on the GPU (snap_copy's CUDA half: every snapshot = the synchronous
#     checkpoint state, stops with a pending snapshot) and the CUDA halves of the gauge codelets;
#  2. bench/output_overhead.sh at dp 0.01 (about 1 M particles, 0.1 s simulated) and dp 0.004
#     (about 13 M, 0.04 s): no output, a snapshot every 0.01 s as .vtp and as .h5, gauges every
#     0.001 s — the overhead in % of the run without output (goals: snapshots <= 10 % at 1 M and
#     <= 5 % at 13 M, gauges <= 2 % at 13 M).
# Default environment (no STARPU_* variable set), as a user runs it.
set -uo pipefail
. "$(dirname "$0")/device_env.sh"
{
step "snapshots on the GPU"
bash tests/test_snapshots.sh "$t" ./build/tests/compare_particles . 2>&1 | tail -15
echo "test_snapshots exit code: ${PIPESTATUS[0]}"
step "gauge codelets, CUDA against CPU"
./build/tests/test_gauge_tasks . --cuda 2>&1 | tail -3
echo "test_gauge_tasks --cuda exit code: ${PIPESTATUS[0]} (77: no CUDA worker)"
for spec in 0.01:0.1 0.004:0.04; do
	dp=${spec%:*}
	step "output overhead, SPHERIC 2 at dp $dp"
	bash bench/output_overhead.sh --dp "$dp" --t-end "${spec#*:}" --out "$out/overhead_$dp" --no-plot
done
} 2>&1 | tee "$out/device_output.log"
