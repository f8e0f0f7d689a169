#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The output directory of tide run (src/run_dir.c) and DIR/run.log (src/log.c, src/run_log.c):
#  (a) run.log starts with the StarPU configuration, holds exactly what the run printed on
#      stdout and stderr (what came before the directory was taken too), and ends with "done"
#      ("failed: unphysical ..." for a run that blew up); the end message names only files that exist
#      (--no-output) and --profile's help names the file it writes;
#  (b) a second run into a run directory is refused with exit 2 and the directory is untouched
#      (names, sizes, times and checksums of every file before and after);
#  (c) --overwrite removes the earlier run's files (a longer run's extra snapshots, its
#      checkpoint) and keeps the user's files;
#  (d) a running run's lock refuses a second run, naming its pid; SIGTERM stops it and run.log
#      ends with "stopped by signal 15"; after kill -9 of a run the next --overwrite run works;
#  (e) a bad option, a bad case, a too-long --out and a case name with '../' are refused with
#      exit 2 and write nothing at all;
#  (f) under mpirun, 2 ranks into a run directory are refused together (no hang); rank 0
#      writes run.log.
# usage: test_outdir.sh TIDE SRC_ROOT
set -euo pipefail
tide=$(realpath "$1"); src=$(realpath "$2")
work=$(mktemp -d); trap 'kill -9 ${bg:-} 2>/dev/null || true; rm -rf "$work"' EXIT
export STARPU_NCPU=1
dam=(run "$src/cases/dambreak2d.yaml" --dp 0.02)
fail() { echo "FAIL: $*"; exit 1; }

# expect_refusal CODE PATTERN CMD...: exit CODE and PATTERN in the message
expect_refusal() {
	local want=$1 pat=$2 rc=0
	shift 2
	msg=$(timeout -k 10 120 "$@" 2>&1) || rc=$?
	[ $rc = "$want" ] || fail "exit code $rc, not $want, for: $* ($msg)"
	grep -qF -- "$pat" <<<"$msg" || fail "the message does not say '$pat': $msg"
	echo "ok: refused with exit $rc: $(tail -n1 <<<"$msg")"
}

# state DIR: every entry below DIR (hidden ones too) with its size, time and checksum
state() {
	(cd "$1" && find . -printf '%p %y %s %T@\n' | sort && find . -type f -print0 | sort -z |
		xargs -0 md5sum)
}

# (a) run.log
d="$work/a"
"$tide" "${dam[@]}" --max-steps 30 --set time.output=0.001 --verbose --out "$d" >"$work/a.out" 2>&1 ||
	fail "the first run failed: $(cat "$work/a.out")"
log="$d/run.log"
[ -f "$log" ] || fail "no $log"
head -n1 "$log" | grep -Eq "^tide .* run log: StarPU [0-9]+\.[0-9]+\.[0-9]+, MPI world size 1, scheduler [a-z]+, 1 CPU \+ 0 CUDA workers" ||
	fail "run.log does not start with the StarPU configuration: $(head -n1 "$log")"
grep -q "^workers: CPU 0$" "$log" || fail "run.log does not list the workers"
grep -q "^environment:.* STARPU_NCPU=1" "$log" || fail "run.log does not list STARPU_NCPU"
grep -q "^command: tide run .* --out $d$" "$log" || fail "run.log does not give the command"
[ "$(tail -n1 "$log")" = done ] || fail "run.log ends with '$(tail -n1 "$log")', not 'done'"
# between the header and the last line: what the run printed, line for line
sed -n '/^----$/,$p' "$log" | sed '1d;$d' >"$work/a.body"
cmp "$work/a.body" "$work/a.out" || fail "run.log does not hold what the run printed: $(diff "$work/a.body" "$work/a.out")"
grep -q "^t = .* step 30 " "$work/a.body" || fail "run.log lacks the progress lines"
# printed while the particles were built, before the directory was taken
grep -q "^built [0-9]* particles" "$work/a.body" || fail "run.log lacks what was printed before DIR was taken"
echo "ok: run.log = StarPU configuration + the $(wc -l <"$work/a.body") lines the run printed + done"
# a run that goes unphysical: the last line says so
rc=0; "$tide" "${dam[@]}" --set physics.coefsound=0.5 --set physics.cfl=1 --out "$work/blowup" \
	>"$work/blowup.out" 2>&1 || rc=$?
[ $rc = 1 ] || fail "the unphysical run exited $rc, not 1: $(tail -n3 "$work/blowup.out")"
tail -n1 "$work/blowup/run.log" | grep -q "^failed: unphysical at step [0-9]*" ||
	fail "run.log of the unphysical run ends with '$(tail -n1 "$work/blowup/run.log")'"
grep -q "fluid density reached" "$work/blowup/run.log" || fail "run.log lacks the error message"
echo "ok: the unphysical run's run.log ends with: $(tail -n1 "$work/blowup/run.log")"
# the end message names what exists, and only that
d="$work/noout"
"$tide" "${dam[@]}" --max-steps 5 --no-output --out "$d" >"$work/noout.out" 2>&1 || fail "--no-output run failed"
files=$(grep -o "$d/[a-z_.]*" "$work/noout.out" | sort -u)
[ -n "$files" ] || fail "the end message names no file: $(cat "$work/noout.out")"
for f in $files; do [ -f "$f" ] || fail "--no-output: the end message names $f, which does not exist"; done
grep -q "particles\.pvd" "$work/noout.out" && fail "--no-output names particle files"
# gauges are written with --no-output (gauges.every): named, and there
grep -q "gauges\.csv" "$work/noout.out" && [ -f "$d/gauges.csv" ] ||
	fail "--no-output does not name its gauges.csv: $(cat "$work/noout.out")"
echo "ok: --no-output names only "$files
"$tide" run --help >"$work/help.out"
grep -q "step_profile_rankN.csv" "$work/help.out" || fail "--profile's help does not name step_profile_rankN.csv"
"$tide" "${dam[@]}" --max-steps 3 --no-output --profile --out "$work/prof" >/dev/null 2>&1
[ -f "$work/prof/step_profile_rank0.csv" ] || fail "--profile did not write step_profile_rank0.csv"
echo "ok: --profile writes the file its help names"

# (b) a second run into a run directory
d="$work/a"
before=$(state "$d")
expect_refusal 2 "$d already holds a run" "$tide" "${dam[@]}" --max-steps 5 --out "$d"
grep -qF -- "--overwrite" <<<"$msg" && grep -qF -- "--restart" <<<"$msg" ||
	fail "the refusal does not name --overwrite and --restart: $msg"
[ "$before" = "$(state "$d")" ] || fail "the refused run changed $d: $(diff <(echo "$before") <(state "$d"))"
echo "ok: $d untouched ($(grep -c . <<<"$before") entries and checksums the same)"

# (c) --overwrite: a run with more snapshots and a checkpoint, then a shorter one over it
d="$work/c"
"$tide" "${dam[@]}" --max-steps 60 --set time.output=0.001 --checkpoint-every 20steps --quiet --out "$d"
[ -f "$d/particles_0011.vtp" ] && [ -d "$d/checkpoint" ] || fail "the long run left no snapshot 11 or no checkpoint"
echo "the user's notes" >"$d/notes.txt"
echo "the user's own" >"$d/particles_mine.vtp"
# a file of the user's inside the checkpoint directory: refused, nothing removed
echo "kept" >"$d/checkpoint/mine.txt"
before=$(state "$d")
expect_refusal 2 "$d/checkpoint/mine.txt is not a file of tide's" "$tide" "${dam[@]}" --max-steps 10 --overwrite --out "$d"
[ "$before" = "$(state "$d")" ] || fail "the refused --overwrite changed $d"
rm "$d/checkpoint/mine.txt"
"$tide" "${dam[@]}" --max-steps 10 --set time.output=0.001 --overwrite --verbose --out "$d" >"$work/c.out" 2>&1 ||
	fail "--overwrite run failed: $(cat "$work/c.out")"
[ "$(cat "$d/notes.txt")" = "the user's notes" ] || fail "--overwrite changed the user's notes.txt"
[ "$(cat "$d/particles_mine.vtp")" = "the user's own" ] || fail "--overwrite changed particles_mine.vtp"
for gone in particles_0003.vtp particles_0011.vtp checkpoint; do
	[ -e "$d/$gone" ] && fail "--overwrite left the earlier run's $gone"
done
grep -q "removed .* files of the earlier run" "$work/c.out" || fail "--verbose does not say what --overwrite removed"
# the snapshots left are exactly the new series
listed=$(grep -o 'particles_[0-9]*\.vtp' "$d/particles.pvd" | sort)
[ "$listed" = "$(cd "$d" && ls particles_[0-9]*.vtp | sort)" ] ||
	fail "the snapshots in $d are not the new series ($listed)"
[ "$(tail -n1 "$d/run.log")" = done ] || fail "run.log of the --overwrite run does not end with done"
echo "ok: --overwrite removed the earlier run (snapshots 3-11, checkpoint), kept notes.txt and particles_mine.vtp"
expect_refusal 2 "exclude each other" "$tide" run --restart "$d/checkpoint" --overwrite

# (d) the lock of a running run, SIGTERM, kill -9
d="$work/d"
"$tide" "${dam[@]}" --max-steps 1000000 --set time.end=1000 --out "$d" >"$work/d.out" 2>&1 &
bg=$!
for _ in $(seq 1200); do grep -q "^t = " "$d/run.log" 2>/dev/null && break; sleep 0.05; done
grep -q "^t = " "$d/run.log" || fail "the background run did not start: $(cat "$work/d.out")"
before=$(cd "$d" && md5sum used_parameters.yaml .tide.lock)
expect_refusal 2 "$d is in use by another tide run (pid $bg)" "$tide" "${dam[@]}" --max-steps 5 --overwrite --out "$d"
[ "$before" = "$(cd "$d" && md5sum used_parameters.yaml .tide.lock)" ] ||
	fail "the refused run changed the running run's files"
kill -TERM $bg
rc=0; wait $bg || rc=$?; bg=
[ $rc = 143 ] || fail "SIGTERM: exit code $rc, not 143"
tail -n1 "$d/run.log" | grep -q "^stopped by signal 15" || fail "run.log after SIGTERM ends with '$(tail -n1 "$d/run.log")'"
echo "ok: the running run's lock refused a second one; SIGTERM: $(tail -n1 "$d/run.log")"
"$tide" "${dam[@]}" --max-steps 1000000 --set time.end=1000 --overwrite --out "$d" >/dev/null 2>&1 &
bg=$!
# this run's log (its command has --overwrite; the stopped run's had not), once it steps
started() { grep -q "^command: .* --overwrite " "$d/run.log" && grep -q "^t = " "$d/run.log"; } 2>/dev/null
for _ in $(seq 1200); do started && break; sleep 0.05; done
started || fail "the run to be killed did not start"
expect_refusal 2 "in use by another tide run (pid $bg)" "$tide" "${dam[@]}" --max-steps 5 --overwrite --out "$d"
kill -9 $bg
wait $bg 2>/dev/null || true; bg=
"$tide" "${dam[@]}" --max-steps 5 --overwrite --quiet --out "$d" || fail "after kill -9 the next run was refused"
[ "$(tail -n1 "$d/run.log")" = done ] || fail "the run after kill -9 did not end with done"
echo "ok: after kill -9 the next --overwrite run ran"

# (e) refusals that write nothing
mkdir "$work/e"
cd "$work/e"
long=$work/e/$(printf 'd%.0s' {1..200})/$(printf 'e%.0s' {1..200})/$(printf 'f%.0s' {1..200})/$(printf 'g%.0s' {1..200})/$(printf 'h%.0s' {1..200})
expect_refusal 2 "--max-steps" "$tide" "${dam[@]}" --max-steps abc --out "$work/e/badopt"
expect_refusal 2 "physics.visco" "$tide" "${dam[@]}" --set physics.visco=-1 --out "$work/e/badcase"
expect_refusal 2 "characters long" "$tide" "${dam[@]}" --out "$long"
expect_refusal 2 "key 'name': '../escape'" "$tide" "${dam[@]}" --set name=../escape
expect_refusal 2 "contains '/'" "$tide" "${dam[@]}" --set name=a/b
printf 'name: ../../up\ndp: 0.02\n' >"$work/e/case.yaml"
sed -n '/^dp:/!{/^name:/!p}' "$src/cases/dambreak2d.yaml" >>"$work/e/case.yaml"
expect_refusal 2 "case.yaml:1: key 'name'" "$tide" run "$work/e/case.yaml"
expect_refusal 2 "--out is empty" "$tide" "${dam[@]}" --out ""
[ "$(ls -A "$work/e")" = case.yaml ] || fail "a refused run wrote: $(ls -A "$work/e")"
cd - >/dev/null
echo "ok: refusals wrote nothing"

# (f) two MPI ranks into a run directory
if command -v mpirun >/dev/null; then
	mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none
	     -x STARPU_NCPU=1 -x STARPU_WORKERS_NOBIND=1 -x STARPU_SILENT=1)
	[ -n "${STARPU_HOME:-}" ] && mpi+=(-x STARPU_HOME)
	d="$work/a"
	before=$(state "$d")
	rc=0; msg=$(timeout -k 10 300 "${mpi[@]}" -np 2 "$tide" "${dam[@]}" --max-steps 5 --out "$d" 2>&1) || rc=$?
	[ $rc = 2 ] || fail "2 ranks into a run directory: exit code $rc, not 2: $msg"
	grep -q "already holds a run" <<<"$msg" || fail "2 ranks: no refusal message: $msg"
	[ "$before" = "$(state "$d")" ] || fail "2 ranks changed $d"
	echo "ok: 2 MPI ranks refused together, exit 2, $d untouched"
	d="$work/mpi"
	timeout -k 10 300 "${mpi[@]}" -np 2 "$tide" "${dam[@]}" --max-steps 5 --out "$d" >"$work/mpi.out" 2>&1 ||
		fail "2 ranks into a new directory failed: $(tail -n5 "$work/mpi.out")"
	head -n1 "$d/run.log" | grep -q "MPI world size 2," || fail "run.log of 2 ranks: $(head -n1 "$d/run.log")"
	grep -q "this is rank 0's log" "$d/run.log" || fail "run.log of 2 ranks does not say it is rank 0's"
	[ "$(tail -n1 "$d/run.log")" = done ] || fail "run.log of 2 ranks ends with '$(tail -n1 "$d/run.log")'"
	echo "ok: 2 ranks: rank 0's run.log, MPI world size 2, done"
else
	echo "skipped (f): no mpirun"
fi
