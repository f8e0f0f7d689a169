#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/device_billion.sh — the GPU-memory figures of the GPU-performance issue in one device
# call (build/ and .deps/lib as for tools/device_perf.sh; tools/device_pack.sh makes them):
#   1. correctness with the CUDA worker: sph_forces CUDA vs CPU vs the double reference, the
#      simulation tests, the 2-D dam break on the CPU workers and on the GPU
#      (TIDE_BILLION_CHECKS=0 skips them, e.g. to repeat the billion run alone);
#   2. the SPHERIC test 2 ladder on the GPU alone at ~1, 4 and 13.3 M particles (time per step
#      and device bytes per particle, bench/sph_ladder.sh);
#   3. SPHERIC test 2 at about one billion particles (TIDE_BILLION_N, default 1e9) on the one
#      GPU: a few steps (TIDE_BILLION_STEPS, default 4), the first step (upload) and the mean
#      of the others from run_summary.csv, peak device and host memory (tide's summary and
#      /usr/bin/time's maximum resident set).
# Writes $OUT/sph_ladder.csv, $OUT/billion_summary.csv, $OUT/billion.log and prints the figures.
set -uo pipefail
. "$(dirname "$0")/device_env.sh"
step "machine"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
free -g | head -2
df -h /tmp | tail -1
echo "overcommit_memory $(cat /proc/sys/vm/overcommit_memory), ratio $(cat /proc/sys/vm/overcommit_ratio)"
grep -E "MemTotal|CommitLimit|Committed_AS" /proc/meminfo | tr -s ' ' | paste -sd' '
$t info | grep -E "memory|CUDA device"

if [ "${TIDE_BILLION_CHECKS:-1}" = 1 ]; then
	step "correctness with the CUDA worker"
	timeout 120 ./build/tests/test_sph_forces . --cuda 2>&1 | tail -1
	timeout 120 ./build/tests/test_sim . 2>&1 | tail -1
	STARPU_NCUDA=0 timeout 120 $t run cases/dambreak2d.yaml --overwrite --out /tmp/db_cpu --quiet --set time.end=0.3
	timeout 120 $t run cases/dambreak2d.yaml --overwrite --out /tmp/db_gpu --quiet --set time.end=0.3
	paste -d, /tmp/db_cpu/gauges.csv /tmp/db_gpu/gauges.csv | awk -F, 'NR>1{d=$2-$6; if(d<0)d=-d; r=d/$2; if(r>m)m=r} END{printf "max relative difference of the surge front CPU vs GPU: %.3g\n", m}'
fi

if [ "${TIDE_BILLION_LADDER:-1}" = 1 ]; then
	step "ladder, GPU alone"
	STARPU_NCPU=0 timeout 300 bash bench/sph_ladder.sh --targets 1e6,4e6,13.3e6 --steps 40 --warmup 5 \
		--out "$out/ladder" --no-plot 2>&1 | grep "particles:"
	cp "$out/ladder/sph_ladder.csv" "$out/" 2>/dev/null
fi

step "one billion particles"
n=${TIDE_BILLION_N:-1e9}
dp=$(python3 bench/benchlib.py dp 82350 94436 0.02 "$n")
echo "target $n particles: dp = $dp m"
rm -rf /tmp/billion
STARPU_NCPU=0 timeout "${TIDE_BILLION_TIMEOUT:-420}" /usr/bin/time -v $t run cases/spheric2.yaml --dp "$dp" \
	--max-steps "${TIDE_BILLION_STEPS:-4}" --no-output --out /tmp/billion > "$out/billion.log" 2>&1
echo "exit $?"
grep -E "case |blocks|note|tide:|done|Maximum resident|Elapsed" "$out/billion.log"
cp /tmp/billion/run_summary.csv "$out/billion_summary.csv" 2>/dev/null
python3 - /tmp/billion/run_summary.csv <<'PY'
import csv, sys
try:
    r = list(csv.reader(open(sys.argv[1])))
except OSError:
    sys.exit("no run summary")
h = [c.split('[')[0] for c in r[0]]; v = dict(zip(h, r[1]))
n = int(v['n_fluid']) + int(v['n_bound'])
later = float(v['later_steps'])
print('billion run: %d particles, %s steps, first step %.2f s, later steps %.3f s each '
      '(%.3g particle-steps/s), %.1f B/particle on the GPU, %.1f B/particle peak host RSS'
      % (n, v['steps'], float(v['first_step']), later, n / later if later > 0 else 0,
         int(v['peak_device']) / n, int(v['peak_host']) / n))
PY
