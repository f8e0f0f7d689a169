# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the run tests: mpi=(...) runs a command on CPU ranks (one CPU worker each, StarPU
# quiet), or is empty when mpirun is missing.
mpi=()
if command -v mpirun >/dev/null; then
	mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none
	     -x STARPU_NCPU=1 -x STARPU_WORKERS_NOBIND=1 -x STARPU_SILENT=1)
	if [ -n "${STARPU_HOME:-}" ]; then mpi+=(-x STARPU_HOME); fi
fi

# same_on_2_ranks TIDE CASE BLOCKS REF OUT: runs CASE on 2 ranks with BLOCKS blocks into OUT and
# checks that its particle files are identical to those of the 1-rank run in REF.
same_on_2_ranks() {
	local tide=$1 case=$2 nb=$3 ref=$4 out=$5 f
	nice "${mpi[@]}" -np 2 "$tide" run "$case" --blocks "$nb" --quiet --out "$out"
	for f in "$ref"/particles_*.vtp; do
		cmp "$f" "$out/$(basename "$f")" ||
			{ echo "FAIL: $(basename "$f") of 2 ranks differs from 1 rank ($case, $nb blocks)"; return 1; }
	done
	echo "ok: $(basename "$case"), 2 ranks, $nb blocks: particle files identical to 1 rank"
}
