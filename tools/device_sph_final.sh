#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/device_sph_final.sh — the short SPH acceptance measurement on the GPU node (build/ and
# .deps/lib as for tools/device_perf.sh): CUDA vs CPU forces, the simulation test, the dam break
# on CPU and GPU, the SPHERIC test 2 ladder (~1, 4, 13.3 M) and time per step at exactly the
# 13.3 M of the DualSPHysics comparison (dp = 0.00395 m: 13 333 219 particles), as the difference
# of a 45- and a 5-step run.  Writes $OUT/sph_ladder.csv and prints the figures.
set -uo pipefail
. "$(dirname "$0")/device_env.sh"
timeout 120 ./build/tests/test_sph_forces . --cuda 2>&1 | tail -1
timeout 120 ./build/tests/test_sim . 2>&1 | tail -1
STARPU_NCUDA=0 timeout 120 $t run cases/dambreak2d.yaml --overwrite --out /tmp/db_cpu --quiet --set time.end=0.3
timeout 120 $t run cases/dambreak2d.yaml --overwrite --out /tmp/db_gpu --quiet --set time.end=0.3
paste -d, /tmp/db_cpu/gauges.csv /tmp/db_gpu/gauges.csv | awk -F, 'NR>1{d=$2-$6; if(d<0)d=-d; r=d/$2; if(r>m)m=r} END{printf "max relative difference of the surge front CPU vs GPU: %.3g\n", m}'
STARPU_NCPU=0 bash bench/sph_ladder.sh --targets 1e6,4e6,13.3e6 --steps 40 --warmup 5 \
	--out "$out/ladder" --no-plot 2>&1 | grep "particles:"
cp "$out/ladder/sph_ladder.csv" "$out/ladder/machine.txt" "$out/" 2>/dev/null
for s in 5 45; do
	STARPU_NCPU=0 $t run cases/spheric2.yaml --dp 0.00395 --max-steps $s --no-output --overwrite --out /tmp/r$s --quiet
done
python3 - <<'PY'
import csv
def f(d):
    r = list(csv.reader(open(d + '/run_summary.csv'))); h = [c.split('[')[0] for c in r[0]]
    return dict(zip(h, r[1]))
a, b = f('/tmp/r5'), f('/tmp/r45')
n = int(b['n_fluid']) + int(b['n_bound']); t = (float(b['wall']) - float(a['wall'])) / 40
print('SPHERIC 2, dp 0.00395: %d particles, %.2f ms/step, %.3g particle-steps/s, %.1f B/particle on the GPU'
      % (n, t * 1e3, n / t, int(b['peak_device']) / n))
PY
