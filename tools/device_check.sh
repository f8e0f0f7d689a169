#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/device_check.sh — the GPU check, run on the GPU node from the repository root with the
# build folder (build/) and the StarPU/FxT/libyaml shared libraries (.deps/lib) carried along:
#   tide info must show 1 CUDA worker and all cores; the CUDA cell_sort must give exactly the CPU
#   result on 16 million particles (test_cell_sort --cuda, the test cell_sort_cuda: its exit code
#   77, "no CUDA worker", is a failure here).  Writes logs under ${OUT:-/tmp/tide-device}.
set -uo pipefail
out=${OUT:-/tmp/tide-device}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/.deps/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export STARPU_HOME=${STARPU_HOME:-/tmp/tide-starpu-home}
export STARPU_SILENT=1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$out/gpu.txt"
./build/tide info 2>&1 | tee "$out/info.txt"
TIDE_CELL_SORT_BIG=16000000 ./build/tests/test_cell_sort . --cuda 2>&1 | tee "$out/cell_sort.txt"
rc=${PIPESTATUS[0]}
case $rc in
	0) echo "cell_sort_cuda: ok" ;;
	77) echo "cell_sort_cuda: FAIL, skipped for want of a CUDA worker on the GPU node" ;;
	*) echo "cell_sort_cuda: FAIL (exit code $rc)" ;;
esac
exit "$rc"
