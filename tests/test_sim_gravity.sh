#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The simulation build runs the synthetic gravity domain (tide gravity --synthetic, issue 25)
# from the CPU models fitted in work (bench/results/sim-gravity/cpu-2core/models_fit):
#  1. one rank of 1 M particles, one walk task: the simulated evaluation is the models' sum,
#     build (a n + c) + moments + walk (a n I + c, I the modelled interactions per particle the
#     CSV reports), within 1 % (the tasks are timed by their work, footprints included);
#  2. 16 ranks on 4 simulated nodes (near and far ranks, coarse trees): it ends, and the
#     essential nodes sent (the handles' counts, the messages' sizes) are the model's;
#  3. 16 simulated H200 ranks of 16 M (the H200 models, dmdas, a CUDA and a CPU worker each,
#     tide's walk parts): the exchange is hidden behind the own walk (docs/gravity.md
#     "Priorities and walk parts"): the slowest rank's evaluation is its build, moments and walks
#     plus at most its virtual root (1 ms), 15 essential-node tasks (0.1 ms each) and 0.5 ms.
#     With one walk part under dmda (main before 2026-12-06) about 8 ms were exposed: a failure.
# usage: test_sim_gravity.sh TIDE_SIM SRC_ROOT
set -uo pipefail
sim=$(realpath "$1"); src=$(realpath "$2")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cp -r "$src/bench/results/sim-gravity/cpu-2core/models_fit" "$work/models"
smpirun=${STARPU_SMPIRUN:-$(ls -d "$HOME"/.cache/tide-deps/starpu-*/bin/starpu_smpirun 2>/dev/null | head -n 1)}
[ -x "$smpirun" ] || { echo "SKIP: no starpu_smpirun"; exit 77; }
export STARPU_HOME=$work/models STARPU_HOSTNAME=tide-calibrated STARPU_SCHED=dmda STARPU_SILENT=1
export STARPU_NCPU=1 STARPU_NCUDA=0
# meson's MALLOC_PERTURB_ fills every allocation: StarPU's buffers of the modelled essential
# nodes and particles, which a simulation never touches otherwise (minutes and gigabytes)
unset MALLOC_PERTURB_
export MALLOC_MMAP_THRESHOLD_=65536
fail=0
for n in 1 16; do
	python3 "$src/bench/sim_platform.py" --nodes $(( (n + 3) / 4 )) --gpus-per-node $(( n < 4 ? n : 4 )) \
		"$work/net$n.xml" "$work/hosts$n"
	timeout -k 10 240 "$smpirun" -platform "$work/net$n.xml" -hostfile "$work/hosts$n" -np "$n" "$sim" \
		gravity --synthetic $([ $n = 1 ] && echo 1000000 || echo 100000) --theta 0.6 --quadrupole \
		--repeat 1 --parts 1 --csv "$work/g$n.csv" > "$work/log$n" 2>&1
	rc=$?
	grep -v '^\[' "$work/log$n" | grep -E 'gravity:|ranks:|model|exchange|time' 
	[ $rc = 0 ] || { echo "FAIL: $n simulated ranks: exit code $rc"; tail -5 "$work/log$n"; fail=1; }
done
# 3: the H200 models of the repository, 16 GPU ranks
h200=$work/h200; cp -r "$src/bench/results/sim-gravity/2026-12-05-vgather/h200/models_fit" "$h200"
python3 "$src/bench/sim_platform.py" --nodes 4 --gpus-per-node 4 "$work/neth.xml" "$work/hostsh"
STARPU_HOME=$h200 STARPU_HOSTNAME=h200 STARPU_SCHED=dmdas STARPU_NCPU=1 STARPU_NCUDA=1 \
	timeout -k 10 240 "$smpirun" -platform "$work/neth.xml" -hostfile "$work/hostsh" -np 16 "$sim" \
	gravity --synthetic 16000000 --theta 0.6 --quadrupole --device cuda --repeat 1 \
	--csv "$work/gh.csv" > "$work/logh" 2>&1 || { echo "FAIL: 16 simulated H200 ranks"; tail -5 "$work/logh"; exit 1; }
grep -v '^\[' "$work/logh" | grep -E 'walk task|whole evaluation'
python3 - "$work/gh.csv" "$work/logh" <<'PY' || fail=1
import csv, re, sys
g = next(csv.DictReader(open(sys.argv[1])))
log = open(sys.argv[2]).read()
slow = int(re.search(r'slowest rank \((\d+)\)', log).group(1))
own, recv = map(float, re.search(r'rank %d: .*walk tasks ([0-9.]+) s own tree \+ ([0-9.]+) s' % slow, log).groups())
work = float(g['t_build_s']) + float(g['t_moments_s']) + own + recv
step = float(g['t_total_max_s'])
extra = 1e-3 + 15 * 1e-4 + 5e-4
print('16 H200 ranks, %s walk parts: slowest rank %d: step %.4f s, build + moments + walks %.4f s, '
      'the rest %.4f s (at most %.4f)' % (g['walk_tasks'], slow, step, work, step - work, extra))
if g['walk_tasks'] != '4' or step - work > extra or step < work:
    print('FAIL: the exchange is not hidden behind the own walk (or not 4 walk parts)')
    sys.exit(1)
PY
[ $fail = 0 ] || exit 1
python3 - "$work/g1.csv" "$work/g16.csv" "$work/models/fits.csv" <<'PY'
import csv, sys
g1 = next(csv.DictReader(open(sys.argv[1])))
g16 = next(csv.DictReader(open(sys.argv[2])))
fit = {r['model']: r for r in csv.DictReader(open(sys.argv[3]))}
def t(m, x):
    return (float(fit[m]['a_us']) * x ** float(fit[m]['b']) + float(fit[m]['c_us'])) * 1e-6
n, I = float(g1['n']), float(g1['model_interactions'])
want = t('tide_bh_build', n) + t('tide_bh_moments', n) + t('tide_bh_walk', n * I)
got = float(g1['t_total_s'])
print('1 rank of %.0f: simulated %.6f s, the models\' sum %.6f s (%.0f interactions per particle)' % (n, got, want, I))
bad = abs(got - want) > 0.01 * want
if bad:
    print('FAIL: the simulated evaluation is not the models\' sum')
sent = (float(g16['let_cells']), float(g16['let_particles']))
model = (float(g16['model_let_cells']), float(g16['model_let_particles']))
print('16 ranks: sent %.0f cells + %.0f particles, modelled %.0f + %.0f' % (sent + model))
# each message's counts are the model's rounded: at most 0.5 each of 240 messages
if any(abs(s - m) > 0.5 * 240 for s, m in zip(sent, model)) or model[0] <= 0:
    print('FAIL: the essential nodes sent are not the model\'s')
    bad = True
sys.exit(1 if bad else 0)
PY
