#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/device_perf.sh — one whole GPU-node measurement after a change to the CUDA codelets, in
# one command (the device's minutes are few).  Run from the repository root on the node with a
# CUDA build in build/ and the shared libraries in .deps/lib (tools/device_pack.sh makes both);
# writes logs and CSV under $OUT (default /tmp/tide-device).
#   1. correctness: sph_forces CUDA vs CPU and the double reference (test_sph_forces), the
#      simulation tests with the CUDA worker (test_sim), cell_sort on 16 M particles, the 2-D dam
#      break on the CPU workers and on the GPU (surge fronts must agree), Barnes-Hut CUDA vs CPU
#      (test_bh; skipped with TIDE_PERF_NO_BH=1);
#   2. the SPHERIC test 2 ladder on the GPU alone (bench/sph_ladder.sh: ~1, 4, 13.3 M particles,
#      TIDE_PERF_TARGETS to change), and a --profile breakdown of one step at ~13.3 M;
#   2b. 2 ranks sharing the GPU at ~13.3 M (TIDE_PERF_MPI=0 to skip), also under CUDA MPS when
#       the node has it (TIDE_PERF_MPS=0 to skip);
#   3. Nsight Compute on one sph_forces launch at ~1 M particles (TIDE_PERF_NCU=0 to skip):
#      achieved FLOP/s and bandwidth for the roofline;
#   4. gravity: TIDE_PERF_GRAVITY="N THETA ..." pairs for tide gravity (default 16.8 M at 0.6),
#      with each walk kernel of TIDE_PERF_BH_KERNELS (default "fast"; "classic fast" to compare),
#      and a 2-rank run whose essential trees are walked on the GPU.
set -uo pipefail
. "$(dirname "$0")/device_env.sh"
{
step "machine"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv
$t info | head -20

step "correctness: sph_forces CUDA vs CPU vs double reference"
timeout 120 ./build/tests/test_sph_forces . --cuda 2>&1 | tail -4
step "correctness: test_sim with the CUDA worker"
timeout 120 ./build/tests/test_sim . 2>&1 | tail -3
step "correctness: cell_sort CUDA = CPU on 16 M particles"
TIDE_CELL_SORT_BIG=16000000 timeout 120 ./build/tests/test_cell_sort . --cuda 2>&1 | tail -2
step "correctness: dam break, CPU workers vs GPU"
STARPU_NCUDA=0 timeout 120 $t run cases/dambreak2d.yaml --overwrite --out /tmp/db_cpu --quiet --set time.end=0.3
timeout 120 $t run cases/dambreak2d.yaml --overwrite --out /tmp/db_gpu --quiet --set time.end=0.3
paste -d, /tmp/db_cpu/gauges.csv /tmp/db_gpu/gauges.csv | awk -F, 'NR>1{d=$2-$6; if(d<0)d=-d; r=d/$2; if(r>m)m=r} END{printf "max relative difference of the surge front CPU vs GPU: %.3g\n", m}'
if [ "${TIDE_PERF_NO_BH:-0}" != 1 ]; then
	step "correctness: Barnes-Hut CUDA vs CPU (test_bh)"
	timeout 240 ./build/tests/test_bh . --cuda 2>&1 | tail -8
fi

step "SPH ladder, GPU alone"
STARPU_NCPU=0 bash bench/sph_ladder.sh --targets "${TIDE_PERF_TARGETS:-1e6,4e6,13.3e6}" --steps 40 \
	--warmup 5 --out "$out/ladder" --no-plot 2>&1 | grep -v "perfmodels/sampling" | tail -12
cp "$out/ladder/sph_ladder.csv" "$out/sph_ladder.csv" 2>/dev/null
step "profile at ~13.3 M (dp 0.00395)"
timeout 200 $t run cases/spheric2.yaml --dp 0.00395 --max-steps 30 --no-output --profile \
	--out /tmp/p13 --quiet 2>&1 | tail -25
cat /tmp/p13/run_summary.csv

if [ "${TIDE_PERF_MPI:-1}" = 1 ]; then
	step "2 ranks sharing the GPU at ~13.3 M (one block each), against 1 rank above"
	mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x STARPU_HOME \
		-x STARPU_SILENT -x STARPU_NCPU=2 timeout 200 $t run cases/spheric2.yaml --dp 0.00395 \
		--max-steps 30 --no-output --blocks 2 --profile --overwrite --out /tmp/p13_2 --quiet 2>&1 | tail -22
	cat /tmp/p13_2/run_summary.csv
	if [ "${TIDE_PERF_MPS:-1}" = 1 ] && command -v nvidia-cuda-mps-control >/dev/null; then
		step "the same under CUDA MPS (the ranks' kernels share the GPU at once, not in turns)"
		export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
		mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
		nvidia-cuda-mps-control -d && sleep 1
		mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x STARPU_HOME \
			-x STARPU_SILENT -x STARPU_NCPU=2 -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY \
			timeout 200 $t run cases/spheric2.yaml --dp 0.00395 --max-steps 30 --no-output \
			--blocks 2 --profile --overwrite --out /tmp/p13_2m --quiet 2>&1 | grep -E "wall per step|sph_forces"
		cat /tmp/p13_2m/run_summary.csv
		echo quit | nvidia-cuda-mps-control
	fi
fi

if [ "${TIDE_PERF_NCU:-1}" = 1 ] && command -v ncu >/dev/null; then
	step "ncu: one sph_forces launch at ~1 M particles"
	timeout 240 ncu --clock-control none -k regex:forces_cell_kernel -s 2 -c 1 \
		--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
		--section LaunchStats --section Occupancy --section WarpStateStats \
		--metrics smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,smsp__sass_thread_inst_executed_op_fmul_pred_on.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,dram__bytes.sum,gpu__time_duration.sum \
		$t run cases/spheric2.yaml --dp 0.01014 --max-steps 4 --no-output --overwrite --out /tmp/pn --quiet \
		2>&1 | grep -v "^==PROF==" | tail -120 > "$out/ncu_forces.txt"
	grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Registers|Achieved Occupancy|Theoretical Occupancy|op_f|dram__bytes|gpu__time|Executed Ipc|Issue Slots|Warp Cycles Per Issued" "$out/ncu_forces.txt"
fi

step "gravity"
set -- ${TIDE_PERF_GRAVITY:-16777216 0.6}
while [ $# -ge 2 ]; do
	for k in ${TIDE_PERF_BH_KERNELS:-fast}; do
		echo "-- walk kernel $k"
		TIDE_BH_WALK=$k timeout 150 $t gravity --n "$1" --dist plummer --theta "$2" --quadrupole \
			--device cuda --repeat 5 --check 1000 --csv "$out/gravity.csv" 2>&1 | tail -4
	done
	shift 2
done
step "gravity on 2 ranks sharing the GPU (essential trees walked on the GPU)"
mpirun --allow-run-as-root --bind-to none --oversubscribe -np 2 -x LD_LIBRARY_PATH -x STARPU_HOME \
	-x STARPU_SILENT timeout 150 $t gravity --n 1048576 --dist plummer --theta 0.6 --quadrupole \
	--device cuda --repeat 3 --check 1000 2>&1 | tail -5
} 2>&1 | tee "$out/device_perf.log"
