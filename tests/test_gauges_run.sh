#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Gauges of whole runs (tide run), on a 2-D tank of still water 0.5 m deep with a box obstacle
# 0.2 m x 0.1 m held under water (top 0.2 m, bottom 0.3 m below the surface):
#  1. gauges.every with --no-output: one row at the first step at or after each multiple of
#     gauges.every (its own time in the time column, within one time step after the multiple),
#     the right number of rows, and no particle or statistics file;
#  2. the force on the obstacle after the start-up transient (t >= 1 s): its vertical part is the
#     buoyancy rho0 |g| (0.3 - 0.2) m x 0.2 m = rho0 |g| V = 196.2 N per metre of width within 3 %
#     (every row, not only their mean), its horizontal part within 2 % of that of zero;
#     the column height reads the still-water level 0.5 m within dp/4;
#  3. the same run on 2 MPI ranks (2 blocks, as on 1 rank) writes the same gauges.csv bit for bit
#     (the blocks' sums are added in block order wherever the blocks live).
# usage: test_gauges_run.sh TIDE SRC_ROOT
set -euo pipefail
tide=$1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
py=/usr/bin/python3
[ -x "$py" ] || py=python3
cat > "$work/case.yaml" <<'YAML'
name: submerged
dim: 2
dp: 0.02
tank: {lo: [0, 0], hi: [1.0, 0.8], open_top: true, layers: 3}
fluid:
  - {lo: [0, 0], hi: [1.0, 0.5]}
obstacles:
  - {lo: [0.4, 0.2], hi: [0.6, 0.3]}
physics:
  gravity: [0, -9.81]
time: {end: 1.5, output: 0.5}
gauges:
  every: 0.05
  height:
    - {name: H_mid, at: [0.2]}
  pressure:
    - {at: [0.2, 0.25]}
  velocity:
    - {at: [0.8, 0.25]}
  forces: true
YAML
export STARPU_NCPU=1

# 0. bad gauge keys: exit 2 and one sentence naming the key and what is allowed
bad() { # expected-text, tide run options...
	local want=$1 rc=0; shift
	msg=$("$tide" run "$work/case.yaml" --quiet --out "$work/bad" "$@" 2>&1 >/dev/null) || rc=$?
	[ "$rc" = 2 ] || { echo "FAIL: tide run $* exited $rc, want 2: $msg"; exit 1; }
	grep -qF "$want" <<<"$msg" || { echo "FAIL: tide run $*: '$msg' does not say '$want'"; exit 1; }
}
bad "key 'gauges.every' = 0 is out of range; allowed: every > 0" --set gauges.every=0
bad "allowed: column, highest" --set gauges.mode=top
grep -v -e '^obstacles:' -e '0.4, 0.2' "$work/case.yaml" > "$work/noobst.yaml"
rc=0; msg=$("$tide" run "$work/noobst.yaml" --quiet --out "$work/bad" 2>&1 >/dev/null) || rc=$?
[ "$rc" = 2 ] && grep -qF "key 'gauges.forces' = true needs obstacles" <<<"$msg" ||
	{ echo "FAIL: a case with gauges.forces and no obstacles exited $rc: $msg"; exit 1; }
echo "ok: bad gauge keys refused (exit 2, the key named)"

# 1. rows at their own rate without particle files
"$tide" run "$work/case.yaml" --no-output --quiet --set time.end=0.05 --set gauges.every=0.004 \
	--out "$work/rate"
ls "$work/rate" | grep -Eq '\.(vtp|pvd|h5|xmf)$|statistics' &&
	{ echo "FAIL: --no-output wrote particle or statistics files: $(ls "$work/rate")"; exit 1; }
"$py" - "$work/rate/gauges.csv" <<'PY'
import sys
rows = [l.rstrip("\n").split(",") for l in open(sys.argv[1])]
head, data = rows[0], rows[1:]
want = ["time[s]", "H_mid[m]", "P1[Pa]", "U1x[m/s]", "U1z[m/s]", "F1x[N/m]", "F1z[N/m]"]
if head != want:
    sys.exit("FAIL: header %s, want %s" % (head, want))
t = [float(r[0]) for r in data]
# multiples 0, 0.004, ..., 0.048 up to time.end = 0.05: 13 rows
if len(t) != 13:
    sys.exit("FAIL: %d gauge rows for gauges.every = 0.004 up to 0.05 s, want 13" % len(t))
dt_max = 2.5e-4   # the run's time step is ~1.8e-4 s (CFL 0.2, h = 0.04 m, c0 = 44 m/s)
for k, tk in enumerate(t):
    if not (k * 0.004 - 1e-12 <= tk < k * 0.004 + dt_max):
        sys.exit("FAIL: row %d at t = %.9g, want the first step at or after %.3f" % (k, tk, k * 0.004))
print("ok: gauges.every = 0.004 s: %d rows with --no-output, each within a step after its time" % len(t))
PY

# 2. hydrostatic force on the submerged obstacle, and the column height
"$tide" run "$work/case.yaml" --no-output --quiet --out "$work/still"
"$py" - "$work/still/gauges.csv" <<'PY'
import sys
rows = [l.rstrip("\n").split(",") for l in open(sys.argv[1])]
head, data = rows[0], [[float(v) for v in r] for r in rows[1:]]
col = {n: i for i, n in enumerate(head)}
buoy = 1000 * 9.81 * 0.1 * 0.2
late = [r for r in data if r[0] >= 1.0]
if len(late) < 10:
    sys.exit("FAIL: only %d rows after t = 1 s" % len(late))
for r in late:
    fz, fx, h = r[col["F1z[N/m]"]], r[col["F1x[N/m]"]], r[col["H_mid[m]"]]
    if abs(fz - buoy) > 0.03 * buoy:
        sys.exit("FAIL: t = %.3f: vertical force %.2f N/m, want rho g V = %.2f +- 3 %%" % (r[0], fz, buoy))
    if abs(fx) > 0.02 * buoy:
        sys.exit("FAIL: t = %.3f: horizontal force %.3f N/m, want 0 +- %.2f" % (r[0], fx, 0.02 * buoy))
    if abs(h - 0.5) > 0.02 / 4:
        sys.exit("FAIL: t = %.3f: column height %.5f m, want 0.5 +- dp/4" % (r[0], h))
mean = sum(r[col["F1z[N/m]"]] for r in late) / len(late)
print("ok: force on the submerged obstacle %.2f N/m (mean of %d rows, t >= 1 s), rho g V = %.2f"
      % (mean, len(late), buoy))
PY

# 3. 1 rank and 2 ranks, 2 blocks each: the same gauges.csv
if command -v mpirun >/dev/null; then
	mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none
	     -x STARPU_NCPU=1 -x STARPU_WORKERS_NOBIND=1 -x STARPU_SILENT=1)
	[ -n "${STARPU_HOME:-}" ] && mpi+=(-x STARPU_HOME)
	short=(run "$work/case.yaml" --no-output --quiet --blocks 2 --set time.end=0.05
	       --set gauges.every=0.005)
	"$tide" "${short[@]}" --out "$work/r1"
	"${mpi[@]}" -np 2 "$tide" "${short[@]}" --out "$work/r2"
	cmp "$work/r1/gauges.csv" "$work/r2/gauges.csv" ||
		{ echo "FAIL: gauges.csv of 2 ranks differs from 1 rank"; diff "$work/r1/gauges.csv" "$work/r2/gauges.csv" | head; exit 1; }
	echo "ok: 2 MPI ranks give the 1-rank gauges.csv bit for bit ($(($(wc -l < "$work/r1/gauges.csv") - 1)) rows)"
else
	echo "mpirun not found: the 2-rank comparison is not run"
fi
echo "ok: gauges of whole runs"
