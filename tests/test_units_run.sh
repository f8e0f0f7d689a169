#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A gas case in cgs runs in internal units (src/case_units.h): cases/sp_tl.yaml (cgs, 1.1e5
# particles at its dp; here dp 6e16 cm, about 520) against the same collapse written in code
# units equal to those internal units (length 1.2e18 cm, the domain's side; mass rho0 L^3; G = 1),
# its values computed here from the cgs ones.  The two runs must be the same run, the cgs one's
# outputs converted back to cgs: every array of every .vtp file is the code run's times its unit
# (2e-6: float rounding), run_summary's t_sim, h and Jeans figures likewise, the log's Jeans
# lines (4 digits); the cgs run's used_parameters.yaml keeps units cgs and its values, its log
# names the internal units.  A restart of the cgs run goes on as the uninterrupted run; a run
# started from the cgs run's SWIFT snapshot (initial.file) goes on as the cgs run; Sod's tube in
# SI equals its code-unit run.  (Before the conversion back, the .vtp files were equal byte for
# byte: the same run.)  A case in cgs used to stop at its first step (h^3 overflows
# a float).
# Every output of the cgs run is in cgs: with gauges (a height line, two pressure points, a
# velocity point, given in cm) and .h5 files beside the .vtp, gauges.csv, statistics.csv and
# every .h5 dataset and attribute (h5_arrays, the 2nd argument, prints them; without HDF5 that
# part is left out) equal the code twin's times their unit column by column (2e-6), the
# headers and the .h5 "units" attributes name cgs units, the .xmf and .pvd times are in s, the
# progress lines' t, dt and vmax too; the restart's gauges.csv and statistics.csv are the
# uninterrupted run's (cut back at the checkpoint's time in s).
set -euo pipefail
tide=$1
h5arr=${2:-}
fmt=vtp
[ -n "$h5arr" ] && fmt=both
here=$(cd "$(dirname "$0")" && pwd)
cases=$here/../cases
dir=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$dir"' EXIT
steps=6
# the cgs case's internal units and its values in them (as src/case_units.c computes them)
awk 'BEGIN {
	L = 1.2e18; rho = 1.76e-18; G = 6.674e-8; M = rho * L ^ 3; T = sqrt(L * L * L / (G * M));
	d = L ^ -3 * M; v = L ^ 1 * T ^ -1;
	printf "name: sp_tl_internal\ndim: 3\ndp: %.17g\nunits: code\n", 6e16 / L;
	printf "domain: {lo: [%.17g, %.17g, %.17g], hi: [%.17g, %.17g, %.17g]}\n", -6e17 / L, -6e17 / L, -6e17 / L, 6e17 / L, 6e17 / L, 6e17 / L;
	printf "fluid_spheres:\n  - {centre: [0, 0, 0], radius: %.17g}\n", 3e17 / L;
	printf "physics:\n  scheme: gas\n  rho0: %.17g\n  gravity: [0, 0, 0]\n  cfl: 0.3\n  self_gravity: {theta: 0.5}\n", rho / d;
	printf "gas:\n  eos: isothermal\n  cs: %.17g\n  u: %.17g\n", 2.678e4 / v, 1 / (L ^ 2 * T ^ -2);  # the default u = 1 erg/g
	printf "turbulence: {mach: 2, slope: -4, solenoidal: 0.5, seed: 1, grid: 64}\n";
	printf "sinks: {density_threshold: %.17g, accretion_radius: %.17g}\n", 1.76e-14 / d, 1.11e15 / L;
	printf "time: {end: %.17g, output: %.17g}\noutput: {format: '"$fmt"'}\n", 1.2e12 / T, 3e9 / T;
	printf "gauges:\n  height: [{name: H, at: [%.17g, %.17g]}]\n", 1e16 / L, -2e16 / L;
	printf "  pressure: [{name: P, at: [%.17g, 0, 0]}, {at: [%.17g, %.17g, %.17g]}]\n", 1e17 / L, -5e16 / L, 5e16 / L, 2e16 / L;
	printf "  velocity: [{name: V, at: [0, %.17g, 0]}]\n", 5e16 / L;
}' > "$dir/internal.yaml"
# the cgs case with the same gauges, in cm
{ cat "$cases/sp_tl.yaml"; cat <<'EOF'
gauges:
  height: [{name: H, at: [1.0e16, -2.0e16]}]
  pressure: [{name: P, at: [1.0e17, 0, 0]}, {at: [-5.0e16, 5.0e16, 2.0e16]}]
  velocity: [{name: V, at: [0, 5.0e16, 0]}]
EOF
} > "$dir/sp_tl_gauges.yaml"
run() { # case out [options]
	local c=$1 o=$2; shift 2
	STARPU_NCPU=1 "$tide" run "$c" --blocks 2 --max-steps $steps --out "$dir/$o" "$@" > "$dir/$o.log" 2>&1 ||
		{ echo "FAIL: the run of $c failed:"; tail -n 5 "$dir/$o.log"; exit 1; }
}
run "$dir/sp_tl_gauges.yaml" cgs --dp 6e16 --set time.output=3e9 --set output.format=$fmt
run "$dir/internal.yaml" code
grep -q "units: the cgs case runs in internal units of 1.2e+18 cm" "$dir/cgs.log" ||
	{ echo "FAIL: the cgs run's log does not name its internal units"; grep -i units "$dir/cgs.log"; exit 1; }
grep -q "^units: cgs" "$dir/cgs/used_parameters.yaml" && grep -q "rho0: 1.76e-18" "$dir/cgs/used_parameters.yaml" ||
	{ echo "FAIL: used_parameters.yaml is not the case as given"; grep -n "units\|rho0" "$dir/cgs/used_parameters.yaml"; exit 1; }
head -1 "$dir/cgs/run_summary.csv" | grep -q ',dp\[cm\],h\[cm\],.*,jeans_mass_min\[g\],jeans_rho\[g/cm^3\],.*,sink_mass\[g\],' ||
	{ echo "FAIL: the cgs run's run_summary.csv header names no cgs units:"; head -1 "$dir/cgs/run_summary.csv"; exit 1; }
sed -n 2p "$dir/cgs/sinks.csv" | grep -q '^time\[s\],id,mass\[g\],x\[cm\],.*,vx\[cm/s\],.*,spin_x\[g cm^2/s\]' ||
	{ echo "FAIL: the cgs run's sinks.csv header names no cgs units:"; head -2 "$dir/cgs/sinks.csv"; exit 1; }
command -v python3 > /dev/null || { echo "SKIP: python3 is needed to compare the files"; exit 77; }
# the cgs run's outputs are the code-unit run's times the internal units (float rounding; the
# log's 4 digits)
# the arrays of a .vtp file (appended raw, as src/vtk_output.c writes it)
cat > "$dir/vtp.py" <<'PY'
import re, struct
def arrays(path):
    raw = open(path, "rb").read()
    start = raw.index(b'<AppendedData encoding="raw">')
    start = raw.index(b"_", start) + 1
    out = {}
    for m in re.finditer(rb'type="(\w+)" Name="(\w+)" NumberOfComponents="(\d)" format="appended" offset="(\d+)"', raw[:start]):
        t, name, off = m.group(1).decode(), m.group(2).decode(), int(m.group(4))
        n = struct.unpack_from("<Q", raw, start + off)[0]
        code = {"Float32": "f", "Float64": "d", "UInt8": "B", "UInt32": "I", "Int32": "i", "Int64": "q"}[t]
        out[name] = struct.unpack_from("<%d%s" % (n // struct.calcsize(code), code), raw, start + off + 8)
    return out
PY
python3 - "$dir" <<'PY'
import json, math, re, struct, sys
d = sys.argv[1]
sys.path.insert(0, d)
from vtp import arrays
L = 1.2e18; rho = 1.76e-18; G = 6.674e-8; M = rho * L ** 3; T = math.sqrt(L ** 3 / (G * M))
f = {"Velocity": L / T, "Density": M / L ** 3, "Pressure": M / (L * T * T), "InternalEnergy": (L / T) ** 2,
     "SmoothingLength": L, "SoundSpeed": L / T, "Points": L, "Type": 1, "Id": 1, "connectivity": 1,
     "offsets": 1}
bad = 0
def near(a, b, tol):
    return abs(a - b) <= tol * max(abs(a), abs(b), 1e-300)
import glob, os
files = sorted(glob.glob(d + "/code/particles_*.vtp"))
for p in files:
    a = arrays(d + "/cgs/" + os.path.basename(p)); b = arrays(p)
    for name, vals in b.items():
        worst = max((abs(x * f[name] - y) / max(abs(y), 1e-300) for x, y in zip(vals, a[name]) if y != 0 or x != 0), default=0)
        if worst > 2e-6:
            print(f"FAIL: {os.path.basename(p)} {name}: cgs differs from code x unit by {worst:.3g}"); bad = 1
s1 = json.load(open(d + "/cgs/run_summary.json")); s2 = json.load(open(d + "/code/run_summary.json"))
for k, fk in (("t_sim", T), ("jeans_mass_min", M), ("jeans_rho", M / L ** 3), ("h", L)):
    if not near(s1[k], s2[k] * fk, 1e-8 if k == "t_sim" else 1e-6):
        print(f"FAIL: run_summary {k}: cgs {s1[k]}, code {s2[k]} x {fk:.6g} = {s2[k] * fk}"); bad = 1
pat = re.compile(r"Jeans check at t = (\S+): least Jeans mass (\S+) at rho = (\S+), least M_J / \(N_ngb m_i\) (\S+)")
j1 = [tuple(map(float, m.groups())) for m in pat.finditer(open(d + "/cgs.log").read())]
j2 = [tuple(map(float, m.groups())) for m in pat.finditer(open(d + "/code.log").read())]
if len(j1) != len(j2) or not j1:
    print(f"FAIL: {len(j1)} Jeans lines in cgs, {len(j2)} in code units"); bad = 1
for x, y in zip(j1, j2):
    if not all(near(xi, yi * fi, 1e-3) for xi, yi, fi in zip(x, y, (T, M, M / L ** 3, 1))):
        print(f"FAIL: Jeans line cgs {x} against code {y}"); bad = 1
print(f"{len(files)} .vtp files, {len(j1)} Jeans lines, t_sim {s1['t_sim']:.6g} s = {s2['t_sim']:.6g} x {T:.6g} s")
sys.exit(bad)
PY
# gauges.csv, statistics.csv, the .h5 files, the series' times and the progress lines of the cgs
# run: the code twin's times their units, headers in cgs
python3 - "$dir" "$h5arr" <<'PY'
import csv, glob, math, os, re, subprocess, sys
d, h5arr = sys.argv[1], sys.argv[2]
L = 1.2e18; rho = 1.76e-18; G = 6.674e-8; M = rho * L ** 3; T = math.sqrt(L ** 3 / (G * M))
V = L / T
unit = {"s": T, "-": 1, "cm": L, "g": M, "cm/s": V, "g/cm^3": M / L ** 3, "dyn/cm^2": M / (L * T * T),
        "erg": M * V * V, "erg/g": V * V, "g cm/s": M * V, "1": 1}
bad = 0
def fail(msg):
    global bad
    print("FAIL: " + msg); bad = 1
def off(x, y):  # relative difference of the cgs value x and the code value times its unit y
    return 0.0 if x == y else abs(x - y) / max(abs(x), abs(y))
def table(path):
    rows = list(csv.reader(open(path)))
    return rows[0], [[float(v) for v in r] for r in rows[1:]]
worst = {}
for name, want in (("gauges.csv", ["time[s]", "H[cm]", "P[dyn/cm^2]", "P2[dyn/cm^2]", "Vx[cm/s]", "Vy[cm/s]", "Vz[cm/s]"]),
                   ("statistics.csv", ["time[s]", "step[-]", "dt[s]", "n_fluid[-]", "n_bound[-]", "fluid_mass[g]",
                                       "E_kin[erg]", "E_pot[erg]", "E_int[erg]", "E_total[erg]", "px[g cm/s]",
                                       "py[g cm/s]", "pz[g cm/s]", "v_max[cm/s]", "rho_min[g/cm^3]",
                                       "rho_max[g/cm^3]", "n_nbody[-]", "wall_per_step[s]"])):
    h1, r1 = table(f"{d}/cgs/{name}"); h2, r2 = table(f"{d}/code/{name}")
    if h1 != want:
        fail(f"the cgs run's {name} header is {','.join(h1)}, not {','.join(want)}")
        continue
    if len(r1) != len(r2) or len(r1) < 3:
        fail(f"{name}: {len(r1)} rows in cgs, {len(r2)} in code units"); continue
    for k, col in enumerate(h1):
        if col == "wall_per_step[s]": continue
        f = unit[col[col.index("[") + 1:-1]]
        w = max(off(a[k], b[k] * f) for a, b in zip(r1, r2))
        worst[f"{name[:-4]}:{col}"] = w
        if w > 2e-6: fail(f"{name} {col}: cgs differs from code x {f:.6g} by {w:.3g}")
print(f"gauges.csv, statistics.csv: {len(worst)} columns = code x unit, worst {max(worst.values(), default=0):.2g}")
# the series' times (.pvd, .xmf) in s
def times(path, pat):
    return [float(x) for x in re.findall(pat, open(path).read())]
for series, pat in (("particles.pvd", r'timestep="([^"]+)"'), ("particles.xmf", r'<Time Value="([^"]+)"')):
    if series == "particles.xmf" and not h5arr: continue
    t1 = times(f"{d}/cgs/{series}", pat); t2 = times(f"{d}/code/{series}", pat)
    if len(t1) != len(t2) or len(t1) < 3 or max(off(a, b * T) for a, b in zip(t1, t2)) > 1e-12:
        fail(f"{series}: the cgs times {t1[:4]} are not the code times {t2[:4]} x {T:.6g} s")
# the progress lines (the last one: the run's end): t (6 digits), dt and vmax (3 digits)
pat = re.compile(r"t = (\S+) / (\S+) s  step (\d+)  dt (\S+) s  \S+ steps/s  vmax (\S+) (\S+)")
p1 = pat.findall(open(f"{d}/cgs.log").read()); p2 = pat.findall(open(f"{d}/code.log").read())
if not p1 or not p2: fail("no progress line")
else:
    a, b = p1[-1], p2[-1]
    ok = a[5] == "cm/s" and off(float(a[0]), float(b[0]) * T) < 5e-4 and off(float(a[1]), float(b[1]) * T) < 1e-3
    ok = ok and off(float(a[3]), float(b[3]) * T) < 1e-2 and off(float(a[4]), float(b[4]) * V) < 1e-2
    if not ok: fail(f"progress line cgs {a} against code {b} (x {T:.6g} s, {V:.6g} cm/s)")
    else: print(f"progress line: t = {a[0]} s, dt {a[3]} s, vmax {a[4]} {a[5]}")
# the .h5 files: every dataset and attribute, its "units" attribute cgs
want_units = {"Position": "cm", "Velocity": "cm/s", "Density": "g/cm^3", "Pressure": "dyn/cm^2",
              "InternalEnergy": "erg/g", "SmoothingLength": "cm", "SoundSpeed": "cm/s", "Masses": "g",
              "Type": "1", "Id": "1", "Connectivity": "1"}
attr_unit = {"time": T, "dp": L, "h": L, "step": 1, "ranks": 1}
def dump(path):
    out = subprocess.run([h5arr, path], capture_output=True, text=True, check=True).stdout
    attrs, data = {}, {}
    for line in out.splitlines():
        w = line.split()
        if w[0][0] == "@": attrs[w[0][1:]] = float(w[1])
        else: data[w[0]] = (w[1], [float(x) for x in w[2:]])
    return attrs, data
nh5 = 0; hw = 0
for p in sorted(glob.glob(d + "/code/particles_*.h5")) if h5arr else []:
    a1, d1 = dump(d + "/cgs/" + os.path.basename(p)); a2, d2 = dump(p)
    nh5 += 1
    for k, f in attr_unit.items():
        if off(a1[k], a2[k] * f) > 1e-12: fail(f"{os.path.basename(p)} attribute {k}: cgs {a1[k]}, code {a2[k]} x {f:.6g}")
    if sorted(d1) != sorted(want_units) or sorted(d2) != sorted(want_units):
        fail(f"{os.path.basename(p)}: datasets {sorted(d1)} / {sorted(d2)}"); continue
    for name, (u, vals) in d1.items():
        if u != want_units[name]: fail(f"{os.path.basename(p)} {name}: units '{u}', not '{want_units[name]}'")
        f = unit[want_units[name]]
        other = d2[name][1]
        w = max(off(x, y * f) for x, y in zip(vals, other)) if len(vals) == len(other) else 1
        hw = max(hw, w)
        if w > 2e-6: fail(f"{os.path.basename(p)} {name}: cgs differs from code x {f:.6g} by {w:.3g}")
if h5arr:
    if nh5 < 3: fail(f"only {nh5} .h5 files")
    print(f"{nh5} .h5 files: every dataset and attribute = code x unit (worst {hw:.2g}), units attributes in cgs")
sys.exit(bad)
PY
# checkpoints keep the case as given (cgs) and the particles in the internal units: a restart
# converts the case again and goes on as the uninterrupted run
opts=(--dp 6e16 --set time.output=3e9 --set output.format=vtp --checkpoint-every 3steps --quiet)
STARPU_NCPU=1 "$tide" run "$dir/sp_tl_gauges.yaml" --blocks 2 --max-steps 6 "${opts[@]}" --out "$dir/full" > /dev/null 2>&1 ||
	{ echo "FAIL: the checkpointed cgs run failed"; exit 1; }
STARPU_NCPU=1 "$tide" run "$dir/sp_tl_gauges.yaml" --blocks 2 --max-steps 3 "${opts[@]}" --out "$dir/half" > /dev/null 2>&1 ||
	{ echo "FAIL: the first half failed"; exit 1; }
grep -q "^units: cgs" "$dir/half/checkpoint/used_parameters.yaml" ||
	{ echo "FAIL: the checkpoint's case is not the cgs one"; exit 1; }
STARPU_NCPU=1 "$tide" run --restart "$dir/half/checkpoint" --max-steps 6 --checkpoint-every 3steps --quiet > /dev/null 2>&1 ||
	{ echo "FAIL: the restart of the cgs run failed"; exit 1; }
cmp "$dir/full/checkpoint/particles.bin" "$dir/half/checkpoint/particles.bin" ||
	{ echo "FAIL: the restarted cgs run ends elsewhere than the uninterrupted one"; exit 1; }
cmp "$dir/full/particles_0006.vtp" "$dir/half/particles_0006.vtp" ||
	{ echo "FAIL: the restarted cgs run's last .vtp differs"; exit 1; }
cmp "$dir/full/gauges.csv" "$dir/half/gauges.csv" && cmp "$dir/full/particles.pvd" "$dir/half/particles.pvd" ||
	{ echo "FAIL: the restarted cgs run's gauges.csv or particles.pvd differs"; exit 1; }
cmp <(cut -d, -f1-17 "$dir/full/statistics.csv") <(cut -d, -f1-17 "$dir/half/statistics.csv") ||
	{ echo "FAIL: the restarted cgs run's statistics.csv differs"; exit 1; }
[ "$(wc -l < "$dir/full/gauges.csv")" = 8 ] || { echo "FAIL: $(wc -l < "$dir/full/gauges.csv") lines in gauges.csv, not 8"; exit 1; }
echo "restart: gauges.csv, statistics.csv and particles.pvd (in cgs) = the uninterrupted run's"
# initial.file from a cgs run's SWIFT snapshot (its Units group: the internal units in cgs)
# into the cgs case (its used_parameters.yaml less the sphere and the turbulence): the run goes
# on as the first one, its Jeans lines (in cgs) those of the cgs run above at the same times
STARPU_NCPU=1 "$tide" run "$cases/sp_tl.yaml" --blocks 2 --dp 6e16 --set time.output=3e9 --set output.format=swift \
	--max-steps 1 --quiet --out "$dir/snap" > /dev/null 2>&1 || { echo "FAIL: the cgs run with SWIFT snapshots"; exit 1; }
awk '/^turbulence:/ {skip = 1; next} skip && /^  / {next} {skip = 0} !/^fluid_spheres|^  - \{centre/' \
	"$dir/snap/used_parameters.yaml" > "$dir/from.yaml"
echo "initial: {file: $dir/snap/snapshot_0001.hdf5}" >> "$dir/from.yaml"
STARPU_NCPU=1 "$tide" run "$dir/from.yaml" --blocks 2 --max-steps 2 --set output.format=vtp --out "$dir/from" > "$dir/from.log" 2>&1 ||
	{ echo "FAIL: the run from the cgs snapshot:"; tail -3 "$dir/from.log"; exit 1; }
grep -o "Jeans check.*" "$dir/from.log" > "$dir/from.jeans"
grep -o "Jeans check.*" "$dir/cgs.log" | sed -n 2,4p > "$dir/cgs.jeans"
[ "$(wc -l < "$dir/from.jeans")" = 3 ] && cmp -s "$dir/from.jeans" "$dir/cgs.jeans" ||
	{ echo "FAIL: the run from the cgs snapshot does not go on as the cgs run:"; cat "$dir/from.jeans" "$dir/cgs.jeans"; exit 1; }
echo "from the cgs snapshot: $(head -1 "$dir/from.jeans")"

# Sod's tube (cases/sod.yaml, code units) in SI: internal units of the tube's length, rho0
# L^3 and L / c0 (no self-gravity), not the identity; converted back, each .vtp array equals the
# code-unit run's to 1e-4 of its largest value after 10 steps (particles matched by Id)
sod=(--blocks 2 --max-steps 10 --set time.output=0.01 --quiet)
STARPU_NCPU=1 "$tide" run "$cases/sod.yaml" "${sod[@]}" --out "$dir/sod_code" > /dev/null 2>&1 || { echo "FAIL: sod (code)"; exit 1; }
STARPU_NCPU=1 "$tide" run "$cases/sod.yaml" "${sod[@]:0:6}" --set units=si --out "$dir/sod_si" > "$dir/sod_si.log" 2>&1 ||
	{ echo "FAIL: sod in SI:"; tail -3 "$dir/sod_si.log"; exit 1; }
grep -q "units: the SI case runs in internal units of 100 cm, 1000 g, 0.845154 s" "$dir/sod_si.log" ||
	{ echo "FAIL: the SI Sod run does not say it runs in internal units"; exit 1; }
python3 - "$dir" <<'PY'
import glob, os, sys
d = sys.argv[1]
sys.path.insert(0, d)
from vtp import arrays
files = sorted(glob.glob(d + "/sod_code/particles_*.vtp"))
bad = 0
most = 0
for p in files:
    a = arrays(d + "/sod_si/" + os.path.basename(p)); b = arrays(p)
    # the files may list the particles in another order: matched by Id
    ia = {i: k for k, i in enumerate(a["Id"])}
    if sorted(ia) != sorted(b["Id"]):
        print(f"FAIL: sod {os.path.basename(p)}: other particles"); bad = 1; continue
    for name, vals in b.items():
        if name in ("Id", "connectivity", "offsets"): continue
        nc = len(vals) // len(b["Id"])
        other = [a[name][nc * ia[i] + c] for i in b["Id"] for c in range(nc)]
        big = max(abs(x) for x in vals) or 1
        worst = max(abs(x - y) for x, y in zip(vals, other)) / big
        most = max(most, worst)
        if worst > 1e-4:
            print(f"FAIL: sod {os.path.basename(p)} {name}: SI differs from code units by {worst:.3g} of its largest"); bad = 1
print(f"sod: {len(files)} .vtp files of the SI run = the code-unit run's (largest difference {most:.2g} of an array's largest value)")
# statistics.csv in SI: the code-unit run's numbers (the case's values are the same numbers),
# its header SI's
import csv
r1 = list(csv.reader(open(d + "/sod_si/statistics.csv"))); r2 = list(csv.reader(open(d + "/sod_code/statistics.csv")))
if r1[0] != r2[0] or "E_kin[J]" not in r1[0] or len(r1) != len(r2) or len(r1) < 3:
    print(f"FAIL: sod statistics.csv: SI header {r1[0]}, {len(r1)} rows; code {r2[0]}, {len(r2)} rows"); bad = 1
else:
    for k, col in enumerate(r1[0][:-1]):  # not wall_per_step
        a = [float(r[k]) for r in r1[1:]]; b = [float(r[k]) for r in r2[1:]]
        big = max(max(abs(x) for x in b), 1e-300)
        if col[0] == "p":  # momentum, 0 up to rounding: on the scale of mass x v_max
            big = max(float(r[5]) * float(r[13]) for r in r2[1:])
        if max(abs(x - y) for x, y in zip(a, b)) > 1e-4 * big:
            print(f"FAIL: sod statistics.csv {col}: SI {a} against code units {b}"); bad = 1
    print(f"sod: statistics.csv of the SI run (SI header) = the code-unit run's, {len(r1) - 1} rows")
sys.exit(bad if files else 1)
PY
echo "ok: sp_tl in cgs = its code-unit twin in the internal units, converted back" "(restart = uninterrupted)"
