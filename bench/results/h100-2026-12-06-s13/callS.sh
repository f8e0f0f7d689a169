#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# device call S (session 13): main with ftz (d082a45) on the rungs call Q did not run: Verlet
# 4.4 M and symplectic + Wendland + Fourtakas 1.1 M
set -u
tar xJf .devz/ftz.tar.xz && ln -sfn .dev/build build && ln -sfn .dev .deps
. tools/device_env.sh
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpu.txt
timeout 80 bash bench/sph_ladder.sh --targets 4.4e6 --steps 30 --warmup 3 --out /tmp/lad --no-plot > /tmp/lad.log 2>&1; echo rc=$?
cp /tmp/lad/sph_ladder.csv $OUT/ladder_verlet_4M.csv; cut -d, -f1-8 $OUT/ladder_verlet_4M.csv
timeout 60 bash bench/sph_ladder.sh --targets 1.1e6 --steps 20 --warmup 3 --out /tmp/lads --no-plot -- --set physics.integrator=symplectic --set physics.kernel=wendland --set physics.diffusion=fourtakas > /tmp/lads.log 2>&1; echo rc=$?
cp /tmp/lads/sph_ladder.csv $OUT/ladder_symplectic_1M.csv; cut -d, -f1-8 $OUT/ladder_symplectic_1M.csv
