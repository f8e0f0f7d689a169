#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The gas scheme on N ranks (default 2) gives the particles of 1 rank, bit for bit, with the
# same blocks (default 3) (test_gas_ranks.c), and so does 1 rank with one global halo width
# (TIDE_GAS_HALOS=global, the halos before they were per block).
# Usage: test_gas_ranks.sh EXE [RANKS [BLOCKS [CASE]]] (CASE: sedov, the default, or two)
set -euo pipefail
exe=$1
np=${2:-2}
nb=${3:-3}
case=${4:-sedov}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/mpirun_cpu.sh"
if [ ${#mpi[@]} -eq 0 ]; then echo "SKIP: no mpirun"; exit 77; fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$exe" "$out/one.txt" "$nb" "$case"
nice "${mpi[@]}" -np "$np" "$exe" "$out/many.txt" "$nb" "$case"
if ! cmp "$out/one.txt" "$out/many.txt"; then
	echo "FAIL: the gas particles on $np ranks differ from 1 rank"
	exit 1
fi
# the halos per block (include/tide/gas_halo.h) give the particles of one global width
TIDE_GAS_HALOS=global "$exe" "$out/global.txt" "$nb" "$case"
if ! cmp "$out/one.txt" "$out/global.txt"; then
	echo "FAIL: the gas particles with halos per block differ from those with one global width"
	exit 1
fi
echo "ok: gas scheme, $case, $nb blocks, 20 steps: $np ranks = 1 rank = 1 rank with one global halo width, bit for bit ($(wc -l < "$out/one.txt") lines)"
