#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Where a GPU rank's tasks run when it has a CPU worker too (include/tide/dt_where.h), in the
# simulation build: 4 simulated H200 ranks of one CPU and one CUDA worker each, the synthetic box
# (2 M particles a rank), the time step by recursive doubling (TIDE_DT_REDUCTION=tree: 2 rounds),
# the H200 models with this machine's CPU times of the time step's records
# (bench/results/sim-h200/models_fit), --profile's timelines:
#  - by default every dt_combine runs on the CPU worker and every other task on the GPU: the
#    scheduler must never give the forces (or anything but the records' combination) to the CPU
#    worker, e.g. because the CPU worker is idle or a model is missing;
#  - TIDE_DT_WHERE=cuda puts dt_combine back on the GPU (and nothing on the CPU worker);
#  - TIDE_DT_WHERE=cpu on ranks without a CPU worker stops before the first step with one
#    sentence naming the variable (exit code 2 under mpirun; SMPI's own exit code is 0).
# usage: test_sim_dt_where.sh TIDE_SIM SRC_ROOT
set -uo pipefail
sim=$(realpath "$1"); src=$(realpath "$2")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
smpirun=${STARPU_SMPIRUN:-$(cat "$(dirname "$sim")/.tide-starpu-prefix" 2>/dev/null)/bin/starpu_smpirun}
[ -x "$smpirun" ] || smpirun=$(ls -d "$HOME"/.cache/tide-deps/starpu-*/bin/starpu_smpirun 2>/dev/null | head -n 1)
[ -x "$smpirun" ] || { echo "FAIL: no starpu_smpirun"; exit 1; }
models=$src/bench/results/sim-h200/models_fit
python3 "$src/bench/sim_platform.py" --nodes 1 --gpus-per-node 4 "$work/net.xml" "$work/hosts" || exit 1

# run NAME NCPU [VAR=VALUE ...]: 4 simulated ranks, 4 steps, into $work/NAME
run() {
	local name=$1 ncpu=$2
	shift 2
	env "$@" STARPU_HOME="$models" STARPU_HOSTNAME=h200 STARPU_SCHED=dmda STARPU_SILENT=1 \
		STARPU_NCPU="$ncpu" STARPU_NCUDA=1 STARPU_SIMGRID_CUDA_MALLOC_COST=0 TIDE_DT_REDUCTION=tree \
		timeout -k 10 300 "$smpirun" -platform "$work/net.xml" -hostfile "$work/hosts" -np 4 \
		--cfg=contexts/guard-size:0 "$sim" run "$src/cases/dambreak3obs.yaml" --synthetic 2000000 \
		--blocks 4 --decomp 3d --max-steps 4 --no-output --quiet --profile --out "$work/$name" \
		> "$work/$name.log" 2>&1
}

# check NAME WHERE: the timelines of run NAME have dt_combine on WHERE (cpu or cuda), all else on cuda
check() {
	python3 - "$work/$1" "$2" <<'PY'
import csv, glob, sys
d, want = sys.argv[1], sys.argv[2]
paths = sorted(glob.glob(d + '/step_timeline_rank*.csv'))
if len(paths) != 4:
    sys.exit('FAIL: %d timelines in %s, expected 4' % (len(paths), d))
ncomb, wrong = 0, []
for p in paths:
    for r in csv.DictReader(open(p)):
        if 'arch' not in r:
            sys.exit('FAIL: %s has no arch column' % p)
        if r['task'] == 'dt_combine':
            ncomb += 1
            if r['arch'] != want:
                wrong.append('%s dt_combine on %s' % (p.split('/')[-1], r['arch']))
        elif r['arch'] != 'cuda':
            wrong.append('%s %s on %s' % (p.split('/')[-1], r['task'], r['arch']))
# 4 ranks, 2 rounds, 4 steps: 32 combinations
if ncomb != 32:
    sys.exit('FAIL: %d dt_combine tasks in the timelines, expected 32 (4 ranks x 2 rounds x 4 steps)' % ncomb)
if wrong:
    sys.exit('FAIL: %d tasks on the wrong worker, e.g. %s' % (len(wrong), '; '.join(wrong[:5])))
s = next(csv.DictReader(open(d + '/run_summary.csv')))
print('%s: %d dt_combine tasks on %s, every other task on cuda; %s ms per steady step (simulated)'
      % (d.split('/')[-1], ncomb, want, '%.4f' % (1e3 * float(s['later_steps[s]']))))
PY
}

fail=0
for spec in "auto cpu" "cuda cuda"; do
	set -- $spec
	if [ "$1" = auto ]; then run auto 1; else run "$1" 1 TIDE_DT_WHERE="$1"; fi
	rc=$?
	if [ $rc != 0 ] || [ ! -f "$work/$1/run_summary.csv" ]; then
		grep -v '^\[starpu' "$work/$1.log" | tail -n 20
		echo "FAIL: the run with TIDE_DT_WHERE=$1 ended with exit code $rc and no summary"
		fail=1
		continue
	fi
	check "$1" "$2" || fail=1
done

run nocpu 0 TIDE_DT_WHERE=cpu
rc=$?
if { [ $rc != 0 ] && [ $rc != 2 ]; } || [ -f "$work/nocpu/run_summary.csv" ] ||
	! grep -q 'TIDE_DT_WHERE=cpu needs a CPU worker' "$work/nocpu.log"; then
	tail -n 5 "$work/nocpu.log"
	echo "FAIL: TIDE_DT_WHERE=cpu without a CPU worker: exit code $rc, a summary or no message"
	fail=1
else
	echo "TIDE_DT_WHERE=cpu without a CPU worker: stopped before the first step: $(grep -m1 'TIDE_DT_WHERE=cpu' "$work/nocpu.log")"
fi
exit $fail
