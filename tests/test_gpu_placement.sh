#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Ranks on a node with several GPUs drive their own share of them (src/runtime.c,
# place_local_gpus): with the GPU count forced by TIDE_TEST_NGPUS (this machine has none),
# 2 ranks on 8 GPUs get 0-3 and 4-7, 3 ranks on 2 GPUs get 0, 1, 0, 4 ranks on 4 get one each,
# and a user's STARPU_WORKERS_CUDAID is left alone.
set -uo pipefail
tide=$1
run() { # NP NGPUS [extra mpirun args]: the placement lines, sorted
	local np=$1 ng=$2; shift 2
	timeout 120 mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$np" \
		-x TIDE_TEST_NGPUS="$ng" -x TIDE_PLACEMENT_VERBOSE=1 -x STARPU_SILENT=1 -x STARPU_NCPU=1 \
		"$@" "$tide" info 2>&1 | grep "drives GPU" | sort
}
fail=0
check() { # WHAT GOT WANT
	if [ "$2" == "$3" ]; then echo "ok: $1"; else
		echo "FAIL: $1"; echo " got:  $2" | tr '\n' '|'; echo; echo " want: $3" | tr '\n' '|'; echo
		fail=1
	fi
}
check "2 ranks, 8 GPUs" "$(run 2 8)" "$(printf 'tide: local rank 0 of 2 drives GPU(s) 0 1 2 3 of 8\ntide: local rank 1 of 2 drives GPU(s) 4 5 6 7 of 8')"
check "3 ranks, 2 GPUs" "$(run 3 2)" "$(printf 'tide: local rank 0 of 3 drives GPU(s) 0 of 2\ntide: local rank 1 of 3 drives GPU(s) 1 of 2\ntide: local rank 2 of 3 drives GPU(s) 0 of 2')"
check "4 ranks, 4 GPUs" "$(run 4 4 | wc -l)" "4"
check "one GPU: no placement" "$(run 2 1)" ""
check "user's STARPU_WORKERS_CUDAID kept" "$(run 2 8 -x STARPU_WORKERS_CUDAID=0)" ""
exit $fail
