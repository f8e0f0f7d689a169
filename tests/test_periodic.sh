#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Periodic boundaries, whole runs (tests/data/periodic_march.yaml): water filling a 2-D channel
# periodic along x, no walls, pushed along x by a body force g_x = 1 m/s^2.  The flow is uniform,
# so every particle must move as a rigid lattice: v_x = g_x t and x = x0 + g_x t^2 / 2 modulo the
# period L, which it crosses five times by t = 1 s.  A seam that lost its neighbours (a halo
# missing across the periodic face) would give the particles there a free surface, a pressure
# push along x and a v_x off g_x t.  Asserted at every output, on 1, 2 and 4 blocks and on 2 MPI
# ranks (4 blocks), and on 4 blocks re-cut by the load balancer every 500 steps:
#  - every id 0..N-1 once, N constant (no particle lost at the face);
#  - every x in [0, L);
#  - |v_x - g_x t| <= 1e-4 g_x t for every particle (measured: 1e-5, float rounding; v_z is not
#    asserted: the free surfaces at z = 0 and z = H, where nothing holds the water, relax by
#    ~1e-3 m/s);
#  - x - x0 - g_x t^2 / 2 is within 1e-3 L of a whole number of periods;
#  - the 2-rank particle files are identical to the 1-rank ones (4 blocks), and so are those of
#    a run stopped at a checkpoint and restarted;
#  - statistics.csv's E_pot leaves the periodic axis out (the body force along it has no
#    potential; -m g_x x would jump by m g_x L at every wrap): 0 at every output, for g along x.
# The same for tests/data/periodic_march_xy.yaml, a 3-D layer periodic along x and y at once,
# pushed by (1, 0.5, 0) m/s^2 through both faces and their corners, on 1 and 3 blocks and on
# 2 ranks (3 blocks), both axes checked.
# Gauges (tests/data/periodic_still.yaml): a height and a pressure probe on the periodic face
# read exactly what the same probes mid-period read (their kernel sums take the images).
# usage: test_periodic.sh TIDE SRC_ROOT
set -euo pipefail
tide=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
case=$src/tests/data/periodic_march.yaml
export STARPU_NCPU=1
for nb in 1 2 4; do
	nice "$tide" run "$case" --blocks $nb --quiet --out "$work/b$nb"
done
# the load balancer re-cuts the periodic axis every 500 steps (cuts between the ghost layers)
nice "$tide" run "$case" --blocks 4 --rebalance-every 500 --quiet --out "$work/rb"
runs="b1 b2 b4 rb"
# a checkpoint at step 4000 (t ~ 0.43 s, particles mid-march) restarted to the end gives the
# uninterrupted run's files bit for bit (the boxes, with their ghost-layer cuts, come back)
nice "$tide" run "$case" --blocks 4 --max-steps 4000 --checkpoint-every 4000steps --quiet \
	--out "$work/ck"
nice "$tide" run --restart "$work/ck/checkpoint" --quiet
for f in "$work"/b4/particles_*.vtp; do
	cmp "$f" "$work/ck/$(basename "$f")" ||
		{ echo "FAIL: $(basename "$f") after a restart differs from the uninterrupted run"; exit 1; }
done
echo "ok: restart from a checkpoint at step 4000: particle files identical"
# a decomposition cutting another axis than the periodic one is refused before any work
set +e
msg=$("$tide" run "$case" --blocks 4 --set decomposition=2d --out "$work/d2" 2>&1 >/dev/null)
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "decomposition '2d' cuts more than one axis; with periodic" <<<"$msg" ||
	{ echo "FAIL: decomposition 2d with periodic x: exit $rc, message: $msg"; exit 1; }
echo "ok: decomposition 2d refused with periodic x (exit 2)"
# gauges see across the periodic face: on the face (x = 0) they read what they read mid-period
nice "$tide" run "$src/tests/data/periodic_still.yaml" --quiet --out "$work/still"
awk -F, 'NR > 1 && ($2 != $3 || $4 != $5) { bad = 1; print "FAIL: gauges on the periodic face differ from mid-period: " $0 }
         END { exit bad }' "$work/still/gauges.csv"
echo "ok: height and pressure gauges on the periodic face equal those mid-period"
. "$src/tests/mpirun_cpu.sh"
if [ ${#mpi[@]} -gt 0 ]; then
	same_on_2_ranks "$tide" "$case" 4 "$work/b4" "$work/r2"
	runs="$runs r2"
fi
# periodic along x and y at once (3-D): 1 and 3 blocks, 2 ranks
xy=$src/tests/data/periodic_march_xy.yaml
for nb in 1 3; do
	nice "$tide" run "$xy" --blocks $nb --quiet --out "$work/xy$nb"
done
runs="$runs xy1 xy3"
if [ ${#mpi[@]} -gt 0 ]; then
	same_on_2_ranks "$tide" "$xy" 3 "$work/xy3" "$work/xyr2"
	runs="$runs xyr2"
fi
py=/usr/bin/python3; [ -x "$py" ] || py=python3
PYTHONPATH=$src/tests "$py" - "$work" $runs <<'PY'
import sys
import numpy as np
from vtp_points import read_vtp, pvd_times
work, runs = sys.argv[1], sys.argv[2:]
bad = 0
for run in runs:
    # the 2-D channel (x periodic), or the 3-D layer periodic along x and y
    L, g = ([0.08, 0.06], [1.0, 0.5]) if run.startswith("xy") else ([0.1], [1.0])
    d = work + "/" + run
    frames = pvd_times(d + "/particles.pvd")
    first = read_vtp(d + "/" + frames[0][1])
    n = len(first["Id"])
    x0 = np.empty((n, 3))
    x0[first["Id"]] = first["Points"]
    worst_v = worst_x = 0.0
    for t, f in frames[1:]:
        p = read_vtp(d + "/" + f)
        ids = p["Id"]
        if len(ids) != n or not np.array_equal(np.sort(ids), np.arange(n)):
            print("FAIL %s t=%g: %d particles, ids not 0..%d once each" % (run, t, len(ids), n - 1))
            bad += 1
            continue
        for a in range(len(L)):  # the periodic axes x (, y), pushed by g[a]
            x, v = p["Points"][:, a], p["Velocity"][:, a]
            if x.min() < 0 or x.max() >= L[a]:
                print("FAIL %s t=%g: %s in [%g, %g], outside [0, %g)" % (run, t, "xy"[a], x.min(),
                      x.max(), L[a]))
                bad += 1
            ev = np.abs(v - g[a] * t).max() / (g[a] * t)
            s = (x - x0[ids, a] - 0.5 * g[a] * t * t) / L[a]
            ex = np.abs(s - np.round(s)).max()
            worst_v, worst_x = max(worst_v, ev), max(worst_x, ex)
            if ev > 1e-4 or ex > 1e-3:
                print("FAIL %s t=%g: v_%s off g t by %.3g (limit 1e-4), position off the rigid "
                      "march by %.3g L (limit 1e-3)" % (run, t, "xy"[a], ev, ex))
                bad += 1
    marched = ", ".join("%.2f along %s" % (0.5 * g[a] * frames[-1][0] ** 2 / L[a], "xy"[a])
                        for a in range(len(L)))
    print("ok: %s: %d particles, %d outputs, periods marched %s; worst |v - g t| / g t = %.2e, "
          "position %.2e L" % (run, n, len(frames), marched, worst_v, worst_x))
    # the body force is along the periodic axes only: no potential energy at all
    import csv
    rows = list(csv.DictReader(open(d + "/statistics.csv")))
    epot = [float(r[k]) for r in rows for k in r if k.startswith("E_pot")]
    ekin = max(float(r[k]) for r in rows for k in r if k.startswith("E_kin"))
    if len(epot) != len(rows) or max(abs(e) for e in epot) > 1e-12 * ekin:
        print("FAIL %s: E_pot along the periodic axis is not left out: %s" % (run, epot[:6]))
        bad += 1
sys.exit(1 if bad else 0)
PY
