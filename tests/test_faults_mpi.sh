#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Regression tests of the MPI and runtime faults of issue 18 (1, 2, 3, 6, 7, 8), one block each.
# Every case asserts the exit code and the sentence (and what must or must not be left behind);
# every run is under timeout, so a hang is reported as one, not as a stuck test.
#  1. ranks given other options (--out, with hdf5 and vtp): exit 2 naming the option, nothing
#     written (no .h5.tmp left).
#  2. ranks running different commands (run : gravity, info : nbody) or gravity with other
#     options: exit 2 naming the ranks and the commands.
#  3. --decomp NXxNYxNZ against --blocks, and a decomposition with fewer blocks than ranks:
#     exit 2; a consistent one runs with its blocks.
#  6. a 2-rank run with one rank SIGSTOPped is stopped by the stall watchdog: exit 3, the message
#     names the rank, the step and the last checkpoint, the summary and run.log record the
#     stall, and no process is left.
#  7. invalid StarPU variables (STARPU_NCPU=-1/abc, STARPU_NWORKER_PER_CUDA=0, on one rank of
#     two): exit 2 naming the variable, no core dump; STARPU_SCHED=bogus warns and the summary
#     records the policy StarPU used, STARPU_SCHED=eager records eager.
#  8. a run stopped by SIGUSR1 sent to mpirun, or SIGTERM sent to the ranks: mpirun returns
#     138 / 143, the summary and run.log's last line say "stopped by signal N", the stop message
#     is the last output and the checkpoint restarts.
# usage: test_faults_mpi.sh TIDE SRC_ROOT
set -uo pipefail
tide=$(realpath "$1"); src=$(realpath "$2")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
ulimit -c unlimited 2>/dev/null # a crash would leave a core file here, which is checked for
export STARPU_NCPU=1 STARPU_WORKERS_NOBIND=1 STARPU_SILENT=1
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none
     -x STARPU_NCPU=1 -x STARPU_WORKERS_NOBIND=1 -x STARPU_SILENT=1)
[ -n "${STARPU_HOME:-}" ] && mpi+=(-x STARPU_HOME)
dam=(run "$src/cases/dambreak2d.yaml" --dp 0.02)
. "$(dirname "$0")/expect.sh"

no_core() { ls "$work"/core* >/dev/null 2>&1 && fail "$1: a core file was left"; rm -f "$work"/core*; }

# ---- 1. other options on another rank ----
for fmt in hdf5 vtp; do
	expect "other_out_$fmt" 2 "MPI rank 1 was given other options than rank 0 (--out $work/b_$fmt, rank 0 --out $work/a_$fmt)" \
		"${mpi[@]}" -np 1 "$tide" "${dam[@]}" --max-steps 3 --format $fmt --out "$work/a_$fmt" : \
		-np 1 "$tide" "${dam[@]}" --max-steps 3 --format $fmt --out "$work/b_$fmt"
	left=$(find "$work/a_$fmt" "$work/b_$fmt" -type f 2>/dev/null)
	[ -z "$left" ] || fail "other_out_$fmt: files were written: $left"
done
expect other_with_cpus 2 "(--with-cpus given, rank 0 --with-cpus not given)" \
	"${mpi[@]}" -np 1 "$tide" "${dam[@]}" --max-steps 3 --out "$work/c" : \
	-np 1 "$tide" "${dam[@]}" --max-steps 3 --out "$work/c" --with-cpus

# ---- 2. other commands on another rank ----
expect run_gravity 2 "MPI ranks run different commands: rank 0 runs 'tide run $src/cases/dambreak2d.yaml" \
	"${mpi[@]}" -np 1 "$tide" "${dam[@]}" --max-steps 3 --out "$work/d" : -np 1 "$tide" gravity --n 1000
grep -qF "rank 1 runs 'tide gravity --n 1000'" "$work/run_gravity.err" ||
	fail "run_gravity: the message does not name rank 1's command: $(cat "$work/run_gravity.err")"
[ -e "$work/d" ] && fail "run_gravity: the run's directory was created"
expect info_nbody 2 "rank 0 runs 'tide info', rank 1 runs 'tide nbody --n 100 --csv $work/nb.csv'" \
	"${mpi[@]}" -np 1 "$tide" info : -np 1 "$tide" nbody --n 100 --csv "$work/nb.csv"
expect gravity_n 2 "MPI rank 1 was given other options than rank 0 (--n 2000, rank 0 --n 1000)" \
	"${mpi[@]}" -np 1 "$tide" gravity --n 1000 : -np 1 "$tide" gravity --n 2000

# ---- 3. decomposition against --blocks and the ranks ----
expect decomp_blocks 2 "--blocks 4 contradicts the decomposition 1x1x1, which makes 1 block" \
	"${mpi[@]}" -np 2 "$tide" "${dam[@]}" --max-steps 3 --decomp 1x1x1 --blocks 4 --out "$work/e"
expect decomp_ranks 2 "the decomposition 1x1x1 gives fewer blocks than ranks (1 block for 2 MPI ranks)" \
	"${mpi[@]}" -np 2 "$tide" "${dam[@]}" --max-steps 3 --decomp 1x1x1 --out "$work/e"
expect decomp_alone 2 "--blocks 3 contradicts the decomposition 2x1x1, which makes 2 blocks" \
	"$tide" "${dam[@]}" --max-steps 3 --decomp 2x1x1 --blocks 3 --out "$work/e"
[ -e "$work/e" ] && fail "decomp: the run's directory was created"
if timeout -k 10 120 "${mpi[@]}" -np 2 "$tide" "${dam[@]}" --max-steps 3 --decomp 2x1x1 --blocks 2 \
	--no-output --out "$work/f" >"$work/f.out" 2>"$work/f.err"; then
	grep -qF "2 blocks (2 x 1 x 1 along x, y, z)" "$work/f.out" &&
		echo "ok: decomp_consistent: --decomp 2x1x1 --blocks 2 on 2 ranks runs 2 blocks" ||
		fail "decomp_consistent: not 2 x 1 x 1 blocks: $(head -c 400 "$work/f.out")"
else
	fail "decomp_consistent: --decomp 2x1x1 --blocks 2 on 2 ranks failed: $(head -c 400 "$work/f.err")"
fi

# ---- 6. stall watchdog ----
expect stall_steps 2 "--stall-timeout needs a wall time with its unit" \
	"$tide" "${dam[@]}" --stall-timeout 5steps --out "$work/g"
d="$work/stall"
timeout -k 10 120 "${mpi[@]}" -np 2 "$tide" "${dam[@]}" --set time.end=1000 --set time.output=0.002 \
	--quiet --stall-timeout 3s --checkpoint-every 50steps --out "$d" >"$work/stall.out" 2>"$work/stall.err" &
tpid=$!
for _ in $(seq 1200); do [ -f "$d/checkpoint/checkpoint.txt" ] && [ -f "$d/particles_0003.vtp" ] && break; sleep 0.05; done
mpid=$(pgrep -P $tpid -x mpirun)
stopped=
for c in $(pgrep -P "$mpid"); do
	r=$(tr '\0' '\n' <"/proc/$c/environ" | sed -n 's/^OMPI_COMM_WORLD_RANK=//p')
	[ "$r" = 1 ] && { kill -STOP "$c"; stopped=$c; }
done
[ -n "$stopped" ] || fail "stall: rank 1's process not found under mpirun $mpid"
wait $tpid; rc=$?
if [ $rc = 124 ] || [ $rc = 137 ]; then
	fail "stall: the run with a stopped rank hung (killed after 120 s)"
elif [ $rc != 3 ]; then
	fail "stall: exit code $rc, not 3: $(head -c 600 "$work/stall.err")"
elif ! grep -qE "tide: MPI rank 0: the run made no progress for [0-9]+ s \(--stall-timeout 3 s\) after step [0-9]+ \(t = [0-9.e-]+ s\): another rank is stopped or stuck" "$work/stall.err" ||
	! grep -qF "the last checkpoint is $d/checkpoint (step " "$work/stall.err"; then
	fail "stall: the message does not name the rank, the step and the checkpoint: $(cat "$work/stall.err")"
elif ! grep -q '"stalled after step [0-9]*, t = [0-9.e-]* s: no progress for [0-9]* s (--stall-timeout)"' "$d/run_summary.csv"; then
	fail "stall: run_summary.csv does not record the stall: $(cat "$d/run_summary.csv" 2>&1)"
elif ! tail -1 "$d/run.log" | grep -q "^failed: stalled after step"; then
	fail "stall: run.log does not end with the stall: $(tail -3 "$d/run.log" 2>&1)"
else
	echo "ok: stall (exit 3): $(grep -m1 "no progress" "$work/stall.err" | head -c 300)"
fi
# the stopped rank is killed too (a zombie until init reaps it counts as gone)
alive() { local s; s=$(ps -o stat= -p "$1" 2>/dev/null) && [ "${s#Z}" = "$s" ]; }
if [ -n "$stopped" ]; then
	for _ in $(seq 40); do alive "$stopped" || break; sleep 0.5; done
	alive "$stopped" && { fail "stall: the stopped rank $stopped is still there"; kill -KILL "$stopped"; }
fi

# ---- 7. StarPU's environment variables ----
for v in -1 abc; do
	expect "ncpu_$v" 2 "the environment variable STARPU_NCPU=$v is not allowed: StarPU needs an integer >= 0" \
		env STARPU_NCPU=$v "$tide" "${dam[@]}" --max-steps 3 --out "$work/h"
	no_core "ncpu_$v"
done
expect nworker_per_cuda 2 "STARPU_NWORKER_PER_CUDA=0 is not allowed: StarPU needs an integer from 1 to" \
	env STARPU_NWORKER_PER_CUDA=0 "$tide" info
expect ncpu_rank1 2 "MPI rank 1: the environment variable STARPU_NCPU=abc is not allowed" \
	"${mpi[@]}" -np 1 "$tide" "${dam[@]}" --max-steps 3 --out "$work/h" : \
	-np 1 env STARPU_NCPU=abc "$tide" "${dam[@]}" --max-steps 3 --out "$work/h"
no_core ncpu_rank1
[ -e "$work/h" ] && fail "ncpu: the run's directory was created"
sched_of() { sed -n 's/.*"sched": *"\([^"]*\)".*/\1/p' "$1/run_summary.json"; }
expect sched_bogus 0 "STARPU_SCHED=bogus is not a StarPU scheduling policy, so StarPU uses lws; known policies:" \
	env STARPU_SCHED=bogus "$tide" "${dam[@]}" --max-steps 3 --no-output --out "$work/i"
[ "$(grep -c "STARPU_SCHED=bogus" "$work/sched_bogus.err")" = 1 ] || fail "sched_bogus: not warned once"
[ "$(sched_of "$work/i")" = lws ] || fail "sched_bogus: the summary records '$(sched_of "$work/i")', not lws"
STARPU_SCHED=eager timeout 120 "$tide" "${dam[@]}" --max-steps 3 --no-output --out "$work/j" --quiet 2>"$work/j.err" ||
	fail "sched_eager: the run failed: $(cat "$work/j.err")"
[ "$(sched_of "$work/j")" = eager ] && [ ! -s "$work/j.err" ] &&
	echo "ok: sched_eager: summary records eager, no warning" ||
	fail "sched_eager: summary records '$(sched_of "$work/j")' (stderr: $(cat "$work/j.err"))"
no_core sched

# ---- 8. stopped by a signal under mpirun ----
for how in usr1_mpirun term_ranks; do
	d="$work/$how"
	timeout -k 10 120 "${mpi[@]}" -np 2 "$tide" "${dam[@]}" --set time.end=1000 --set time.output=0.002 \
		--out "$d" >"$work/$how.out" 2>"$work/$how.err" &
	tpid=$!
	for _ in $(seq 1200); do [ -f "$d/particles_0003.vtp" ] && break; sleep 0.05; done
	mpid=$(pgrep -P $tpid -x mpirun)
	if [ $how = usr1_mpirun ]; then kill -USR1 "$mpid"; sig=10; else kill -TERM $(pgrep -P "$mpid"); sig=15; fi
	wait $tpid; rc=$?
	[ $rc = $((128 + sig)) ] || { fail "$how: mpirun returned $rc, not $((128 + sig)): $(head -c 400 "$work/$how.err")"; continue; }
	grep -q "\"stopped by signal $sig at step [0-9]*" "$d/run_summary.csv" ||
		fail "$how: run_summary.csv does not say stopped by signal $sig: $(cat "$d/run_summary.csv")"
	last=$(grep -v '^\s*$' "$work/$how.out" | tail -2 | tr '\r' '\n' | grep -v '^\s*$' | tail -2)
	grep -q "^stopped by signal $sig at step" <<<"$last" && grep -q "^Continue with: tide run --restart $d/checkpoint$" <<<"$last" ||
		fail "$how: the stop message is not the last output: $last"
	if [ -f "$d/run.log" ]; then
		tail -1 "$d/run.log" | grep -q "^stopped by signal $sig at step" ||
			fail "$how: run.log does not end with the stop: $(tail -2 "$d/run.log")"
	else
		fail "$how: no run.log"
	fi
	step=$(sed -n 's/^step: //p' "$d/checkpoint/checkpoint.txt")
	timeout 120 "$tide" run --restart "$d/checkpoint" --max-steps $((step + 2)) --quiet >/dev/null 2>"$work/$how.restart" ||
		fail "$how: the checkpoint does not restart: $(cat "$work/$how.restart")"
	echo "ok: $how: mpirun returned $rc, summary 'stopped by signal $sig', checkpoint of step $step restarts"
done

[ $nfail = 0 ] || { echo "$nfail fault case(s) misbehaved"; exit 1; }
echo "all MPI and runtime fault cases behave"
