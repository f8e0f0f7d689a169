#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/sim_gravity_validate.sh — the gravity simulation against measurement (issue 25): every
# run of CAL/measured.csv (bench/sim_gravity_calibrate.sh: R ranks of N particles of the
# synthetic gravity domain on this machine) simulated by the SimGrid build with the models of
# --models (the fitted ones the scaling uses), its R ranks on one simulated node of this machine
# (bench/sim_platform.py), and the error of the time per gravity evaluation (tide gravity's
# "total").  Also the bytes of essential nodes sent per rank, measured (the real particles'
# trees) against the virtual tree's (the simulation's messages).
#
# usage: bench/sim_gravity_validate.sh --cal DIR --models STARPU_HOME [--out DIR2] [--theta 0.6]
#          [--repeat 3] [--ncpu 1] [--ncuda 0] [--platform "OPTIONS"]
#   writes DIR2 (default CAL)/sim_validate.csv: ranks, per_rank, measured_s, simulated_s,
#   error_pct, measured and simulated bytes per rank (mean), their ratio.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(dirname "$here")
source "$here/bench_common.sh" # die (exit 2, the script's name), sim_pick_build
cal="" models="" out="" theta=0.6 repeat=3 ncpu=1 ncuda=0 platform=""
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || die "option $1 needs a value"
	case $1 in
	--cal) cal=$2 ;; --models) models=$2 ;; --out) out=$2 ;; --theta) theta=$2 ;;
	--repeat) repeat=$2 ;; --ncpu) ncpu=$2 ;; --ncuda) ncuda=$2 ;; --platform) platform=$2 ;;
	*) die "unknown option $1" ;;
	esac
	shift 2
done
[ -f "$cal/measured.csv" ] || die "no $cal/measured.csv (bench/sim_gravity_calibrate.sh --out $cal)"
[ -d "$models/.starpu/sampling/codelets" ] || die "--models $models holds no .starpu/sampling/codelets"
models=$(cd "$models" && pwd); out=${out:-$cal}; mkdir -p "$out"; out=$(cd "$out" && pwd)
sim_pick_build # bench_common.sh: sim, smpirun
export STARPU_HOME=$models STARPU_HOSTNAME=${TIDE_SIM_HOST:-tide-calibrated}
export STARPU_SCHED=${STARPU_SCHED:-dmda} STARPU_SILENT=1 STARPU_NCPU=$ncpu STARPU_NCUDA=$ncuda
dev=any; [ "$ncuda" -gt 0 ] && [ "$ncpu" = 0 ] && dev=cuda
res=$out/sim_validate.csv
echo "ranks,per_rank,measured_s,simulated_s,error_pct,measured_bytes_per_rank,simulated_bytes_per_rank,bytes_ratio" > "$res"
printf '%6s %9s %14s %15s %8s %14s %14s\n' ranks per_rank "measured [ms]" "simulated [ms]" error "meas. B/rank" "sim. B/rank"
tail -n +2 "$cal/measured.csv" | while IFS=, read -r n per meas bmeas _; do
	tag=${n}_$per
	# shellcheck disable=SC2086 # the options, one word each
	python3 "$here/sim_platform.py" --nodes 1 --gpus-per-node "$n" $platform "$out/net_$tag.xml" "$out/hosts_$tag"
	rm -f "$out/sim_$tag.csv"
	"$smpirun" -platform "$out/net_$tag.xml" -hostfile "$out/hosts_$tag" -np "$n" "$sim" gravity \
		--synthetic "$per" --theta "$theta" --quadrupole --device "$dev" --repeat "$repeat" --quiet \
		--csv "$out/sim_$tag.csv" > "$out/sim_$tag.log" 2>&1 ||
		die "simulation of $n ranks of $per failed: $(grep -v '^\[' "$out/sim_$tag.log" | tail -n 3 | tr '\n' ' ')"
	read -r s bsim <<< "$(awk -F, -v n="$n" 'NR == 2 { printf "%s %.0f", $13, $23 / n }' "$out/sim_$tag.csv")"
	python3 - "$n" "$per" "$meas" "$s" "$bmeas" "$bsim" "$res" <<'PY'
import sys
n, per, m, s, bm, bs, path = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6]), sys.argv[7]
e = 100 * (s - m) / m
ratio = '%.3f' % (bs / bm) if bm > 0 else ''
open(path, 'a').write('%s,%s,%.6g,%.6g,%.1f,%.0f,%.0f,%s\n' % (n, per, m, s, e, bm, bs, ratio))
print('%6s %9s %14.3f %15.3f %7.1f%% %14.0f %14.0f' % (n, per, 1e3 * m, 1e3 * s, e, bm, bs))
PY
	rm -f "$out/net_$tag.xml" "$out/hosts_$tag"
done
