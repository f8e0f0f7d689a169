#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# device call K (session 13): Nsight Compute on the once kernel and the ordered kernel at 1.04 M
set -u
tar xJf .devz/once2.tar.xz && ln -sfn .dev/build build && ln -sfn .dev .deps
. tools/device_env.sh
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpu.txt
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis_Tables"
step "ncu once"
timeout 250 ncu --clock-control none -k regex:forces_once_kernel -s 2 -c 1 $S --print-details all ./build/tide run cases/spheric2.yaml --dp 0.01 --max-steps 4 --no-output > $OUT/ncu_once.txt 2>&1; echo rc=$?
step "ncu ordered"
TIDE_SPH_GPU_PAIRS=ordered timeout 250 ncu --clock-control none -k regex:forces_cell_kernel -s 2 -c 1 $S --print-details all ./build/tide run cases/spheric2.yaml --dp 0.01 --max-steps 4 --no-output > $OUT/ncu_ordered.txt 2>&1; echo rc=$?
for f in once ordered; do echo "== $f"; grep -E "Duration|Executed Instructions |Issue Slots Busy|Registers Per|Achieved Occupancy|Stall|Warp Cycles Per Issued|No Eligible|Shared.*Bank|smsp__pcsamp" $OUT/ncu_$f.txt | head -40; done
