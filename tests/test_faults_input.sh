#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Regression tests of issue 18, faults 4, 5, 9 and 10 (bad input to tide gravity, tide nbody and
# tide run).  Every refused command must end with its documented exit code (docs/commands.md),
# say one sentence naming the option, value or key and what is allowed (the key words are
# grepped), write nothing (it runs in an empty directory, --out inside it, which must stay
# empty: no output directory, no nbody.csv, no core file) and not be killed by a signal.  The
# memory refusals are tested without allocating: the sizes asked for exceed the available memory
# (read here from /proc/meminfo) and the amount the message names is recomputed here from the
# case geometry or the particle count.  Valid commands next to each refused one must still run
# (the checks must not refuse good input).
# usage: test_faults_input.sh TIDE SRC_ROOT
set -uo pipefail
# absolute: the commands run in directories of their own
tide=$(realpath "$1"); src=$(realpath "$2")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export STARPU_NCPU=1 STARPU_WORKERS_NOBIND=1 STARPU_SILENT=1
C=$src/cases/dambreak2d.yaml
nfail=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }

# refused NAME CODE CMD...: run CMD in the empty directory $work/NAME (tide's "{}" in the
# arguments stands for it); it must exit with CODE, not by a signal, and leave the directory empty
refused() {
	local name=$1 want=$2; shift 2
	local dir=$work/$name args=() a
	mkdir -p "$dir"
	for a in "$@"; do args+=("${a//\{\}/$dir}"); done
	(cd "$dir" && timeout -k 10 120 "${args[@]}") >"$work/$name.out" 2>"$work/$name.err"
	local rc=$?
	if [ $rc = 124 ] || [ $rc = 137 ]; then fail "$name: hung (killed after 120 s)"; return 1; fi
	if [ $rc -ge 128 ]; then fail "$name: killed by signal $((rc - 128)) (exit code $rc)"; return 1; fi
	[ $rc = "$want" ] || { fail "$name: exit code $rc, not $want: $(head -c 600 "$work/$name.err")"; return 1; }
	local left
	left=$(cd "$dir" && find . -mindepth 1 | head -5)
	[ -z "$left" ] || fail "$name: the refused command wrote $(echo $left)"
	# one sentence from tide (mpirun adds its own lines)
	[ "$(grep -c '^tide' "$work/$name.err")" -le 1 ] || fail "$name: more than one message: $(cat "$work/$name.err")"
	echo "ok: $name (exit $rc): $(head -c 400 "$work/$name.err")"
}

# says NAME TEXT...: the stderr of NAME holds every TEXT (fixed strings)
says() {
	local name=$1 t; shift
	for t in "$@"; do
		grep -qF -- "$t" "$work/$name.err" || fail "$name: stderr does not say '$t': $(head -c 600 "$work/$name.err")"
	done
}

# runs NAME CMD...: a valid command next to the refused ones exits 0
runs() {
	local name=$1; shift
	(cd "$work" && timeout -k 10 300 "$@") >"$work/$name.out" 2>"$work/$name.err" ||
		{ fail "$name: a valid command failed ($?): $(head -c 600 "$work/$name.err")"; return 1; }
	echo "ok: $name: accepted"
}

avail_kb=$(sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo)
gib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1073741824 }'; }

# ---- fault 4: tide gravity with more particles than memory: refused before allocating ----
# 96 bytes per particle (position + mass, velocity, acceleration: 16 each; 6 doubles of scratch)
n_big=
for n in 600000000 1000000000 1500000000; do
	if awk -v n="$n" -v a="$avail_kb" 'BEGIN { exit !(n * 96 > 1.5 * a * 1024) }'; then n_big=$n; break; fi
done
if [ -n "$n_big" ]; then
	refused gravity_n_memory 1 "$tide" gravity --n "$n_big" --csv "{}/g.csv"
	says gravity_n_memory "out of host memory" "--n $n_big needs at least $(gib $((n_big * 96))) GiB" \
		"GiB are available" "use a smaller --n"
	refused nbody_n_memory 1 "$tide" nbody --n "$n_big"
	says nbody_n_memory "out of host memory" "--n $n_big needs at least $(gib $((n_big * 96))) GiB"
else
	echo "SKIP: gravity/nbody memory refusal (this machine has room for 1.5e9 particles)"
fi

# past the estimate (test hook), the allocations themselves fail under a 2 GB address-space
# limit (3.2 GB of particles asked; nothing is really allocated): a sentence, not a crash
for cmd in gravity nbody; do
	refused ${cmd}_alloc_fails 1 bash -c 'ulimit -v 2000000 && exec "$@"' _ env TIDE_TEST_SKIP_MEMORY_CHECK=1 \
		"$tide" $cmd --n 200000000
	says ${cmd}_alloc_fails "tide $cmd: out of host memory for 200000000 particles"
done

# ---- fault 5: numbers of tide gravity and tide nbody (one parser, the same rules) ----
refused gravity_eps_nan 2 "$tide" gravity --eps nan
says gravity_eps_nan "option --eps = 'nan'" "allowed: a finite number >= 0"
refused gravity_theta 2 "$tide" gravity --theta 5
says gravity_theta "option --theta = '5'" "> 0 and <= 2"
refused gravity_n_twice 2 "$tide" gravity --n 1000 --n 2000
says gravity_n_twice "option --n is given twice ('1000' and '2000')"
refused nbody_n_abc 2 "$tide" nbody --n abc
says nbody_n_abc "option --n = 'abc'" "allowed: an integer from 1 to 1500000000"
refused nbody_n_fraction 2 "$tide" nbody --n 3.7
says nbody_n_fraction "option --n = '3.7'" "an integer"
refused nbody_n_negative 2 "$tide" nbody --n -5
says nbody_n_negative "option --n = '-5'" "from 1 to 1500000000"
refused nbody_n_huge 2 "$tide" nbody --n 5000000000
says nbody_n_huge "option --n = '5000000000'" "from 1 to 1500000000"
refused nbody_t_end 2 "$tide" nbody --t-end 1e30
says nbody_t_end "--t-end 1e+30 with --dt 0.01 gives 1e+32 steps" "more than the 1e+09 allowed"
refused nbody_eps_nan 2 "$tide" nbody --eps nan
says nbody_eps_nan "option --eps = 'nan'" "finite number >= 0"
refused nbody_eps_negative 2 "$tide" nbody --eps -1
says nbody_eps_negative "option --eps = '-1'" "finite number >= 0"
refused nbody_theta 2 "$tide" nbody --theta 5
says nbody_theta "option --theta = '5'" "> 0 and <= 2"
refused nbody_csv_twice 2 "$tide" nbody --csv a.csv --csv b.csv
says nbody_csv_twice "option --csv is given twice"
# valid numbers still run: 1e2 is the integer 100; 5 steps with an output every 10 and at the end
runs nbody_valid "$tide" nbody --n 1e2 --t-end 0.05 --dt 0.01 --theta 0.7 --eps 0.01 --csv "$work/nb.csv"
grep -qF "nbody: 100 particles, 2 outputs" "$work/nbody_valid.err" "$work/nbody_valid.out" ||
	fail "nbody_valid: the summary does not say 100 particles and 2 outputs: $(cat "$work/nbody_valid.out")"
[ "$(grep -c '^[0-9]' "$work/nb.csv" 2>/dev/null)" = 2 ] || fail "nbody_valid: nb.csv has not 2 rows"
runs gravity_valid "$tide" gravity --n 2e3 --repeat 1 --check 10 --quiet

# ---- fault 9: bad input is exit code 2, found before any particle is built ----
# more than the 4e9 particles ids allow (dp 1e-6 m: 8e10 fluid particles)
refused dp_too_many 2 "$tide" run "$C" --dp 1e-6 --out "{}/run"
says dp_too_many "dp = 1e-06 m gives about 8e+10 particles, more than the 4e9"
# fewer than 4e9 but more than memory: the estimate from the geometry, not a 45 s count.  The
# lattice points of dambreak2d (fluid 0.2 x 0.4, tank 1.6 x 0.6 with 3 wall layers); one block
# of them and 1024 spare, 77 bytes each, plus the one CPU worker's sort scratch of 512 bytes (the
# sort reorders through the block's own work space since 2026-12-05: no 8 bytes per particle;
# tide_sort_scratch_bytes) (no output: nothing gathered)
for dp in 1e-5 5e-6; do
	need=$(awk -v d="$dp" 'BEGIN { f = (int(0.2 / d) + 1) * (int(0.4 / d) + 1); nx = int(1.6 / d) + 1;
		nz = int(0.6 / d) + 1; cap = f + (nx + 6) * (nz + 6) - nx * nz + 1024; printf "%.0f", 77 * cap + 512 }')
	awk -v e="$need" -v a="$avail_kb" 'BEGIN { exit !(e > 1.5 * a * 1024) }' && break
	need=
done
if [ -n "$need" ]; then
	refused dp_memory 2 "$tide" run "$C" --dp "$dp" --blocks 1 --no-output --out "{}/run"
	says dp_memory "needs at least $(gib "$need") GiB of host memory" "GiB are available" \
		"use a larger dp"
	# the default blocks and output also refused, at once
	refused dp_memory_default 2 "$tide" run "$C" --dp "$dp" --out "{}/run"
	says dp_memory_default "GiB of host memory" "the copy gathered for output"
	# two ranks on this node: both build all particles; all stop together, one message
	if command -v mpirun >/dev/null; then
		refused dp_memory_mpi 2 mpirun --allow-run-as-root --oversubscribe --bind-to none -x STARPU_NCPU=1 \
			-x STARPU_WORKERS_NOBIND=1 -x STARPU_SILENT=1 -np 2 "$tide" run "$C" --dp "$dp" --out "{}/run"
		says dp_memory_mpi "tide: MPI rank 0: case 'dambreak2d'" "for each of the 2 ranks on this node"
	fi
else
	echo "SKIP: dp_memory (this machine has room for 3.2e9 particles)"
fi
refused decomp_7x7x7 2 "$tide" run "$C" --dp 0.02 --decomp 7x7x7 --out "{}/run"
says decomp_7x7x7 "decomposition '7x7x7' asks for 7 blocks along y, which has only 1 cells"
# a fluid box inside an obstacle: both named, with the line of the fluid box
sed 's/^fluid:$/obstacles: [{lo: [0, 0], hi: [0.3, 0.5]}]\nfluid:/' "$C" >"$work/covered.yaml"
refused fluid_in_obstacle 2 "$tide" run "$work/covered.yaml" --dp 0.02 --out "{}/run"
says fluid_in_obstacle "covered.yaml:$(grep -n -A1 '^fluid:' "$work/covered.yaml" | sed -n '2s/-.*//p'):" \
	"'fluid[0]' = [0, 0]..[0.2, 0.4] lies inside 'obstacles[0]' = [0, 0]..[0.3, 0.5]"
# ... and covered by two obstacles together: found while building, still exit code 2
sed 's/^fluid:$/obstacles: [{lo: [0, 0], hi: [0.12, 0.5]}, {lo: [0.1, 0], hi: [0.3, 0.5]}]\nfluid:/' \
	"$C" >"$work/covered2.yaml"
# (the output directory exists by then: writing nothing before the build is another fault's)
(cd "$work" && timeout -k 10 120 "$tide" run covered2.yaml --dp 0.02 --quiet --out "$work/c2") \
	>/dev/null 2>"$work/covered2.err"
rc=$?; [ $rc = 2 ] || fail "covered2: exit code $rc, not 2"
says covered2 "fluid[0] = [0, 0]..[0.2, 0.4] is covered by obstacles[0] = [0, 0]..[0.12, 0.5], obstacles[1] = [0.1, 0]..[0.3, 0.5]"
[ $rc = 2 ] && echo "ok: covered2 (exit 2): $(head -c 300 "$work/covered2.err")"
refused out_empty 2 "$tide" run "$C" --dp 0.02 --out ""
says out_empty "--out is empty"

# ---- fault 10: limits named, repeats refused, one YAML document, a restart that can run ----
refused decomp_too_many 2 "$tide" run "$C" --dp 0.02 --set decomposition=1000000x1x1 --out "{}/run"
says decomp_too_many "asks for 1000000 blocks, more than the 65536 a run may have"
refused blocks_not_integer 2 "$tide" run "$C" --dp 0.02 --blocks 2.5 --out "{}/run"
says blocks_not_integer "option --blocks = '2.5'" "an integer from 1 to"
# slabs: one per cell of side 2h = 4 dp along x, the longest axis of the derived domain
# (the tank's 1.6 m plus 3 wall layers of dp on each side)
slabs=$(awk 'BEGIN { n = (1.6 + 6 * 0.02) / (4 * 0.02); printf "%d", n == int(n) ? n : int(n) + 1 }')
refused blocks_slabs 2 "$tide" run "$C" --dp 0.02 --blocks $((slabs + 1)) --out "{}/run"
says blocks_slabs "--blocks $((slabs + 1)): decomposition 'slabs'" "into at most $slabs blocks" \
	"allowed: --blocks 1 to $slabs"
# the issue's --blocks 100000 (it was clamped silently): the case's limit is named
refused blocks_100000 2 "$tide" run "$C" --dp 0.02 --blocks 100000 --out "{}/run"
says blocks_100000 "--blocks 100000: decomposition 'slabs'" "into at most $slabs blocks"
# 2-D boxes: 97 is prime and longer than every axis of the 22 x 16 cells; 96 = 2^5 3 fits
refused blocks_2d_prime 2 "$tide" run "$C" --dp 0.02 --decomp 2d --blocks 97 --out "{}/run"
says blocks_2d_prime "--blocks 97: decomposition '2d' can place only 1 of them" "e.g. --blocks 96"
refused dp_twice 2 "$tide" run "$C" --dp 0.01 --dp 0.02 --out "{}/run"
says dp_twice "option --dp is given twice ('0.01' and '0.02')"
refused out_twice 2 "$tide" run "$C" --dp 0.02 --out "{}/a" --out "{}/b"
says out_twice "option --out is given twice"
refused max_steps_twice 2 "$tide" run "$C" --dp 0.02 --max-steps 1 --max-steps 2 --out "{}/run"
says max_steps_twice "option --max-steps is given twice ('1' and '2')"
refused set_key_twice 2 "$tide" run "$C" --dp 0.02 --set physics.visco=0.05 --set physics.visco=0.06 --out "{}/run"
says set_key_twice "case key 'physics.visco' is set twice (--set physics.visco=0.05 and --set physics.visco=0.06)"
refused decomp_and_set 2 "$tide" run "$C" --dp 0.02 --decomp 2d --set decomposition=3d --out "{}/run"
says decomp_and_set "case key 'decomposition' is set twice (--decomp 2d and --set decomposition=3d)"
refused dp_and_set 2 "$tide" run "$C" --dp 0.02 --set dp=0.03 --out "{}/run"
says dp_and_set "case key 'dp' is set twice"
cp "$C" "$work/two_docs.yaml"
printf -- '---\ndp: 0.01\n' >>"$work/two_docs.yaml"
refused second_document 2 "$tide" run "$work/two_docs.yaml" --dp 0.02 --out "{}/run"
says second_document "two_docs.yaml:$(grep -n -- '^---$' "$work/two_docs.yaml" | cut -d: -f1): a second YAML document"
# an empty trailing document holds nothing that would be ignored: accepted
{ cat "$C"; echo '---'; } >"$work/empty_doc.yaml"
runs empty_second_document "$tide" run "$work/empty_doc.yaml" --dp 0.02 --max-steps 1 --no-output --quiet --out "$work/ed"
# valid: the largest slab count, different keys each set once; writes a checkpoint to restart
runs valid_run "$tide" run "$C" --dp 0.02 --blocks "$slabs" --set physics.visco=0.05 --set physics.cfl=0.1 \
	--max-steps 5 --checkpoint-every 5steps --quiet --out "$work/ck"
if [ -f "$work/ck/checkpoint/checkpoint.txt" ]; then
	t=$(sed -n 's/^time: \([^ ]*\) s$/\1/p' "$work/ck/checkpoint/checkpoint.txt")
	before=$(cd "$work/ck" && find . -type f -exec md5sum {} + | sort)
	(timeout -k 10 120 "$tide" run --restart "$work/ck/checkpoint" --set time.end=0.0001 --quiet) \
		>/dev/null 2>"$work/restart_end.err"
	rc=$?; [ $rc = 2 ] || fail "restart_end: exit code $rc, not 2"
	says restart_end "time.end 0.0001 s is not after the checkpoint's time $(printf '%g' "$t") s"
	[ "$(cd "$work/ck" && find . -type f -exec md5sum {} + | sort)" = "$before" ] ||
		fail "restart_end: the refused restart changed the run directory"
	echo "ok: restart_end (exit 2): $(head -c 300 "$work/restart_end.err")"
	runs restart_later "$tide" run --restart "$work/ck/checkpoint" --max-steps 6 --quiet
fi

[ $nfail = 0 ] || { echo "$nfail check(s) failed"; exit 1; }
echo "all input faults are refused as documented"
