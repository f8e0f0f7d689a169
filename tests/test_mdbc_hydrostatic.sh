#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# mDBC in still water (issue 21): cases/hydrostatic.yaml (2-D, 0.5 m of water at rest in a closed
# 1 m tank, hydrostatic initial density) at dp = 0.02 to its end, 2 s, with physics.boundary =
# mdbc, then the same with dbc for comparison.  From the particle files (tests/sph_reference.py's
# reader, independent of tide's), at every output of the last third of the run:
#  - bottom pressure: the fluid pressure of the middle half of the tank (x), fitted linearly in z
#    over the lower 60 % of the column and evaluated at the floor surface z = 0, against the
#    weight of the water column rho0 |g| H with H = n_fluid dp^2 / width (the mass per width over
#    rho0: the exact hydrostatic floor pressure whatever the compression).  Asserted for mdbc:
#    the mean over the last third within 1 % (measured: mean +0.62 %, every output +0.45 ..
#    +0.79 %; DBC +0.54 %, -0.22 .. +1.41 %);
#  - the gap between the fluid and the walls: for the floor the mean over 1-dp wide columns
#    (middle 80 % of the width) of the lowest fluid particle's height above the floor surface,
#    for each side wall the same over 1-dp rows (20-80 % of the depth) of the distance of the
#    nearest fluid particle; it starts at dp/2.  Asserted for mdbc: at every output of the last
#    third no gap more than 20 % above dp/2 (measured: at most 1.004 dp/2).
#  - DBC: the same figures are printed, not asserted (measured at dp 0.02 from this hydrostatic
#    start: the floor gap shrinks to 0.93 dp/2, the side gaps to 0.98 dp/2).
# Then mdbc on 1 rank and on 2 MPI ranks with 4 blocks, 200 steps: identical particle files and
# gauges (ids conserved: the id array is in the files); a checkpoint at step 100 continued to 200
# equals 200 steps in one go, bit for bit (normals and ghost densities survive the checkpoint).
# A bad physics.boundary or physics.mdbc_slip is refused (exit 2, the loader's sentence); mdbc
# without density diffusion is warned about once, dbc and mdbc with diffusion are not.
# usage: test_mdbc_hydrostatic.sh TIDE_EXE SOURCE_ROOT
set -eu
tide=$1
root=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/tide-mdbc-hydrostatic.XXXXXX")
echo "mdbc hydrostatic in $work"
py=/usr/bin/python3
[ -x "$py" ] || py=python3

# a bad value is refused with the usual sentence, exit 2
set +e
msg=$("$tide" run "$root/cases/hydrostatic.yaml" --set physics.boundary=ghost --no-output 2>&1)
rc=$?
set -e
[ $rc = 2 ] && [[ "$msg" == *"key 'physics.boundary' = 'ghost' is not allowed; allowed: dbc, mdbc."* ]] ||
	{ echo "FAIL: physics.boundary=ghost gave exit $rc: $msg"; exit 1; }
set +e
msg=$("$tide" run "$root/cases/hydrostatic.yaml" --set physics.mdbc_slip=sticky --no-output 2>&1)
rc=$?
set -e
[ $rc = 2 ] && [[ "$msg" == *"key 'physics.mdbc_slip' = 'sticky' is not allowed; allowed: vel0, noslip, freeslip."* ]] ||
	{ echo "FAIL: physics.mdbc_slip=sticky gave exit $rc: $msg"; exit 1; }

for b in mdbc dbc; do
	"$tide" run "$root/cases/hydrostatic.yaml" --dp 0.02 --quiet --out "$work/$b" \
		--set physics.boundary=$b 2> "$work/$b.err"
done
# mdbc without density diffusion is warned about (src/cmd_run.c: still water 0.4 m deep grows
# noise), once; dbc is not, nor mdbc with fourtakas (one step is enough to be told)
[ "$(grep -c 'mdbc without density diffusion' "$work/mdbc.err")" = 1 ] ||
	{ cat "$work/mdbc.err"; echo "FAIL: mdbc without diffusion was not warned about once"; exit 1; }
"$tide" run "$root/cases/hydrostatic.yaml" --dp 0.02 --quiet --no-output --max-steps 1 \
	--set physics.boundary=mdbc --set physics.diffusion=fourtakas 2> "$work/mdbc_ft.err"
! grep -q 'density diffusion' "$work/dbc.err" "$work/mdbc_ft.err" ||
	{ echo "FAIL: dbc or mdbc+fourtakas warned about density diffusion"; exit 1; }

"$py" - "$root/tests" "$work" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
import numpy as np
from sph_reference import read_vtp, snapshots, Used

def measure(run):
    u = Used(run)
    if "boundary: " + run.rsplit("/", 1)[1] not in u.text:
        sys.exit("FAIL: %s/used_parameters.yaml does not say the boundary condition" % run)
    lo, hi = u.tank[0], u.tank[1]
    dp, L = u.dp, hi[0] - lo[0]
    snaps = snapshots(run)
    t_end = snaps[-1][0]
    rows = []
    for t, f in snaps:
        if t < t_end * 2.0 / 3.0:
            continue
        a = read_vtp(f)
        fl = a["Type"] == 0
        x, z, p = a["Points"][fl, 0], a["Points"][fl, 2] - lo[-1], a["Pressure"][fl]
        H = fl.sum() * dp * dp / L
        mid = (x > lo[0] + 0.25 * L) & (x < hi[0] - 0.25 * L) & (z < 0.6 * H)
        pb = np.polyval(np.polyfit(z[mid], p[mid], 1), 0.0)
        cols = [z[(x >= c) & (x < c + dp)] for c in np.arange(lo[0] + 0.1 * L, hi[0] - 0.1 * L, dp)]
        floor = np.mean([c.min() for c in cols if len(c)])
        bands = [(z >= r) & (z < r + dp) for r in np.arange(0.2 * H, 0.8 * H, dp)]
        left = np.mean([x[b].min() - lo[0] for b in bands if b.any()])
        right = np.mean([hi[0] - x[b].max() for b in bands if b.any()])
        rows.append((t, pb, floor, left, right))
    r = np.array(rows)
    expect = u.rho0 * u.g * H
    return r, expect, dp

bad = 0
for b in ("mdbc", "dbc"):
    r, expect, dp = measure(sys.argv[2] + "/" + b)
    err = (r[:, 1].mean() - expect) / expect
    gap = r[:, 2:].max(axis=0) / (dp / 2)
    print("%-4s: %d outputs in the last third; bottom pressure mean %.1f Pa (%+.2f %% of rho0 g H "
          "= %.1f Pa), range %+.2f .. %+.2f %%; largest gap / (dp/2): floor %.3f, left %.3f, "
          "right %.3f" % (b, len(r), r[:, 1].mean(), 100 * err, expect,
          100 * (r[:, 1].min() - expect) / expect, 100 * (r[:, 1].max() - expect) / expect, *gap))
    if b == "mdbc":
        if not abs(err) <= 0.01:
            print("FAIL: mdbc bottom pressure %+.2f %% off rho0 g H (limit 1 %%)" % (100 * err)); bad += 1
        if not np.all(gap <= 1.2):
            print("FAIL: mdbc gap up to %.3f dp/2 (limit 1.2)" % gap.max()); bad += 1
sys.exit(1 if bad else 0)
EOF

# 2 ranks = 1 rank
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none
     -x STARPU_NCPU=1 -x STARPU_WORKERS_NOBIND=1 -x STARPU_SILENT=1)
[ -n "${STARPU_HOME:-}" ] && mpi+=(-x STARPU_HOME)
args=(run "$root/cases/hydrostatic.yaml" --dp 0.02 --max-steps 200 --set time.output=0.005
      --set physics.boundary=mdbc --blocks 4 --quiet)
STARPU_NCPU=1 "$tide" "${args[@]}" --out "$work/r1"
"${mpi[@]}" -np 2 "$tide" "${args[@]}" --out "$work/r2"
cmp "$work/r1/gauges.csv" "$work/r2/gauges.csv" || { echo "FAIL: gauges of 2 ranks differ from 1 rank"; exit 1; }
n=0
for f in "$work/r1"/particles_*.vtp; do
	cmp "$f" "$work/r2/$(basename "$f")" || { echo "FAIL: $(basename "$f") of 2 ranks differs from 1 rank"; exit 1; }
	n=$((n + 1))
done
[ "$n" -ge 2 ] || { echo "FAIL: only $n particle files"; exit 1; }
echo "ok: mdbc on 2 ranks, 4 blocks: $n outputs identical to 1 rank"

# checkpoints keep the normals (vx1..vz1 of boundary particles) and the ghost densities (rho1):
# 100 steps, checkpoint, restart to 200 = 200 steps in one go, bit for bit
args=(run "$root/cases/hydrostatic.yaml" --dp 0.02 --set time.output=0.005
      --set physics.boundary=mdbc --checkpoint-every 100steps --quiet)
STARPU_NCPU=1 "$tide" "${args[@]}" --max-steps 200 --out "$work/full"
STARPU_NCPU=1 "$tide" "${args[@]}" --max-steps 100 --out "$work/half"
STARPU_NCPU=1 "$tide" run --restart "$work/half/checkpoint" --max-steps 200 --checkpoint-every 100steps --quiet
grep -q "boundary: mdbc" "$work/half/used_parameters.yaml" || { echo "FAIL: the restarted run is not mdbc"; exit 1; }
cmp "$work/full/checkpoint/particles.bin" "$work/half/checkpoint/particles.bin" ||
	{ echo "FAIL: mdbc restart: final particles differ from the run in one go"; exit 1; }
cmp "$work/full/gauges.csv" "$work/half/gauges.csv" || { echo "FAIL: mdbc restart: gauges differ"; exit 1; }
echo "ok: mdbc checkpoint at step 100 + restart = 200 steps in one go, bit for bit"
rm -rf "$work"
