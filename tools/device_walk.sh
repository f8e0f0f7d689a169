#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/device_walk.sh — A/B measurement of the CUDA Barnes-Hut walk on the GPU node, in one
# command: test_bh (CUDA against CPU), then `tide gravity` at each WALK_N (default 16.8 M particles,
# Plummer, quadrupoles) for every environment variant of WALK_VARIANTS (';'-separated lists of
# VAR=value, "-" for none) and every theta of WALK_THETAS, and, unless WALK_NCU=0, Nsight Compute
# on one walk launch of each variant of WALK_NCU_VARIANTS at WALK_NCU_N particles.  Run from the
# repository root with build/ and .deps/lib as tools/device_pack.sh leaves them; writes
# walk_ab.csv, walk_ab.log and ncu_walk_*.txt under $OUT (default /tmp/tide-device).
set -uo pipefail
. "$(dirname "$0")/device_env.sh"
{
step "machine"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv
if [ "${WALK_TEST:-1}" = 1 ]; then
	step "correctness: Barnes-Hut CUDA vs CPU (test_bh)"
	timeout 240 ./build/tests/test_bh . --cuda 2>&1 | grep -E "CUDA vs CPU|fail|pass|EXPECT" | tail -12
fi
IFS=';' read -r -a variants <<< "${WALK_VARIANTS:--}"
for v in "${variants[@]}"; do
	for n in ${WALK_N:-16777216}; do
	for th in ${WALK_THETAS:-0.6}; do
		step "variant '$v', N $n, theta $th"
		env $( [ "$v" = - ] || echo "$v" ) timeout 150 $t gravity --n "$n" --dist plummer \
			--theta "$th" --quadrupole --device cuda --repeat "${WALK_REPEAT:-3}" --check 1000 \
			--csv "$out/walk_ab_raw.csv" 2>&1 | tail -4
		# one row per run: the variant, then tide's own CSV row
		echo "\"$v\",$(tail -1 "$out/walk_ab_raw.csv")" >> "$out/walk_ab.csv"
	done
	done
done
if [ "${WALK_NCU:-1}" = 1 ] && command -v ncu >/dev/null; then
	IFS=';' read -r -a nv <<< "${WALK_NCU_VARIANTS:--}"
	k=0
	for v in "${nv[@]}"; do
		step "ncu: one walk launch, variant '$v', N ${WALK_NCU_N:-4194304}"
		env $( [ "$v" = - ] || echo "$v" ) timeout 300 ncu --clock-control none \
			-k regex:walk_fast_kernel -c 1 \
			--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
			--section LaunchStats --section Occupancy --section WarpStateStats --section InstructionStats \
			--section SchedulerStats ${WALK_NCU_EXTRA:-} \
			$t gravity --n "${WALK_NCU_N:-4194304}" --dist plummer --theta 0.6 --quadrupole \
			--device cuda --repeat 1 2>&1 | grep -v "^==PROF==" > "$out/ncu_walk_$k.txt"
		grep -E "Duration|Throughput|Registers|Occupancy|Executed Ipc|Issue Slots|Warp Cycles|Stall|Eligible|No Eligible|L1/TEX Hit|L2 Hit|Shared Memory" "$out/ncu_walk_$k.txt" | head -40
		k=$((k + 1))
	done
fi
} 2>&1 | tee "$out/walk_ab.log"
