#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The STL cases run: spheric2_stl against spheric2 at their dp = 0.02 (the tank and the fluid are
# the same particles, the obstacle the same count shifted < 1 mm, away from the water in the
# first steps): the same particle counts, and gauges and energies that agree after 30 steps;
# spheric2_stl and dam_beach (also with mdbc no-slip walls) on 1 and 2 MPI ranks (same blocks): identical particle files and
# gauges (ids conserved); a bad STL file, or an STL solid reaching a periodic face, stops tide run
# with exit code 2 and one sentence.
# usage: test_geometry_run.sh TIDE SRC_ROOT
set -euo pipefail
tide=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
py=$(command -v python3)

# ---- spheric2_stl = spheric2
for c in spheric2 spheric2_stl; do
	STARPU_NCPU=2 "$tide" run "$src/cases/$c.yaml" --max-steps 30 --set time.output=0.002 --quiet \
		--blocks 2 --out "$work/$c"
done
"$py" - "$work/spheric2" "$work/spheric2_stl" <<'PY'
import csv, sys
a, b = ([r for r in csv.DictReader(open(d + "/statistics.csv"))] for d in sys.argv[1:3])
ga, gb = ([r for r in csv.DictReader(open(d + "/gauges.csv"))] for d in sys.argv[1:3])
bad = []
for k in ("n_fluid[-]", "n_bound[-]"):
    if a[0][k] != b[0][k]:
        bad.append("%s %s against %s" % (k, a[0][k], b[0][k]))
if len(a) != len(b) or len(ga) != len(gb):
    bad.append("%d / %d outputs" % (len(a), len(b)))
for ra, rb in zip(a, b):
    for k in ("E_kin[J]", "E_pot[J]", "fluid_mass[kg]"):
        x, y = float(ra[k]), float(rb[k])
        if abs(x - y) > 1e-3 * max(abs(x), abs(y), 1e-3):
            bad.append("%s at t = %s: %g against %g" % (k, ra["time[s]"], x, y))
for ra, rb in zip(ga, gb):
    for k in ra:
        if k == "time[s]":
            continue
        x, y = float(ra[k]), float(rb[k])
        tol = 1e-3 if k.startswith("H") else 0.01 * 1000 * 9.81 * 0.55
        if abs(x - y) > tol:
            bad.append("gauge %s at t = %s: %g against %g" % (k, ra["time[s]"], x, y))
if bad:
    print("FAIL: spheric2_stl differs from spheric2: " + "; ".join(bad[:6]))
    sys.exit(1)
print("ok: spheric2_stl = spheric2: %s fluid, %s boundary particles, %d outputs of gauges and energies agree"
      % (a[0]["n_fluid[-]"], a[0]["n_bound[-]"], len(a)))
PY

# ---- dam_beach and spheric2_stl on 1 and 2 ranks: identical files
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none
     -x STARPU_NCPU=1 -x STARPU_WORKERS_NOBIND=1 -x STARPU_SILENT=1)
[ -n "${STARPU_HOME:-}" ] && mpi+=(-x STARPU_HOME)
ranks() { # CASE STEPS OUTPUT DIR [OPTION...]
	local args=(run "$src/cases/$1.yaml" --max-steps "$2" --set time.output="$3" --quiet --blocks 4 "${@:5}")
	STARPU_NCPU=1 "$tide" "${args[@]}" --out "$work/$4_1"
	"${mpi[@]}" -np 2 "$tide" "${args[@]}" --out "$work/$4_2"
	cmp "$work/$4_1/gauges.csv" "$work/$4_2/gauges.csv" || { echo "FAIL: $1 gauges of 2 ranks differ"; exit 1; }
	local n=0
	for f in "$work/$4_1"/particles_*.vtp; do
		cmp "$f" "$work/$4_2/$(basename "$f")" || { echo "FAIL: $1 $(basename "$f") differs on 2 ranks"; exit 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 2 ] || { echo "FAIL: $1 wrote $n particle files"; exit 1; }
	echo "ok: $1: $n particle files identical on 1 and 2 ranks"
}
ranks spheric2_stl 10 0.001 s
ranks dam_beach 40 0.004 b
# mDBC with no-slip walls on the STL geometry (normals from the mesh, ghosts across block faces)
ranks dam_beach 40 0.004 bm --set physics.boundary=mdbc --set physics.mdbc_slip=noslip
"$py" - "$work/b_1" <<'PY'
import csv, sys
s = list(csv.DictReader(open(sys.argv[1] + "/statistics.csv")))
nb, nf = int(s[0]["n_bound[-]"]), int(s[0]["n_fluid[-]"])
# fluid: the 20 x 15 x 15 lattice of the column; the column falls (kinetic energy grows)
assert nf == 20 * 15 * 15, nf
assert float(s[-1]["E_kin[J]"]) > 0, s[-1]
print("ok: dam_beach %d fluid, %d boundary particles, the column falls" % (nf, nb))
PY

# ---- a bad STL: exit code 2, one sentence naming the case file, the key and the STL file
mkdir -p "$work/bad/geometry"
head -c 500 "$src/cases/geometry/spheric2_tank.stl" > "$work/bad/geometry/spheric2_tank.stl"
cp "$src/cases/geometry/spheric2_obstacle.stl" "$work/bad/geometry/"
cp "$src/cases/spheric2_stl.yaml" "$work/bad/"
set +e
"$tide" run "$work/bad/spheric2_stl.yaml" --max-steps 1 --quiet --out "$work/bad/run" 2> "$work/err.txt"
rc=$?
set -e
[ "$rc" = 2 ] || { echo "FAIL: a truncated STL gave exit code $rc"; cat "$work/err.txt"; exit 1; }
[ "$(wc -l < "$work/err.txt")" = 1 ] && grep -q "spheric2_stl.yaml:.*solids\[0\].stl.*spheric2_tank.stl' is truncated" "$work/err.txt" ||
	{ echo "FAIL: message: $(cat "$work/err.txt")"; exit 1; }
echo "ok: a truncated STL: exit 2, $(cat "$work/err.txt")"

# ---- an STL solid reaching a periodic face: exit 2, one sentence naming the key and the face
mkdir -p "$work/per"
cp -r "$src/cases/geometry" "$work/per/"
sed 's/^dim: 3/dim: 3\nperiodic: [y]/' "$src/cases/dam_beach.yaml" > "$work/per/dam_beach_py.yaml"
set +e
"$tide" run "$work/per/dam_beach_py.yaml" --max-steps 1 --quiet --out "$work/per/run" 2> "$work/err.txt"
rc=$?
set -e
[ "$rc" = 2 ] && [ "$(wc -l < "$work/err.txt")" = 1 ] &&
	grep -q "dam_beach_py.yaml:.*key 'solids\[0\].stl'.*beach_tank.stl' reaches the periodic face y = " "$work/err.txt" ||
	{ echo "FAIL: an STL solid across a periodic face: exit $rc, message: $(cat "$work/err.txt")"; exit 1; }
echo "ok: an STL solid reaching a periodic face: exit 2, $(cat "$work/err.txt")"
