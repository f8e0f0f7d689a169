#!/usr/bin/env bash
# device call F (session 12): the issue 20 ladder on the H200 (main f25cbae): Verlet and
# symplectic + Wendland + Fourtakas at 1.1 / 4.4 / 13.3 M, time per step, bytes per particle
set -u
tar xJf .devz/nokey.tar.xz && ln -sfn .dev/build build && ln -sfn .dev .deps
. tools/device_env.sh
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpu.txt
step "ladder Verlet 1.1/4.4/13.3 M"
timeout 200 bash bench/sph_ladder.sh --targets 1.1e6,4.4e6,13.3e6 --steps 30 --warmup 3 --out /tmp/lad --no-plot > /tmp/lad.log 2>&1; echo rc=$?
cp /tmp/lad/sph_ladder.csv $OUT/h200_ladder_verlet.csv; cut -d, -f1-8 $OUT/h200_ladder_verlet.csv
step "ladder symplectic+wendland+fourtakas 1.1/4.4/13.3 M"
timeout 200 bash bench/sph_ladder.sh --targets 1.1e6,4.4e6,13.3e6 --steps 20 --warmup 3 --out /tmp/lads --no-plot -- --set physics.integrator=symplectic --set physics.kernel=wendland --set physics.diffusion=fourtakas > /tmp/lads.log 2>&1; echo rc=$?
cp /tmp/lads/sph_ladder.csv $OUT/h200_ladder_symplectic.csv; cut -d, -f1-8 $OUT/h200_ladder_symplectic.csv
