#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/sim_gravity_calibrate.sh — performance models of the gravity codelets for the scaling
# simulation (issue 25), from real runs of the synthetic gravity domain (tide gravity --synthetic,
# normal build): for each rank count and size per rank, --runs runs with STARPU_CALIBRATE=1 (every
# codelet's history model gets its mean time per size: the work tasks/gravity.c gives each task,
# particles for bh_build and bh_moments, essential items for bh_essential, modelled interactions
# for bh_walk and bh_walk_let), then one measured run whose whole evaluation (tide gravity's
# "total", the median of --repeat) goes to DIR/measured.csv for bench/sim_gravity_validate.sh.
# Then bench/sim_fit_models.py fits the models for any size.
#
# usage: bench/sim_gravity_calibrate.sh [--out DIR] [--sizes "5000 20000 80000"] [--ranks "1 2 4"]
#          [--theta 0.6] [--repeat 3] [--runs 2] [--ncpu 1] [--ncuda 0] [--device any]
#   --sizes: particles per rank; DIR/models is the STARPU_HOME written (host name TIDE_SIM_HOST,
#   default tide-calibrated); DIR/calibrate.txt the command and the machine; DIR/raw.csv every
#   run's row of tide gravity --csv.  Quadrupoles always (the default of the benchmarks).
#   On the GPU node: --ncpu 0 --ncuda 1 --device cuda, sizes up to millions, ranks sharing the GPU
#   (tools/device_simcal_gravity.sh).
#   env: TIDE (default build/tide), MPIRUN (default mpirun --allow-run-as-root --oversubscribe
#   --bind-to none).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(dirname "$here")
# shellcheck source=bench/bench_common.sh
source "$here/bench_common.sh" # die, sim_calibrate_setup
out=$repo/bench/out/sim_gravity_calibrate sizes="5000 20000 80000" ranks="1 2 4" theta=0.6
repeat=3 runs=2 ncpu=1 ncuda=0 device=any
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || die "option $1 needs a value"
	case $1 in
	--out) out=$2 ;; --sizes) sizes=$2 ;; --ranks) ranks=$2 ;; --theta) theta=$2 ;;
	--repeat) repeat=$2 ;; --runs) runs=$2 ;; --ncpu) ncpu=$2 ;; --ncuda) ncuda=$2 ;;
	--device) device=$2 ;;
	*) die "unknown option $1" ;;
	esac
	shift 2
done
sim_calibrate_setup "$out" "$ncpu" "$ncuda" # bench_common.sh: tide, out, mpi, STARPU_*
{ echo "bench/sim_gravity_calibrate.sh --sizes \"$sizes\" --ranks \"$ranks\" --theta $theta --repeat $repeat --runs $runs --ncpu $ncpu --ncuda $ncuda --device $device"
  echo "STARPU_SCHED=$STARPU_SCHED host=$(hostname) $(nproc) cores $(date -u +%FT%TZ)"; } > "$out/calibrate.txt"
[ -f "$out/measured.csv" ] || echo "ranks,per_rank,measured_s,let_bytes_mean,let_bytes_max" > "$out/measured.csv"
args=(gravity --theta "$theta" --quadrupole --device "$device" --repeat "$repeat" --quiet)
for n in $ranks; do
	for s in $sizes; do
		for i in $(seq 1 "$runs"); do
			STARPU_CALIBRATE=1 "${mpi[@]}" -np "$n" "$tide" "${args[@]}" --synthetic "$s" --csv "$out/raw.csv" ||
				die "calibration run of $n ranks of $s particles failed"
		done
		rm -f "$out/meas.csv"
		STARPU_CALIBRATE=0 "${mpi[@]}" -np "$n" "$tide" "${args[@]}" --synthetic "$s" --csv "$out/meas.csv" ||
			die "measured run of $n ranks of $s particles failed"
		cat "$out/meas.csv" | tail -n 1 >> "$out/raw.csv"
		# t_total_s (13), let_bytes (23, all ranks), let_bytes_max (26)
		awk -F, -v n="$n" -v s="$s" 'NR == 2 { printf "%s,%s,%s,%.0f,%s\n", n, s, $13, $23 / n, $26 }' \
			"$out/meas.csv" >> "$out/measured.csv"
		echo "measured: $n ranks of $s particles: $(tail -n 1 "$out/measured.csv" | cut -d, -f3) s per evaluation"
	done
done
rm -f "$out/meas.csv"
