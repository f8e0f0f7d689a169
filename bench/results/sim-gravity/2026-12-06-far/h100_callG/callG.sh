#!/usr/bin/env bash
# device call G (session 12): gravfar-batch (far nodes expanded 32 at a time, one per lane) merged on main (issue 25): CUDA far field vs CPU, and bh_walk_sets
# calibrated with the expansions (local) and without (direct): the helper's DEVICE_CMD.txt
set -u
tar xJf .devz/batch.tar.xz && ln -sfn .dev/build build && ln -sfn .dev .deps
. tools/device_env.sh
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpu.txt
out=/tmp/cal
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_SILENT -x STARPU_NCPU=1 -x TIDE_BH_WALK"
./build/tests/test_bh_local | tail -1
for k in fast classic; do step "test_bh_let --cuda --sets, $k kernel"; TIDE_BH_WALK=$k timeout 120 $M -np 4 ./build/tests/test_bh_let --cuda --sets 2>&1 | grep -E "walk_sets|far field|vs direct|FAIL|passed"; done
step "test_bh_let --cuda"; TIDE_BH_WALK=fast timeout 120 $M -np 2 ./build/tests/test_bh_let --cuda 2>&1 | tail -2
for f in local direct; do step "calibration far field $f"; TIDE_GRAVITY_FAR_FIELD=$f timeout 200 bash bench/sim_gravity_calibrate.sh --out "$out/$f" --ncpu 0 --ncuda 1 --device cuda --runs 1 --repeat 3 --ranks "2 4" --sizes "1000000 4000000" 2>&1 | tail -3; done
for f in local direct; do echo "== $f"; cat "$out/$f/measured.csv"; done
tar czf $OUT/cal.tgz -C $out local direct
for f in local direct; do echo "== bh_walk_sets model, $f (footprint, size, mean us, dev, n)"; grep -E "^[0-9a-f]{8}\s" $out/$f/models/.starpu/sampling/codelets/*/tide_bh_walk_sets.* | awk '{print $2, $4, $5, $NF}'; done
