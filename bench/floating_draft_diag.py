# SPDX-License-Identifier: LGPL-2.1-or-later
"""Diagnostics of the floating box's draft (tests/data/floating_box.yaml, 2-D, cubic spline,
h = 2 dp), the figures of bench/results/cpu-2core/floating_draft_convergence.md:

  rows RUN DP     the pressure force of the fluid on the box at the last particle file, recomputed
                  from the pair terms m_b m_f (p_b / rho_b^2 + p_f / rho_f^2) grad W (viscosity
                  left out: the box is nearly at rest) and split by rows of the box's particles;
  ideal DP [D]    the same sum for an ideal hydrostatic lattice of water (surface, i.e. top
                  centre + dp/2, at 0.4 m) around the box at draft D (default 0.1 m), the box's
                  pressures the hydrostatic ones at its particles (0 above the water): what the
                  scheme's force would be with exact pressures, against rho0 g D B;
  level RUN DP    the level that the fluid's volume sum m / rho gives (tank 1 m wide, floor at
                  z = 0; the box's submerged part (level - bottom) B taken out) against the
                  gauges' level, at the last three particle files.

Reads the particle files with tests/vtp_points.py (run with PYTHONPATH=tests)."""
import csv
import sys
import numpy as np
from vtp_points import read_vtp, pvd_times

RHO0, G, B, H = 1000.0, 9.81, 0.2, 0.2


def grad_f(dp, r):
    """F(r) of grad W = F r_ij for the 2-D cubic spline with h = 2 dp."""
    h = 2 * dp
    q = r / h
    aw = 10 / (7 * np.pi * h * h)
    return np.where(q < 1, -3 * q + 2.25 * q * q, -0.75 * (2 - q) ** 2) * aw / h / r


def pair_fz(dp, xb, zb, pb, rhob, xf, zf, pf, rhof):
    """z-force on one body particle at (xb, zb) from the fluid particles: (p_b term, p_f term)."""
    m = RHO0 * dp * dp
    dx, dz = xb - xf, zb - zf
    r = np.hypot(dx, dz)
    s = r < 4 * dp
    F = grad_f(dp, r[s])
    tb = -m * m * np.sum(pb / rhob ** 2 * F * dz[s])
    tf = -m * m * np.sum(pf[s] / rhof[s] ** 2 * F * dz[s])
    return tb, tf


def gauge_level(d, t):
    rows = list(csv.DictReader(open(d + "/gauges.csv")))
    r = min(rows, key=lambda x: abs(float(x["time[s]"]) - t))
    return (float(r["L[m]"]) + float(r["R[m]"])) / 2, r


def rows(d, dp):
    t, f = pvd_times(d + "/particles.pvd")[-1]
    a = read_vtp(d + "/" + f)
    P = a["Points"].astype(float)
    x, z = P[:, 0], P[:, 2]
    p, rho = a["Pressure"].astype(float), a["Density"].astype(float)
    fl = np.where(a["Type"] == 0)[0]
    bb = np.where(a["Body"] == 1)[0]
    z0 = z[bb].min()
    row = np.round((z[bb] - z0) / dp).astype(int)
    fz = np.array([pair_fz(dp, x[i], z[i], p[i], rho[i], x[fl], z[fl], p[fl], rho[fl]) for i in bb])
    lv, _ = gauge_level(d, t)
    print("t = %.3f s: gauge level %.5f m, box bottom %.5f m; Fz %.2f N/m (p_b terms %.2f, p_f "
          "terms %.2f), weight %.2f N/m" % (t, lv, z0 - dp / 2, fz.sum(), fz[:, 0].sum(),
                                            fz[:, 1].sum(), 500 * B * H * G))
    for k in range(row.max() + 1):
        s = row == k
        print("  row %2d z %.4f m: Fz %7.2f (p_b %6.2f, p_f %6.2f), p_b mean %6.1f Pa"
              % (k, z[bb][s].mean(), fz[s].sum(), fz[s, 0].sum(), fz[s, 1].sum(), p[bb][s].mean()))
    print("  rows with centres above the level: Fz %.2f N/m" % fz[z[bb] > lv].sum())


def ideal(dp, D=0.1):
    L = 0.4
    zb = L - D
    n = int(round(B / dp))
    bx = -B / 2 + (np.arange(n) + 0.5) * dp
    bz = zb + (np.arange(int(round(H / dp))) + 0.5) * dp
    fx = -B / 2 + (np.arange(-int(0.5 / dp), int(0.5 / dp) + n) + 0.5) * dp
    fz = L - dp / 2 - np.arange(int(0.35 / dp)) * dp
    FX, FZ = (v.ravel() for v in np.meshgrid(fx, fz))
    keep = ~((FX > -B / 2) & (FX < B / 2) & (FZ > zb - 1e-12))
    FX, FZ = FX[keep], FZ[keep]
    pf, rf = RHO0 * G * (L - FZ), np.full(FX.shape, RHO0)
    tot = 0.0
    for k, z0 in enumerate(bz):
        s = sum(sum(pair_fz(dp, x0, z0, max(RHO0 * G * (L - z0), 0.0), RHO0, FX, FZ, pf, rf))
                for x0 in bx)
        tot += s
        print("  row %2d (centre %.3f m above the bottom): Fz %.2f N/m" % (k, z0 - zb, s))
    A = RHO0 * G * D * B
    print("ideal lattice, dp %g, draft %g m: Fz %.2f N/m, rho0 g D B %.2f N/m (%+.2f %%)"
          % (dp, D, tot, A, 100 * (tot / A - 1)))


def level(d, dp):
    for t, f in pvd_times(d + "/particles.pvd")[-3:]:
        a = read_vtp(d + "/" + f)
        fl = a["Type"] == 0
        V = np.sum(RHO0 * dp * dp / a["Density"][fl].astype(float))
        lg, r = gauge_level(d, t)
        if "B1z[m]" in r:
            zb = float(r["B1z[m]"]) - H / 2
            lv = (V - zb * B) / (1 - B)
            print("t %.2f s: volume level %.5f m, gauges %.5f m (%+.2f mm); draft from the volume "
                  "level %+.2f %%, from the gauges %+.2f %%" % (t, lv, lg, 1000 * (lg - lv),
                                                               100 * ((lv - zb) / 0.1 - 1),
                                                               100 * ((lg - zb) / 0.1 - 1)))
        else:
            print("t %.2f s: volume level %.5f m, gauges %.5f m (%+.2f mm)" % (t, V, lg, 1000 * (lg - V)))


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("rows", "ideal", "level"):
        sys.exit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "ideal":
        ideal(*(float(v) for v in args))
    else:
        {"rows": rows, "level": level}[cmd](args[0], float(args[1]))
