#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Failure behaviour of tide run (issue 6): every case must end with the documented exit code
# (docs/commands.md), a sentence on stderr naming the file, key or value at fault, no core
# dump or signal (exit code < 128), no hang (each run under timeout 120 s), and, for a running
# simulation, a checkpoint that tide run --restart accepts (magic, version, checksums and block
# layout verified; zero further steps).  Invalid case files are covered key by key in
# tests/test_case.c; here a few go through the command line.  A damaged checkpoint (flipped
# byte) is in tests/test_checkpoint.sh; here a truncated one.  GPU out-of-memory needs a GPU:
# the same allocation watchdog is tested on the host through STARPU_LIMIT_CPU_MEM.
# usage: test_failures.sh TIDE SRC_ROOT
set -uo pipefail
tide=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export STARPU_NCPU=1 STARPU_WORKERS_NOBIND=1 STARPU_SILENT=1
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none
     -x STARPU_NCPU=1 -x STARPU_WORKERS_NOBIND=1 -x STARPU_SILENT=1)
[ -n "${STARPU_HOME:-}" ] && mpi+=(-x STARPU_HOME)
dam=("$src/cases/dambreak2d.yaml" --dp 0.02 --quiet)
. "$(dirname "$0")/expect.sh"

# restartable NAME CKPT: tide run --restart accepts the checkpoint (read, verified, set up)
restartable() {
	local name=$1 ck=$2 step
	[ -f "$ck/header.bin" ] || { fail "$name: no checkpoint in $ck"; return 1; }
	step=$(sed -n 's/^step: //p' "$ck/checkpoint.txt")
	if timeout -k 10 120 "$tide" run --restart "$ck" --max-steps "$step" --out "$work/$name.restart" \
		--quiet >/dev/null 2>"$work/$name.restart.err"; then
		echo "ok: $name: $ck (step $step) restarts"
	else
		fail "$name: tide run --restart $ck refused it: $(head -c 400 "$work/$name.restart.err")"
	fi
}

# ---- input: case files and --set ----
expect missing_case_file 2 "$work/no_such_case.yaml" "$tide" run "$work/no_such_case.yaml"
mkdir -p "$work/a_directory"
expect case_is_directory 2 "'$work/a_directory' is a directory" "$tide" run "$work/a_directory"
printf 'dim: 2\ndp: 0.02\nfluid: [{lo: [0, 0], hi: [0.1, 0.1]}\ntime: {end: 1}\n' >"$work/syntax.yaml"
expect yaml_syntax 2 "$work/syntax.yaml:4: YAML syntax error" "$tide" run "$work/syntax.yaml"
sed 's/^  visco: 0.1$/  viscocity: 0.1/' "$src/cases/dambreak2d.yaml" >"$work/unknown_key.yaml"
expect unknown_key 2 "unknown_key.yaml:20: unknown key 'physics.viscocity'" "$tide" run "$work/unknown_key.yaml"
sed 's/^  - {lo: \[0, 0\], hi: \[0.2, 0.4\]}$/  - {lo: [0, 0], hi: [0.2, 0.9]}/' "$src/cases/dambreak2d.yaml" >"$work/fluid_out.yaml"
expect fluid_outside 2 "fluid_out.yaml:14: " "$tide" run "$work/fluid_out.yaml"
grep -qF "'fluid[0]' = [0, 0]..[0.2, 0.9] lies outside the tank" "$work/fluid_outside.err" ||
	fail "fluid_outside: the message does not name the box and the tank"
expect set_unknown_key 2 "--set physics.bogus=1: unknown key 'physics.bogus'" "$tide" run "${dam[@]}" --set physics.bogus=1
expect set_wrong_type 2 "key 'physics.visco' = 'abc' is not a number" "$tide" run "${dam[@]}" --set physics.visco=abc
expect set_out_of_range 2 "key 'physics.cfl' = 5 is out of range; allowed: 0 < cfl <= 1" "$tide" run "${dam[@]}" --set physics.cfl=5
expect set_no_value 2 "--set physics.visco: expected key=value" "$tide" run "${dam[@]}" --set physics.visco

# ---- output directory not writable ----
touch "$work/a_file"
expect out_parent_is_file 1 "cannot create the output directory $work/a_file/run" "$tide" run "${dam[@]}" --out "$work/a_file/run"
# root ignores permission bits: a read-only file system (EROFS) in a private mount namespace
mkdir -p "$work/ro" "$work/full"
if unshare -m --propagation private true 2>/dev/null; then
	expect out_read_only 1 "cannot create the output directory $work/ro/run: the file system is read-only" \
		unshare -m --propagation private bash -c 'mount -t tmpfs -o ro,size=64k tmpfs "$1" && shift && exec "$@"' \
		_ "$work/ro" "$tide" run "${dam[@]}" --out "$work/ro/run"
	# disk full: a 1 MiB file system fills with snapshots after a few checkpoints; the last
	# checkpoint must stay valid (copied out of the namespace to try a restart)
	expect disk_full 1 "the disk is full" \
		unshare -m --propagation private bash -c 'mount -t tmpfs -o size=1m tmpfs "$1" && d=$1 && shift &&
			"$@"; rc=$?; cp -r "$d/run/checkpoint" "$d.kept" 2>/dev/null; exit $rc' \
		_ "$work/full" "$tide" run "${dam[@]}" --set time.output=0.002 --checkpoint-every 20steps --out "$work/full/run"
	grep -qF "$work/full/run/" "$work/disk_full.err" || fail "disk_full: the message names no file under $work/full/run"
	restartable disk_full "$work/full.kept"
else
	echo "SKIP: out_read_only and disk_full (unshare -m is not permitted here)"
fi

# ---- out of memory ----
# host: 97 M particles (4.8 GB for the particle set alone) under a 2 GB address-space limit
# (past the estimate before building, which would refuse it when the machine is short of memory)
expect host_oom 1 "out of host memory for" bash -c 'ulimit -v 2000000 && exec "$@"' _ \
	env STARPU_NCUDA=0 TIDE_TEST_SKIP_MEMORY_CHECK=1 "$tide" run "$src/cases/spheric2.yaml" --dp 0.002 --no-output --quiet --out "$work/oom"
grep -qF -- "--dp" "$work/host_oom.err" || fail "host_oom: the message does not say what to do"
# what StarPU allocates lazily (cell tables, halos, scratch) does not fit its memory limit: the
# smallest STARPU_LIMIT_CPU_MEM (MiB) that still holds the particle blocks leaves no room for it
# (--overwrite: every try runs into the same directory)
big=("$src/cases/dambreak2d.yaml" --dp 0.0025 --max-steps 2 --no-output --quiet --overwrite --out "$work/lim")
lim=
for m in $(seq 1 64); do
	STARPU_LIMIT_CPU_MEM=$m timeout -k 10 120 "$tide" run "${big[@]}" >/dev/null 2>"$work/lim.err"
	grep -q "out of host memory for a block" "$work/lim.err" || { lim=$m; break; }
done
if [ -z "$lim" ]; then
	fail "memory_limit: the blocks do not fit in 64 MiB: $(head -c 300 "$work/lim.err")"
else
	# refused before the first step (the same check compares a block's task with each GPU)
	expect memory_limit 1 "(STARPU_LIMIT_CPU_MEM=$lim MiB)" env STARPU_LIMIT_CPU_MEM=$lim "$tide" run "${big[@]}"
	# ... and past the check, the allocation itself: StarPU would retry for ever, tide gives up
	expect allocation_watchdog 1 "out of memory on the host" env STARPU_LIMIT_CPU_MEM=$lim \
		TIDE_TEST_SKIP_MEMORY_CHECK=1 TIDE_ALLOC_WAIT_S=2 "$tide" run "${big[@]}"
fi

# ---- running simulations that go wrong ----
expect density_blowup 1 "fluid density reached" "$tide" run "${dam[@]}" --set physics.coefsound=0.5 \
	--set physics.cfl=1 --out "$work/blowup"
grep -qF "the run has gone unphysical" "$work/density_blowup.err" || fail "density_blowup: no 'unphysical'"
restartable density_blowup "$work/blowup/failed_state"
[ -f "$work/blowup/failed_state.vtp" ] || fail "density_blowup: no failed_state.vtp"
# a speed of sound below the free-fall speed: the fastest particle outruns c0
expect exploding_velocity 1 "faster than the speed of sound c0" "$tide" run "${dam[@]}" \
	--set physics.hswl=0.001 --checkpoint-every 20steps --out "$work/explode"
restartable exploding_velocity "$work/explode/failed_state"
grep -qF "the last checkpoint before the failure is $work/explode/checkpoint" "$work/exploding_velocity.err" ||
	fail "exploding_velocity: the last good checkpoint is not named"
restartable exploding_velocity_last_good "$work/explode/checkpoint"
# gravity pointing up out of the open tank: the water leaves the domain through its top
expect particles_escape 1 "particles have left the domain" "$tide" run "${dam[@]}" \
	--set 'physics.gravity=[0, 50]' --out "$work/escape"
grep -Eq "step [0-9]+ .*: [0-9]+ of the [0-9]+ particles have left" "$work/particles_escape.err" ||
	fail "particles_escape: the message does not say how many left"
restartable particles_escape "$work/escape/failed_state"

# ---- damaged checkpoint ----
cp -r "$work/explode/checkpoint" "$work/truncated"
truncate -s -100 "$work/truncated/particles.bin"
expect truncated_checkpoint 2 "$work/truncated/particles.bin" "$tide" run --restart "$work/truncated" --quiet

# ---- mpirun with inconsistent arguments ----
if command -v mpirun >/dev/null; then
	expect mpi_fewer_blocks_than_ranks 2 "--blocks 2 gives fewer blocks than the 3 MPI ranks" \
		"${mpi[@]}" -np 3 "$tide" run "${dam[@]}" --blocks 2 --max-steps 5 --out "$work/m1"
	expect mpi_other_case 2 "MPI rank 1 was given another case than rank 0" \
		"${mpi[@]}" -np 1 "$tide" run "${dam[@]}" --max-steps 5 --out "$work/m2" : \
		-np 1 "$tide" run "${dam[@]}" --set physics.visco=0.05 --max-steps 5 --out "$work/m2"
	expect mpi_other_options 2 "MPI rank 2 was given other options than rank 0" \
		"${mpi[@]}" -np 2 "$tide" run "${dam[@]}" --max-steps 5 --blocks 3 --out "$work/m3" : \
		-np 1 "$tide" run "${dam[@]}" --max-steps 6 --blocks 3 --out "$work/m3"
	expect mpi_rank_bad_case 2 "cannot open case file '$work/none.yaml'" \
		"${mpi[@]}" -np 1 "$tide" run "${dam[@]}" --max-steps 5 --out "$work/m4" : \
		-np 1 "$tide" run "$work/none.yaml" --quiet --max-steps 5 --out "$work/m4"
	grep -qF "MPI rank 1 could not load its case" "$work/mpi_rank_bad_case.err" ||
		fail "mpi_rank_bad_case: rank 0 does not name rank 1"
else
	echo "SKIP: mpirun cases (no mpirun)"
fi

[ $nfail = 0 ] || { echo "$nfail failure case(s) misbehaved"; exit 1; }
echo "all failure cases behave"
