#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/sched_policies.sh — tide's time per step on one case (SPHERIC test 2 by default) under the
# StarPU schedulers eager, lws, dmda, dmdas and heteroprio, with all CPU workers (+ the GPU), and
# with the GPU alone (STARPU_NCPU=0) when there is one; and, from StarPU's own worker statistics
# (STARPU_PROFILING=1 STARPU_WORKER_STATS=1), how many tasks and how much execution time went to
# CPU and to GPU workers.  Writes DIR/sched_policies.csv, DIR/machine.txt and DIR/sched_policies.png
# (bench/plot_sched.py), and prints a table.  See bench/README.md.
set -euo pipefail

usage() {
	cat <<'EOF'
usage: bench/sched_policies.sh [options] [extra tide run options, e.g. --blocks 64]

  --dp X              particle spacing [m] (default: the spacing giving --particles)
  --particles N       target particle count when --dp is not given (default 1e6 with a GPU,
                      1e5 on a CPU-only machine)
  --steps S           timed steps per run (default 20)
  --warmup W          untimed warm-up steps (default 3)
  --single            one run of S steps per policy, tide's time_per_step (averaged over all its
                      steps) and the whole run's worker statistics, instead of the default
                      differencing of a (W+S)- and a W-step run (times and task counts)
  --calib-steps C     steps of the STARPU_CALIBRATE=1 run before each model-based policy
                      (dmda, dmdas, heteroprio; default W+S; 0: no calibration run)
  --policies LIST     comma-separated (default eager,lws,dmda,dmdas,heteroprio)
  --no-gpu-only       skip the STARPU_NCPU=0 configuration on a GPU machine
  --starpu-home DIR   STARPU_HOME for the performance models (default DIR/starpu-home, fresh
                      models for this benchmark; give an existing one to reuse its calibration)
  --case FILE         case file (default cases/spheric2.yaml)
  --out DIR           output folder (default bench/out)
  --tide PATH         tide binary (default build/tide)
  --keep-runs         keep each run's VTP output under DIR/sched_runs/
  --no-plot           do not draw DIR/sched_policies.png
  --                  everything after it goes to tide run unchanged
Other unknown arguments are passed to tide run too.
EOF
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=bench/bench_common.sh
source "$here/bench_common.sh"

dp=""
particles=""
steps=20
warmup=3
single=0
calib_steps=""
policies="eager,lws,dmda,dmdas,heteroprio"
gpu_only=1
starpu_home=""
case_file="$repo/cases/spheric2.yaml"
out="$repo/bench/out"
tide="$repo/build/tide"
keep_runs=0
plot=1
pass=()
while [ $# -gt 0 ]; do
	case "$1" in
	--dp) dp=$(need_value "$@"); shift 2 ;;
	--particles) particles=$(need_value "$@"); shift 2 ;;
	--steps) steps=$(need_value "$@"); shift 2 ;;
	--warmup) warmup=$(need_value "$@"); shift 2 ;;
	--single) single=1; shift ;;
	--calib-steps) calib_steps=$(need_value "$@"); shift 2 ;;
	--policies) policies=$(need_value "$@"); shift 2 ;;
	--no-gpu-only) gpu_only=0; shift ;;
	--starpu-home) starpu_home=$(need_value "$@"); shift 2 ;;
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
case "$steps" in ''|*[!0-9]*|0) die "--steps needs a whole number > 0, got '$steps'" ;; esac
case "$warmup" in ''|*[!0-9]*) die "--warmup needs a whole number >= 0, got '$warmup'" ;; esac
if [ "$single" = 0 ] && [ "$warmup" = 0 ]; then warmup=1; fi
[ -n "$calib_steps" ] || calib_steps=$((warmup + steps))
case "$calib_steps" in ''|*[!0-9]*) die "--calib-steps needs a whole number >= 0" ;; esac
[ -x "$tide" ] || die "no tide binary at $tide (build it: ninja -C build)"
[ -f "$case_file" ] || die "no case file $case_file"
mkdir -p "$out/sched_runs"
out=$(cd "$out" && pwd)
[ -n "$starpu_home" ] || starpu_home="$out/starpu-home"
mkdir -p "$starpu_home"
STARPU_HOME=$(cd "$starpu_home" && pwd)
export STARPU_HOME
setup_libs
# the configurations set these themselves
unset STARPU_SCHED STARPU_CALIBRATE STARPU_PROFILING STARPU_WORKER_STATS STARPU_WORKER_STATS_FILE
write_machine_info "$out/machine.txt" "$tide"

# --- probe: the machine's workers, and the spacing for the target particle count
probe="$out/sched_runs/probe"
log "probe: $(basename "$case_file") at its own dp, 1 step"
tide_run "$probe" "" 1 || die "probe run failed, see $probe/log.txt"
read -r nf0 nb0 dp0 ncpu_all ncuda_all < <(field "$probe" n_fluid n_bound dp ncpu_workers ncuda_workers)
if [ -z "$dp" ]; then
	if [ -z "$particles" ]; then
		if [ "$ncuda_all" -gt 0 ]; then particles=1e6; else particles=1e5; fi
	fi
	dp=$($PY "$here/benchlib.py" dp "$nf0" "$nb0" "$dp0" "$particles")
fi
pred=$($PY "$here/benchlib.py" count "$nf0" "$nb0" "$dp0" "$dp")
log "$ncpu_all CPU + $ncuda_all CUDA workers; dp = $dp m (about $pred particles)"

configs=()
if [ "$ncuda_all" -gt 0 ]; then
	configs+=(cpu+gpu)
	[ "$gpu_only" = 1 ] && configs+=(gpu)
else
	configs+=(cpu)
fi

# run_config DIR STEPS: one run in the current configuration with worker statistics
stats_run() {
	local dir=$1 n=$2
	STARPU_PROFILING=1 STARPU_WORKER_STATS=1 STARPU_WORKER_STATS_FILE="$dir.worker_stats.txt" \
		tide_run "$dir" "$dp" "$n" || return 1
	mv "$dir.worker_stats.txt" "$dir/worker_stats.txt" 2> /dev/null || cp "$dir/log.txt" "$dir/worker_stats.txt"
}

csv="$out/sched_policies.csv"
echo "policy,config,ncpu,ncuda,particles,dp_m,steps,time_per_step_ms,particle_steps_per_s,cpu_tasks,gpu_tasks,gpu_task_share,cpu_exec_ms,gpu_exec_ms,gpu_exec_share,calibrated,status,host" > "$csv"
host=$(hostname -s 2>/dev/null || hostname)
IFS=, read -r -a policy_list <<< "$policies"
for cfg in "${configs[@]}"; do
	for pol in "${policy_list[@]}"; do
		label="${cfg//+/-}_${pol}"   # cpu+gpu -> cpu-gpu in folder names
		# one subshell per measurement (its own environment, set -e inside); an error in one
		# measurement is reported and the next one goes on
		set +e
		(
			set -e
			export STARPU_SCHED=$pol
			[ "$cfg" = gpu ] && export STARPU_NCPU=0
			calibrated=no
			case "$pol" in
			dmda|dmdas|dmdar|dmdap|heteroprio|pheft|modular-heft*)
				if [ "$calib_steps" -gt 0 ]; then
					log "$label: calibration run, STARPU_CALIBRATE=1, $calib_steps steps"
					if STARPU_CALIBRATE=1 tide_run "$out/sched_runs/${label}_calib" "$dp" "$calib_steps"; then
						calibrated=yes
					else
						warn "$label: calibration run failed (see $out/sched_runs/${label}_calib/log.txt)"
						calibrated=failed
					fi
				fi ;;
			esac
			fail() {
				warn "$label: $1"
				echo "$pol,$cfg,,,,$dp,,,,,,,,,,$calibrated,failed,$host" >> "$csv"
				exit 0
			}
			rb="$out/sched_runs/${label}_b"
			if [ "$single" = 1 ]; then
				log "$label: one run of $steps steps"
				stats_run "$rb" "$steps" || fail "run failed (see $rb/log.txt)"
				read -r nf nb nsteps tps ncpu ncuda < <(field "$rb" n_fluid n_bound steps time_per_step ncpu_workers ncuda_workers)
				read -r ct gt ce ge nw < <($PY "$here/benchlib.py" workerstats "$rb/worker_stats.txt")
				tps_ms=$($PY -c "import sys; print(f'{float(sys.argv[1])*1e3:.4g}')" "$tps")
			else
				ra="$out/sched_runs/${label}_a"
				log "$label: runs of $warmup and $((warmup + steps)) steps"
				stats_run "$ra" "$warmup" || fail "run failed (see $ra/log.txt)"
				stats_run "$rb" "$((warmup + steps))" || fail "run failed (see $rb/log.txt)"
				read -r sa wa < <(field "$ra" steps wall)
				read -r nf nb sb wb ncpu ncuda < <(field "$rb" n_fluid n_bound steps wall ncpu_workers ncuda_workers)
				[ "$sb" -gt "$sa" ] || fail "the longer run did only $sb steps"
				nsteps=$((sb - sa))
				read -r cta gta cea gea _ < <($PY "$here/benchlib.py" workerstats "$ra/worker_stats.txt")
				read -r ctb gtb ceb geb nw < <($PY "$here/benchlib.py" workerstats "$rb/worker_stats.txt")
				ct=$((ctb - cta)); gt=$((gtb - gta))
				read -r ce ge tps_ms < <($PY -c "
import sys
cea, ceb, gea, geb, wa, wb, n = map(float, sys.argv[1:])
print(f'{ceb - cea:.1f} {geb - gea:.1f} {(wb - wa) / n * 1e3:.4g}')" "$cea" "$ceb" "$gea" "$geb" "$wa" "$wb" "$nsteps")
				case "$tps_ms" in -*|0)
					tps_ms=$($PY -c "import sys; print(f'{float(sys.argv[1])*1e3:.4g}')" "$(field "$rb" time_per_step)")
					warn "$label: the ${warmup}-step run took longer than the $((warmup + steps))-step one (a busy machine?); reporting the longer run's own time_per_step, $tps_ms ms"
					;;
				esac
			fi
			[ "${nw:-0}" -gt 0 ] || warn "$label: no 'Worker stats:' block found in $rb/worker_stats.txt"
			np=$((nf + nb))
			read -r pss gshare geshare < <($PY -c "
import sys
n, t, ct, gt, ce, ge = map(float, sys.argv[1:7])
ncuda = int(sys.argv[7])
share = lambda g, c: f'{g / (g + c):.3f}' if g + c > 0 and ncuda > 0 else '-'
print(f'{n / (t * 1e-3):.4g}' if t > 0 else '-', share(gt, ct), share(ge, ce))" "$np" "$tps_ms" "$ct" "$gt" "$ce" "$ge" "$ncuda")
			[ "$gshare" = - ] && gshare=""
			[ "$geshare" = - ] && geshare=""
			echo "$pol,$cfg,$ncpu,$ncuda,$np,$dp,$nsteps,$tps_ms,$pss,$ct,$gt,$gshare,$ce,$ge,$geshare,$calibrated,ok,$host" >> "$csv"
			log "  $label: $tps_ms ms/step; tasks CPU $ct, GPU $gt; executing CPU $ce ms, GPU $ge ms"
			[ "$keep_runs" = 1 ] || rm -f "$out"/sched_runs/"$label"*/particles_*.vtp
		)
		rc=$?
		set -e
		[ "$rc" = 0 ] || warn "$label: the measurement stopped on an error (see above); going on with the next one"
	done
done
[ "$keep_runs" = 1 ] || rm -f "$probe"/particles_*.vtp
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)" >> "$out/machine.txt"

echo
echo "sched_policies: $csv ($([ "$single" = 1 ] && echo "one $steps-step run per policy" || echo "differences of $((warmup + steps))- and $warmup-step runs"); STARPU_HOME=$STARPU_HOME)"
$PY "$here/benchlib.py" table "$csv"
if [ "$plot" = 1 ]; then
	if "$PY" "$here/plot_sched.py" "$csv" "$out/sched_policies.png"; then
		echo "plot: $out/sched_policies.png"
	else
		warn "plot failed (is matplotlib installed for $PY?)"
	fi
fi
