#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# device call I (session 13): each pair once on the GPU (branch once): the CUDA force tests both
# ways, then the Verlet ladder at 1.1 / 13.3 M, once (default) against ordered, alternating
set -u
tar xJf .devz/once.tar.xz && ln -sfn .dev/build build && ln -sfn .dev .deps
. tools/device_env.sh
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpu.txt
step "tests"
timeout 150 ./build/tests/test_sph_forces . --cuda > $OUT/sph_forces_cuda.log 2>&1; echo "sph_forces_cuda rc=$?"
grep -E "FAIL|CUDA \(" $OUT/sph_forces_cuda.log | head -30
timeout 120 ./build/tests/test_sph_forces . --split --cuda > $OUT/forces_split_cuda.log 2>&1; echo "forces_split_cuda rc=$?"
grep -E "FAIL|once|forces_split" $OUT/forces_split_cuda.log | head -30
for round in 1 2; do
for mode in once ordered; do
step "ladder Verlet 1.1 / 13.3 M, $mode (round $round)"
TIDE_SPH_GPU_PAIRS=$mode timeout 100 bash bench/sph_ladder.sh --targets 1.1e6,13.3e6 --steps 30 --warmup 3 --out /tmp/lad_${mode}_$round --no-plot > /tmp/lad.log 2>&1; echo rc=$?
cp /tmp/lad_${mode}_$round/sph_ladder.csv $OUT/ladder_${mode}_$round.csv; cut -d, -f1-8 $OUT/ladder_${mode}_$round.csv
done
done
