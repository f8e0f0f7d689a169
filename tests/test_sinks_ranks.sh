#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Sink particles on 2 ranks form the sinks of 1 rank (tests/test_sinks.c, mode ranks: the
# turbulent top-hat to 0.7 t_ff): the same count, masses within 2 %, positions within 1e-3 R.
# (Not bit for bit: the Barnes-Hut field of 2 ranks walks other trees.)  Usage: EXE [RANKS]
set -euo pipefail
exe=$1
np=${2:-2}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/mpirun_cpu.sh"
if [ ${#mpi[@]} -eq 0 ]; then echo "SKIP: no mpirun"; exit 77; fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$exe" ranks "$out/one.txt" | tail -8
nice "${mpi[@]}" -np "$np" "$exe" ranks "$out/many.txt" | tail -8
"$exe" compare "$out/one.txt" "$out/many.txt"
