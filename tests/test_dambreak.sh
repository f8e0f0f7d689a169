#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Martin & Moyce (1952) dam break (cases/dambreak2d.yaml, a = 0.2 m, n^2 = 2): the surge front
# Z = x/a against T = t sqrt(2g/a) from DIR/gauges.csv, linearly interpolated at the measured T,
# must be within TOL (relative) of the measurements of the a = 2.25 in series (only T <= 3 is
# compared: later the measured front is known to lag the inviscid solutions).  TOL is a little
# above what the scheme achieves at dp 0.01 (tests/meson.build; the same on 1, 3 and 6 blocks):
#   Verlet, cubic spline, no diffusion (dambreak): +2.3, +1.6, -5.1, -6.6 %  -> TOL 0.075
#   symplectic, Wendland, Fourtakas (dambreak_symplectic): +3.4, +4.2, +0.8, -0.7 %  -> TOL 0.05
#
# usage: test_dambreak.sh TIDE_EXE SOURCE_ROOT TOL [extra tide run options]
# Runs at dp = 0.01 (20 x 40 fluid particles, 3-10 s on 2 cores) to the case's end, T ~ 4.
# The output goes to a fresh temporary folder, removed when every check passed.
set -eu
tide=$1
root=$2
tol=$3
shift 3
work=$(mktemp -d "${TMPDIR:-/tmp}/tide-dambreak.XXXXXX")
echo "dambreak in $work"
out=$work/run
py=/usr/bin/python3
[ -x "$py" ] || py=python3

"$tide" run "$root/cases/dambreak2d.yaml" --dp 0.01 --quiet --out "$out" "$@"

"$py" - "$out" "$tol" <<'EOF'
import sys
import numpy as np

out, tol = sys.argv[1], float(sys.argv[2])
# Martin & Moyce 1952, a = 2.25 in, n^2 = 2
T_mm = [0.832, 1.219, 1.997, 2.547]
Z_mm = [1.217, 1.474, 2.292, 2.995]

with open(out + "/gauges.csv") as f:
    header = f.readline().strip().split(",")
data = np.loadtxt(out + "/gauges.csv", delimiter=",", skiprows=1, ndmin=2)
T = data[:, header.index("T[-]")]
Z = data[:, header.index("Z[-]")]
if T[-1] < max(T_mm):
    sys.exit("FAIL: the run stopped at T = %.3f, before the last measurement T = %.3f"
             % (T[-1], max(T_mm)))
if np.any(np.diff(T) <= 0):
    sys.exit("FAIL: T is not increasing in gauges.csv")
bad = 0
for tm, zm in zip(T_mm, Z_mm):
    z = float(np.interp(tm, T, Z))
    err = (z - zm) / zm
    ok = abs(err) <= tol
    print("  T = %.3f: Z = %.3f, Martin & Moyce %.3f, %+.1f %% %s"
          % (tm, z, zm, 100 * err, "ok" if ok else "FAIL (limit %g %%)" % (100 * tol)))
    bad += not ok
if bad:
    print("FAIL: %d of %d surge-front points differ from Martin & Moyce by more than %g %%"
          % (bad, len(T_mm), 100 * tol))
sys.exit(1 if bad else 0)
EOF
rm -rf "$work"
