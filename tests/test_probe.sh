#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tide probe on a real run: still water (cases/hydrostatic.yaml at dp 0.02, 1 s, an output every
# 0.1 s) probed along a vertical line at mid-width.
#  - pressure within 5 % of rho0 |g| (H - z) at the interior points (2h or more from the floor
#    and from the surface; H, rho0, g, dp, coefh read from used_parameters.yaml) in every
#    snapshot of the second half, velocity below 5 cm/s, the water height within dp of H, and no
#    fluid (nfluid 0, empty fields) above the surface;
#  - every probed value (the line and the case's own pressure probes, every snapshot) equals an
#    independent brute-force Shepard sum over the particles of the .vtp (tests/sph_reference.py),
#    and the water height that reference's free surface within dp/2;
#  - --time picks the nearest snapshot, --last the last one, a lone .vtp gets its time from the
#    .pvd, --points-file and -o work;
#  - exit codes: 2 for a truncated .vtp, a missing input, no points, a bad point; 1 when the
#    output cannot be written; each with a message naming the file.
# usage: test_probe.sh TIDE_EXE SOURCE_ROOT
set -eu
tide=$(realpath "$1")
root=$(realpath "$2")
# a fresh folder of its own (a run is not written over an earlier one), removed when every check
# passed (kept for inspection otherwise)
work=$(mktemp -d "${TMPDIR:-/tmp}/tide-probe.XXXXXX")
echo "probe_run in $work"
cd "$work"
out=probe-run
py=/usr/bin/python3
[ -x "$py" ] || py=python3
fail() { echo "FAIL: $*"; exit 1; }

"$tide" run "$root/cases/hydrostatic.yaml" --dp 0.02 --set time.end=1.0 --set time.output=0.1 \
	--quiet --out "$out"

"$tide" probe "$out" --line 0.5,0.02:0.5,0.58:15 --height -o probe-line.csv
"$py" - "$out" probe-line.csv <<'EOF'
import csv, re, sys
out, path = sys.argv[1], sys.argv[2]
used = open(out + "/used_parameters.yaml").read()
num = lambda key: float(re.search(r"^\s*" + key + r":\s*([-0-9.eE+]+)", used, re.M).group(1))
rho0, dp, coefh = num("rho0"), num("dp"), num("coefh")
g = sum(float(v) ** 2 for v in re.search(r"gravity:\s*\[([^\]]*)\]", used).group(1).split(",")) ** 0.5
fluid = used[used.index("fluid:"):used.index("obstacles:")]
H = max(float(m.group(1).split(",")[-1]) for m in re.finditer(r"hi:\s*\[([^\]]*)\]", fluid))
h = coefh * dp
rows = list(csv.DictReader(open(path)))
want = ["time[s]", "x[m]", "y[m]", "z[m]", "nfluid[-]", "vx[m/s]", "vy[m/s]", "vz[m/s]", "p[Pa]",
        "rho[kg/m^3]", "H[m]"]
if list(rows[0].keys()) != want:
    sys.exit("FAIL: header %s, want %s" % (list(rows[0].keys()), want))
times = sorted({float(r["time[s]"]) for r in rows})
if len(times) != 11 or len(rows) != 11 * 15:
    sys.exit("FAIL: %d snapshots and %d rows, want 11 and 165" % (len(times), len(rows)))
worst, checked = 0.0, 0
for r in rows:
    t, z, nf = float(r["time[s]"]), float(r["z[m]"]), int(r["nfluid[-]"])
    top = H - dp / 2  # the top particle layer
    if z >= top + 2 * h - 1e-9:
        if nf != 0 or any(r[k] for k in want[5:10]):
            sys.exit("FAIL: fluid found at z = %g, 2h above the top layer %g: %s" % (z, top, r))
        continue
    if z > top:
        continue  # within the support above the surface: some fluid or none
    if nf == 0:
        sys.exit("FAIL: no fluid at z = %g, below the surface %g: %s" % (z, H, r))
    if abs(float(r["H[m]"]) - H) > dp:
        sys.exit("FAIL: water height %s m at t = %g, fill height %g m" % (r["H[m]"], t, H))
    if t < 0.5 or z < 2 * h or z > H - 2 * h:
        continue
    expect = rho0 * g * (H - z)
    err = (float(r["p[Pa]"]) - expect) / expect
    speed = sum(float(r[k]) ** 2 for k in ("vx[m/s]", "vy[m/s]", "vz[m/s]")) ** 0.5
    worst = max(worst, abs(err))
    checked += 1
    if abs(err) > 0.05 or speed > 0.05:
        sys.exit("FAIL: t = %g z = %g: p = %s Pa, hydrostatic %.2f Pa (%+.2f %%), |v| = %.3g m/s"
                 % (t, z, r["p[Pa]"], expect, 100 * err, speed))
print("probe line: %d interior samples (t >= 0.5 s), worst pressure error %.2f %% of rho0 g (H - z)"
      % (checked, 100 * worst))
if checked < 40:
    sys.exit("FAIL: only %d interior samples checked" % checked)
EOF

# Every probed value against an independent evaluation: a brute-force Shepard sum over all the
# fluid particles of each snapshot, read from its .vtp by tests/sph_reference.py (numpy, double
# precision, the kernel written from its formula), at the line's points and at the case's own
# pressure probes: nfluid exactly (unless a particle lies within 1e-9 m of the 2h support), p
# within 1e-5 of |p| + rho0 g dp, rho within 1e-6 rho0, v within 1e-6 m/s, and the water height
# within dp/2 (the step of the gauges' height scan; + 0.1 % of dp for rounding at the lattice of
# t = 0, where the surface lies exactly on a scan point) of the first fall of the volume fraction
# through 1/2 above the floor.
pts=$("$py" - "$out" <<'EOF'
import re, sys
used = open(sys.argv[1] + "/used_parameters.yaml").read()
press = used[used.index("  pressure:"):]
print(" ".join("--point " + m.group(2).replace(" ", "")
               for m in re.finditer(r'\{name:\s*"([^"]+)",\s*at:\s*\[([^\]]*)\]\}', press)))
EOF
)
[ -n "$pts" ] || fail "no pressure probes in $out/used_parameters.yaml"
# shellcheck disable=SC2086
"$tide" probe "$out" $pts -o probe-gauges.csv
"$py" - "$root/tests" "$out" probe-line.csv probe-gauges.csv <<'EOF'
import csv, sys
sys.path.insert(0, sys.argv[1])
from sph_reference import Used, Shepard, read_vtp, snapshots
out = sys.argv[2]
u = Used(out)
snaps = snapshots(out)
pscale = u.rho0 * u.g * u.dp  # the pressure of one particle layer
worst = {"p": 0.0, "rho": 0.0, "v": 0.0, "H": 0.0}
counted = 0
for path in sys.argv[3:]:
    rows = list(csv.DictReader(open(path)))
    times = sorted({float(r["time[s]"]) for r in rows})
    if len(times) != len(snaps):
        sys.exit("FAIL: %s has %d snapshots, particles.pvd %d" % (path, len(times), len(snaps)))
    for t, vtp in snaps:
        rs = [r for r in rows if abs(float(r["time[s]"]) - t) <= 1e-7 * (1 + t)]
        if not rs:
            sys.exit("FAIL: %s has no row at t = %g (%s)" % (path, t, vtp))
        S = Shepard(u, read_vtp(vtp))
        heights = {}
        for r in rs:
            pt = (float(r["x[m]"]), float(r["y[m]"]), float(r["z[m]"]))
            n, tie, p, rho, v = S.sample(pt)
            nf = int(r["nfluid[-]"])
            where = "%s, t = %g, point %s" % (path, t, pt)
            if nf != n and tie > 1e-9:
                sys.exit("FAIL: %s: nfluid %d, brute force %d" % (where, nf, n))
            if n == 0 or nf == 0:
                if n == 0 and any(r[k] for k in ("vx[m/s]", "p[Pa]", "rho[kg/m^3]")):
                    sys.exit("FAIL: %s: no fluid within 2h but fields %s" % (where, r))
                continue
            ep = abs(float(r["p[Pa]"]) - p) / (abs(p) + pscale)
            er = abs(float(r["rho[kg/m^3]"]) - rho) / u.rho0
            ev = max(abs(float(r[k]) - v[i]) for i, k in enumerate(("vx[m/s]", "vy[m/s]", "vz[m/s]")))
            worst["p"], worst["rho"], worst["v"] = (max(worst["p"], ep), max(worst["rho"], er),
                                                    max(worst["v"], ev))
            if ep > 1e-5 or er > 1e-6 or ev > 1e-6:
                sys.exit("FAIL: %s: probe p %s rho %s v (%s, %s, %s); brute-force Shepard p %.6f "
                         "rho %.6f v (%.3g, %.3g, %.3g)" % (where, r["p[Pa]"], r["rho[kg/m^3]"],
                         r["vx[m/s]"], r["vy[m/s]"], r["vz[m/s]"], p, rho, v[0], v[1], v[2]))
            counted += 1
            if "H[m]" in r:
                key = (pt[0], pt[1])
                if key not in heights:
                    heights[key] = S.height(pt[0], pt[1])
                eh = abs(float(r["H[m]"]) - heights[key])
                worst["H"] = max(worst["H"], eh)
                if eh > 0.501 * u.dp:
                    sys.exit("FAIL: %s: water height %s m, own evaluation %.5f m (limit dp/2 = %g)"
                             % (where, r["H[m]"], heights[key], 0.5 * u.dp))
if counted < 100:
    sys.exit("FAIL: only %d probe values compared" % counted)
print("probe = brute-force Shepard sums over the .vtp at %d points x snapshots: worst p %.1e of "
      "|p| + rho0 g dp, rho %.1e rho0, v %.1e m/s, height %.2g m" % (counted, worst["p"],
      worst["rho"], worst["v"], worst["H"]))
EOF

# Snapshot selection, a lone .vtp, a points file, standard output.
row() { "$tide" probe "$@" --point 0.5,0.25 | sed -n 2p | cut -d, -f1; }
[ "$(row "$out" --time 0.27)" = "$(sed -n 5p "$out/gauges.csv" | cut -d, -f1)" ] ||
	fail "--time 0.27 does not pick the snapshot at 0.3 s"
[ "$(row "$out" --last)" = "$(tail -n 1 "$out/gauges.csv" | cut -d, -f1)" ] || fail "--last"
[ "$(row "$out/particles_0002.vtp")" = "$(sed -n 4p "$out/gauges.csv" | cut -d, -f1)" ] ||
	fail "a lone .vtp does not get its time from particles.pvd"
printf 'x[m],z[m]\n0.5,0.25\n# comment\n0.5 , 0.1\n' > probe-points.csv
n=$("$tide" probe "$out/particles.pvd" --last --points-file probe-points.csv | wc -l)
[ "$n" = 3 ] || fail "--points-file with 2 points gave $n lines"

# Bad input: exit code 2 and one sentence naming the file.
expect() {
	local code=$1 what=$2
	shift 2
	set +e
	msg=$("$tide" probe "$@" 2>&1 >/dev/null)
	rc=$?
	set -e
	[ "$rc" = "$code" ] || fail "tide probe $*: exit code $rc, want $code ($msg)"
	grep -q -- "$what" <<<"$msg" || fail "tide probe $*: message '$msg' does not name '$what'"
}
mkdir probe-bad
head -c 3000 "$out/particles_0003.vtp" > probe-bad/particles_0003.vtp
cp "$out/used_parameters.yaml" probe-bad/
expect 2 "probe-bad/particles_0003.vtp is truncated" probe-bad/particles_0003.vtp --point 0.5,0.2
expect 2 "nonexistent" nonexistent-run --point 0.5,0.2
expect 2 "no points" "$out"
expect 2 "'0.5'" "$out" --point 0.5
expect 2 "missing.yaml" "$out/particles_0001.vtp" --case probe-bad/missing.yaml --point 0.5,0.2
mkdir probe-bad/nocase
cp "$out/particles_0001.vtp" probe-bad/nocase/
expect 2 "used_parameters.yaml" probe-bad/nocase/particles_0001.vtp --point 0.5,0.2
expect 1 "probe-bad/no/such/dir" "$out" --point 0.5,0.2 -o probe-bad/no/such/dir/x.csv
echo "ok: tide probe line = analytic and brute-force references, snapshot selection, exit codes"
cd / && rm -rf "$work"
