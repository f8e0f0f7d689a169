#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Moving tank walls (issue 22, sloshing): tank.motion moves the box tank's walls as one body.
#  - free decay of the first sloshing mode (tests/data/sloshing_decay.yaml: a tank 0.9 m wide
#    with 0.355 m of water swayed by 5 mm at the first natural frequency for two periods, then at
#    rest): the period of the water-height difference between the two walls, from its zero
#    crossings over the following 4.4 s, is linear theory's T1 = 2 pi / sqrt(g k tanh(k d)),
#    k = pi / L, within 3 % under mDBC; under DBC, whose fluid-wall gap of about h on each wall
#    narrows the water, between T1 of the width L - 2h less 3 % and T1 of L; the sloshing
#    amplitude at the walls after the forcing is at least 5 mm (a tank at rest makes none);
#  - particles never leave the tank: at every output every fluid particle, taken into the tank's
#    frame with the tank's pose from bodies_NNNN.vtp, lies inside the tank's inner box under DBC;
#    under mDBC a few creep into the walls near the free surface and the floor once the water
#    has sloshed (mDBC's weak wall pressure there, also with fixed walls), so the bound is half
#    the walls' thickness (1.5 dp; the depth reached is printed); the fluid count of
#    statistics.csv never drops; the same for cases/sloshing.yaml (a 4 degree roll about the
#    floor's middle, closed top, mDBC) run for 1.5 s at dp 0.015;
#  - the roll on 2 MPI ranks (4 blocks): particle and bodies files identical to 1 rank; stopped
#    at a checkpoint and restarted: the uninterrupted run's particles and bodies.csv;
#  - bad tank motions (a wave maker type) are refused with exit code 2.
# usage: test_sloshing.sh TIDE SRC_ROOT
set -euo pipefail
tide=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3
"$py" -c 'import numpy' 2>/dev/null || { echo "no numpy: skipped"; exit 77; }
export PYTHONPATH="$src/tests${PYTHONPATH:+:$PYTHONPATH}"
export STARPU_NCPU=2

"$tide" run "$src/tests/data/sloshing_decay.yaml" --quiet --out "$work/mdbc"
"$tide" run "$src/tests/data/sloshing_decay.yaml" --quiet --set physics.boundary=dbc --out "$work/dbc"
roll=(run "$src/cases/sloshing.yaml" --quiet --dp 0.015 --set time.end=1.5 --set time.output=0.1 --blocks 4)
"$tide" "${roll[@]}" --out "$work/roll"
source "$src/tests/mpirun_cpu.sh"
if [ ${#mpi[@]} -gt 0 ]; then
	nice "${mpi[@]}" -np 2 "$tide" "${roll[@]}" --out "$work/roll2"
	for f in "$work"/roll/particles_*.vtp "$work"/roll/bodies_*.vtp; do
		cmp "$f" "$work/roll2/$(basename "$f")" ||
			{ echo "FAIL: the rolling tank's $(basename "$f") differs on 2 ranks"; exit 1; }
	done
	echo "ok: the rolling tank on 2 ranks: particle and bodies files identical to 1 rank"
else
	echo "no mpirun: the 2-rank comparison is skipped"
fi

"$py" - "$work" <<'PY'
import csv, math, sys
import numpy as np
from vtp_points import read_vtp, pvd_times, quat_matrix
w = sys.argv[1]
L, d, g = 0.9, 0.355, 9.81
k = math.pi / L
T1 = 2 * math.pi / math.sqrt(g * k * math.tanh(k * d))
t_stop = 2 * 1.1678

def decay_period(run):
    r = list(csv.DictReader(open(run + "/gauges.csv")))
    t = np.array([float(x["time[s]"]) for x in r])
    e = np.array([float(x["L[m]"]) - float(x["R[m]"]) for x in r])
    sel = t > t_stop + 0.2
    t, e = t[sel], e[sel] - e[sel].mean()
    z = [t[i - 1] + (t[i] - t[i - 1]) * e[i - 1] / (e[i - 1] - e[i])
         for i in range(1, len(t)) if (e[i - 1] < 0) != (e[i] < 0)]
    # (L - R) / 2: the amplitude at a wall of the antisymmetric first mode
    return 2 * (z[-1] - z[0]) / (len(z) - 1), len(z), 0.5 * np.abs(e[t < t_stop + 1.5]).max()

def inside(run, top):
    """Worst excursion of a fluid particle out of the tank's inner box, in the tank's frame."""
    c0 = np.array([0.45, 0.0, 0.254])
    worst, n0, files = -1.0, None, 0
    for (t, pf), (_, bf) in zip(pvd_times(run + "/particles.pvd"), pvd_times(run + "/bodies.pvd")):
        p, b = read_vtp(run + "/" + pf), read_vtp(run + "/" + bf)
        x = p["Points"][p["Type"] == 0].astype(float)
        R = quat_matrix(np.asarray(b["Quaternion"][0], dtype=float))
        X = (x - np.asarray(b["Points"][0], dtype=float)) @ R + c0   # R^T (x - c) + c0
        out = np.concatenate([-X[:, 0], X[:, 0] - L, -X[:, 2]] + ([X[:, 2] - top] if top else []))
        worst = max(worst, float(out.max()))
        n0 = len(x) if n0 is None else n0
        assert len(x) == n0, "%s: %d fluid particles at t = %g, %d at first" % (run, len(x), t, n0)
        files += 1
    s = list(csv.DictReader(open(run + "/statistics.csv")))
    col = [c for c in s[0] if c.startswith("n_fluid")][0]
    assert min(int(float(r[col])) for r in s) == n0, "%s: fluid particles lost" % run
    return worst, files, n0

dp, h = 0.015, 0.03
kg = math.pi / (L - 2 * h)
T1g = 2 * math.pi / math.sqrt(g * kg * math.tanh(kg * d))
ok = True
for run in ("mdbc", "dbc"):
    T, nz, amp = decay_period(w + "/" + run)
    ex, files, n = inside(w + "/" + run, None)
    print("%s: free-decay period %.4f s from %d zero crossings, linear theory T1 = %.4f s (%+.2f %%), "
          "T1 of the width L - 2h = %.4f s (%+.2f %%); sloshing amplitude %.1f mm after the forcing; "
          "%d fluid particles at %d outputs, the farthest %.2g m (%.2f dp) %s the tank's walls"
          % (run, T, nz, T1, 100 * (T / T1 - 1), T1g, 100 * (T / T1g - 1), 1000 * amp, n, files,
             abs(ex), abs(ex) / dp, "into" if ex > 0 else "inside"))
    period_ok = abs(T / T1 - 1) < 0.03 if run == "mdbc" else 0.97 * T1g < T < 1.03 * T1
    ok &= period_ok and amp > 0.005 and ex <= (1.5 * dp if run == "mdbc" else 0)
ex, files, n = inside(w + "/roll", 0.508)
print("roll (cases/sloshing.yaml, mDBC, dp 0.015, 1.5 s): %d fluid particles at %d outputs, the "
      "farthest %.2g m %s the tank's walls" % (n, files, abs(ex), "into" if ex > 0 else "inside"))
ok &= ex <= 1.5 * dp
if not ok:
    sys.exit("FAIL: sloshing")
PY

# a rolling tank stopped at a checkpoint and restarted = the uninterrupted run
rs=(run "$src/cases/sloshing.yaml" --quiet --dp 0.015 --set time.end=1)
"$tide" "${rs[@]}" --max-steps 400 --checkpoint-every 200steps --out "$work/full"
"$tide" "${rs[@]}" --max-steps 200 --checkpoint-every 200steps --out "$work/half"
"$tide" run --restart "$work/half/checkpoint" --max-steps 400 --checkpoint-every 200steps --quiet
cmp "$work/full/checkpoint/particles.bin" "$work/half/checkpoint/particles.bin" &&
	cmp "$work/full/bodies.csv" "$work/half/bodies.csv" ||
	{ echo "FAIL: the restarted rolling tank differs from the uninterrupted run"; exit 1; }
echo "ok: rolling tank restarted at step 200 = uninterrupted (particles, bodies.csv)"

set +e
source "$src/tests/expect.sh"
cat > "$work/bad.yaml" <<'EOF2'
dim: 2
dp: 0.02
tank: {lo: [0, 0], hi: [1, 0.5], motion: {type: piston, height: 0.05, period: 1, depth: 0.3}}
fluid: [{lo: [0, 0], hi: [1, 0.3]}]
time: {end: 0.01}
EOF2
expect piston 2 "key 'tank.motion.type' = 'piston' is a wave maker; allowed for tank.motion: linear, sine, rotation, rotation_sine" \
	"$tide" run "$work/bad.yaml" --out "$work/bad" --quiet
[ "$nfail" = 0 ] || exit 1
