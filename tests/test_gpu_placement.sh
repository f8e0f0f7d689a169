#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Ranks on a node with several GPUs drive their own share of them (src/runtime.c,
# place_local_gpus): with the GPU count forced by TIDE_TEST_NGPUS (this machine has none),
# 2 ranks on 8 GPUs get 0-3 and 4-7, 3 ranks on 2 GPUs get 0, 1, 0, 4 ranks on 4 get one each,
# and with one GPU, or a user's STARPU_WORKERS_CUDAID, nothing is placed.  Every check asserts
# the whole outcome: tide info's exit code 0, its complete output on every rank (world size and
# each rank's worker line, tests/info_check.sh), and exactly the expected placement lines (none
# where nothing is placed), so that a crash cannot pass for "no placement".
set -uo pipefail
tide=$1
. "$(dirname "$0")/info_check.sh"
fail=0
check() { # WHAT NP NGPUS WANT [extra mpirun args]: tide info on NP ranks, TIDE_TEST_NGPUS=NGPUS
	local what=$1 np=$2 ng=$3 want=$4 out rc got missing
	shift 4
	out=$(timeout 120 mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$np" \
		-x TIDE_TEST_NGPUS="$ng" -x TIDE_PLACEMENT_VERBOSE=1 -x STARPU_SILENT=1 -x STARPU_NCPU=1 \
		"$@" "$tide" info 2>&1)
	rc=$?
	got=$(grep "drives GPU" <<<"$out" | sort)
	missing=$(info_missing "$np" "$out")
	[ "$rc" = 0 ] || missing+=" exit code $rc"
	if [ -z "$missing" ] && [ "$got" == "$want" ]; then echo "ok: $what"; else
		echo "FAIL: $what${missing:+ (tide info: $missing)}"
		echo " got:  $got" | tr '\n' '|'; echo; echo " want: $want" | tr '\n' '|'; echo
		echo "$out" | sed 's/^/  | /'
		fail=1
	fi
}
lines() { # NP NGPUS GPUS-OF-RANK-0 GPUS-OF-RANK-1 ...: the placement lines
	local np=$1 ng=$2 r=0
	shift 2
	for ids in "$@"; do echo "tide: local rank $r of $np drives GPU(s) $ids of $ng"; r=$((r + 1)); done
}
check "2 ranks, 8 GPUs" 2 8 "$(lines 2 8 "0 1 2 3" "4 5 6 7")"
check "3 ranks, 2 GPUs" 3 2 "$(lines 3 2 0 1 0)"
check "4 ranks, 4 GPUs" 4 4 "$(lines 4 4 0 1 2 3)"
check "one GPU: no placement" 2 1 ""
check "user's STARPU_WORKERS_CUDAID kept" 2 8 "" -x STARPU_WORKERS_CUDAID=0
exit $fail
