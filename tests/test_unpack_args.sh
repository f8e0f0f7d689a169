#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every starpu_codelet_unpack_args call in the sources ends its pointer list with 0.  StarPU
# reads one pointer per value the task was given (STARPU_VALUE) until it meets a 0, so a call
# with fewer pointers than values reads a garbage pointer and writes through it: the gas codelets
# read 3 values of the 4 that submit_forces gives every force task (sph_forces' part), and
# gas_cuda, gas_nbody_cuda, sinks_cuda and gas_halos_cuda crashed in tide_gas_forces_cuda on the
# H200 (2026-12-05; on the CPU the stray pointer happened to be 0).
# usage: test_unpack_args.sh SRC_ROOT
set -euo pipefail
src=$1
cd "$src"
calls=$(grep -rn --include='*.c' --include='*.cu' --include='*.h' --include='*.cuh' \
	'starpu_codelet_unpack_args(' codelets include tasks src interfaces tests | grep -v '^tests/test_unpack_args' || true)
n=$(printf '%s\n' "$calls" | grep -c . || true)
bad=$(printf '%s\n' "$calls" | grep -v ', 0);' || true)
echo "starpu_codelet_unpack_args calls: $n"
if [ "$n" -lt 40 ]; then echo "FAIL: fewer calls than the codelets make (the search is broken)"; exit 1; fi
if [ -n "$bad" ]; then
	printf 'FAIL: calls whose pointer list does not end with 0:\n%s\n' "$bad"
	exit 1
fi
echo "every call ends its pointers with 0"
