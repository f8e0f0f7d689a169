# SPDX-License-Identifier: LGPL-2.1-or-later
"""test_motion_run.sh's check of a run with a moving obstacle: usage
motion_check.py RUN_DIR LO HI SEGMENTS.  LO, HI: the obstacle's box at t = 0 ([x, z], 2-D);
SEGMENTS: a Python list of its segments as in the case, ('linear', t0, t1, [vx, vz]) or
('rotation_sine', t0, t1, [cx, cz], amplitude_deg, period, phase_deg).  Checks, at every output:
the body's particles (the boundary particles inside the box at t = 0, contiguous ids) are where
an independent evaluation of the motion puts them (1e-9 m); their velocity is the motion's at
that time (1e-5 m/s; at t = 0 it is the build's zero); no fluid particle lies inside the body
(beyond its outer layer of particle centres, i.e. inside the box shrunk by dp/2)."""
import math
import sys
import numpy as np
from vtp_points import read_vtp, pvd_times

d, lo, hi, segs, dp = sys.argv[1], np.array(eval(sys.argv[2])), np.array(eval(sys.argv[3])), \
    eval(sys.argv[4]), float(sys.argv[5])


def pose(t):
    """(R 2x2 acting on (x, z), b): x = R X + b."""
    R, b = np.eye(2), np.zeros(2)
    for s in segs:
        if t <= s[1]:
            break
        tau = min(t, s[2]) - s[1]
        if s[0] == "linear":
            b = b + np.array(s[3]) * tau
        else:
            c, A, T, ph = np.array(s[3]), math.radians(s[4]), s[5], math.radians(s[6])
            th = A * (math.sin(2 * math.pi / T * tau + ph) - math.sin(ph))
            # positive angle about +y: z toward x
            M = np.array([[math.cos(th), math.sin(th)], [-math.sin(th), math.cos(th)]])
            R, b = M @ R, M @ b + c - M @ c
    return R, b


def velocity(t, x):
    for s in segs:
        if s[1] <= t < s[2]:
            if s[0] == "linear":
                return np.tile(np.array(s[3]), (len(x), 1))
            c, A, T, ph = np.array(s[3]), math.radians(s[4]), s[5], math.radians(s[6])
            w = A * 2 * math.pi / T * math.cos(2 * math.pi / T * (t - s[1]) + ph)
            r = x - c
            return np.stack([w * r[:, 1], -w * r[:, 0]], axis=1)
    return np.zeros((len(x), 2))


ts = pvd_times(d + "/particles.pvd")
a0 = read_vtp(d + "/" + ts[0][1])
P0, ty, ids = a0["Points"][:, [0, 2]], a0["Type"], a0["Id"]
inb = (ty == 1) & np.all((P0 > lo) & (P0 < hi), axis=1)
body = np.sort(ids[inb])
X0 = dict(zip(ids[inb], P0[inb]))
bad = []
if len(body) == 0 or body[-1] - body[0] + 1 != len(body):
    bad.append("the body's ids are not one contiguous range")
werr = verr = 0.0
inside = 0
for t, f in ts:
    a = read_vtp(d + "/" + f)
    P, I, T, V = a["Points"][:, [0, 2]], a["Id"], a["Type"], a["Velocity"][:, [0, 2]]
    sel = np.isin(I, body)
    if sel.sum() != len(body):
        bad.append("t = %g: %d of the %d body particles" % (t, sel.sum(), len(body)))
        continue
    R, b = pose(t)
    X = np.array([X0[i] for i in I[sel]])
    exp = X @ R.T + b
    werr = max(werr, np.abs(P[sel] - exp).max())
    if t > 0:
        verr = max(verr, np.abs(V[sel] - velocity(t, P[sel])).max())
    # the body's interior: the box shrunk by dp/2 in its own frame
    Q = (P[T == 0] - b) @ R   # R^-1 (x - b) = R^T (x - b)
    inside += int(np.all((Q > lo + 0.5 * dp) & (Q < hi - 0.5 * dp), axis=1).sum())
if werr > 1e-9:
    bad.append("positions off the analytic motion by %g m" % werr)
if verr > 1e-5:
    bad.append("velocities off the motion's by %g m/s" % verr)
if inside:
    bad.append("%d fluid particles inside the moving body" % inside)
if bad:
    print("FAIL: %s: %s" % (d, "; ".join(bad)))
    sys.exit(1)
print("ok: %s: %d body particles (ids %d..%d) follow the motion to %.2g m, velocities to %.2g m/s, "
      "no fluid inside, %d outputs" % (d, len(body), body[0], body[-1], werr, verr, len(ts)))
