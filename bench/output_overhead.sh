#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/output_overhead.sh — what output costs a run (issue 18): SPHERIC test 2
# (cases/spheric2.yaml) at one --dp over a fixed simulated time, run four ways:
#   none     --no-output                                   (the reference)
#   vtp      a snapshot every 0.01 s simulated, .vtp       (snapshots written beside the run)
#   hdf5     the same as .h5
#   gauges   --no-output --set gauges.every=0.001          (gauges at 1 kHz; a run fails when the
#                                                           tide at hand does not know the key)
# and prints for each the wall time of the step loop (the run summary's wall_s: it includes
# waiting for the last snapshot), the time per step (wall_s / steps) and the overhead in %
# against `none`.  Writes DIR/output_overhead.csv, DIR/machine.txt and DIR/output_overhead.png
# (tools/plot_bench.py).  See bench/README.md.
set -euo pipefail

usage() {
	cat <<'EOF2'
usage: bench/output_overhead.sh [options] [extra tide run options, e.g. --blocks 4]

  --dp X          particle spacing (default 0.01: about 1.0 M particles; the lead's H200 runs
                  use 0.01 and 0.004, about 13 M)
  --t-end T       simulated time of every run [s] (default 0.1)
  --every T       snapshot interval of the vtp and hdf5 runs [s] (default 0.01)
  --gauge-every T gauge interval of the gauges run [s] (default 0.001)
  --runs LIST     comma-separated subset of none,vtp,hdf5,gauges (default all; none is always run)
  --case FILE     case file (default cases/spheric2.yaml)
  --out DIR       output folder (default bench/out)
  --tide PATH     tide binary (default build/tide)
  --keep-runs     keep each run's folder (particle files, logs) under DIR/overhead_runs/
  --no-plot       do not draw DIR/output_overhead.png
  --              everything after it goes to tide run unchanged
Other unknown arguments are passed to tide run too.  StarPU variables are taken from the
environment.
EOF2
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=bench/bench_common.sh
source "$here/bench_common.sh"

dp=0.01
t_end=0.1
every=0.01
gauge_every=0.001
runs="none,vtp,hdf5,gauges"
case_file="$repo/cases/spheric2.yaml"
out="$repo/bench/out"
tide="$repo/build/tide"
keep_runs=0
plot=1
pass=()
while [ $# -gt 0 ]; do
	case "$1" in
	--dp) dp=$(need_value "$@"); shift 2 ;;
	--t-end) t_end=$(need_value "$@"); shift 2 ;;
	--every) every=$(need_value "$@"); shift 2 ;;
	--gauge-every) gauge_every=$(need_value "$@"); shift 2 ;;
	--runs) runs=$(need_value "$@"); shift 2 ;;
	--case) case_file=$(need_value "$@"); shift 2 ;;
	--out) out=$(need_value "$@"); shift 2 ;;
	--tide) tide=$(need_value "$@"); shift 2 ;;
	--keep-runs) keep_runs=1; shift ;;
	--no-plot) plot=0; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; pass+=("$@"); break ;;
	*) pass+=("$1"); shift ;;
	esac
done
is_pos() { "$PY" -c 'import math, sys; v = float(sys.argv[1]); sys.exit(0 if math.isfinite(v) and v > 0 else 1)' "$1" 2>/dev/null; }
for v in "--dp:$dp" "--t-end:$t_end" "--every:$every" "--gauge-every:$gauge_every"; do
	is_pos "${v#*:}" || die "${v%%:*} needs a number > 0, got '${v#*:}'"
done
IFS=, read -r -a wanted <<< "$runs"
for r in "${wanted[@]}"; do
	case "$r" in none|vtp|hdf5|gauges) ;; *) die "--runs: '$r' is not one of none, vtp, hdf5, gauges" ;; esac
done
[ -x "$tide" ] || die "no tide binary at $tide (build it: ninja -C build)"
[ -f "$case_file" ] || die "no case file $case_file"
mkdir -p "$out/overhead_runs"
out=$(cd "$out" && pwd)
setup_libs
write_machine_info "$out/machine.txt" "$tide"

# run_one NAME OPTIONS...: one run of the case to t_end; its folder is DIR/overhead_runs/NAME
run_one() {
	local name=$1 dir="$out/overhead_runs/$1" rc=0 status
	shift
	rm -rf "$dir"
	mkdir -p "$dir"
	local args=(run "$case_file" --dp "$dp" --set "time.end=$t_end" --out "$dir" --quiet "$@")
	args+=(${pass[@]+"${pass[@]}"})
	{ env | grep '^STARPU_' | sort || true; echo "$tide ${args[*]}"; } > "$dir/command.txt"
	log "$name: tide ${args[*]:1}"
	"$tide" "${args[@]}" > "$dir/log.txt" 2>&1 || rc=$?
	if [ "$rc" != 0 ]; then
		warn "$name: tide exited with $rc: $(tail -n 2 "$dir/log.txt" | tr '\n' ' ')"
		return 1
	fi
	[ -f "$dir/run_summary.csv" ] || { warn "$name: no run_summary.csv"; return 1; }
	status=$("$PY" "$here/benchlib.py" field "$dir/run_summary.csv" status)
	[ "$status" = ok ] || { warn "$name: run status: $status"; return 1; }
}

csv="$out/output_overhead.csv"
echo "run,what,dp_m,particles,t_end_s,steps,snapshots,wall_s,wall_per_step_ms,overhead_pct,bytes_written,status,ncpu,ncuda,host" > "$csv"
host=$(hostname)
ref_wall=""
for name in none vtp hdf5 gauges; do
	[ "$name" = none ] || [[ ",$runs," == *",$name,"* ]] || continue
	case $name in
	none) what="--no-output"; opts=(--no-output) ;;
	vtp) what="vtp every $every s"; opts=(--format vtp --set "time.output=$every") ;;
	hdf5) what="hdf5 every $every s"; opts=(--format hdf5 --set "time.output=$every") ;;
	gauges) what="gauges every $gauge_every s with --no-output"; opts=(--no-output --set "gauges.every=$gauge_every") ;;
	esac
	dir="$out/overhead_runs/$name"
	if run_one "$name" "${opts[@]}"; then
		read -r nf nb steps wall nout ncpu ncuda < <("$PY" "$here/benchlib.py" field "$dir/run_summary.csv" \
			n_fluid n_bound steps wall n_outputs ncpu_workers ncuda_workers)
		bytes=$(find "$dir" -maxdepth 1 \( -name 'particles_*' -o -name '*.csv' \) -printf '%s\n' | awk '{s += $1} END {print s + 0}')
		[ "$name" = none ] && ref_wall=$wall
		read -r ms pct < <("$PY" -c 'import sys
w, s, ref = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
print("%.4g" % (1e3 * w / max(s, 1)), "%.2f" % (100 * (w / float(ref) - 1)) if ref else "nan")' "$wall" "$steps" "$ref_wall")
		echo "$name,$what,$dp,$((nf + nb)),$t_end,$steps,$nout,$wall,$ms,$pct,$bytes,ok,$ncpu,$ncuda,$host" >> "$csv"
	else
		[ "$name" = none ] && die "the reference run failed, see $dir/log.txt"
		echo "$name,$what,$dp,,$t_end,,,,,,,failed,,,$host" >> "$csv"
	fi
	[ "$keep_runs" = 1 ] || rm -f "$dir"/particles_*
done

echo "output_overhead: $csv (SPHERIC 2, dp $dp, $t_end s simulated; overhead = wall_s / wall_s(none) - 1)"
$PY "$here/benchlib.py" table "$csv"
if [ "$plot" = 1 ]; then
	if "$PY" "$repo/tools/plot_bench.py" "$csv" -o "$out/output_overhead.png"; then
		echo "plot: $out/output_overhead.png"
	else
		warn "plot failed (is matplotlib installed for $PY?)"
	fi
fi
