#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The tide run options no other test runs, and the cases no other test runs, each in a short run
# with an assertion of what it must do (every run in a fresh folder of its own):
#  --profile        DIR/step_profile_rank0.csv lists the task families, the per-block ones
#                   (cell_sort, halo_pack, sph_forces, integrate, migrate_*) at most once per
#                   block and step (a few go uncounted, see below), dt_reduce at most once per
#                   step, each with a positive execution time; rank 0's table on standard error;
#                   no such file without --profile;
#                   DIR/step_timeline_rank0.csv: each task of the table once (its tasks per
#                   step times the steps), each ready, then fetching its data, then running, and
#                   per block the task graph's order: every step's cell_sort ends before its
#                   sph_forces starts, which ends before its integrate starts;
#  --verbose        adds exactly its lines: the particles built (= fluid + boundary of the
#                   summary), each rebalancing (--rebalance-every 10: steps 10 and 20) and each
#                   checkpoint (--checkpoint-every 10steps: steps 10 and 20); without it none of
#                   them; the results are the same bit for bit;
#  --with-cpus      on CPU workers alone it changes nothing (the same gauges and particles bit for
#                   bit); with CUDA workers the default run says its SPH tasks run on the GPUs
#                   only and the --with-cpus run does not;
#  --balance-every  1 rank: a check at steps 5, 10, 15, 20, one positive load each, imbalance
#                   0 %, particles bit for bit those of the run without it (no effect on one
#                   rank); 2 ranks (mpirun): a check at each of those steps with both ranks'
#                   positive loads, and every redistribution keeps the fluid count;
#  spheric2, dambreak3obs (coarse --dp, 20 steps): fluid and boundary counts and the initial
#                   fluid positions are those of the case geometry (tests/sph_reference.py,
#                   from case-format.md's rules), fluid mass = n rho0 dp^3 and constant, no
#                   NaN or infinity in the last snapshot, the water starts to fall (kinetic
#                   energy > 0, potential energy lower) and no energy is created;
#  selfgrav_sphere  (40 steps, 0.16 s): the particle count of the lattice ball, mass constant,
#                   the rms radius within 1 % of its start, the kinetic energy below 1e-3 of |the
#                   potential energy|, total energy within 1e-3 of its start and momentum below
#                   1e-3 of M v_max (measured: -0.13 %, 1.4e-4, 2.5e-5, 3e-5; with the
#                   self-gravity acceleration left out, the radius grows by 2.2 % and the total
#                   energy changes by 2 %).
# usage: test_options_cases.sh TIDE_EXE SOURCE_ROOT
set -euo pipefail
tide=$1
root=$2
py=/usr/bin/python3
[ -x "$py" ] || py=python3
work=$(mktemp -d "${TMPDIR:-/tmp}/tide-options.XXXXXX")
echo "options_cases in $work"
fail() { echo "FAIL: $*"; exit 1; }
# the 2-D dam break, 20 steps on 3 blocks
db=(run "$root/cases/dambreak2d.yaml" --dp 0.02 --max-steps 20 --blocks 3 --set time.output=0.002)
col() { # CSV COLUMN: the column's value in the CSV's first data row
	"$py" -c 'import csv, sys; print(next(csv.DictReader(open(sys.argv[1])))[sys.argv[2]])' "$1" "$2"
}
same_results() { # DIR1 DIR2 WHAT: gauges and last particle file identical
	cmp -s "$1/gauges.csv" "$2/gauges.csv" || fail "$3: gauges.csv differs"
	local last
	last=$(ls "$1"/particles_*.vtp | tail -n 1)
	cmp -s "$last" "$2/$(basename "$last")" || fail "$3: $(basename "$last") differs"
}

# ---- --profile
"$tide" "${db[@]}" --quiet --out "$work/plain"
[ ! -e "$work/plain/step_profile_rank0.csv" ] || fail "a run without --profile wrote step_profile_rank0.csv"
"$tide" "${db[@]}" --quiet --profile --out "$work/profile" 2>"$work/profile.err"
grep -q "^rank 0: time per step by task family" "$work/profile.err" ||
	fail "--profile printed no table: $(cat "$work/profile.err")"
"$py" - "$work/profile/step_profile_rank0.csv" 3 <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
nb = int(sys.argv[2])
want = ["task", "tasks_per_step[-]", "exec_per_step[ms]", "data_wait_per_step[ms]"]
if not rows or list(rows[0].keys()) != want:
    sys.exit("FAIL: %s: header %s, want %s" % (sys.argv[1], rows and list(rows[0].keys()), want))
# tasks per step: exactly one per block and step (dt_reduce: one per step).  The report waits for
# every task first: the last step's integrate and migrate tasks used to be missed.
per_step = {"cell_sort": nb, "halo_pack": nb, "sph_forces": nb, "dt_reduce": 1, "integrate": nb,
            "migrate_pack": nb, "migrate_unpack": nb}
got = {r["task"]: r for r in rows}
for task, hi in per_step.items():
    if task not in got:
        sys.exit("FAIL: no %s row in %s" % (task, sys.argv[1]))
    r = got[task]
    n = float(r["tasks_per_step[-]"])
    if abs(n - hi) > 1e-9:
        sys.exit("FAIL: %s: %s tasks per step, want %d (%d blocks)" % (task, n, hi, nb))
    if not float(r["exec_per_step[ms]"]) > 0 or not float(r["data_wait_per_step[ms]"]) >= 0:
        sys.exit("FAIL: %s: execution %s ms, data wait %s ms per step" % (task, r["exec_per_step[ms]"],
                 r["data_wait_per_step[ms]"]))
print("--profile: %d task families, the tasks per step the %d blocks ask, positive times"
      % (len(rows), nb))
EOF
"$py" - "$work/profile/step_profile_rank0.csv" "$work/profile/step_timeline_rank0.csv" 20 <<'EOF'
import csv, sys
prof = {r["task"]: float(r["tasks_per_step[-]"]) for r in csv.DictReader(open(sys.argv[1]))}
rows = list(csv.DictReader(open(sys.argv[2])))
steps = int(sys.argv[3])
for fam, n in prof.items():
    got = sum(r["family"] == fam for r in rows)
    if got != round(n * steps):
        sys.exit("FAIL: the timeline has %d %s tasks, the profile %g per step x %d steps" % (got, fam, n, steps))
t = lambda r, k: float(r[k + "[s]"])
for r in rows:
    seq = [t(r, "ready"), t(r, "data_start"), t(r, "data_end"), t(r, "start"), t(r, "end")]
    if any(b < a for a, b in zip(seq, seq[1:])):
        sys.exit("FAIL: a %s task's times are not ready <= data <= start <= end: %s" % (r["task"], seq))
by = {}
for r in rows:
    by.setdefault((r["family"], r["block"]), []).append(r)
blocks = {r["block"] for r in rows if r["family"] == "cell_sort"}
for b in blocks:
    # each family's tasks of the block in `steps` equal runs (a split force pass: two a step)
    fs = [sorted(by[(f, b)], key=lambda r: t(r, "start")) for f in ("cell_sort", "sph_forces", "integrate")]
    for k in range(steps):
        s, f, i = (x[k * len(x) // steps:(k + 1) * len(x) // steps] for x in fs)
        if not (max(t(r, "end") for r in s) <= min(t(r, "start") for r in f) and
                max(t(r, "end") for r in f) <= min(t(r, "start") for r in i)):
            sys.exit("FAIL: block %s step %d: cell_sort, sph_forces, integrate out of order" % (b, k + 1))
print("--profile timeline: %d tasks, each family's count the profile's, the task graph's order" % len(rows))
EOF

# ---- --verbose
ck=(--checkpoint-every 10steps --rebalance-every 10)
"$tide" "${db[@]}" "${ck[@]}" --out "$work/normal" >"$work/normal.out"
"$tide" "${db[@]}" "${ck[@]}" --verbose --out "$work/verbose" >"$work/verbose.out"
extra='^built [0-9]+ particles|^rebalancing blocks|^checkpoint of step'
! grep -qE "$extra" "$work/normal.out" || fail "lines of --verbose without it: $(grep -E "$extra" "$work/normal.out")"
grep -q "^done: 20 steps" "$work/verbose.out" || fail "--verbose lost the normal output"
n=$(($(col "$work/verbose/run_summary.csv" 'n_fluid[-]') + $(col "$work/verbose/run_summary.csv" 'n_bound[-]')))
grep -qE "^built $n particles into a host block" "$work/verbose.out" ||
	fail "--verbose does not report the $n particles built: $(cat "$work/verbose.out")"
[ "$(grep -c '^rebalancing blocks' "$work/verbose.out")" = 2 ] ||
	fail "--verbose: $(grep -c '^rebalancing blocks' "$work/verbose.out") rebalancing lines, want 2 (steps 10, 20)"
for s in 10 20; do
	grep -qE "^checkpoint of step $s \(t = [0-9.e-]+ s\) in $work/verbose/checkpoint" "$work/verbose.out" ||
		fail "--verbose: no line for the checkpoint of step $s"
done
same_results "$work/normal" "$work/verbose" "--verbose"
echo "--verbose: the particles built, 2 rebalancings and 2 checkpoints reported; same results"

# ---- --with-cpus
"$tide" "${db[@]}" --with-cpus --out "$work/with_cpus" >"$work/with_cpus.out"
"$tide" "${db[@]}" --out "$work/default" >"$work/default.out"
gpu_only='SPH tasks on the GPUs only'
if [ "$(col "$work/with_cpus/run_summary.csv" 'ncuda_workers[-]')" = 0 ]; then
	same_results "$work/default" "$work/with_cpus" "--with-cpus on CPU workers alone"
	! grep -q "$gpu_only" "$work/default.out" "$work/with_cpus.out" || fail "'$gpu_only' without a GPU"
	echo "--with-cpus: no CUDA worker, the same results as without it"
else
	grep -q "$gpu_only" "$work/default.out" || fail "with CUDA workers the default run does not say '$gpu_only'"
	! grep -q "$gpu_only" "$work/with_cpus.out" || fail "--with-cpus still says '$gpu_only'"
	echo "--with-cpus: SPH tasks also on the CPU workers"
fi

# ---- --balance-every
balance_check() { # LOG RANKS NFLUID: a check at steps 5, 10, 15, 20, RANKS positive loads each
	"$py" - "$1" "$2" "$3" <<'EOF'
import re, sys
log, ranks, nfluid = open(sys.argv[1]).read(), int(sys.argv[2]), int(sys.argv[3])
checks = re.findall(r"balance at step (\d+): rank loads ([^m]*) ms per step \(max/mean - 1 = (\d+) %\)(.*)", log)
steps = [int(c[0]) for c in checks]
if steps != [5, 10, 15, 20]:
    sys.exit("FAIL: balance checks at steps %s, want 5, 10, 15, 20:\n%s" % (steps, log))
for step, loads, imb, rest in checks:
    loads = [float(v) for v in loads.split("/")]
    if len(loads) != ranks or not all(v > 0 for v in loads):
        sys.exit("FAIL: step %s: loads %s, want %d positive" % (step, loads, ranks))
    if ranks == 1 and imb != "0":
        sys.exit("FAIL: step %s: imbalance %s %% on one rank" % (step, imb))
    m = re.search(r"fluid particles per rank ([\d /]+) -> ([\d /]+)", rest)
    if m:
        before, after = ([int(v) for v in g.split("/")] for g in m.groups())
        if sum(before) != nfluid or sum(after) != nfluid:
            sys.exit("FAIL: step %s: fluid particles %s -> %s, %d in all" % (step, before, after, nfluid))
print("--balance-every 5 on %d rank(s): checks at steps 5, 10, 15, 20 with %d positive load(s)"
      % (ranks, ranks))
EOF
}
nf=$(col "$work/default/run_summary.csv" 'n_fluid[-]')
"$tide" "${db[@]}" --balance-every 5 --out "$work/balance1" >"$work/balance1.out"
balance_check "$work/balance1.out" 1 "$nf"
same_results "$work/default" "$work/balance1" "--balance-every on one rank"
if command -v mpirun >/dev/null; then
	timeout 300 mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 -x STARPU_NCPU=1 \
		-x STARPU_SILENT=1 "$tide" "${db[@]}" --balance-every 5 \
		--balance-threshold 0.0001 --out "$work/balance2" >"$work/balance2.out" 2>&1 ||
		fail "--balance-every on 2 ranks: $(tail -n 5 "$work/balance2.out")"
	balance_check "$work/balance2.out" 2 "$nf"
	"$py" - "$work/balance2/statistics.csv" "$nf" <<'EOF'
import csv, sys
n = {int(r["n_fluid[-]"]) for r in csv.DictReader(open(sys.argv[1]))}
if n != {int(sys.argv[2])}:
    sys.exit("FAIL: fluid counts %s on 2 ranks with --balance-every, want %s" % (n, sys.argv[2]))
EOF
fi

# ---- spheric2, dambreak3obs: geometry, mass, finite fields, the flow starts
box_case() { # CASE DP
	"$tide" run "$root/cases/$1.yaml" --dp "$2" --max-steps 20 --set time.output=0.002 --quiet \
		--out "$work/$1"
	"$py" - "$root/tests" "$work/$1" <<'EOF'
import csv, sys
sys.path.insert(0, sys.argv[1])
import numpy as np
from sph_reference import Used, box_lattice, read_vtp, snapshots
run = sys.argv[2]
u = Used(run)
fluid, nbound = box_lattice(u)
stats = list(csv.DictReader(open(run + "/statistics.csv")))
snaps = snapshots(run)
first, last = read_vtp(snaps[0][1]), read_vtp(snaps[-1][1])
name = run.rsplit("/", 1)[-1]
for r in stats:
    if int(r["n_fluid[-]"]) != len(fluid) or int(r["n_bound[-]"]) != nbound:
        sys.exit("FAIL: %s at t = %s: %s fluid + %s boundary particles, the geometry gives %d + %d"
                 % (name, r["time[s]"], r["n_fluid[-]"], r["n_bound[-]"], len(fluid), nbound))
x = first["Points"][first["Type"] == 0]
if (first["Type"] == 1).sum() != nbound or len(x) != len(fluid):
    sys.exit("FAIL: %s: the first snapshot holds %d + %d particles" % (name, len(x), (first["Type"] == 1).sum()))
a, b = x[np.lexsort(x.T[::-1])], fluid[np.lexsort(fluid.T[::-1])]
if np.abs(a - b).max() > 1e-9:
    sys.exit("FAIL: %s: initial fluid positions off the case lattice by %.3g m" % (name, np.abs(a - b).max()))
mass = len(fluid) * u.rho0 * u.dp ** u.dim
masses = {float(r["fluid_mass[kg]"]) for r in stats}
if len(masses) != 1 or abs(masses.pop() - mass) > 1e-9 * mass:
    sys.exit("FAIL: %s: fluid mass %s, want %.9g constant" % (name, [r["fluid_mass[kg]"] for r in stats], mass))
for k, v in last.items():
    if v.dtype.kind == "f" and not np.all(np.isfinite(v)):
        sys.exit("FAIL: %s: %s not finite in %s" % (name, k, snaps[-1][1]))
e0, e1 = stats[0], stats[-1]
ek, ep0, ep1 = float(e1["E_kin[J]"]), float(e0["E_pot[J]"]), float(e1["E_pot[J]"])
et0, et1 = float(e0["E_total[J]"]), float(e1["E_total[J]"])
if int(e1["step[-]"]) < 15 or not (ek > 0 and ep1 < ep0):
    sys.exit("FAIL: %s: at step %s E_kin %g J, E_pot %g -> %g J: the water does not fall"
             % (name, e1["step[-]"], ek, ep0, ep1))
if et1 > et0 * (1 + 1e-6):
    sys.exit("FAIL: %s: total energy grew from %.9g to %.9g J" % (name, et0, et1))
print("%s at dp %g: %d fluid + %d boundary particles as the geometry gives, the initial lattice, "
      "mass %.6g kg constant, finite fields, E_kin %.3g J, E_total %.6g -> %.6g J"
      % (name, u.dp, len(fluid), nbound, mass, ek, et0, et1))
EOF
}
box_case spheric2 0.05
box_case dambreak3obs 0.04

# ---- selfgrav_sphere: the ball stays in equilibrium
"$tide" run "$root/cases/selfgrav_sphere.yaml" --max-steps 40 --set time.output=0.02 --quiet \
	--out "$work/selfgrav"
"$py" - "$root/tests" "$work/selfgrav" <<'EOF'
import csv, re, sys
sys.path.insert(0, sys.argv[1])
import numpy as np
from sph_reference import read_vtp, snapshots
run = sys.argv[2]
used = open(run + "/used_parameters.yaml").read()
dp = float(re.search(r"^dp:\s*([-0-9.eE+]+)", used, re.M).group(1))
rho0 = float(re.search(r"^\s*rho0:\s*([-0-9.eE+]+)", used, re.M).group(1))
m = re.search(r"\{centre:\s*\[([^\]]*)\],\s*radius:\s*([-0-9.eE+]+)", used)
c, R = np.array([float(v) for v in m.group(1).split(",")]), float(m.group(2))
# the ball's lattice: centre + (i + 1/2) dp within the radius (case-format.md)
k = np.arange(-int(np.ceil(R / dp)), int(np.ceil(R / dp))) + 0.5
d = np.stack(np.meshgrid(k, k, k, indexing="ij"), axis=-1).reshape(-1, 3) * dp
n = int(((d * d).sum(axis=1) <= R * R * (1 + 1e-12)).sum())
stats = list(csv.DictReader(open(run + "/statistics.csv")))
M = n * rho0 * dp ** 3
for r in stats:
    if int(r["n_fluid[-]"]) != n or abs(float(r["fluid_mass[kg]"]) - M) > 1e-9 * M:
        sys.exit("FAIL: selfgrav_sphere at t = %s: %s particles of mass %s kg, the lattice ball %d, %.9g kg"
                 % (r["time[s]"], r["n_fluid[-]"], r["fluid_mass[kg]"], n, M))
snaps = snapshots(run)
def rms_radius(path):
    x = read_vtp(path)["Points"]
    x = x - x.mean(axis=0)
    return float(np.sqrt((x * x).sum(axis=1).mean()))
r0, r1 = rms_radius(snaps[0][1]), rms_radius(snaps[-1][1])
e0, e1 = stats[0], stats[-1]
ek, ep = float(e1["E_kin[J]"]), float(e1["E_pot[J]"])
et0, et1 = float(e0["E_total[J]"]), float(e1["E_total[J]"])
p = np.linalg.norm([float(e1[k]) for k in ("px[kg m/s]", "py[kg m/s]", "pz[kg m/s]")])
vmax = float(e1["v_max[m/s]"])
print("selfgrav_sphere: %d particles, t = %s s: rms radius %.5f -> %.5f m (%+.2f %%), E_kin/|E_pot| "
      "%.2g, E_total %.6g -> %.6g J (%.2g), |p|/(M v_max) %.2g" % (n, e1["time[s]"], r0, r1,
      100 * (r1 - r0) / r0, ek / abs(ep), et0, et1, abs(et1 - et0) / abs(et0), p / (M * vmax)))
if float(e1["time[s]"]) < 0.1:
    sys.exit("FAIL: the run stopped at t = %s s" % e1["time[s]"])
if abs(r1 - r0) > 0.01 * r0:
    sys.exit("FAIL: the rms radius changed by more than 1 %")
if not ek < 1e-3 * abs(ep):
    sys.exit("FAIL: kinetic energy above 1e-3 of the potential energy")
if abs(et1 - et0) > 1e-3 * abs(et0):
    sys.exit("FAIL: total energy changed by more than 1e-3")
if not p < 1e-3 * M * vmax:
    sys.exit("FAIL: momentum above 1e-3 of M v_max")
EOF
rm -rf "$work"
echo "ok: --profile, --verbose, --with-cpus, --balance-every, spheric2, dambreak3obs, selfgrav_sphere"
