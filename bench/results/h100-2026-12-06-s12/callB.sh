#!/usr/bin/env bash
# device call B (session 12): nokey (no cell key per particle, 77 B block): every CUDA test,
# GPU bytes per particle expected vs StarPU's peak, speed against main's eaa69a3 (same call)
set -u
mkdir -p /tmp/old && tar xJf .devz/dev.tar.xz -C /tmp/old
tar xJf .devz/nokey.tar.xz && ln -sfn .dev/build build && ln -sfn .dev .deps
. tools/device_env.sh
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpu.txt
TIDE_DEV_PARTS=tests timeout 280 bash tools/device_boundaries.sh > $OUT/tests_nokey.log 2>&1
grep -E "exit code|FAIL" $OUT/tests_nokey.log | head -40
for x in dt_combine bh_shape memory_accounting; do timeout 60 ./build/tests/test_$x . --cuda > /tmp/$x.log 2>&1; echo "${x} --cuda rc=$?"; tail -2 /tmp/$x.log; done
for round in 1 2; do
step "ladder Verlet 1.1 / 13.3 M, nokey (round $round)"
ln -sfn .dev/build build; ln -sfn .dev .deps
timeout 100 bash bench/sph_ladder.sh --targets 1.1e6,13.3e6 --steps 30 --warmup 3 --out /tmp/lad$round --no-plot > /tmp/lad.log 2>&1; echo rc=$?
cp /tmp/lad$round/sph_ladder.csv $OUT/sph_ladder_nokey_$round.csv; cut -d, -f1-8 $OUT/sph_ladder_nokey_$round.csv
step "ladder Verlet 1.1 / 13.3 M, main eaa69a3 (round $round)"
ln -sfn /tmp/old/.dev/build build; ln -sfn /tmp/old/.dev .deps
timeout 100 bash bench/sph_ladder.sh --targets 1.1e6,13.3e6 --steps 30 --warmup 3 --out /tmp/lado$round --no-plot > /tmp/lado.log 2>&1; echo rc=$?
cp /tmp/lado$round/sph_ladder.csv $OUT/sph_ladder_main_$round.csv; cut -d, -f1-8 $OUT/sph_ladder_main_$round.csv
done
