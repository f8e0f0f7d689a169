#!/usr/bin/env bash
# device call C (session 12): nokey + tide run's suballocator off by default: bytes per particle
# and speed, default against STARPU_SUBALLOCATOR=1 (alternating), Verlet 1.1/13.3 M, symplectic
# 13.3 M, and the gas + self-gravity collapse at 1 M
set -u
tar xJf .devz/nokey.tar.xz && ln -sfn .dev/build build && ln -sfn .dev .deps
. tools/device_env.sh
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpu.txt
for round in 1 2; do for sa in default 1; do
  step "Verlet 1.1 / 13.3 M, suballocator $sa (round $round)"
  if [ $sa = default ]; then unset STARPU_SUBALLOCATOR; else export STARPU_SUBALLOCATOR=1; fi
  timeout 100 bash bench/sph_ladder.sh --targets 1.1e6,13.3e6 --steps 30 --warmup 3 --out /tmp/l$sa$round --no-plot > /tmp/l.log 2>&1; echo rc=$?
  cp /tmp/l$sa$round/sph_ladder.csv $OUT/verlet_sa${sa}_$round.csv; cut -d, -f1-8 /tmp/l$sa$round/sph_ladder.csv | tail -2
done; done
unset STARPU_SUBALLOCATOR
for sa in default 1; do
  step "symplectic+wendland+fourtakas 13.3 M, suballocator $sa"
  if [ $sa = default ]; then unset STARPU_SUBALLOCATOR; else export STARPU_SUBALLOCATOR=1; fi
  timeout 100 bash bench/sph_ladder.sh --targets 13.3e6 --steps 20 --warmup 3 --out /tmp/s$sa --no-plot -- --set physics.integrator=symplectic --set physics.kernel=wendland --set physics.diffusion=fourtakas > /tmp/s.log 2>&1; echo rc=$?
  cut -d, -f1-8 /tmp/s$sa/sph_ladder.csv | tail -1
  step "collapse 1 M, suballocator $sa"
  TIDE_COLLAPSE_TARGETS=1e6 timeout 120 bash bench/collapse_h200.sh --steps 10 --out /tmp/c$sa 2>&1 | tail -2
done
unset STARPU_SUBALLOCATOR
