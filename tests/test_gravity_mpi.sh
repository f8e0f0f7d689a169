#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The gravity commands under mpirun (CPU).  tide gravity on 2 ranks: the global check of all
# particles against the direct sum must meet the 99th-percentile bound 1e-3 (theta 0.5,
# monopoles) and the essential nodes each rank sent must be reported.
# tide nbody on 2 and 4 MPI ranks against the same run on one rank: a Plummer sphere of
# 3000 particles for 80 leapfrog steps (essential nodes exchanged every step, particles gathered
# and split again at every output).  The trees differ between rank counts, so the runs are not
# bit-identical; every output row (Lagrangian radii, energies) must agree with the 1-rank run to
# 1e-4 relative, a hundred times finer than the radii move over the run, and the energy must be
# conserved to 1e-4.
# usage: test_bh_nbody_mpi.sh TIDE
set -euo pipefail
tide=$1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none
     -x STARPU_NCPU=1 -x STARPU_WORKERS_NOBIND=1 -x STARPU_SILENT=1)
[ -n "${STARPU_HOME:-}" ] && mpi+=(-x STARPU_HOME)
out=$("${mpi[@]}" -np 2 "$tide" gravity --n 20000 --theta 0.5 --check 1000 --repeat 1)
echo "$out"
p99=$(echo "$out" | sed -n 's/.*99% \([0-9.e+-]*\),.*/\1/p')
awk -v p="$p99" 'BEGIN { exit !(p != "" && p + 0 <= 1e-3) }' || { echo "FAIL: tide gravity on 2 ranks: 99th percentile '$p99'"; exit 1; }
[ "$(echo "$out" | grep -c '^  rank [01]: .* sent [0-9]* essential cells')" = 2 ] ||
	{ echo "FAIL: tide gravity on 2 ranks does not report the essential nodes of both ranks"; exit 1; }
args=(nbody --n 3000 --dt 0.025 --t-end 2 --out-every 20)
STARPU_NCPU=1 "$tide" "${args[@]}" --csv "$work/r1.csv"
for np in 2 4; do
	"${mpi[@]}" -np $np "$tide" "${args[@]}" --csv "$work/r$np.csv"
	# columns: 3-5 r10 r50 r90, 6-8 E_kin E_pot E_tot
	paste -d, <(grep -v '^#' "$work/r1.csv") <(grep -v '^#' "$work/r$np.csv") | awk -F, -v np=$np '
		NR == 1 { ncol = NF / 2; next }
		{ rows++
		  for (c = 3; c <= 8; c++) {
			a = $c; b = $(c + ncol); d = (a - b) / (a < 0 ? -a : a); d = d < 0 ? -d : d
			if (d > worst) worst = d
		  }
		  e = $8 + 0; if (rows == 1) e0 = e
		  de = (e - e0) / e0; de = de < 0 ? -de : de; if (de > drift) drift = de }
		END {
		  printf "%d ranks: %d outputs, largest relative difference from 1 rank %.1e, energy drift %.1e\n", np, rows, worst, drift
		  if (rows < 5 || worst > 1e-4 || drift > 1e-4) { print "FAIL: " np " ranks"; exit 1 } }'
done
echo "gravity_mpi: all cases pass"
