#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Plane Poiseuille flow with the laminar viscosity (cases/poiseuille2d.yaml: periodic x, DBC
# walls at z = 0 and z = H, body force g_x, nu): at steady state the analytic profile is
# u(z) = g_x / (2 nu) z (H - z).  Run on 2 blocks to t = 6 s (transient below 0.2 %), 1 rank and
# 2 MPI ranks.  Asserted over the fluid particles of the last three outputs (t >= 5 s):
#  - steady: the mean velocity changes by less than 1 % over the last second;
#  - the profile is a parabola: a least-squares fit u = a + b z + c z^2 leaves an RMS residual
#    below 1 % of the centre velocity;
#  - its curvature, -2c, is g_x / nu within 2 % (set by the viscous term alone, not by where the
#    walls hold the fluid: a wrong factor in the laminar term shows here);
#  - its vertex is at H/2 within dp/10 (the walls act alike);
#  - its zeros (where the fitted flow stops) lie within one dp outside the walls' surfaces: DBC's
#    no-slip plane sits a fraction of dp inside the wall, which is what keeps the profile from
#    the analytic one with walls exactly at 0 and H (that error, max and RMS relative to the
#    analytic centre velocity, is printed: 9.4 % max at dp = H/30, 5.4 % at H/60, first order
#    in dp; the 2 % of the issue needs no-slip walls, e.g. mDBC's mirrored velocities);
#  - the 2-rank particle files are identical to the 1-rank ones (ids conserved).
# usage: test_poiseuille.sh TIDE SRC_ROOT
set -euo pipefail
tide=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
case=$src/cases/poiseuille2d.yaml
export STARPU_NCPU=1
nice "$tide" run "$case" --blocks 2 --quiet --out "$work/r1"
. "$src/tests/mpirun_cpu.sh"
if [ ${#mpi[@]} -gt 0 ]; then
	same_on_2_ranks "$tide" "$case" 2 "$work/r1" "$work/r2"
fi
py=/usr/bin/python3; [ -x "$py" ] || py=python3
PYTHONPATH=$src/tests "$py" - "$work/r1" <<'PY'
import re, sys
import numpy as np
from vtp_points import read_vtp, pvd_times
d = sys.argv[1]
used = open(d + "/used_parameters.yaml").read()
def num(key):
    return float(re.search(r"^\s*" + key + r":\s*([-0-9.eE+]+)", used, re.M).group(1))
nu, dp = num("nu"), num("dp")
gx = float(re.search(r"gravity:\s*\[([^,\]]+)", used).group(1))
tank = re.search(r"tank: \{lo: \[([^\]]*)\], hi: \[([^\]]*)\]", used)
z0, z1 = float(tank.group(1).split(",")[-1]), float(tank.group(2).split(",")[-1])
H = z1 - z0
uc = gx * H * H / (8 * nu)
frames = [f for f in pvd_times(d + "/particles.pvd") if f[0] >= 5.0 - 1e-9]
bad, means = 0, []
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
    print("t = %.2f: fit residual %.2e u_c, curvature %.4f of g/nu, vertex %.3g dp from H/2, "
          "zeros at %.2f dp below the floor and %.2f dp above the roof; against the analytic "
          "profile with walls at 0 and H: max %.3f, RMS %.3f of u_c" % (t, res, curv,
          (vertex - H / 2) / dp, -roots[0] / dp, (roots[1] - H) / dp, emax, erms))
    if not (res < 0.01 and abs(curv - 1) < 0.02 and abs(vertex - H / 2) < 0.1 * dp and
            -dp < roots[0] <= 0 and H <= roots[1] < H + dp):
        print("FAIL t = %.2f: profile outside the limits above" % t)
        bad += 1
drift = abs(means[-1] - means[0]) / abs(means[-1])
print("mean velocity over the last second: %.3g relative change" % drift)
if not drift < 0.01:
    print("FAIL: not steady (limit 1 %)")
    bad += 1
sys.exit(1 if bad else 0)
PY
