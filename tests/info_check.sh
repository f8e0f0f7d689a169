# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash
# Sourced by the tests that run `tide info` under mpirun (test_info_mpi.sh, test_gpu_placement.sh):
# info_missing NP OUTPUT prints what OUTPUT, tide info's standard output and error on NP ranks,
# lacks: rank 0's "MPI world size NP" line, and each rank's worker line "rank R/NP: C CPU workers,
# G CUDA workers, scheduler S" exactly once (ranks print in turn, but mpirun may interleave
# them with rank 0's header).  Nothing printed: complete.
info_missing() {
	local np=$1 out=$2 r n
	n=$(grep -c "^tide .*, StarPU .*, MPI world size $np\$" <<<"$out")
	[ "$n" = 1 ] || echo "'MPI world size $np' $n times (want once)"
	for ((r = 0; r < np; r++)); do
		n=$(grep -cE "^rank $r/$np: [0-9]+ CPU workers, [0-9]+ CUDA workers, scheduler [a-z]+\$" <<<"$out")
		[ "$n" = 1 ] || echo "rank $r's worker line $n times (want once)"
	done
	n=$(grep -cE "^rank [0-9]+/" <<<"$out")
	[ "$n" = "$np" ] || echo "$n worker lines for $np ranks"
}
