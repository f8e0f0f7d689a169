# SPDX-License-Identifier: LGPL-2.1-or-later
"""test_motion_run.sh's check of a run with a moving body: usage
motion_check.py RUN_DIR LO HI SEGMENTS DP.  LO, HI: a box holding the body at t = 0 and nothing
else of the boundary ([x, z] in 2-D, [x, y, z] in 3-D); SEGMENTS: a Python list of its segments
as in the case, ('linear', t0, t1, velocity), ('rotation', t0, t1, centre, axis, deg/s) or
('rotation_sine', t0, t1, centre, axis, amplitude_deg, period, phase_deg) (2-D: vectors [x, z],
axis None: y).  Checks, at every output: the body's particles (the boundary particles in the box
at t = 0, one contiguous range of ids) are where an independent evaluation of the motion puts
them (1e-9 m); their velocity is the motion's (1e-5 m/s; at t = 0 the build's zero); no fluid
particle lies inside the box carried by the motion and shrunk by dp/2 (beyond the body's outer
layer of particle centres: through its wall)."""
import math
import sys
import numpy as np
from vtp_points import read_vtp, pvd_times

d, lo, hi, segs, dp = sys.argv[1], eval(sys.argv[2]), eval(sys.argv[3]), eval(sys.argv[4]), float(sys.argv[5])
dim = len(lo)


def v3(v):
    return np.array([v[0], 0.0, v[1]]) if dim == 2 else np.array(v, float)


lo, hi = v3(lo), v3(hi)
if dim == 2:
    lo[1], hi[1] = -1.0, 1.0


def rot(e, th):
    e = np.array(e, float) / np.linalg.norm(e)
    K = np.array([[0, -e[2], e[1]], [e[2], 0, -e[0]], [-e[1], e[0], 0]])
    return np.eye(3) + math.sin(th) * K + (1 - math.cos(th)) * K @ K


def angle(s, tau):
    """(angle, angular rate) of a rotation segment after tau."""
    if s[0] == "rotation":
        return math.radians(s[5]) * tau, math.radians(s[5])
    A, w, ph = math.radians(s[5]), 2 * math.pi / s[6], math.radians(s[7])
    return A * (math.sin(w * tau + ph) - math.sin(ph)), A * w * math.cos(w * tau + ph)


def axis(s):
    return [0, 1, 0] if s[4] is None else s[4]


def pose(t):
    R, b = np.eye(3), np.zeros(3)
    for s in segs:
        if t <= s[1]:
            break
        tau = min(t, s[2]) - s[1]
        if s[0] == "linear":
            b = b + v3(s[3]) * tau
        else:
            c, M = v3(s[3]), rot(axis(s), angle(s, tau)[0])
            R, b = M @ R, M @ b + c - M @ c
    return R, b


def velocity(t, x):
    for s in segs:
        if s[1] <= t < s[2]:
            if s[0] == "linear":
                return np.tile(v3(s[3]), (len(x), 1))
            e = np.array(axis(s), float)
            w = e / np.linalg.norm(e) * angle(s, t - s[1])[1]
            return np.cross(w, x - v3(s[3]))
    return np.zeros((len(x), 3))


ts = pvd_times(d + "/particles.pvd")
a0 = read_vtp(d + "/" + ts[0][1])
P0, ty, ids = a0["Points"], a0["Type"], a0["Id"]
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
    P, I, T, V = a["Points"], a["Id"], a["Type"], a["Velocity"]
    sel = np.isin(I, body)
    if sel.sum() != len(body):
        bad.append("t = %g: %d of the %d body particles" % (t, sel.sum(), len(body)))
        continue
    R, b = pose(t)
    X = np.array([X0[i] for i in I[sel]])
    werr = max(werr, np.abs(P[sel] - (X @ R.T + b)).max())
    if t > 0:
        verr = max(verr, np.abs(V[sel] - velocity(t, P[sel])).max())
    Q = (P[T == 0] - b) @ R   # R^T (x - b): the fluid in the body's frame
    m = np.array([0.5 * dp, 0 if dim == 2 else 0.5 * dp, 0.5 * dp])
    inside += int(np.all((Q > lo + m) & (Q < hi - m), axis=1).sum())
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
