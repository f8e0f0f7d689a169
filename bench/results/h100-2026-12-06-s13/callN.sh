#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# device call N (session 13): main after the session's test change (the CUDA pass's step record
# against the reference): sph_forces_cuda and forces_split_cuda
set -u
tar xJf .devz/main13.tar.xz && ln -sfn .dev/build build && ln -sfn .dev .deps
. tools/device_env.sh
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpu.txt
timeout 150 ./build/tests/test_sph_forces . --cuda > $OUT/sph_forces_cuda_main.log 2>&1; echo "sph_forces_cuda rc=$?"
grep -cE "CUDA vs CPU: .* dt vs reference" $OUT/sph_forces_cuda_main.log; grep FAIL $OUT/sph_forces_cuda_main.log | head
timeout 120 ./build/tests/test_sph_forces . --split --cuda 2>&1 | tail -1; echo "forces_split_cuda rc=$?"
