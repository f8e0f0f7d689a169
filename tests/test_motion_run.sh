#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Prescribed motion of solids (issue 22, include/tide/motion.h): a box moving at constant velocity
# through still water (DBC, Verlet), a piston that pushes water, stops and rocks about its foot
# (a sequence of segments; mDBC no-slip walls, symplectic) and an STL solid turning, then
# sliding (3-D) run on 1 and 2 MPI ranks
# (4 blocks): identical particle files; the bodies' particles where an independent evaluation of
# the motion puts them (tests/motion_check.py), no fluid inside them; a run stopped at a
# checkpoint and restarted (the motion continues from the restored time) equals the
# uninterrupted run; bad motion definitions stop tide run with exit code 2 and one sentence.
# usage: test_motion_run.sh TIDE SRC_ROOT
set -euo pipefail
tide=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3
export PYTHONPATH="$src/tests${PYTHONPATH:+:$PYTHONPATH}"
source "$src/tests/mpirun_cpu.sh"
export STARPU_NCPU=1

same_files() { # DIR1 DIR2 WHAT
	local n=0
	for f in "$1"/particles_*.vtp; do
		cmp "$f" "$2/$(basename "$f")" || { echo "FAIL: $3: $(basename "$f") differs"; exit 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 2 ] || { echo "FAIL: $3: $n particle files"; exit 1; }
	echo "ok: $3: $n particle files identical"
}

box=(run "$src/tests/data/motion_box.yaml" --quiet --blocks 4 --set gauges.forces=true --set gauges.every=0.005)
"$tide" "${box[@]}" --out "$work/box1"
"${mpi[@]}" -np 2 "$tide" "${box[@]}" --out "$work/box2"
same_files "$work/box1" "$work/box2" "moving box on 1 and 2 ranks"
cmp "$work/box1/gauges.csv" "$work/box2/gauges.csv" || { echo "FAIL: the moving box's force differs on 2 ranks"; exit 1; }
# the fluid's force on the moving box (its particles found by their ids, not its first box):
# the vertical part is the buoyancy of the submerged box, rho g V = 1000 * 9.81 * 0.06 * 0.15
"$py" - "$work/box1/gauges.csv" <<'PY'
import csv, sys
r = [x for x in csv.DictReader(open(sys.argv[1])) if float(x["time[s]"]) >= 0.02]
fz = sum(float(x["F1z[N/m]"]) for x in r) / len(r)
want = 1000 * 9.81 * 0.06 * 0.15
print("moving box: mean vertical force %.1f N/m against its buoyancy %.1f N/m" % (fz, want))
if abs(fz / want - 1) > 0.15:
    sys.exit("FAIL: the force on the moving box is not its buoyancy")
PY
"$py" "$src/tests/motion_check.py" "$work/box1" "[0.3, 0.1]" "[0.36, 0.25]" \
	"[('linear', 0, 1e9, [0.2, 0])]" 0.01

piston=(run "$src/tests/data/motion_piston.yaml" --quiet --blocks 4 --set gauges.every=0.02)
"$tide" "${piston[@]}" --out "$work/pis1"
"${mpi[@]}" -np 2 "$tide" "${piston[@]}" --out "$work/pis2"
same_files "$work/pis1" "$work/pis2" "piston (mDBC no-slip) on 1 and 2 ranks"
segs="[('linear', 0, 0.1, [0.2, 0]), ('rotation_sine', 0.12, 1e9, [0.08, 0.01], None, 3, 0.4, -90)]"
"$py" "$src/tests/motion_check.py" "$work/pis1" "[0.02, 0.01]" "[0.08, 0.45]" "$segs" 0.01
# the body's columns of gauges.csv: its centre (0.05, 0.23) at t = 0, 2 cm along x by t = 0.1,
# then the rocking angle 3 (1 - cos(2 pi (t - 0.12) / 0.4)) degrees about y through (0.08, 0.01)
"$py" - "$work/pis1/gauges.csv" <<'PY'
import csv, math, sys
worst = 0
for r in csv.DictReader(open(sys.argv[1])):
    t = float(r["time[s]"])
    th = math.radians(3 * (1 - math.cos(2 * math.pi * (t - 0.12) / 0.4))) if t > 0.12 else 0.0
    x, z = 0.05 + 0.2 * min(t, 0.1) - 0.08, 0.23 - 0.01
    ex, ez = 0.08 + math.cos(th) * x + math.sin(th) * z, 0.01 - math.sin(th) * x + math.cos(th) * z
    worst = max(worst, abs(float(r["B1x[m]"]) - ex), abs(float(r["B1z[m]"]) - ez),
                abs(math.radians(float(r["B1roty[deg]"])) - th))
print("piston's gauges.csv columns: position and angle off the motion by %.2g" % worst)
if worst > 1e-7:
    sys.exit("FAIL: the body's columns of gauges.csv are off its motion")
PY

# an STL solid (3-D): turning about a vertical axis, then sliding
stl=(run "$src/tests/data/motion_stl.yaml" --quiet --blocks 4)
"$tide" "${stl[@]}" --out "$work/stl1"
"${mpi[@]}" -np 2 "$tide" "${stl[@]}" --out "$work/stl2"
same_files "$work/stl1" "$work/stl2" "STL solid (3-D) on 1 and 2 ranks"
"$py" "$src/tests/motion_check.py" "$work/stl1" "[0.6, 0.25, 0.001]" "[0.9, 0.75, 0.3]" \
	"[('rotation', 0, 0.05, [0.745, 0.4965, 0], [0, 0, 1], 90), ('linear', 0.05, 1e9, [1.0, 0, 0])]" 0.04

# restart in the middle of the rocking: the motion goes on from the restored time
rs=(run "$src/tests/data/motion_piston.yaml" --quiet --blocks 4 --set time.output=0.01)
"$tide" "${rs[@]}" --max-steps 1600 --checkpoint-every 800steps --out "$work/full"
"$tide" "${rs[@]}" --max-steps 800 --checkpoint-every 800steps --out "$work/half"
"$tide" run --restart "$work/half/checkpoint" --max-steps 1600 --checkpoint-every 800steps --quiet
cmp "$work/full/checkpoint/particles.bin" "$work/half/checkpoint/particles.bin" ||
	{ echo "FAIL: the restarted piston run differs from the uninterrupted one"; exit 1; }
same_files "$work/full" "$work/half" "piston restarted at step 800 = uninterrupted"

# bad motion definitions: exit code 2, one sentence naming the key and the value
set +e
source "$src/tests/expect.sh"
bad() { # NAME TEXT MOTION [DIM]
	local dim=${4:-2} c="$work/$1.yaml"
	if [ "$dim" = 2 ]; then
		printf 'dim: 2\ndp: 0.02\ntank: {lo: [0, 0], hi: [1, 0.5]}\nfluid: [{lo: [0.2, 0], hi: [1, 0.3]}]\nobstacles:\n  - {lo: [0.02, 0.02], hi: [0.1, 0.4], motion: %s}\ntime: {end: 0.01}\n' "$3" >"$c"
	else
		printf 'dp: 0.05\ntank: {lo: [0, 0, 0], hi: [1, 0.5, 0.5]}\nfluid: [{lo: [0.2, 0, 0], hi: [1, 0.5, 0.3]}]\nobstacles:\n  - {lo: [0.02, 0.1, 0.02], hi: [0.1, 0.3, 0.4], motion: %s}\ntime: {end: 0.01}\n' "$3" >"$c"
	fi
	expect "$1" 2 "$2" "$tide" run "$c" --out "$work/$1_run" --quiet
}
bad type "key 'obstacles[0].motion.type' = 'spin' is not allowed; allowed: linear, sine, rotation" \
	"{type: spin, velocity: [1, 0]}"
bad period "key 'obstacles[0].motion.period' = -1 is out of range; allowed: period > 0" \
	"{type: sine, amplitude: [0.1, 0], period: -1}"
bad overlap "key 'obstacles[0].motion[1].start' = 0.5 lies before the end of the previous segment (1 s)" \
	"[{type: linear, velocity: [0.1, 0], end: 1}, {type: linear, velocity: [-0.1, 0], start: 0.5}]"
bad axis "key 'obstacles[0].motion.axis' has zero length; allowed: a nonzero vector" \
	"{type: rotation, centre: [0.05, 0.2, 0.2], axis: [0, 0, 0], angular_velocity: 10}" 3
bad key "key 'obstacles[0].motion.period' is not a key of motion type 'linear'" \
	"{type: linear, velocity: [0.1, 0], period: 1}"
bad missing "missing required key 'obstacles[0].motion.velocity' (motion type 'linear')" \
	"{type: linear}"
bad end "key 'obstacles[0].motion.end' = 1 is not after start = 2; allowed: end > start" \
	"{type: linear, velocity: [0.1, 0], start: 2, end: 1}"
bad hinge "key 'obstacles[0].motion.hinge_height' = 0.4 is not below the still water level" \
	"{type: flap, height: 0.05, period: 1, depth: 0.3, centre: [0.06, 0], hinge_height: 0.4}"
bad components "key 'obstacles[0].motion.components' = 100 is out of range; allowed: 1 <= components <= 64" \
	"{type: piston_jonswap, height: 0.05, period: 1, depth: 0.3, components: 100}"
bad seed "key 'obstacles[0].motion.seed' = 1.5 is not a whole number; allowed: an integer" \
	"{type: piston_jonswap, height: 0.05, period: 1, depth: 0.3, seed: 1.5}"
[ "$nfail" = 0 ] || exit 1
