#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Water settling to hydrostatic pressure: the still-water tank of cases/hydrostatic.yaml with
# its fluid box cut into 5 horizontal slabs 0.1 m thick.  Each slab starts with the hydrostatic
# density of its own top (case-format.md: a box's initial density is that of the depth below its
# top), so the water starts at rest but far from equilibrium: the pressure at depth d is only
# rho0 |g| (d mod 0.1 m), 50-88 % below rho0 |g| d at the probes.  The lower slabs must compress
# under the weight of the upper ones and the pressure waves die out.  Asserted:
#  - the start is off: at every probe the first sample of gauges.csv (t = 0) is more than the
#    tolerance away from rho0 |g| d (else the test could not tell a frozen run from a settled one);
#  - it settles: every gauge sample of the last third of the run is within the tolerance, 5 %, of
#    rho0 |g| d, d measured from the probe to the free surface (the top of the fluid), and their
#    mean within 1 % (measured at dp 0.02: worst sample 3.2 %, means within 0.15 %; the waves
#    still ring by a few percent at 2 s);
#  - it changed: at every probe the last third differs from the first sample by more than the
#    tolerance of rho0 |g| d;
#  - statistics.csv: fluid mass and count constant, the kinetic energy below 1e-4 of the potential
#    energy in the last third, the total energy never above its start.
# Probe positions, the fluid box, rho0, g and the end time are read from the run's
# used_parameters.yaml (the case as run, --dp included).
#
# usage: test_hydrostatic.sh TIDE_EXE SOURCE_ROOT [extra tide run options]
# Runs at dp = 0.02 (50 x 25 fluid particles, ~10 s on 2 cores) to the case's end time, 2 s.
# The output goes to a fresh temporary folder, removed when every check passed.
set -eu
tide=$1
root=$2
shift 2
work=$(mktemp -d "${TMPDIR:-/tmp}/tide-hydrostatic.XXXXXX")
echo "hydrostatic in $work"
out=$work/run
py=/usr/bin/python3
[ -x "$py" ] || py=python3

# the case: cases/hydrostatic.yaml with the one fluid box as 5 slabs
"$py" - "$root/cases/hydrostatic.yaml" "$work/hydrostatic_slabs.yaml" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"^fluid:\n  - \{lo: \[([^\]]*)\], hi: \[([^\]]*)\]\}\n", text, re.M)
if not m:
    sys.exit("%s: expected one fluid box" % sys.argv[1])
lo = [float(v) for v in m.group(1).split(",")]
hi = [float(v) for v in m.group(2).split(",")]
n = 5
slabs = "".join("  - {lo: [%r, %r], hi: [%r, %r]}\n" % (lo[0], lo[1] + (hi[1] - lo[1]) * k / n, hi[0],
                lo[1] + (hi[1] - lo[1]) * (k + 1) / n) for k in range(n))
text = text[:m.start()] + "fluid:\n" + slabs + text[m.end():]
text = re.sub(r"^name: .*$", "name: hydrostatic_slabs", text, flags=re.M)
open(sys.argv[2], "w").write(text)
EOF

"$tide" run "$work/hydrostatic_slabs.yaml" --dp 0.02 --quiet --out "$out" "$@"

TOL=0.05 TOL_MEAN=0.01
"$py" - "$out" "$TOL" "$TOL_MEAN" <<'EOF'
import re, sys
import numpy as np

out, tol, tol_mean = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
used = open(out + "/used_parameters.yaml").read()

def num(key):
    m = re.search(r"^\s*" + key + r":\s*([-0-9.eE+]+)", used, re.M)
    if not m:
        sys.exit("cannot read %s from %s/used_parameters.yaml" % (key, out))
    return float(m.group(1))

rho0 = num("rho0")
t_end = float(re.search(r"time:\s*\{end:\s*([-0-9.eE+]+)", used).group(1))
grav = [float(v) for v in re.search(r"gravity:\s*\[([^\]]*)\]", used).group(1).split(",")]
g = float(np.linalg.norm(grav))
# free surface: top of the fluid boxes (z is the last coordinate, 2-D cases use [x, z])
fluid = used[used.index("fluid:"):used.index("obstacles:")]
tops = [float(m.group(1).split(",")[-1]) for m in re.finditer(r"hi:\s*\[([^\]]*)\]", fluid)]
if len(tops) < 2:
    sys.exit("FAIL: the case as run has %d fluid box(es), not the slabs" % len(tops))
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
if t[0] != 0.0:
    sys.exit("FAIL: gauges.csv starts at t = %g, not with the initial state" % t[0])
if t[-1] < t_end * (1 - 1e-6) - 0.05:
    sys.exit("the run stopped at t = %g s, before the end %g s" % (t[-1], t_end))
late = t >= t[-1] * 2.0 / 3.0
print("hydrostatic (slabs): %d samples in the last third (t >= %.3f s), surface z = %g m, "
      "rho0 = %g, |g| = %g, tolerance %g %%" % (late.sum(), t[-1] * 2 / 3, surface, rho0, g,
      100 * tol))
bad = 0
for name, at in probes:
    col = header.index(name + "[Pa]")
    depth = surface - at[-1]
    expect = rho0 * g * depth
    p0, p = data[0, col], data[late, col]
    err = (p - expect) / expect
    worst = err[np.argmax(np.abs(err))]
    start_off = abs(p0 - expect) > tol * expect
    settled = bool(np.all(np.abs(err) <= tol)) and abs(p.mean() - expect) <= tol_mean * expect
    changed = bool(np.all(np.abs(p - p0) > tol * expect))
    print("  %-8s depth %.3f m: expected %8.2f Pa; start %8.2f (%+.1f %%); last third mean %8.2f, "
          "min %8.2f, max %8.2f Pa, worst %+.2f %%" % (name, depth, expect, p0,
          100 * (p0 - expect) / expect, p.mean(), p.min(), p.max(), 100 * worst))
    if not start_off:
        print("FAIL: probe %s starts at %.2f Pa, already within %g %% of the hydrostatic %.2f Pa: "
              "the test cannot tell a frozen run from a settled one" % (name, p0, 100 * tol, expect))
    if not settled:
        i = np.argmax(np.abs(err))
        print("FAIL: probe %s at depth %.3f m reads %.2f Pa at t = %.3f s, %+.2f %% from the "
              "hydrostatic %.2f Pa, last third mean %+.2f %% (limits %g %%, mean %g %%)"
              % (name, depth, p[i], t[late][i], 100 * err[i], expect,
                 100 * (p.mean() - expect) / expect, 100 * tol, 100 * tol_mean))
    if not changed:
        print("FAIL: probe %s: the last third is within %g %% of rho0 g d of the start %.2f Pa"
              % (name, 100 * tol, p0))
    bad += (not start_off) + (not settled) + (not changed)
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
rm -rf "$work"
