#!/usr/bin/env bash
# device call H (session 12): every CUDA test on main at 80a100b (nokey + simcb + gravfar merged)
set -u
tar xJf .devz/final.tar.xz && ln -sfn .dev/build build && ln -sfn .dev .deps
. tools/device_env.sh
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpu.txt
TIDE_DEV_PARTS=tests timeout 300 bash tools/device_boundaries.sh > $OUT/cuda_tests_final.log 2>&1
grep -E "exit code" $OUT/cuda_tests_final.log
for x in dt_combine bh_shape memory_accounting bh_local; do timeout 60 ./build/tests/test_$x . --cuda > /tmp/$x.log 2>&1; echo "${x} --cuda rc=$?"; tail -1 /tmp/$x.log; done
M="mpirun --allow-run-as-root --oversubscribe --bind-to none -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_SILENT -x STARPU_NCPU=1"
timeout 100 $M -np 4 ./build/tests/test_bh_let --cuda --sets 2>&1 | tail -1
timeout 100 $t gravity --n 4000000 --dist plummer --theta 0.6 --quadrupole --device cuda --repeat 2 --check 2000 2>&1 | grep -E "time \[s\]|check:" | head -3
