#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The gas scheme on 2 ranks gives the particles of 1 rank, bit for bit (test_gas_ranks.c).
set -euo pipefail
exe=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/mpirun_cpu.sh"
if [ ${#mpi[@]} -eq 0 ]; then echo "SKIP: no mpirun"; exit 77; fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$exe" "$out/one.txt"
nice "${mpi[@]}" -np 2 "$exe" "$out/two.txt"
if ! cmp "$out/one.txt" "$out/two.txt"; then
	echo "FAIL: the gas particles on 2 ranks differ from 1 rank"
	exit 1
fi
echo "ok: gas scheme, 3 blocks, 20 steps: 2 ranks = 1 rank bit for bit ($(wc -l < "$out/one.txt") lines)"
