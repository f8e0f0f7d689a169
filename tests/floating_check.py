# SPDX-License-Identifier: LGPL-2.1-or-later
"""The floating-body checks the run tests share (test_floating_run.sh, test_floating_schemes.sh):
draft(dir) -> the settled draft of tests/data/floating_box.yaml's box against Archimedes' and its
heave period against the added-mass estimate; rest(dir, density) -> how a sinking box of
tests/data/floating_sink.yaml's geometry rests on the floor.  Each prints one line and returns
its verdict's numbers."""
import csv
import math


def draft(d, label="floating box"):
    r = [{k: float(v) for k, v in x.items()} for x in csv.DictReader(open(d + "/gauges.csv"))]
    t = [x["time[s]"] for x in r]
    z = [x["B1z[m]"] for x in r]
    level = [(x["L[m]"] + x["R[m]"]) / 2 for x in r]
    # maxima of the centre's height after the release
    mx = [t[i] for i in range(1, len(z) - 1) if z[i] > z[i - 1] and z[i] >= z[i + 1] and t[i] > 0.3]
    T = (mx[-1] - mx[0]) / (len(mx) - 1) if len(mx) > 1 else float("nan")
    rho0, g, B, H, M = 1000.0, 9.81, 0.2, 0.2, 500.0 * 0.2 * 0.2
    A33 = rho0 * math.pi * B * B / 8
    T_est = 2 * math.pi * math.sqrt((M + A33) / (rho0 * g * B))
    last = [i for i in range(len(t)) if t[i] >= t[-1] - (T if T == T else 0.9)]
    zc = sum(z[i] for i in last) / len(last)
    lv = sum(level[i] for i in last) / len(last)
    dr, d0 = lv - (zc - H / 2), M / (rho0 * B)
    print("%s: draft %.4f m (Archimedes %.4f m, %+.2f %%), level %.4f m; heave period %.3f s "
          "(%d maxima), estimate 2 pi sqrt((M + rho0 pi B^2/8) / (rho0 g B)) = %.3f s (%+.1f %%)"
          % (label, dr, d0, 100 * (dr / d0 - 1), lv, T, len(mx), T_est, 100 * (T / T_est - 1)))
    return dr / d0 - 1, T / T_est - 1, len(mx)


def rest(d, density, label="sinking box"):
    r = [x for x in csv.DictReader(open(d + "/bodies.csv"))]
    unit = [k for k in r[0] if k.startswith("Fz[")][0]
    zmin = min(float(x["z[m]"]) for x in r) - 0.1
    last = [x for x in r if float(x["time[s]"]) >= 1.0]
    zb = [float(x["z[m]"]) - 0.1 for x in last]
    vz = max(abs(float(x["vz[m/s]"])) for x in last)
    fz = sum(float(x[unit]) for x in last) / len(last)
    W = density * 0.2 * 0.2 * 9.81
    print("%s: lowest bottom %.4f m (floor at 0), at rest from 1 s: bottom %.4f..%.4f m, "
          "|vz| <= %.2g m/s, fluid + wall force %.1f N/m against its weight %.1f N/m"
          % (label, zmin, min(zb), max(zb), vz, fz, W))
    return zmin, vz, fz / W - 1




def lowest(x, half):
    """The lowest z of a box's corner particles (offsets half from its centre, body frame) for
    the bodies.csv row x: its centre and unit quaternion."""
    w, qx, qy, qz = (float(x[k]) for k in ("qw[-]", "qx[-]", "qy[-]", "qz[-]"))
    # the third row of the rotation matrix: z of R v
    r = (2 * (qx * qz - w * qy), 2 * (qy * qz + w * qx), 1 - 2 * (qx * qx + qy * qy))
    return float(x["z[m]"]) - sum(abs(r[k]) * half[k] for k in range(3))


def landing(d, density, body="1", B=0.2, H=0.2, D=None, floor=0.0, under=None, dp=0.02,
            t_rest=1.5, label="landing box"):
    """A box (B x H, 2-D, or B x D x H, 3-D; density) that lands under mDBC, from bodies.csv (the
    rows of `body`): the smallest gap between its lowest particle and the top particles of what
    it lands on (the floor or a fixed obstacle whose top face is at `floor`, or the floating box
    `under` = (its body number as a string, its H), whose top face is its centre + H/2), dp/2
    below that surface, over the whole run in dp, from the centre and the rotation (a box's
    particles fill it at dp/2 inside its faces); the mean offset of its bottom face from the
    geometric contact (bottom face on that surface) over t >= t_rest in dp; |vz| there; the
    fluid + contact force against the weight; whether statistics.csv's particle counts never
    change."""
    rows = [x for x in csv.DictReader(open(d + "/bodies.csv"))]
    r = [x for x in rows if x["body"] == body]
    top = {}
    if under:
        for x in rows:
            if x["body"] == under[0]:
                top[x["time[s]"]] = float(x["z[m]"]) + under[1] / 2
    unit = [k for k in r[0] if k.startswith("Fz[")][0]
    half = (B / 2 - dp / 2, (D or dp) / 2 - dp / 2, H / 2 - dp / 2)   # corner particles
    gap, off = [], []
    for x in r:
        surf = top[x["time[s]"]] if under else floor
        gap.append((lowest(x, half) - (surf - dp / 2)) / dp)
        if float(x["time[s]"]) >= t_rest:
            off.append((float(x["z[m]"]) - H / 2 - surf) / dp)
    last = [x for x in r if float(x["time[s]"]) >= t_rest]
    o = sum(off) / len(off)
    vz = max(abs(float(x["vz[m/s]"])) for x in last)
    fz = sum(float(x[unit]) for x in last) / len(last)
    W = density * B * H * (D or 1.0) * 9.81
    s = [x for x in csv.DictReader(open(d + "/statistics.csv"))]
    counts = set((x["n_fluid[-]"], x["n_bound[-]"]) for x in s)
    print("%s: lowest particle at least %.3f dp above the top particles below it; at rest from "
          "%.1f s: bottom face %+.4f dp from contact (spread %.4f dp), |vz| <= %.2g m/s, force "
          "%.2f %s against its weight %.2f (%+.2f %%); particle counts %s"
          % (label, min(gap), t_rest, o, max(off) - min(off), vz, fz, unit[3:-1], W,
             100 * (fz / W - 1), sorted(counts)))
    return min(gap), o, vz, fz / W - 1, len(counts) == 1
