#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/device_sph_check.sh — the SPH measurements on the GPU node, in one command (build/ and
# .deps/lib carried along; writes under $OUT):
#  1. the CUDA halves of the unit tests (meson's cell_sort_cuda, sph_forces_cuda, mdbc_cuda, sps_cuda, bh_cuda,
#     gauge_tasks_cuda: the executables with --cuda; exit code 77, no CUDA worker, counts as a
#     failure here), cell_sort
#     on 16 M particles, and sim with the CUDA worker;
#  2. the 2-D dam break on the CPU workers alone and on the GPU: surge fronts must agree; with
#     --with-cpus the SPH tasks are no longer kept on the GPU;
#  3. StarPU's bus statistics for 100 GPU steps (data stays on the device);
#  4. time per step of SPHERIC test 2 at about 13.3 million particles (both force kernels) on
#     1 rank, and on 2 ranks sharing the GPU, with tide run --profile's breakdown; the cost of
#     gauges every 0.001 s (issue 18: at most 2 %).
set -uo pipefail
. "$(dirname "$0")/device_env.sh"
{
echo "== unit tests with CUDA"
cuda_test() { # NAME COMMAND...: the CUDA half of a unit test; 77 (skipped) is a failure on the GPU
	local name=$1 rc
	shift
	"$@" . --cuda 2>&1 | tail -3
	rc=${PIPESTATUS[0]}
	case $rc in
		0) echo "$name: ok" ;;
		77) echo "$name: FAIL, skipped for want of a CUDA worker on the GPU node" ;;
		*) echo "$name: FAIL (exit code $rc)" ;;
	esac
}
TIDE_CELL_SORT_BIG=16000000 cuda_test cell_sort_cuda ./build/tests/test_cell_sort
cuda_test sph_forces_cuda ./build/tests/test_sph_forces
cuda_test mdbc_cuda ./build/tests/test_mdbc
cuda_test sps_cuda ./build/tests/test_sps
cuda_test bh_cuda ./build/tests/test_bh
cuda_test gauge_tasks_cuda ./build/tests/test_gauge_tasks
./build/tests/test_sim . | tail -2
echo "== dam break CPU vs GPU"
STARPU_NCUDA=0 $t run cases/dambreak2d.yaml --overwrite --out /tmp/db_cpu --quiet --set time.end=0.3
$t run cases/dambreak2d.yaml --overwrite --out /tmp/db_gpu --quiet --set time.end=0.3
paste -d, /tmp/db_cpu/gauges.csv /tmp/db_gpu/gauges.csv | awk -F, 'NR>1{d=$2-$6; if(d<0)d=-d; r=d/$2; if(r>m)m=r} END{printf "max relative difference of the surge front CPU vs GPU: %.3g\n", m}'
cat /tmp/db_gpu/run_summary.csv
echo "== --with-cpus: the default run keeps the SPH tasks on the GPU, --with-cpus does not"
$t run cases/dambreak2d.yaml --out /tmp/db_gpu_only --max-steps 20 >/tmp/db_gpu_only.txt 2>&1
$t run cases/dambreak2d.yaml --out /tmp/db_with_cpus --max-steps 20 --with-cpus >/tmp/db_with_cpus.txt 2>&1
if grep -q "SPH tasks on the GPUs only" /tmp/db_gpu_only.txt &&
	! grep -q "SPH tasks on the GPUs only" /tmp/db_with_cpus.txt; then echo "--with-cpus: ok"
else echo "--with-cpus: FAIL"; grep -h "blocks (" /tmp/db_gpu_only.txt /tmp/db_with_cpus.txt; fi
echo "== bus statistics, 100 GPU steps, SPHERIC 2 at dp 0.01"
STARPU_BUS_STATS=1 STARPU_SILENT=0 $t run cases/spheric2.yaml --dp 0.01 --max-steps 100 --no-output --overwrite --out /tmp/sp_bus --quiet 2>&1 | grep -v "perfmodels/sampling" | tail -12
echo "== SPHERIC 2, ~13.3 M particles, GPU: cell-tiled force kernel, then per-particle kernel"
$t run cases/spheric2.yaml --dp 0.00395 --max-steps 40 --no-output --profile --overwrite --out $out/sp13_1rank --quiet
cat $out/sp13_1rank/run_summary.csv
echo "== gauge cost (issue 18 goal <= 2 %): the same 200 steps with gauges every 0.001 s (forces too) and only at t = 0"
$t run cases/spheric2.yaml --dp 0.00395 --max-steps 200 --no-output --overwrite --out $out/sp13_gauges_off --quiet --set gauges.every=100
$t run cases/spheric2.yaml --dp 0.00395 --max-steps 200 --no-output --profile --overwrite --out $out/sp13_gauges_1khz --quiet --set gauges.every=0.001 --set gauges.forces=true
col() { awk -F, -v k="$2" 'NR==1{for(i=1;i<=NF;i++) if($i ~ "^"k) c=i} NR==2{print $c}' "$1"; }
off=$(col $out/sp13_gauges_off/run_summary.csv time_per_step_s)
on=$(col $out/sp13_gauges_1khz/run_summary.csv time_per_step_s)
echo "gauge rows: $(($(wc -l < $out/sp13_gauges_1khz/gauges.csv) - 1)); time per step $off s without, $on s with: $(awk -v a="$off" -v b="$on" 'BEGIN{printf "%+.2f %%", 100 * (b - a) / a}')"
echo "== 2 ranks sharing the GPU (tide places each rank on its own 8 cores)"
mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_SILENT \
  $t run cases/spheric2.yaml --dp 0.00395 --max-steps 20 --no-output --blocks 2 --profile --overwrite --out $out/sp13_2rank --quiet
cat $out/sp13_2rank/run_summary.csv
} 2>&1 | tee "$out/device_sph_check.log"
