#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The SPS turbulence closure in a laminar flow: plane Poiseuille (cases/poiseuille2d.yaml, Re =
# 3) with physics.viscosity = laminar+sps, to t = 6 s on 2 blocks, beside the same case with
# laminar alone.  At this Reynolds number the closure must stay out of the way: its eddy
# viscosity nu_t = (C_s dp)^2 |du/dz| is 2e-4 nu at the walls.  Asserted over the fluid particles
# of the outputs at t >= 5 s:
#  - the profile within the laminar limits of test_poiseuille.sh: fit residual < 1 % of u_c,
#    curvature g/nu within 2 %, vertex at H/2 within dp/10, mean velocity steady within 1 %;
#  - the SPS stress is small: nu_t / nu from the fitted shear at the walls below 1e-3, and the
#    laminar+sps velocities equal the laminar run's within 1e-3 u_c particle by particle (an SPS
#    term of the wrong size, tau not divided by rho^2 for one, moves them by far more).
# And a short laminar+sps run (t = 0.3 s, the stress of one force pass read by the next across
# the block and rank faces) on 2 MPI ranks gives particle files identical to 1 rank, and 20
# steps, a checkpoint, a restart and 20 more give the particles of 40 steps bit for bit.
# usage: test_poiseuille_sps.sh TIDE SRC_ROOT
set -euo pipefail
tide=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
sed -e 's/^  viscosity: laminar$/  viscosity: laminar+sps/' -e 's/^name: poiseuille2d$/name: poiseuille2d_sps/' \
	"$src/cases/poiseuille2d.yaml" > "$work/sps.yaml"
grep -q '^  viscosity: laminar+sps$' "$work/sps.yaml" || { echo "FAIL: could not make the laminar+sps case"; exit 1; }
sed -e 's/^time: .*/time: {end: 0.3, output: 0.1}/' "$work/sps.yaml" > "$work/short.yaml"
export STARPU_NCPU=1
nice "$tide" run "$work/sps.yaml" --blocks 2 --quiet --out "$work/sps"
nice "$tide" run "$src/cases/poiseuille2d.yaml" --blocks 2 --quiet --out "$work/lam"
grep -q '^  viscosity: laminar+sps$' "$work/sps/used_parameters.yaml" ||
	{ echo "FAIL: the run did not use laminar+sps"; exit 1; }
. "$src/tests/mpirun_cpu.sh"
if [ ${#mpi[@]} -gt 0 ]; then
	nice "$tide" run "$work/short.yaml" --blocks 2 --quiet --out "$work/s1"
	same_on_2_ranks "$tide" "$work/short.yaml" 2 "$work/s1" "$work/s2"
else
	echo "no mpirun: the 2-rank comparison is not run"
fi
# a restart continues bit for bit: tau, which the next force pass reads, is in the checkpoint
ck=(run "$work/short.yaml" --blocks 2 --quiet --checkpoint-every 20steps)
nice "$tide" "${ck[@]}" --max-steps 40 --out "$work/c40"
nice "$tide" "${ck[@]}" --max-steps 20 --out "$work/c20"
nice "$tide" run --restart "$work/c20/checkpoint" --max-steps 40 --checkpoint-every 20steps --quiet
cmp "$work/c40/checkpoint/particles.bin" "$work/c20/checkpoint/particles.bin" ||
	{ echo "FAIL: 20 + 20 steps with a restart differ from 40 steps in one go"; exit 1; }
echo "ok: 20 steps, checkpoint, restart, 20 more = 40 steps (particles bit for bit)"
py=/usr/bin/python3; [ -x "$py" ] || py=python3
PYTHONPATH=$src/tests "$py" - "$work/sps" "$work/lam" <<'PY'
import re, sys
import numpy as np
from vtp_points import read_vtp, pvd_times
d, dl = sys.argv[1], sys.argv[2]
used = open(d + "/used_parameters.yaml").read()
def num(key):
    return float(re.search(r"^\s*" + key + r":\s*([-0-9.eE+]+)", used, re.M).group(1))
nu, dp, cs = num("nu"), num("dp"), num("sps_cs")
gx = float(re.search(r"gravity:\s*\[([^,\]]+)", used).group(1))
tank = re.search(r"tank: \{lo: \[([^\]]*)\], hi: \[([^\]]*)\]", used)
z0, z1 = float(tank.group(1).split(",")[-1]), float(tank.group(2).split(",")[-1])
H = z1 - z0
uc = gx * H * H / (8 * nu)
frames = [f for f in pvd_times(d + "/particles.pvd") if f[0] >= 5.0 - 1e-9]
bad, means = 0, []
for t, f in frames:
    p, q = read_vtp(d + "/" + f), read_vtp(dl + "/" + f)
    fl = p["Type"] == 0
    z, u = p["Points"][fl, 2] - z0, p["Velocity"][fl, 0].astype(float)
    means.append(u.mean())
    c2, c1, c0 = np.polyfit(z, u, 2)
    res = np.sqrt(np.mean((np.polyval([c2, c1, c0], z) - u) ** 2)) / uc
    curv = -2 * c2 / (gx / nu)
    vertex = -c1 / (2 * c2)
    shear = max(abs(c1), abs(2 * c2 * H + c1))          # |du/dz| at the walls
    ratio = (cs * dp) ** 2 * shear / nu
    ip, iq = np.argsort(p["Id"]), np.argsort(q["Id"])
    same_ids = np.array_equal(p["Id"][ip], q["Id"][iq])
    du = np.abs(p["Velocity"][ip, 0] - q["Velocity"][iq, 0]).max() / uc if same_ids else np.inf
    print("t = %.2f: fit residual %.2e u_c, curvature %.4f of g/nu, vertex %.3g dp from H/2; "
          "nu_t/nu at the walls %.2e; |u_sps - u_laminar| <= %.2e u_c" % (t, res, curv,
          (vertex - H / 2) / dp, ratio, du))
    if not (res < 0.01 and abs(curv - 1) < 0.02 and abs(vertex - H / 2) < 0.1 * dp):
        print("FAIL t = %.2f: profile outside the laminar limits" % t)
        bad += 1
    if not (ratio < 1e-3 and du < 1e-3):
        print("FAIL t = %.2f: the SPS stress is not small (limits 1e-3)" % t)
        bad += 1
drift = abs(means[-1] - means[0]) / abs(means[-1])
print("mean velocity over the last second: %.3g relative change" % drift)
if not drift < 0.01:
    print("FAIL: not steady (limit 1 %)")
    bad += 1
sys.exit(1 if bad else 0)
PY
