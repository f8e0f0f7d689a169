#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/sim_scaling.sh — SPH weak and strong scaling from 1 to 1024 simulated GPUs (issue 25):
# the simulation build (build-simgrid/tide under starpu_smpirun) runs the real task graph of
# tide run --synthetic (a box of fluid at rest, no particle made, dt = cfl h/c0) on R ranks, one
# block per rank, cut in 3-D, every task timed from a models directory that extrapolates in size
# (bench/sim_fit_models.py), the ranks on a cluster of nodes of G GPUs (bench/sim_platform.py).
#
#   weak:   --weak "4000000 16000000" particles per rank, ranks --ranks
#   strong: --strong "50000000 500000000" particles in all, ranks --ranks
# The steady step: StarPU allocates the GPU's halo and migrant buffers in the first steps, and
# the simulation prices every cudaMalloc (STARPU_SIMGRID_CUDA_MALLOC_COST): 8 ranks of 4 M
# simulate 25.1 ms per step over steps 2-4 and 14.4 ms from step 5 on, 14.4 ms over steps 2-4
# without the malloc cost.  By default (--warmup 0) each point is one run of --steps steps
# (default 4) without the malloc cost, and the steady step is the mean of steps 2 .. --steps
# (8 ranks of 16 M: 51.8831 ms over steps 2-4, 51.8826 over 2-10, and 51.8824 by the two runs
# below).  --warmup W > 1: two runs, of W and of --steps steps, with the malloc cost, and the
# steady step (T(steps) - T(W)) / (steps - W), T(n) the n steps' time (the way of the first
# results, 3.5 times the simulation's work for --warmup 4 --steps 10).  DIR/sim_scaling.csv gets
# a row (series, mode, particles per rank and in all, ranks, nodes, the simulated time per
# steady step, the mean after the first step of the (longer) run, this machine's wall and CPU
# time of the run(s) and the peak memory of the one SMPI process, status); the wall time on a
# shared machine is mostly waiting for the cores, the CPU time (user + system) is the
# simulation's work.  A series stops at its first run that passes --max-wall seconds or
# --max-rss-mb (the larger ones would too), or that fails after one has run.
# bench/plot_sim_scaling.py adds the efficiency (DIR/sim_scaling_eff.csv) and the plots
# (matplotlib, if present).
#
# usage: bench/sim_scaling.sh --models STARPU_HOME [--out DIR] [--case FILE]
#          [--weak "4000000 16000000"] [--strong "50000000 500000000"] [--ranks "1 2 4 ... 1024"]
#          [--gpus-per-node 4] [--steps 4] [--warmup 0] [--max-wall 600] [--max-rss-mb M]
#          [--ncpu 1] [--ncuda 0] [--platform "ARGS"] [--sim-cfg "--cfg=K:V ..."] [--tide-args "ARGS"]
#   --max-rss-mb: a run whose processes hold more is stopped (default: half the memory)
#   --models: a STARPU_HOME with the fitted models and the bus calibration of host TIDE_SIM_HOST
#   (default tide-calibrated): here bench/results/sim-cpu-2core/models_fit (CPU-calibrated
#   models, this 2-core machine), the H200 ones from tools/device_simcal.sh + sim_fit_models.py.
#   --ncpu/--ncuda: the workers of each simulated rank (a GPU rank: --ncpu 1 --ncuda 1, the CPU
#   worker running the time step's combination as a real GPU rank does, include/tide/dt_where.h:
#   the models need CPU entries of dt_combine, bench/sim_merge_models.py; --ncpu 0 --ncuda 1:
#   the GPU alone, dt_combine on it).
#   --weak "" or --strong "" skips a mode.
#   --platform: more arguments of bench/sim_platform.py (e.g. "--ib-Gbps 200");
#   --sim-cfg: SimGrid options given to starpu_smpirun (e.g. "--cfg=network/model:CM02"), after
#   bench_common.sh's own (smpi_cfg: no stack guard pages).
#   --tide-args: more arguments of tide run (e.g. "--profile": each rank's step_profile_rankN.csv
#   and step_timeline_rankN.csv in DIR/SERIES_RANKS/, read by bench/sim_timeline.py).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(dirname "$here")
# shellcheck source=bench/bench_common.sh
source "$here/bench_common.sh"
die() { printf 'sim_scaling.sh: %s\n' "$*" >&2; exit 2; }
models="" out=$repo/bench/out/sim_scaling case_file=$repo/cases/dambreak3obs.yaml
weak="4000000 16000000" strong="50000000 500000000" ranks="1 2 4 8 16 32 64 128 256 512 1024"
gpn=4 steps=4 warmup=0 max_wall=600 ncpu=1 ncuda=0 platform="" sim_cfg="" tide_args=""
max_rss=$(awk '/MemTotal/ {printf "%d", $2 / 1024 / 2}' /proc/meminfo)
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || die "option $1 needs a value"
	case $1 in
	--models) models=$2 ;; --out) out=$2 ;; --case) case_file=$2 ;; --weak) weak=$2 ;;
	--strong) strong=$2 ;; --ranks) ranks=$2 ;; --gpus-per-node) gpn=$2 ;; --steps) steps=$2 ;;
	--warmup) warmup=$2 ;; --max-wall) max_wall=$2 ;; --max-rss-mb) max_rss=$2 ;; --ncpu) ncpu=$2 ;; --ncuda) ncuda=$2 ;;
	--platform) platform=$2 ;; --sim-cfg) sim_cfg=$2 ;; --tide-args) tide_args=$2 ;;
	*) die "unknown option $1" ;;
	esac
	shift 2
done
if [ "$warmup" = 0 ]; then
	[ "$steps" -ge 2 ] || die "--steps must be at least 2 (the first step is not steady)"
	# one run: no cudaMalloc priced, every step after the first is steady
	export STARPU_SIMGRID_CUDA_MALLOC_COST=0
else
	[ "$warmup" -ge 2 ] && [ "$steps" -gt "$warmup" ] || die "--steps must exceed --warmup, and --warmup be 0 or at least 2"
fi
sim_run_setup "$models" "$out" "$ncpu" "$ncuda" # bench_common.sh
csv=$out/sim_scaling.csv
[ -f "$csv" ] || echo "series,mode,per_rank,total,ranks,nodes,gpus_per_node,step_s,later_s,wall_s,maxrss_MB,status,cpu_s" > "$csv"
{ echo "bench/sim_scaling.sh --models $models --case $case_file --weak \"$weak\" --strong \"$strong\" --ranks \"$ranks\" --gpus-per-node $gpn --steps $steps --warmup $warmup --ncpu $ncpu --ncuda $ncuda --platform \"$platform\" --sim-cfg \"$sim_cfg\" --tide-args \"$tide_args\""
  echo "STARPU_SCHED=$STARPU_SCHED smpi_cfg=$smpi_cfg host=$(hostname) $(nproc) cores $(date -u +%FT%TZ)"; } >> "$out/setup.txt"

# one simulated run: mode, particles per rank, total, ranks; 0 if it ran to its end
run_one() {
	local mode=$1 per=$2 total=$3 n=$4 series=$5
	local nodes=$(( (n + gpn - 1) / gpn )) g=$(( n < gpn ? n : gpn ))
	local tag=${series}_$n dir=$out/${series}_$n
	# shellcheck disable=SC2086 # $platform: several arguments
	python3 "$here/sim_platform.py" --nodes "$nodes" --gpus-per-node "$g" $platform "$out/net_$tag.xml" "$out/hosts_$tag"
	local t0 status=ok rc=0 len rss=0 r step="" later="" tot t_warm t_all cpu=0 lens
	t0=$(date +%s.%N)
	if [ "$warmup" = 0 ]; then lens=$steps; else lens="$warmup $steps"; fi
	for len in $lens; do
		# a summary left by an earlier run in $dir must not pass for this one's
		rm -f "$dir/run_summary.csv"
		# its own process group, watched: SMPI runs every rank in one process, and a run that
		# outgrows --max-rss-mb is stopped before it crowds this shared machine out of memory
		# shellcheck disable=SC2086 # $smpi_cfg, $sim_cfg, $tide_args: several arguments
		setsid /usr/bin/time -f '%U %S %M' -o "$out/rss_$tag" timeout -k 10 "$max_wall" "$smpirun" -platform "$out/net_$tag.xml" \
			-hostfile "$out/hosts_$tag" -np "$n" $smpi_cfg $sim_cfg "$sim" run "$case_file" --synthetic "$per" --blocks "$n" \
			--decomp 3d --max-steps "$len" --no-output --quiet --out "$dir" --overwrite $tide_args \
			> "$out/$tag.log" 2>&1 &
		local pid=$! over=0
		while kill -0 "$pid" 2>/dev/null; do
			local kb
			# the session setsid made (timeout puts its command in a process group of its own)
			kb=$(ps -o rss= -s "$pid" 2>/dev/null | awk '{s += $1} END {print s + 0}')
			if [ "$kb" -gt $((max_rss * 1024)) ]; then
				over=1
				# SIGKILL: SimGrid's smpimain outlives a SIGTERM
				ps -o pid= -s "$pid" | xargs -r kill -KILL 2>/dev/null || true
				break
			fi
			sleep 1
	done
	wait "$pid" || rc=$?
	r=$(python3 -c 'import sys; v=open(sys.argv[1]).read().split(); print("%.0f" % (int(v[-1]) / 1024) if v and v[-1].isdigit() else "0")' "$out/rss_$tag" 2>/dev/null || echo 0)
	[ "$r" -gt "$rss" ] && rss=$r
	# user + system seconds (the last line of time's output; absent for a killed run)
	cpu=$(python3 -c 'import sys
try:
    v = open(sys.argv[1]).read().split()
    print("%.1f" % (float(sys.argv[2]) + float(v[-3]) + float(v[-2])))
except Exception:
    print(sys.argv[2])' "$out/rss_$tag" "$cpu" 2>/dev/null || echo "$cpu")
	if [ "$over" = 1 ]; then status="stopped above ${max_rss} MB"
	elif [ "$rc" = 124 ]; then status="timeout ${max_wall}s"
	elif [ "$rc" != 0 ]; then status="failed rc $rc: $(grep -v '^\[' "$out/$tag.log" | grep -i -m1 'tide\|error\|assert\|killed\|memory' | tr ',"' ';;' | cut -c1-150)"
	elif ! python3 -c 'import csv,sys; r=next(csv.DictReader(open(sys.argv[1]))); sys.exit(int(r["steps[-]"]) != int(sys.argv[2]) or not r["later_steps[s]"])' \
		"$dir/run_summary.csv" "$len" 2>/dev/null; then
		# exit code 0 but not the steps asked for: SimGrid ends a simulation whose actors all
		# wait ("Deadlock detected") and the program may still exit 0, without its summary
		status="failed: no summary of $len steps$(grep -q 'Deadlock detected' "$out/$tag.log" && echo ' (SimGrid: Deadlock detected)')"
	fi
	[ "$status" = ok ] || break
	# T(len): the run's time of all its steps, from its summary
	tot=$(python3 -c 'import csv,sys; r=next(csv.DictReader(open(sys.argv[1]))); print(repr(float(r["first_step[s]"]) + float(r["later_steps[s]"]) * (int(sys.argv[2]) - 1)))' "$dir/run_summary.csv" "$len")
	if [ "$len" = "$warmup" ]; then t_warm=$tot; else t_all=$tot; fi
	later=$(python3 -c 'import csv,sys; print(next(csv.DictReader(open(sys.argv[1])))["later_steps[s]"])' "$dir/run_summary.csv")
	done
	local wall
	wall=$(python3 -c 'import sys,time; print("%.1f" % (time.time() - float(sys.argv[1])))' "$t0")
	[ "$rss" = 0 ] && rss=""
	if [ "$status" = ok ] && [ "$warmup" = 0 ]; then
		step=$later
	elif [ "$status" = ok ]; then
		step=$(python3 -c 'import sys; print("%.9g" % ((float(sys.argv[1]) - float(sys.argv[2])) / (int(sys.argv[3]) - int(sys.argv[4]))))' "$t_all" "$t_warm" "$steps" "$warmup")
	else later=""
	fi
	echo "$series,$mode,$per,$total,$n,$nodes,$gpn,$step,$later,$wall,$rss,$status,$cpu" >> "$csv"
	printf '%-10s %5d ranks %5d nodes: %s s per step; wall %s s, CPU %s s, peak %s MB, %s\n' "$series" "$n" "$nodes" "${step:--}" "$wall" "$cpu" "${rss:--}" "$status"
	rm -f "$out/net_$tag.xml" "$out/hosts_$tag" "$out/rss_$tag"
	case $status in ok) return 0 ;; timeout*|stopped*) return 2 ;; *) return 1 ;; esac
}

# a series goes on to more ranks until a run outgrows the time or memory given, or fails after
# one has run (a failure before, e.g. 500 M particles that do not fit one rank's memory, is
# the case's, not the simulator's limit)
series() {
	local mode=$1 size=$2 n per ran=0 rc
	for n in $ranks; do
		if [ "$mode" = weak ]; then per=$size; else per=$(( (size + n - 1) / n )); fi
		rc=0
		run_one "$mode" "$per" $([ "$mode" = weak ] && echo $((size * n)) || echo "$size") "$n" "$mode$size" || rc=$?
		[ "$rc" = 0 ] && ran=1
		[ "$rc" = 2 ] && break
		[ "$rc" = 1 ] && [ "$ran" = 1 ] && break
	done
	return 0
}

for per in $weak; do series weak "$per"; done
for total in $strong; do series strong "$total"; done
python3 "$here/plot_sim_scaling.py" "$csv" "$out"
