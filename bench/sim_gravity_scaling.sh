#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/sim_gravity_scaling.sh — Barnes-Hut gravity weak scaling from 1 to 256 simulated GPUs
# (issue 25): the simulation build (build-simgrid/tide under starpu_smpirun) runs the real task
# graph of tide gravity --synthetic N (tasks/gravity.c: trees, virtual roots, essential nodes to
# near ranks and coarse trees to far ones from 8 ranks on, walks) on R ranks of N particles each,
# one rank per simulated GPU, a uniform cube cut in Morton pieces (R a power of 2); no particle is
# made: the essential nodes' counts, hence the messages' bytes, and every task's work come from
# the virtual tree of tasks/gravity_synth.c, every task's time from a models directory fitted in
# that work (bench/sim_gravity_calibrate.sh + bench/sim_fit_models.py), the ranks on a cluster of
# nodes of G GPUs (bench/sim_platform.py).
#
# The walk tasks per rank: a GPU rank's as tide gravity chooses them (tide_gravity_auto_parts:
# 4 parts of 16 M particles from 2 ranks on, so that the exchange's tasks, at a higher priority,
# wait for one part of the own walk only), a CPU-model rank's one (its one worker would run four
# in turn at the same cost: a quarter of the tasks SimGrid must run); --parts P forces P.  The
# scheduler is dmdas unless STARPU_SCHED says otherwise: dmda's model-based placement with each
# worker's queue in priority order (dmda ignores the priorities; tide's own default, StarPU's
# lws, honours them too).
# Each point is one run of --repeat evaluations after a warm-up one (the first prices the device
# allocations); the time per gravity step is tide gravity's "total", the median of the whole
# evaluations, of the slowest rank (all ranks start each together; rank 0's, the figure until
# 2026-12-06, is the last column, step0_s).  DIR/sim_gravity_scaling.csv gets a row per run (the columns of
# bench/sim_scaling.sh's CSV, then the bytes of essential nodes sent per rank per evaluation,
# mean and max over the ranks, the near and far pairs, and cpu_s: the simulation's user + system
# CPU time, which the other work on a shared machine disturbs less than its wall time); a series stops at its first run that
# passes --max-wall seconds or --max-rss-mb, or fails after one has run.  bench/plot_sim_scaling.py
# adds the efficiency t(1)/t(R) (DIR/sim_scaling_eff.csv) and the plots, and
# bench/plot_sim_gravity_bytes.py the bytes per rank against the ranks (DIR/sim_gravity_bytes.png).
#
# usage: bench/sim_gravity_scaling.sh --models STARPU_HOME [--out DIR] [--weak "16000000"]
#          [--ranks "1 2 4 ... 256"] [--gpus-per-node 4] [--theta 0.6] [--repeat 1]
#          [--max-wall 600] [--max-rss-mb M] [--ncpu 1] [--ncuda 0] [--parts P] [--label TEXT]
#   --models: a STARPU_HOME with the fitted gravity models and the bus calibration of host
#   TIDE_SIM_HOST (default tide-calibrated); --ncpu/--ncuda the workers of each simulated rank
#   (a GPU rank: --ncpu 0 --ncuda 1); --label: what the models are, for the plots' titles.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(dirname "$here")
# shellcheck source=bench/bench_common.sh
source "$here/bench_common.sh" # die, sim_run_setup
models="" out=$repo/bench/out/sim_gravity_scaling weak="16000000" ranks="1 2 4 8 16 32 64 128 256"
gpn=4 theta=0.6 repeat=1 max_wall=600 ncpu=1 ncuda=0 parts="" label="CPU-calibrated models, this 2-core machine"
max_rss=$(awk '/MemTotal/ {printf "%d", $2 / 1024 / 2}' /proc/meminfo)
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || die "option $1 needs a value"
	case $1 in
	--models) models=$2 ;; --out) out=$2 ;; --weak) weak=$2 ;; --ranks) ranks=$2 ;;
	--gpus-per-node) gpn=$2 ;; --theta) theta=$2 ;; --repeat) repeat=$2 ;; --max-wall) max_wall=$2 ;;
	--max-rss-mb) max_rss=$2 ;; --ncpu) ncpu=$2 ;; --ncuda) ncuda=$2 ;; --parts) parts=$2 ;;
	--label) label=$2 ;;
	*) die "unknown option $1" ;;
	esac
	shift 2
done
export STARPU_SCHED=${STARPU_SCHED:-dmdas}
sim_run_setup "$models" "$out" "$ncpu" "$ncuda" # bench_common.sh: models, sim, smpirun, out, STARPU_*
# GPU ranks: the gravity tasks on the GPU (--device cuda), a CPU worker (--ncpu 1, as a real
# GPU rank under MPI has) only for what runs on any worker: the virtual roots' gathering rounds
dev=any; [ "$ncuda" -gt 0 ] && dev=cuda
# tide gravity's --parts 0 is its own choice
[ -n "$parts" ] || { parts=1; [ "$dev" = cuda ] && parts=0; }
case $parts in ''|*[!0-9]*) die "--parts $parts: a whole number (0: tide's choice)" ;; esac
csv=$out/sim_gravity_scaling.csv
[ -f "$csv" ] || echo "series,mode,per_rank,total,ranks,nodes,gpus_per_node,step_s,later_s,wall_s,maxrss_MB,status,let_bytes_mean,let_bytes_max,let_cells,let_particles,cpu_s,step0_s" > "$csv"
{ echo "bench/sim_gravity_scaling.sh --models $models --weak \"$weak\" --ranks \"$ranks\" --gpus-per-node $gpn --theta $theta --repeat $repeat --ncpu $ncpu --ncuda $ncuda --parts $parts"
  echo "STARPU_SCHED=$STARPU_SCHED host=$(hostname) $(nproc) cores $(date -u +%FT%TZ)"; } >> "$out/setup.txt"

# one simulated run: particles per rank, ranks, series; 0 if it ran to its end, 2 if it outgrew
# the time or memory given, 1 if it failed
run_one() {
	local per=$1 n=$2 series=$3
	local nodes=$(( (n + gpn - 1) / gpn )) g=$(( n < gpn ? n : gpn ))
	local tag=${series}_$n status=ok rc=0 rss=0 cpu="" row="" t0 step="" later="" bmean="" bmax="" lc="" lp=""
	python3 "$here/sim_platform.py" --nodes "$nodes" --gpus-per-node "$g" "$out/net_$tag.xml" "$out/hosts_$tag"
	rm -f "$out/raw_$tag.csv"
	t0=$(date +%s.%N)
	# its own process group, watched (as bench/sim_scaling.sh): SMPI runs every rank in one
	# process, stopped before it crowds this shared machine out of memory
	# shellcheck disable=SC2086 # $smpi_cfg (bench_common.sh: no stack guard pages, for 512+ ranks)
	setsid /usr/bin/time -f '%M %U %S' -o "$out/rss_$tag" timeout -k 10 "$max_wall" "$smpirun" -platform "$out/net_$tag.xml" \
		-hostfile "$out/hosts_$tag" -np "$n" $smpi_cfg "$sim" gravity --synthetic "$per" --theta "$theta" --quadrupole \
		--device "$dev" --repeat "$repeat" --parts "$parts" --csv "$out/raw_$tag.csv" > "$out/$tag.log" 2>&1 &
	local pid=$! over=0 kb
	while kill -0 "$pid" 2>/dev/null; do
		kb=$(ps -o rss= -s "$pid" 2>/dev/null | awk '{s += $1} END {print s + 0}')
		if [ "$kb" -gt $((max_rss * 1024)) ]; then
			over=1
			ps -o pid= -s "$pid" | xargs -r kill -KILL 2>/dev/null || true # smpimain outlives SIGTERM
			break
		fi
		sleep 1
	done
	wait "$pid" || rc=$?
	# /usr/bin/time's last line: peak RSS [KB], user and system CPU time [s] (the CPU time of the
	# simulation, which the other sessions on this machine do not disturb as they do its wall time)
	rss=$(python3 -c 'import sys; v=open(sys.argv[1]).read().split()[-3:]; print("%.0f" % (int(v[0]) / 1024) if len(v) == 3 and v[0].isdigit() else "")' "$out/rss_$tag" 2>/dev/null || echo "")
	cpu=$(python3 -c 'import sys; v=open(sys.argv[1]).read().split()[-3:]; print("%.1f" % (float(v[1]) + float(v[2])) if len(v) == 3 and v[0].isdigit() else "")' "$out/rss_$tag" 2>/dev/null || echo "")
	if [ "$over" = 1 ]; then status="stopped above ${max_rss} MB"
	elif [ "$rc" = 124 ]; then status="timeout ${max_wall}s"
	elif [ "$rc" != 0 ] || [ ! -s "$out/raw_$tag.csv" ]; then
		status="failed rc $rc: $(grep -v '^\[' "$out/$tag.log" | grep -i -m1 'tide\|error\|assert\|killed\|memory' | tr ',"' ';;' | cut -c1-150)"
	fi
	local wall
	wall=$(python3 -c 'import sys,time; print("%.1f" % (time.time() - float(sys.argv[1])))' "$t0")
	if [ "$status" = ok ]; then
		# tide gravity's CSV: t_total_max_s (30: the slowest rank's whole evaluation, the ranks
		# started together; rank 0's, t_total_s (13), is kept in step0_s), t_walk_s (12),
		# let_bytes (23, all ranks), let_cells (21), let_particles (22), let_bytes_max (26)
		row=$(awk -F, -v n="$n" 'NR == 2 { printf "%s,%s,%.0f,%s,%s,%s,%s", $30, $12, $23 / n, $26, $21, $22, $13 }' "$out/raw_$tag.csv")
		IFS=, read -r step later bmean bmax lc lp step0 <<< "$row"
		echo "$series,weak,$per,$((per * n)),$n,$nodes,$gpn,$step,$later,$wall,$rss,$status,$bmean,$bmax,$lc,$lp,$cpu,$step0" >> "$csv"
	else
		echo "$series,weak,$per,$((per * n)),$n,$nodes,$gpn,,,$wall,$rss,$status,,,,,$cpu," >> "$csv"
	fi
	printf '%-12s %5d ranks %5d nodes: %s s per step, %s bytes sent per rank; wall %s s, CPU %s s, peak %s MB, %s\n' \
		"$series" "$n" "$nodes" "${step:--}" "${bmean:--}" "$wall" "${cpu:--}" "${rss:--}" "$status"
	rm -f "$out/net_$tag.xml" "$out/hosts_$tag" "$out/rss_$tag"
	case $status in ok) return 0 ;; timeout*|stopped*) return 2 ;; *) return 1 ;; esac
}

for per in $weak; do
	ran=0
	for n in $ranks; do
		rc=0
		run_one "$per" "$n" "gravity$per" || rc=$?
		[ "$rc" = 0 ] && ran=1
		[ "$rc" = 2 ] && break
		[ "$rc" = 1 ] && [ "$ran" = 1 ] && break
	done
done
TIDE_SIM_TITLE="tide gravity weak scaling" TIDE_SIM_LABEL="$label" python3 "$here/plot_sim_scaling.py" "$csv" "$out"
TIDE_SIM_LABEL="$label" python3 "$here/plot_sim_gravity_bytes.py" "$csv" "$out"
