#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A simulation build (SimGrid) of the synthetic box registers on each rank only the handles its
# tasks name (tasks/sph_setup.c, sparse_needs; the time step's records of its recursive-doubling
# partners only), where TIDE_PRUNE=0 registers every block on every rank and submits every task.
# Both must simulate the same run: 16 ranks (4 x 2 x 2 blocks, so that some blocks are far from
# a rank; above TIDE_DT_TREE_MIN_RANKS, so the time step goes by recursive doubling) of 1 M
# particles of one simulated H200 each, 3 steps: the simulated times of the two runs equal
# within 1e-6 (measured: the steady steps to the last digit, the first step 11 ps apart, SimGrid
# adding its float times in another order when the ranks have fewer handles), and both end (the sparse one once looped at the end of a run of 128 ranks,
# unregistering R^2 handles).  Halos of 1.9 MB: StarPU-MPI's early receives of sized-only
# messages go through tide's MPI_Irecv (interfaces/iface_parts.c).
# usage: test_sim_sparse.sh TIDE_SIM SRC_ROOT
set -uo pipefail
sim=$(realpath "$1"); src=$(realpath "$2")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
smpirun=${STARPU_SMPIRUN:-$(ls -d "$HOME"/.cache/tide-deps/starpu-*/bin/starpu_smpirun 2>/dev/null | head -n 1)}
[ -x "$smpirun" ] || { echo "SKIP: no starpu_smpirun"; exit 77; }
python3 "$src/bench/sim_platform.py" --nodes 4 --gpus-per-node 4 "$work/net.xml" "$work/hosts" || exit 1
export STARPU_HOME=$src/bench/results/sim-h200/models_fit STARPU_HOSTNAME=h200 STARPU_SCHED=dmda
export STARPU_SILENT=1 STARPU_NCPU=0 STARPU_NCUDA=1 STARPU_SIMGRID_CUDA_MALLOC_COST=0
for mode in sparse full; do
	prune=1; [ $mode = full ] && prune=0
	TIDE_PRUNE=$prune timeout -k 10 240 "$smpirun" -platform "$work/net.xml" -hostfile "$work/hosts" \
		-np 16 "$sim" run "$src/cases/dambreak3obs.yaml" --synthetic 1000000 --blocks 16 \
		--decomp 3d --max-steps 3 --no-output --quiet --out "$work/$mode" > "$work/$mode.log" 2>&1
	rc=$?
	if [ $rc != 0 ]; then
		grep -v '^\[' "$work/$mode.log" | tail -n 20
		echo "FAIL: the $mode simulation of 16 ranks ended with exit code $rc (124/137: hung)"
		exit 1
	fi
done
python3 - "$work/sparse/run_summary.csv" "$work/full/run_summary.csv" <<'PY'
import csv, sys
s, f = (next(csv.DictReader(open(p))) for p in sys.argv[1:3])
exact = ['steps[-]', 'n_fluid[-]']
times = ['wall[s]', 'first_step[s]', 'later_steps[s]']
for k in exact + times:
    print('%-16s sparse %-16s full %s' % (k, s[k], f[k]))
bad = [k for k in exact if s[k] != f[k]]
bad += [k for k in times if abs(float(s[k]) - float(f[k])) > 1e-6 * abs(float(f[k]))]
sys.exit('FAIL: the sparse registration simulates another run (%s)' % ', '.join(bad) if bad else 0)
PY
