#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""bench/mirror_case.py CASE N OUT -- N copies of a tank case laid along x, every other one
mirrored, written as a new case file OUT.

Weak scaling by refinement (the multi-GPU paper's Fig. 11, bench/sph_scaling.sh --mode weak)
changes the work per particle as dp shrinks: the share of fluid against wall particles grows
(SPHERIC test 2: 50 % fluid at 224 k particles, 55 % at 402 k) and a fluid particle costs
several wall particles.  Copies of the same tank at the same dp keep the work per rank fixed,
which is the other usual meaning of weak scaling (--mode weak-copies).  Copy k occupies
[lo + k L, lo + (k+1) L] along x (L: the tank's length); odd copies are mirror images, so two
neighbours meet with their mirrored halves, fluid boxes that touch across the shared plane are
merged into one (no gap or double row of particles there) and the inner end walls disappear:
each copy's fluid then meets the next one's, which is what the halos of the cut carry.

Only the geometry is copied (tank, fluid boxes, obstacles, fluid_spheres); gauges are dropped
(benchmarks run with --no-output).  Needs PyYAML (Debian: python3-yaml)."""
import sys

try:
    import yaml
except ImportError:
    sys.exit("mirror_case.py: needs PyYAML (apt-get install python3-yaml)")


def x_copy(x, k, lo, L):
    """Where x of the tank [lo, lo + L] lies in copy k (odd copies mirrored)."""
    return x + k * L if k % 2 == 0 else lo + (k + 1) * L - (x - lo)


def box_copy(b, k, lo, L):
    """Copy k of an axis-aligned box {lo, hi}."""
    x0, x1 = sorted((x_copy(b["lo"][0], k, lo, L), x_copy(b["hi"][0], k, lo, L)))
    return dict(b, lo=[round(x0, 12)] + list(b["lo"][1:]), hi=[round(x1, 12)] + list(b["hi"][1:]))


def merge_touching(boxes):
    """Merge boxes that share a whole x face (same y and z extents, one's hi x = other's lo x)."""
    boxes = sorted(boxes, key=lambda b: b["lo"][0])
    out = []
    for b in boxes:
        p = out[-1] if out else None
        if p is not None and abs(p["hi"][0] - b["lo"][0]) < 1e-9 and p["lo"][1:] == b["lo"][1:] \
                and p["hi"][1:] == b["hi"][1:] and set(p) == set(b) == {"lo", "hi"}:
            p["hi"] = [b["hi"][0]] + p["hi"][1:]
        else:
            out.append(dict(b))
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: mirror_case.py CASE N OUT")
    src, n, dst = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if n < 1:
        sys.exit("mirror_case.py: N must be at least 1, not %d" % n)
    with open(src) as f:
        case = yaml.safe_load(f)
    if "tank" not in case:
        sys.exit("mirror_case.py: %s has no tank: only tank cases can be copied" % src)
    tank = case["tank"]
    lo, hi = tank["lo"][0], tank["hi"][0]
    L = hi - lo
    tank["hi"] = [round(lo + n * L, 12)] + list(tank["hi"][1:])
    if case.get("fluid"):
        case["fluid"] = merge_touching([box_copy(b, k, lo, L) for k in range(n) for b in case["fluid"]])
    if case.get("obstacles"):
        case["obstacles"] = [box_copy(b, k, lo, L) for k in range(n) for b in case["obstacles"]]
    if case.get("fluid_spheres"):
        case["fluid_spheres"] = [dict(b, centre=[x_copy(b["centre"][0], k, lo, L)] + list(b["centre"][1:]))
                                 for k in range(n) for b in case["fluid_spheres"]]
    case.pop("gauges", None)
    case["name"] = "%s_x%d" % (case.get("name", "case"), n)
    case["description"] = "%d mirrored copies along x of %s (bench/mirror_case.py)" % (n, src)
    with open(dst, "w") as f:
        f.write("# SPDX-License-Identifier: LGPL-2.1-or-later\n")
        f.write("# written by bench/mirror_case.py from %s (%d copies)\n" % (src, n))
        yaml.safe_dump(case, f, default_flow_style=None, sort_keys=False)


if __name__ == "__main__":
    main()
