#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/sim_calibrate.sh — performance models for the scaling simulation (issue 25) at several
# block sizes, from real runs of the synthetic box (tide run --synthetic, normal build): per
# size, STARPU_CALIBRATE=1 runs of BLOCKS blocks (decomposition 3d) on one StarPU-MPI rank (the
# task graph a simulated rank runs, the time step's exchange tasks included), so that every
# codelet's history-based model holds its mean time at each size (the models' size column: the
# particles of the task's blocks, tide_perfmodel_size).  bench/sim_fit_models.py then fits them.
#
# usage: bench/sim_calibrate.sh [--out DIR] [--case FILE] [--sizes "1000 4000 16000"]
#          [--blocks 8] [--steps 12] [--ncpu 1] [--ncuda 0]
#   --sizes: particles per block; DIR/models is the STARPU_HOME written (host name
#   TIDE_SIM_HOST, default tide-calibrated), DIR/calibrate.txt the command and machine.
#   On the GPU node: --ncuda 1 --ncpu 0 and sizes up to millions (tools/device_simcal.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(dirname "$here")
# shellcheck source=bench/bench_common.sh
source "$here/bench_common.sh"
die() { printf 'sim_calibrate.sh: %s\n' "$*" >&2; exit 2; }
out=$repo/bench/out/sim_calibrate case_file=$repo/cases/dambreak3obs.yaml sizes="1000 4000 16000 48000"
blocks=8 steps=12 ncpu=1 ncuda=0
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || die "option $1 needs a value"
	case $1 in
	--out) out=$2 ;; --case) case_file=$2 ;; --sizes) sizes=$2 ;; --blocks) blocks=$2 ;;
	--steps) steps=$2 ;; --ncpu) ncpu=$2 ;; --ncuda) ncuda=$2 ;;
	*) die "unknown option $1" ;;
	esac
	shift 2
done
sim_calibrate_setup "$out" "$ncpu" "$ncuda" # bench_common.sh: tide, out, mpi, STARPU_*
export STARPU_CALIBRATE=1
{ echo "bench/sim_calibrate.sh --case $case_file --sizes \"$sizes\" --blocks $blocks --steps $steps --ncpu $ncpu --ncuda $ncuda"
  echo "STARPU_SCHED=$STARPU_SCHED host=$(hostname) $(nproc) cores $(date -u +%FT%TZ)"; } > "$out/calibrate.txt"
for s in $sizes; do
	n=$((s * blocks))
	for i in 1 2; do
		t0=$(date +%s.%N)
		"${mpi[@]}" -np 1 "$tide" run "$case_file" --synthetic "$n" --blocks "$blocks" --decomp 3d \
			--max-steps "$steps" --no-output --quiet --out "$out/run_$s" --overwrite ||
			die "calibration run of $n particles failed"
		echo "calibrated: $blocks blocks of about $s particles, run $i, $(python3 -c "import time,sys; print('%.1f' % (time.time() - float(sys.argv[1])))" "$t0") s"
	done
done
