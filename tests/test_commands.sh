#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The command line: --help on every command (exit 0, a usage line), tide cases lists every
# shipped case with its dimension and a particle estimate, bad options give exit code 2.
# usage: test_commands.sh TIDE SRC_ROOT
set -euo pipefail
tide=$1; src=$2
fail() { echo "FAIL: $*"; exit 1; }
for cmd in "" run info cases gravity nbody probe glass; do
	out=$("$tide" $cmd --help) || fail "tide $cmd --help exited with $?"
	grep -q "usage: tide" <<<"$out" || fail "tide $cmd --help prints no usage line"
done
out=$("$tide" cases)
for f in "$src"/cases/*.yaml; do
	name=$(sed -n 's/^name: *//p' "$f" | tr -d '"')
	grep -Eq "^$name +[23]-D +dp [0-9.e+-]+ m +~[0-9.]+[kM]? particles" <<<"$out" ||
		fail "tide cases does not list $name with its size: $out"
done
# (the listing kept whole before grep: grep -q stopping at the first match would cut tide's pipe,
# and under pipefail its SIGPIPE would count as a failure once the listing outgrows the buffer)
out=$("$tide" cases --dir "$src/cases" --dp 0.02)
grep -q "^hydrostatic .*dp 0.02 m" <<<"$out" || fail "tide cases --dp 0.02 does not use the spacing"
set +e
"$tide" cases --dir /nonexistent >/dev/null 2>&1; [ $? = 1 ] || fail "tide cases --dir /nonexistent: exit code not 1"
"$tide" cases --bogus >/dev/null 2>&1; [ $? = 2 ] || fail "tide cases --bogus: exit code not 2"
"$tide" run --checkpoint-every 10 "$src/cases/hydrostatic.yaml" >/dev/null 2>&1
[ $? = 2 ] || fail "--checkpoint-every without a unit: exit code not 2"
"$tide" run --restart /nonexistent >/dev/null 2>&1; [ $? = 2 ] || fail "--restart /nonexistent: exit code not 2"
echo "ok: --help everywhere, tide cases lists $(ls "$src"/cases/*.yaml | wc -l) cases, exit codes"
