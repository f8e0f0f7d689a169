#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/device_ladder.sh — GPU check after a change: CPU vs GPU dam break, the sim test, and the
# SPHERIC test 2 ladder at ~1, ~4 and ~13.3 M particles (GPU alone, --profile), plus 2 ranks
# sharing the GPU at ~13.3 M.  Writes $OUT/ladder.csv and logs.
set -uo pipefail
. "$(dirname "$0")/device_env.sh"
{
./build/tests/test_sim . | tail -1
STARPU_NCUDA=0 $t run cases/dambreak2d.yaml --overwrite --out /tmp/db_cpu --quiet --set time.end=0.3
$t run cases/dambreak2d.yaml --overwrite --out /tmp/db_gpu --quiet --set time.end=0.3
paste -d, /tmp/db_cpu/gauges.csv /tmp/db_gpu/gauges.csv | awk -F, 'NR>1{d=$2-$6; if(d<0)d=-d; r=d/$2; if(r>m)m=r} END{printf "max relative difference of the surge front CPU vs GPU: %.3g\n", m}'
echo "particles,dp_m,time_per_step_ms,particle_steps_per_s,peak_device_bytes,bytes_per_particle,ranks" > $out/ladder.csv
for dp in 0.01014 0.0064 0.00395; do
  $t run cases/spheric2.yaml --dp $dp --max-steps 40 --no-output --profile --overwrite --out /tmp/l_$dp --quiet
  python3 - /tmp/l_$dp/run_summary.csv 1 >> $out/ladder.csv <<'PY'
import csv, sys
r = list(csv.reader(open(sys.argv[1]))); h = [c.split('[')[0] for c in r[0]]; v = dict(zip(h, r[1]))
n = int(v['n_fluid']) + int(v['n_bound'])
print(f"{n},{v['dp']},{1e3*float(v['time_per_step']):.3f},{float(v['particle_steps_per_s']):.4g},{v['peak_device']},{int(v['peak_device'])/n:.1f},{sys.argv[2]}")
PY
done
mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_SILENT \
  $t run cases/spheric2.yaml --dp 0.00395 --max-steps 20 --no-output --blocks 2 --overwrite --out /tmp/l2 --quiet
python3 - /tmp/l2/run_summary.csv 2 >> $out/ladder.csv <<'PY'
import csv, sys
r = list(csv.reader(open(sys.argv[1]))); h = [c.split('[')[0] for c in r[0]]; v = dict(zip(h, r[1]))
n = int(v['n_fluid']) + int(v['n_bound'])
print(f"{n},{v['dp']},{1e3*float(v['time_per_step']):.3f},{float(v['particle_steps_per_s']):.4g},{v['peak_device']},{int(v['peak_device'])/n:.1f},{sys.argv[2]}")
PY
cat $out/ladder.csv
} 2>&1 | grep -v "perfmodels/sampling" | tee "$out/device_ladder.log"
