#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Distributed SPH: the same case on 1, 2, 3 and 4 MPI ranks (CPU), with the same blocks, must give
# bit-identical particles and gauges after every output: blocks compute the same tasks wherever
# they live, halos and migrants travel through StarPU-MPI, and every rank folds all ranks'
# step records into the same time step (dt_combine).  With 4 ranks and 6 blocks some ranks hold blocks that start with no fluid at all.
# A third variant re-splits the blocks every 60 steps (all particles gathered and dealt out
# again on every rank) on 3 ranks: ids and results still match the 1-rank run.  The fourth cuts
# the domain into a 2-D grid of boxes; the fifth integrates with the symplectic scheme (two
# force passes and halo exchanges per step) on 2 ranks.  The last two combine the time step by
# recursive doubling (tasks/sph_step.c's finish_reduction_tree) instead of the one-hop exchange:
# forced (TIDE_DT_REDUCTION=tree) on 3, 4 and 5 ranks (a fold of the ranks above the power of
# two, plain doubling, and both), and chosen by itself on 9 ranks (above 8); the log must say so.
# The last gives the blocks to ranks along a Hilbert curve (block_owners: hilbert) on 3 and 4
# ranks: owners other than boxes, the same particles.
# usage: test_mpi_ranks.sh TIDE SRC_ROOT
set -euo pipefail
tide=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none
     -x STARPU_NCPU=1 -x STARPU_WORKERS_NOBIND=1 -x STARPU_SILENT=1)
[ -n "${STARPU_HOME:-}" ] && mpi+=(-x STARPU_HOME)
loud=(run "$src/cases/dambreak2d.yaml" --dp 0.01 --max-steps 240 --set time.output=0.004)
args=("${loud[@]}" --quiet)   # the MPI runs print their log (how the time step was combined)
# name: blocks and extra options
# A 2-D grid of boxes: 2 x 2 on 2 and 4 ranks (with 4 ranks every rank owns one box, so halos
# and migrants cross rank boundaries along both axes, corners included).
for variant in "4" "6" "6 --rebalance-every 60" "4 --set decomposition=2x1x2" \
               "4 --set physics.integrator=symplectic" "6 tree" "9 auto" \
               "8 --set decomposition=4x1x2 --set block_owners=hilbert"; do
	set -- $variant; nb=$1; shift
	extra=("$@")
	v=$((${v:-0} + 1))
	env=()
	case "${extra[*]}" in tree) env=(-x TIDE_DT_REDUCTION=tree); extra=() ;; auto) extra=() ;; esac
	STARPU_NCPU=1 "$tide" "${args[@]}" --blocks $nb "${extra[@]}" --out "$work/r1_$v"
	case "$variant" in
		4) nps="2 3 4" ;;
		*hilbert) nps="3 4" ;;
		*decomposition*) nps="2 4" ;;
		*symplectic*) nps=2 ;;
		*tree) nps="3 4 5" ;;
		*auto) nps=9 ;;
		*) nps=3 ;;
	esac
	for np in $nps; do
		"${mpi[@]}" "${env[@]}" -np $np "$tide" "${loud[@]}" --blocks $nb "${extra[@]}" \
			--out "$work/r${np}_$v" > "$work/r${np}_$v.out" 2>&1 ||
			{ cat "$work/r${np}_$v.out"; echo "FAIL: $np ranks ($variant) exited with an error"; exit 1; }
		how="one hop"
		case "$variant" in *tree|*auto) how="recursive doubling" ;; esac
		grep -q "time step combined across $np ranks.*$how" "$work/r${np}_$v.out" ||
			{ echo "FAIL: $np ranks ($variant): the log does not say the time step was combined by $how"; exit 1; }
		cmp "$work/r1_$v/gauges.csv" "$work/r${np}_$v/gauges.csv" ||
			{ echo "FAIL: gauges of $np ranks ($nb blocks) differ from 1 rank"; exit 1; }
		for f in "$work/r1_$v"/particles_*.vtp; do
			cmp "$f" "$work/r${np}_$v/$(basename "$f")" ||
				{ echo "FAIL: $(basename "$f") of $np ranks ($nb blocks) differs from 1 rank"; exit 1; }
		done
		case "$variant" in *hilbert)
			grep -q "blocks of each rank (block_owners: hilbert)" "$work/r${np}_$v.out" ||
				{ echo "FAIL: $np ranks: the log does not list the Hilbert owners"; exit 1; } ;;
		esac
		echo "ok: $np ranks, $nb blocks ${extra[*]} (time step by $how): $(ls "$work/r1_$v"/particles_*.vtp | wc -l) outputs identical to 1 rank"
	done
done
