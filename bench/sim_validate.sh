#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/sim_validate.sh — the simulation build against measurement (issue 25): the same SPH run
# measured on 1, 2, 4 ... ranks of this machine and simulated by the SimGrid build from the
# performance models those runs calibrated, replaying their step traces.
#
#   phase measure  (normal build): per rank count, two calibration runs (STARPU_CALIBRATE=1),
#                  then one measured run that records its steps (--record-steps);
#                  DIR/measured.csv, DIR/models/ (STARPU_HOME), DIR/trace_N
#   phase simulate (build-simgrid/tide under starpu_smpirun, every rank on one simulated node of
#                  this machine, bench/sim_platform.py): DIR/sim_validate.csv with the error
#
# Both phases may run on different machines (measure on the GPU node, simulate here): carry DIR.
# The figure compared is the summary's later_steps (mean step time after the first) of each.
#
# usage: bench/sim_validate.sh [--phase measure|simulate|both] [--out DIR] [--case FILE]
#          [--dp X] [--steps N] [--blocks B] [--ranks "1 2 4"] [--ncpu K] [--ncuda C]
#          [--platform "OPTIONS"]
#   --platform: options of bench/sim_platform.py for the simulated node (simulate phase), e.g.
#   "--intra-lat-us 32": a per-message cost between the ranks (StarPU-MPI's own time per message
#   on the measured node, which SimGrid does not see: fitted on 2 CPU ranks of the H200 node)
#   --ncpu/--ncuda: StarPU workers of each rank (default 1 CPU, 0 GPUs); ranks share the machine
#   env: TIDE (normal build, default build/tide), TIDE_SIM (default build-simgrid/tide),
#        STARPU_SMPIRUN (default: the SimGrid StarPU in ~/.cache/tide-deps), STARPU_SCHED
#        (default dmda), TIDE_SIM_HOST (the models' host name, default tide-calibrated)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(dirname "$here")
source "$here/bench_common.sh" # die (exit 2, the script's name), sim_pick_build
phase=both out=$repo/bench/out/sim_validate case_file=$repo/cases/dambreak2d.yaml dp="" steps=300
blocks=4 ranks="1 2 4" ncpu=1 ncuda=0 platform=""
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || die "option $1 needs a value"
	case $1 in
	--phase) phase=$2 ;; --out) out=$2 ;; --case) case_file=$2 ;; --dp) dp=$2 ;;
	--steps) steps=$2 ;; --blocks) blocks=$2 ;; --ranks) ranks=$2 ;; --ncpu) ncpu=$2 ;;
	--ncuda) ncuda=$2 ;; --platform) platform=$2 ;;
	*) die "unknown option $1" ;;
	esac
	shift 2
done
case $phase in measure|simulate|both) ;; *) die "--phase must be measure, simulate or both" ;; esac
mkdir -p "$out"; out=$(cd "$out" && pwd)
export STARPU_HOME=$out/models STARPU_HOSTNAME=${TIDE_SIM_HOST:-tide-calibrated}
export STARPU_SCHED=${STARPU_SCHED:-dmda} STARPU_SILENT=1
args=(run "$case_file" --max-steps "$steps" --blocks "$blocks" --no-output --quiet)
[ -n "$dp" ] && args+=(--dp "$dp")
later() { python3 -c 'import csv,sys; print(next(csv.DictReader(open(sys.argv[1])))["later_steps[s]"])' "$1/run_summary.csv"; }

if [ "$phase" != simulate ]; then
	tide=${TIDE:-$repo/build/tide}
	[ -x "$tide" ] || die "no normal build at $tide (bash tools/build.sh)"
	mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none -x STARPU_NCPU -x STARPU_NCUDA
	     -x STARPU_WORKERS_NOBIND=1 -x STARPU_SILENT -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SCHED)
	export STARPU_NCPU=$ncpu STARPU_NCUDA=$ncuda
	echo "ranks,measured_step_s" > "$out/measured.csv"
	for n in $ranks; do
		# 1 rank too under mpirun and StarPU-MPI (TIDE_MPI=1), as a simulated rank always is:
		# the same task graph (the step reduction's exchange tasks included)
		launch=("${mpi[@]}" -x TIDE_MPI=1 -np "$n")
		for i in 1 2; do
			STARPU_CALIBRATE=1 "${launch[@]}" "$tide" "${args[@]}" --out "$out/cal_$n" --overwrite ||
				die "calibration run on $n ranks failed"
		done
		"${launch[@]}" "$tide" "${args[@]}" --out "$out/meas_$n" --overwrite --record-steps "$out/trace_$n" ||
			die "measured run on $n ranks failed"
		echo "$n,$(later "$out/meas_$n")" >> "$out/measured.csv"
		echo "measured: $n ranks, $(later "$out/meas_$n") s per step"
	done
	{ echo "case=$case_file dp=$dp steps=$steps blocks=$blocks ncpu=$ncpu ncuda=$ncuda"
	  echo "STARPU_SCHED=$STARPU_SCHED host=$(hostname) $(nproc) cores"; } > "$out/setup.txt"
fi

if [ "$phase" != measure ]; then
	sim_pick_build # bench_common.sh: sim, smpirun
	[ -f "$out/measured.csv" ] || die "no $out/measured.csv: run --phase measure first"
	export STARPU_NCPU=$ncpu STARPU_NCUDA=$ncuda
	echo "ranks,measured_step_s,simulated_step_s,error_pct" > "$out/sim_validate.csv"
	printf '%6s %14s %15s %8s\n' ranks "measured [ms]" "simulated [ms]" "error"
	tail -n +2 "$out/measured.csv" | while IFS=, read -r n meas; do
		# shellcheck disable=SC2086 # the options, one word each
		python3 "$here/sim_platform.py" --nodes 1 --gpus-per-node "$n" $platform "$out/net_$n.xml" "$out/hosts_$n"
		"$smpirun" -platform "$out/net_$n.xml" -hostfile "$out/hosts_$n" -np "$n" "$sim" "${args[@]}" \
			--out "$out/sim_$n" --overwrite --replay-steps "$out/trace_$n" > "$out/sim_$n.log" 2>&1 ||
			die "simulation of $n ranks failed: $(grep -v '^\[' "$out/sim_$n.log" | tail -n 3 | tr '\n' ' ')"
		s=$(later "$out/sim_$n")
		python3 - "$n" "$meas" "$s" "$out/sim_validate.csv" <<'PY'
import sys
n, m, s, path = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
e = 100 * (s - m) / m
open(path, 'a').write('%s,%.6g,%.6g,%.1f\n' % (n, m, s, e))
print('%6s %14.3f %15.3f %7.1f%%' % (n, 1e3 * m, 1e3 * s, e))
PY
	done
fi
