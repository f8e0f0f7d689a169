#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/device_gpumem.sh — issue 20's GPU memory per particle on the GPU node (build/ and
# .deps/lib as for tools/device_perf.sh): the CUDA tests of the sort's gather space and of the
# memory accounting, then the SPHERIC test 2 ladder at 1.1 and 13.3 M with StarPU's
# suballocator (the default) and without (STARPU_SUBALLOCATOR=0), each rung's measured and
# expected bytes per particle side by side (bench/results/cpu-2core/gpu_memory.md says what to
# expect: 111.6 and 84.0 B, 81.6 and 81.6 without the suballocator, since the type is one
# byte).  Writes $OUT/sph_ladder{,_nosub}.csv and prints the figures.
set -uo pipefail
. "$(dirname "$0")/device_env.sh"
step "CUDA tests"
for x in cell_sort memory_accounting sph_forces; do
	timeout 300 ./build/tests/test_$x . --cuda > "$out/test_${x}_cuda.txt" 2>&1
	echo "test_$x --cuda: exit $? ($(tail -n 1 "$out/test_${x}_cuda.txt"))"
done
grep -h "B in use" "$out/test_memory_accounting_cuda.txt"
for v in default nosub; do
	step "ladder, suballocator $v"
	sub=(); [ "$v" = nosub ] && sub=(STARPU_SUBALLOCATOR=0)
	env "${sub[@]}" STARPU_NCPU=0 bash bench/sph_ladder.sh --targets 1.1e6,13.3e6 \
		--steps 20 --warmup 3 --out "$out/ladder_$v" --no-plot 2>&1 | grep "particles:"
	cp "$out/ladder_$v/sph_ladder.csv" "$out/sph_ladder_$v.csv" 2>/dev/null
	cut -d, -f1,4,6,7,8 "$out/sph_ladder_$v.csv"
done
