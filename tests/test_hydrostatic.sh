#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Still water (cases/hydrostatic.yaml): after the initial transient, the pressure at each probe
# must be within 5 % of the hydrostatic rho0 * |g| * depth, depth measured from the probe to the
# initial free surface (the top of the fluid box).  Every gauge sample of the last third of the
# run is checked, not only their mean.  Probe positions, the fluid box, rho0, g and the end time
# are read from the run's used_parameters.yaml (the case as run, --dp included).
#
# usage: test_hydrostatic.sh TIDE_EXE SOURCE_ROOT [extra tide run options]
# Runs at dp = 0.02 (50 x 25 fluid particles, ~30 s on 2 cores) to the case's end time, 2 s.
# The output is kept in ./hydrostatic-run (the build directory under meson test).
set -eu
tide=$1
root=$2
shift 2
out=hydrostatic-run
rm -rf "$out"
py=/usr/bin/python3
[ -x "$py" ] || py=python3

"$tide" run "$root/cases/hydrostatic.yaml" --dp 0.02 --quiet --out "$out" "$@"

"$py" - "$out" <<'EOF'
import re, sys
import numpy as np

out = sys.argv[1]
used = open(out + "/used_parameters.yaml").read()

def num(key):
    m = re.search(r"^\s*" + key + r":\s*([-0-9.eE+]+)", used, re.M)
    if not m:
        sys.exit("cannot read %s from %s/used_parameters.yaml" % (key, out))
    return float(m.group(1))

dim = int(num("dim"))
rho0 = num("rho0")
t_end = float(re.search(r"time:\s*\{end:\s*([-0-9.eE+]+)", used).group(1))
grav = [float(v) for v in re.search(r"gravity:\s*\[([^\]]*)\]", used).group(1).split(",")]
g = float(np.linalg.norm(grav))
# initial free surface: top of the fluid boxes (z is the last coordinate, 2-D cases use [x, z])
fluid = used[used.index("fluid:"):used.index("obstacles:")]
tops = [float(m.group(1).split(",")[-1]) for m in re.finditer(r"hi:\s*\[([^\]]*)\]", fluid)]
surface = max(tops)
press = used[used.index("  pressure:"):]
probes = [(m.group(1), [float(v) for v in m.group(2).split(",")])
          for m in re.finditer(r'\{name:\s*"([^"]+)",\s*at:\s*\[([^\]]*)\]\}', press)]
if not probes:
    sys.exit("no pressure probes in the case")

with open(out + "/gauges.csv") as f:
    header = f.readline().strip().split(",")
data = np.loadtxt(out + "/gauges.csv", delimiter=",", skiprows=1, ndmin=2)
t = data[:, 0]
if t[-1] < t_end * (1 - 1e-6) - 0.05:
    sys.exit("the run stopped at t = %g s, before the end %g s" % (t[-1], t_end))
late = t >= t[-1] * 2.0 / 3.0
print("hydrostatic: %d samples in the last third (t >= %.3f s), surface z = %g m, "
      "rho0 = %g, |g| = %g" % (late.sum(), t[-1] * 2 / 3, surface, rho0, g))
bad = 0
for name, at in probes:
    col = header.index(name + "[Pa]")
    depth = surface - at[-1]
    expect = rho0 * g * depth
    p = data[late, col]
    err = (p - expect) / expect
    worst = err[np.argmax(np.abs(err))]
    ok = np.all(np.abs(err) <= 0.05)
    print("  %-10s depth %.3f m: expected %8.2f Pa; last third mean %8.2f, min %8.2f, max "
          "%8.2f Pa; worst %+.2f %% %s" % (name, depth, expect, p.mean(), p.min(), p.max(),
          100 * worst, "ok" if ok else "FAIL (limit 5 %)"))
    if not ok:
        bad += 1
        i = np.argmax(np.abs(err))
        print("FAIL: probe %s at depth %.3f m reads %.2f Pa at t = %.3f s, %+.2f %% from the "
              "hydrostatic %.2f Pa" % (name, depth, p[i], t[late][i], 100 * err[i], expect))
sys.exit(1 if bad else 0)
EOF

# statistics.csv: the fluid mass (and fluid count) never changes, not even in the last digit;
# after the transient (last third) the kinetic energy is below 1e-4 of the potential energy
# m g z; the total (kinetic + potential + Tait elastic) energy does not grow (viscosity and
# diffusion only take energy out; 1e-6 relative allowed for float rounding).
"$py" - "$out" <<'EOF2'
import sys
import numpy as np
out = sys.argv[1]
with open(out + "/statistics.csv") as f:
    header = f.readline().strip().split(",")
d = np.loadtxt(out + "/statistics.csv", delimiter=",", skiprows=1, ndmin=2)
col = lambda name: d[:, [h.split("[")[0] for h in header].index(name)]
t, mass, nf = col("time"), col("fluid_mass"), col("n_fluid")
ek, ep, etot = col("E_kin"), col("E_pot"), col("E_total")
units = [h for h in header if "[" not in h]
if units:
    sys.exit("FAIL: statistics.csv columns without units: %s" % units)
if np.any(mass != mass[0]) or np.any(nf != nf[0]):
    sys.exit("FAIL: fluid mass or count changed: mass %r .. %r, count %r .. %r"
             % (mass.min(), mass.max(), nf.min(), nf.max()))
late = t >= t[-1] * 2.0 / 3.0
ratio = (ek[late] / ep[late]).max()
print("statistics: %d rows, fluid mass %.17g constant; last third E_kin/E_pot <= %.3g; "
      "E_total %.9g -> %.9g" % (len(t), mass[0], ratio, etot[0], etot[-1]))
if not ratio < 1e-4:
    sys.exit("FAIL: kinetic energy %.3g of the potential energy after the transient" % ratio)
if np.any(etot > etot[0] * (1 + 1e-6)):
    sys.exit("FAIL: total energy grew from %.9g to %.9g" % (etot[0], etot.max()))
EOF2
