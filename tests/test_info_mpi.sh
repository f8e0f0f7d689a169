#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tide info on 2 MPI ranks with one CPU worker each (STARPU_NCPU=1): exit code 0, rank 0's
# "MPI world size 2", and each rank's own line "rank R/2: 1 CPU workers, 0 CUDA workers, ..."
# (a rank that did not start, or that did not join the others' world, prints no line or
# "rank 0/1").  On one rank without mpirun: "MPI world size 1" and "rank 0/1".
# usage: test_info_mpi.sh TIDE
set -uo pipefail
tide=$1
. "$(dirname "$0")/info_check.sh"
fail=0
out=$(timeout 120 mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 -x STARPU_NCPU=1 \
	-x STARPU_WORKERS_NOBIND=1 -x STARPU_SILENT=1 "$tide" info 2>&1)
rc=$?
missing=$(info_missing 2 "$out")
[ "$rc" = 0 ] || missing+=" exit code $rc"
for r in 0 1; do
	grep -qE "^rank $r/2: 1 CPU workers, 0 CUDA workers, scheduler " <<<"$out" ||
		missing+=" rank $r does not report its 1 CPU worker (STARPU_NCPU=1)"
done
if [ -n "$missing" ]; then
	echo "FAIL: tide info on 2 ranks: $missing"; echo "$out"; fail=1
else
	echo "ok: tide info on 2 ranks: world size 2, both ranks' workers"
fi
out=$(STARPU_NCPU=1 timeout 120 "$tide" info 2>&1)
rc=$?
missing=$(info_missing 1 "$out")
[ "$rc" = 0 ] || missing+=" exit code $rc"
if [ -n "$missing" ]; then
	echo "FAIL: tide info on 1 rank: $missing"; echo "$out"; fail=1
else
	echo "ok: tide info on 1 rank: world size 1, rank 0/1"
fi
exit $fail
