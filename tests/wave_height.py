# SPDX-License-Identifier: LGPL-2.1-or-later
"""The wave height at a gauge of gauges.csv: usage wave_height.py GAUGES_CSV NAME T0 T1 H [TOL].
The zero up-crossings of the gauge's surface elevation about its mean over [T0, T1] cut it into
waves; each whole wave's height is its crest minus its trough (the highest and lowest samples,
refined by a parabola through the extreme sample and its neighbours).  Prints them and their
mean, and exits 1 if the mean is off the target H by more than TOL (relative, default 0.1)."""
import csv
import sys

path, name, t0, t1, H = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
tol = float(sys.argv[6]) if len(sys.argv) > 6 else 0.1
rows = list(csv.DictReader(open(path)))
key = name + "[m]"
ts = [float(r["time[s]"]) for r in rows if t0 <= float(r["time[s]"]) <= t1]
z = [float(r[key]) for r in rows if t0 <= float(r["time[s]"]) <= t1]
mean = sum(z) / len(z)
e = [v - mean for v in z]
ups = [i for i in range(1, len(e)) if e[i - 1] < 0 <= e[i]]


def peak(seg, sign):
    """The extreme of sign * seg, refined by the parabola through it and its neighbours."""
    j = max(range(len(seg)), key=lambda k: sign * seg[k])
    if 0 < j < len(seg) - 1:
        a, b, c = seg[j - 1], seg[j], seg[j + 1]
        den = a - 2 * b + c
        if den != 0:
            return b - (a - c) ** 2 / (8 * den)
    return seg[j]


heights = []
for a, b in zip(ups, ups[1:]):
    seg = z[a:b + 1]
    heights.append(peak(seg, 1) - peak(seg, -1))
if len(heights) < 2:
    print("FAIL: %s: %d whole waves in [%g, %g] s" % (name, len(heights), t0, t1))
    sys.exit(1)
hm = sum(heights) / len(heights)
dev = hm / H - 1
print("%s: %d waves in [%g, %g] s, heights %s m: mean %.4f m against the target H = %g m (%+.1f %%), "
      "mean level %.4f m" % (name, len(heights), t0, t1, " ".join("%.4f" % h for h in heights), hm, H,
                             100 * dev, mean))
if abs(dev) > tol:
    print("FAIL: %s: mean wave height %.4f m is off the target %g m by %+.1f %% (allowed %.0f %%)"
          % (name, hm, H, 100 * dev, 100 * tol))
    sys.exit(1)
