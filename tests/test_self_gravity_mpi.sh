#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Self-gravity on several ranks (each rank's blocks in its own tree, the other ranks' field
# through the essential-node exchange of tasks/gravity.c): the cold sphere run for 3
# steps on 1 and on 2 ranks (4 blocks: 2 per rank, half the fluid each) gives the same
# statistics.csv within the tree's accuracy: E_pot (sum m phi / 2, a field evaluation at every
# output) within 1e-4 relative at every row, E_kin within 1e-3 from the first step on.  A rank
# that missed the other's field would see about half the potential energy.
# usage: test_self_gravity_mpi.sh TIDE SRC_ROOT
set -uo pipefail
tide=$1; src=$2
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tide_sgmpi.XXXXXX")
args=("$src/cases/collapse_sphere.yaml" --blocks 4 --max-steps 3 --quiet)
"$tide" run "${args[@]}" --out "$tmp/r1" >"$tmp/out1" 2>&1 || fail "1 rank: exit code $?: $(cat "$tmp/out1")"
mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 -x STARPU_NCPU=1 \
	-x STARPU_WORKERS_NOBIND=1 -x STARPU_SILENT=1 "$tide" run "${args[@]}" --out "$tmp/r2" \
	>"$tmp/out2" 2>&1 || fail "2 ranks: exit code $?: $(cat "$tmp/out2")"
grep -q '"nranks": *2' "$tmp/r2/run_summary.json" || fail "the 2-rank run did not run on 2 ranks"
python3 - "$tmp/r1/statistics.csv" "$tmp/r2/statistics.csv" <<'PY' || fail "statistics differ"
import csv, sys
a, b = ([r for r in csv.DictReader(open(p))] for p in sys.argv[1:3])
assert len(a) == len(b) >= 4, f"{len(a)} and {len(b)} rows"
worst_p = worst_k = 0.0
for i, (x, y) in enumerate(zip(a, b)):
    p1, p2 = float(x["E_pot[J]"]), float(y["E_pot[J]"])
    k1, k2 = float(x["E_kin[J]"]), float(y["E_kin[J]"])
    assert p1 < 0, f"row {i}: E_pot {p1} J is not negative"
    worst_p = max(worst_p, abs(p2 - p1) / abs(p1))
    if i > 0:
        assert k1 > 0, f"row {i}: E_kin {k1} J: the sphere does not fall"
        worst_k = max(worst_k, abs(k2 - k1) / k1)
print(f"E_pot relative difference 2 ranks vs 1: {worst_p:.2e}, E_kin: {worst_k:.2e} over {len(a)} rows")
assert worst_p <= 1e-4 and worst_k <= 1e-3
PY
rm -rf "$tmp"
echo "ok: self-gravity on 2 ranks matches 1 rank"
