#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Plane Poiseuille flow with the laminar viscosity (cases/poiseuille2d.yaml: periodic x, walls at
# z = 0 and z = H, body force g_x, nu): at steady state the analytic profile is
# u(z) = g_x / (2 nu) z (H - z).  Run on 2 blocks to t = 6 s (transient below 0.2 %) with the
# case's mDBC no-slip walls (physics.mdbc_slip: noslip), then with DBC walls.  Asserted over the
# fluid particles of the last three outputs (t >= 5 s):
#  - steady: the mean velocity changes by less than 1 % over the last second;
#  - the profile is a parabola: a least-squares fit u = a + b z + c z^2 leaves an RMS residual
#    below 1 % of the centre velocity;
#  - its curvature, -2c, is g_x / nu within 2 % (set by the viscous term alone, not by where the
#    walls hold the fluid: a wrong factor in the laminar term shows here; measured +1.4 %, the
#    same at dp = H/60: the laminar operator's error at this h/dp, not the walls');
#  - its vertex is at H/2 within dp/10 (the walls act alike);
#  - mdbc noslip: every particle's velocity within 2 % of u_c of the analytic profile with the
#    walls exactly at 0 and H (the issue's figure; measured max 1.5 %, RMS 1.2 %), the fitted
#    zeros within dp/10 of the wall surfaces (measured 0.01 dp);
#  - DBC (printed for comparison: 9.4 % max at dp = H/30, 5.4 % at H/60, first order in dp): its
#    no-slip plane sits a fraction of dp inside the wall, so its zeros lie within one dp outside
#    the walls' surfaces (measured 0.60 dp), and its error is above 5 % (what no-slip mDBC fixes);
#  - the 2-rank particle files of the mdbc run are identical to the 1-rank ones (ids conserved).
# Free slip (physics.mdbc_slip: freeslip, to t = 2 s): the walls exert no drag, so the channel
# accelerates as a plug: mean u within 1.5 % of g_x t (measured -0.7 %: the wall velocities are
# set once a step, a step behind) and its spread below 0.5 % of the mean at every output after
# the first; with noslip walls it would be ~8 times slower.
# usage: test_poiseuille.sh TIDE SRC_ROOT
set -euo pipefail
tide=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
case=$src/cases/poiseuille2d.yaml
export STARPU_NCPU=1
nice "$tide" run "$case" --blocks 2 --quiet --out "$work/mdbc"
nice "$tide" run "$case" --blocks 2 --quiet --out "$work/dbc" --set physics.boundary=dbc
nice "$tide" run "$case" --blocks 2 --quiet --out "$work/free" --set physics.mdbc_slip=freeslip \
	--set time.end=2
. "$src/tests/mpirun_cpu.sh"
if [ ${#mpi[@]} -gt 0 ]; then
	same_on_2_ranks "$tide" "$case" 2 "$work/mdbc" "$work/r2"
fi
py=/usr/bin/python3; [ -x "$py" ] || py=python3
PYTHONPATH=$src/tests "$py" - "$work" <<'PY'
import re, sys
import numpy as np
from vtp_points import read_vtp, pvd_times
work = sys.argv[1]
bad = 0
def params(d):
    used = open(d + "/used_parameters.yaml").read()
    def num(key):
        return float(re.search(r"^\s*" + key + r":\s*([-0-9.eE+]+)", used, re.M).group(1))
    gx = float(re.search(r"gravity:\s*\[([^,\]]+)", used).group(1))
    tank = re.search(r"tank: \{lo: \[([^\]]*)\], hi: \[([^\]]*)\]", used)
    z0, z1 = float(tank.group(1).split(",")[-1]), float(tank.group(2).split(",")[-1])
    slip = re.search(r"^\s*mdbc_slip:\s*(\w+)", used, re.M).group(1)
    bnd = re.search(r"^\s*boundary:\s*(\w+)", used, re.M).group(1)
    return num("nu"), num("dp"), gx, z0, z1 - z0, bnd, slip
for run in ("mdbc", "dbc"):
    d = work + "/" + run
    nu, dp, gx, z0, H, bnd, slip = params(d)
    if (bnd, slip) != ((run, "noslip") if run == "mdbc" else ("dbc", "noslip")):
        print("FAIL %s: used_parameters.yaml says boundary %s, mdbc_slip %s" % (run, bnd, slip))
        bad += 1
    uc = gx * H * H / (8 * nu)
    frames = [f for f in pvd_times(d + "/particles.pvd") if f[0] >= 5.0 - 1e-9]
    means = []
    for t, f in frames:
        p = read_vtp(d + "/" + f)
        fl = p["Type"] == 0
        z, u = p["Points"][fl, 2] - z0, p["Velocity"][fl, 0].astype(float)
        means.append(u.mean())
        c2, c1, c0 = np.polyfit(z, u, 2)
        res = np.sqrt(np.mean((np.polyval([c2, c1, c0], z) - u) ** 2)) / uc
        curv = -2 * c2 / (gx / nu)
        vertex = -c1 / (2 * c2)
        roots = np.sort(np.roots([c2, c1, c0]).real)
        ua = gx / (2 * nu) * z * (H - z)
        emax, erms = np.abs(u - ua).max() / uc, np.sqrt(np.mean((u - ua) ** 2)) / uc
        print("%s t = %.2f: fit residual %.2e u_c, curvature %.4f of g/nu, vertex %.3g dp from "
              "H/2, zeros at %.2f dp below the floor and %.2f dp above the roof; against the "
              "analytic profile with walls at 0 and H: max %.3f, RMS %.3f of u_c" % (run, t, res,
              curv, (vertex - H / 2) / dp, -roots[0] / dp, (roots[1] - H) / dp, emax, erms))
        ok = res < 0.01 and abs(curv - 1) < 0.02 and abs(vertex - H / 2) < 0.1 * dp
        if run == "mdbc":
            ok = ok and emax < 0.02 and abs(roots[0]) < 0.1 * dp and abs(roots[1] - H) < 0.1 * dp
        else:
            ok = ok and emax > 0.05 and -dp < roots[0] <= 0 and H <= roots[1] < H + dp
        if not ok:
            print("FAIL %s t = %.2f: profile outside the limits above" % (run, t))
            bad += 1
    drift = abs(means[-1] - means[0]) / abs(means[-1])
    print("%s: mean velocity over the last second: %.3g relative change" % (run, drift))
    if not drift < 0.01:
        print("FAIL %s: not steady (limit 1 %%)" % run)
        bad += 1
# free slip: a plug accelerating at g_x
d = work + "/free"
nu, dp, gx, z0, H, bnd, slip = params(d)
if slip != "freeslip":
    print("FAIL free: used_parameters.yaml says mdbc_slip %s" % slip)
    bad += 1
worst = spread = 0.0
for t, f in pvd_times(d + "/particles.pvd")[1:]:
    p = read_vtp(d + "/" + f)
    u = p["Velocity"][p["Type"] == 0, 0].astype(float)
    worst = max(worst, abs(u.mean() / (gx * t) - 1))
    spread = max(spread, u.std() / u.mean())
print("freeslip: mean u off g_x t by at most %.3g, spread at most %.3g of the mean" % (worst, spread))
if not (worst < 0.015 and spread < 0.005):
    print("FAIL freeslip: not a plug accelerating at g_x (limits 1.5 %, 0.5 %)")
    bad += 1
sys.exit(1 if bad else 0)
PY
