#!/usr/bin/env bash
# device call E (session 12): 1.5 x 10^9 particles of SPHERIC test 2 on one H200 (issue 20's
# goal), main at f25cbae (77 B blocks, suballocator off in tide run): a few steps, peak GPU and
# host memory.  The billion part of tools/device_billion.sh with TIDE_BILLION_N=1.5e9.
set -u
tar xJf .devz/nokey.tar.xz && ln -sfn .dev/build build && ln -sfn .dev .deps
. tools/device_env.sh
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee $OUT/gpu.txt
free -g | head -2
out=$OUT
n=1.5e9
dp=$(python3 bench/benchlib.py dp 82350 94436 0.02 "$n")
echo "target $n particles: dp = $dp m"
STARPU_NCPU=0 timeout 520 /usr/bin/time -v $t run cases/spheric2.yaml --dp "$dp" --max-steps 4 --no-output --out /tmp/billion > "$out/billion15.log" 2>&1
echo "exit $?"
grep -E "case |blocks|note|tide:|GPU memory|done|Maximum resident|Elapsed" "$out/billion15.log" | head -20
cp /tmp/billion/run_summary.csv "$out/billion15_summary.csv" 2>/dev/null
python3 - /tmp/billion/run_summary.csv <<'PY'
import csv, sys
try:
    r = list(csv.reader(open(sys.argv[1])))
except OSError:
    sys.exit("no run summary")
h = [c.split('[')[0] for c in r[0]]; v = dict(zip(h, r[1]))
n = int(v['n_fluid']) + int(v['n_bound'])
later = float(v['later_steps'])
print('run: %d particles, %s steps, first step %.2f s, later steps %.3f s each (%.3g particle-steps/s), '
      '%.1f B/particle on the GPU (expected %.1f), %.1f B/particle peak host RSS'
      % (n, v['steps'], float(v['first_step']), later, n / later if later > 0 else 0,
         int(v['peak_device']) / n, int(v.get('expected_device', 0)) / n, int(v['peak_host']) / n))
PY
