#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# device call Q (session 13): the pair physics with rcp/rsqrt.approx.ftz on the GPU against
# main: the CUDA force tests, then the ladder, alternating builds
set -u
mkdir -p /tmp/old && tar xJf .devz/main13.tar.xz -C /tmp/old
tar xJf .devz/ftz.tar.xz && ln -sfn .dev/build build && ln -sfn .dev .deps
. tools/device_env.sh
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpu.txt
step "tests (ftz)"
timeout 150 ./build/tests/test_sph_forces . --cuda > $OUT/sph_forces_cuda_ftz.log 2>&1; echo "sph_forces_cuda rc=$?"; tail -1 $OUT/sph_forces_cuda_ftz.log; grep FAIL $OUT/sph_forces_cuda_ftz.log | head -5
timeout 120 ./build/tests/test_sph_forces . --split --cuda 2>&1 | tail -1; echo "forces_split_cuda rc=$?"
timeout 200 ./build/tests/test_mdbc . --cuda 2>&1 | tail -1; echo "mdbc_cuda rc=$?"
for round in 1 2; do
for b in new old; do
if [ $b = new ]; then ln -sfn .dev/build build; ln -sfn .dev .deps; else ln -sfn /tmp/old/.dev/build build; ln -sfn /tmp/old/.dev .deps; fi
step "ladder Verlet 1.1 / 13.3 M, $b (round $round)"
timeout 100 bash bench/sph_ladder.sh --targets 1.1e6,13.3e6 --steps 30 --warmup 3 --out /tmp/lad_${b}_$round --no-plot > /tmp/lad.log 2>&1; echo rc=$?
cp /tmp/lad_${b}_$round/sph_ladder.csv $OUT/ladder_${b}_$round.csv; cut -d, -f1-4 $OUT/ladder_${b}_$round.csv | tail -2
done
done
for b in new old; do
if [ $b = new ]; then ln -sfn .dev/build build; ln -sfn .dev .deps; else ln -sfn /tmp/old/.dev/build build; ln -sfn /tmp/old/.dev .deps; fi
step "ladder symplectic+wendland+fourtakas 13.3 M, $b"
timeout 100 bash bench/sph_ladder.sh --targets 13.3e6 --steps 20 --warmup 3 --out /tmp/lads_$b --no-plot -- --set physics.integrator=symplectic --set physics.kernel=wendland --set physics.diffusion=fourtakas > /tmp/lads.log 2>&1; echo rc=$?
cp /tmp/lads_$b/sph_ladder.csv $OUT/ladder_sympl_$b.csv; cut -d, -f1-4 $OUT/ladder_sympl_$b.csv | tail -1
done
