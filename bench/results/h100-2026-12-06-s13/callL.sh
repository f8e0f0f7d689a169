#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# device call L (session 13): timing experiment only: the once kernel with its shared-memory
# atomic additions replaced by plain (racy) ones, against ordered, same binary
set -u
tar xJf .devz/racy.tar.xz && ln -sfn .dev/build build && ln -sfn .dev .deps
. tools/device_env.sh
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpu.txt
for mode in once ordered; do
step "ladder Verlet 1.1 / 13.3 M, $mode (racy build)"
TIDE_SPH_GPU_PAIRS=$mode timeout 100 bash bench/sph_ladder.sh --targets 1.1e6,13.3e6 --steps 30 --warmup 3 --out /tmp/lad_${mode} --no-plot > /tmp/lad.log 2>&1; echo rc=$?
cut -d, -f1-8 /tmp/lad_${mode}/sph_ladder.csv
done
S="--section SpeedOfLight --section WarpStateStats --section InstructionStats"
timeout 200 ncu --clock-control none -k regex:forces_once_kernel -s 2 -c 1 $S --print-details all ./build/tide run cases/spheric2.yaml --dp 0.01 --max-steps 4 --no-output --overwrite > $OUT/ncu_racy.txt 2>&1; echo rc=$?
grep -E "Duration|Executed Instructions  |Compute \(SM\) Throughput|Stall Barrier|Stall Short" $OUT/ncu_racy.txt | head
