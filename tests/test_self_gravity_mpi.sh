#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Self-gravity under MPI is refused, not computed wrong: tide run of the cold sphere on 2 ranks
# exits with code 2 and says "self-gravity runs on one rank for now", once (rank 0), before any
# step; the same case on one process runs.
# usage: test_self_gravity_mpi.sh TIDE SRC_ROOT
set -uo pipefail
tide=$1; src=$2
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tide_sgmpi.XXXXXX")
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 -x STARPU_NCPU=1
     -x STARPU_WORKERS_NOBIND=1 -x STARPU_SILENT=1)
"${mpi[@]}" "$tide" run "$src/cases/collapse_sphere.yaml" --out "$tmp/mpi" --max-steps 1 \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] || fail "2 ranks: exit code $rc, expected 2: $(cat "$tmp/err")"
n=$(grep -c "self-gravity runs on one rank for now" "$tmp/err")
[ "$n" = 1 ] || fail "2 ranks: the refusal is printed $n times, expected once: $(cat "$tmp/err")"
[ ! -e "$tmp/mpi/particles_0000.vtp" ] || fail "2 ranks: a step was written before the refusal"
"$tide" run "$src/cases/collapse_sphere.yaml" --out "$tmp/one" --max-steps 2 --quiet \
	>"$tmp/out1" 2>&1 || fail "1 process: exit code $?: $(cat "$tmp/out1")"
rm -rf "$tmp"
echo "ok: self-gravity refused on 2 ranks (exit 2, one sentence), runs on one"
