#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The bodies in the ParaView output (issue 22): a 2-D tank with a swaying box (prescribed
# motion) and a floating box, four outputs.
#  - bodies.pvd lists bodies_NNNN.vtp at the particle files' times; each holds one vertex per
#    body whose centre, quaternion, velocity, angular velocity, force and torque are bodies.csv's
#    row of that time (to its 9 printed digits; NaN forces of the moving body alike), and whose
#    AxisX..AxisZ are the columns of the quaternion's rotation matrix (orthonormal);
#  - the particle files' Body array: at t = 0 exactly the boundary particles inside obstacle k's
#    box are body k (1, 2), every other particle -1; each id keeps its body in every file; the
#    bodies' particles follow their body rigidly, x = R(q) (X - c0) + c with bodies_NNNN.vtp's
#    q and c (to 1e-6 m: the files' float32 quaternion products in double); the same Body array
#    in the .h5 files (when HDF5 and h5py are there);
#  - a case without bodies writes no Body array and no bodies files.
# usage: test_bodies_output.sh TIDE SRC_ROOT
set -euo pipefail
tide=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3
"$py" -c 'import numpy' 2>/dev/null || { echo "no numpy: skipped"; exit 77; }
export PYTHONPATH="$src/tests${PYTHONPATH:+:$PYTHONPATH}"
export STARPU_NCPU=2

fmt=both
"$tide" run "$src/tests/data/bodies_output.yaml" --quiet --out "$work/check" --max-steps 1 >/dev/null 2>&1 || fmt=vtp
"$tide" run "$src/tests/data/bodies_output.yaml" --quiet --set output.format=$fmt --out "$work/b"
"$py" - "$work/b" <<'PY'
import csv, math, os, sys
import numpy as np
from vtp_points import read_vtp, pvd_times, quat_matrix
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/bodies.csv")))
parts = pvd_times(d + "/particles.pvd")
bods = pvd_times(d + "/bodies.pvd")
assert [t for t, _ in parts] == [t for t, _ in bods], (parts, bods)
assert len(bods) == 4, bods

cols = {"Points": ("x[m]", "y[m]", "z[m]"), "Quaternion": ("qw[-]", "qx[-]", "qy[-]", "qz[-]"),
        "Velocity": ("vx[m/s]", "vy[m/s]", "vz[m/s]"),
        "AngularVelocity": ("wx[rad/s]", "wy[rad/s]", "wz[rad/s]"),
        "Force": ("Fx[N/m]", "Fy[N/m]", "Fz[N/m]"), "Torque": ("Tx[N m/m]", "Ty[N m/m]", "Tz[N m/m]")}
worst = 0.0
first = None
id_body = None
rigid = 0.0
for (t, bf), (_, pf) in zip(bods, parts):
    b = read_vtp(d + "/" + bf)
    p = read_vtp(d + "/" + pf)
    here = [r for r in rows if abs(float(r["time[s]"]) - t) <= 1e-8 * max(1.0, t)]  # %.9g in the CSV
    assert len(here) == 2, "bodies.csv has %d rows at t = %g" % (len(here), t)
    assert list(b["Body"]) == [1, 2] and list(b["Floating"]) == [0, 1], (b["Body"], b["Floating"])
    for k, r in enumerate(here):
        assert int(r["body"]) == k + 1
        for name, keys in cols.items():
            want = np.array([float(r[c]) for c in keys])
            got = np.asarray(b[name][k], dtype=float)
            if np.isnan(want).any() or np.isnan(got).any():
                assert (np.isnan(want) == np.isnan(got)).all(), (t, k, name, want, got)
                continue
            err = np.abs(got - want) / np.maximum(np.abs(want), 1e-3)
            worst = max(worst, float(err.max()))
            assert (err < 2e-8).all(), (t, k, name, want, got)
        R = quat_matrix(np.asarray(b["Quaternion"][k], dtype=float))
        A = np.stack([b["AxisX"][k], b["AxisY"][k], b["AxisZ"][k]], axis=1)
        assert np.abs(A - R).max() < 1e-14 and np.abs(A.T @ A - np.eye(3)).max() < 1e-12, A
    body, ids, x = p["Body"], p["Id"], p["Points"].astype(float)
    if first is None:
        # t = 0: body k is exactly the boundary particles inside obstacle k's box
        boxes = [((0.12, 0.18), (0.24, 0.4)), ((0.5, 0.26), (0.7, 0.42))]
        want = np.full(len(ids), -1)
        for k, (lo, hi) in enumerate(boxes):
            inside = (p["Type"] != 0) & (x[:, 0] > lo[0] - 1e-9) & (x[:, 0] < hi[0] + 1e-9) & \
                     (x[:, 2] > lo[1] - 1e-9) & (x[:, 2] < hi[1] + 1e-9)
            want[inside] = k + 1
        assert (body == want).all(), "t = 0: %d particles with the wrong Body" % (body != want).sum()
        counts = [int((body == k).sum()) for k in (1, 2)]
        first = {int(i): (int(bb), xx.copy()) for i, bb, xx in zip(ids, body, x)}
        c0 = [np.asarray(b["Points"][k], dtype=float) for k in range(2)]
        print("t = 0: Body marks %d and %d particles (the boundary particles of the two boxes), "
              "%d particles -1" % (counts[0], counts[1], int((body == -1).sum())))
    for i, bb, xx in zip(ids, body, x):
        b0, X = first[int(i)]
        assert bb == b0, "id %d: Body %d at t = %g, %d at t = 0" % (i, bb, t, b0)
        if bb > 0:
            R = quat_matrix(np.asarray(b["Quaternion"][bb - 1], dtype=float))
            pred = R @ (X - c0[bb - 1]) + np.asarray(b["Points"][bb - 1], dtype=float)
            rigid = max(rigid, float(np.abs(pred - xx).max()))
print("bodies_NNNN.vtp = bodies.csv at %d outputs (largest relative difference %.2g); Body "
      "constant per id; body particles at R(q)(X - c0) + c within %.2g m" % (len(bods), worst, rigid))
assert rigid < 1e-6, rigid
theta = max(abs(2 * math.atan2(float(r["qy[-]"]), float(r["qw[-]"]))) for r in rows if r["body"] == "2")
print("the floating box turned by up to %.3g deg, moved to z = %s m" % (math.degrees(theta), rows[-1]["z[m]"]))
PY
if [ "$fmt" = both ] && "$py" -c 'import h5py' 2>/dev/null; then
	"$py" - "$work/b" <<'PY'
import sys, h5py
import numpy as np
from vtp_points import read_vtp
d = sys.argv[1]
for k in range(4):
    v = read_vtp("%s/particles_%04d.vtp" % (d, k))
    with h5py.File("%s/particles_%04d.h5" % (d, k), "r") as f:
        h = dict(zip(f["Id"][:], f["Body"][:]))
    assert all(h[int(i)] == b for i, b in zip(v["Id"], v["Body"])), k
xmf = open(d + "/particles.xmf").read()
assert xmf.count('Name="Body"') == 4, "particles.xmf does not list Body for every file"
print("ok: the .h5 files' Body = the .vtp files', listed in particles.xmf")
PY
else
	echo "no HDF5 or h5py: the .h5 Body array is not checked"
fi

# a case without bodies: no Body array, no bodies files
cat > "$work/plain.yaml" <<'EOF2'
dim: 2
dp: 0.02
tank: {lo: [0, 0], hi: [0.4, 0.4], open_top: true}
fluid: [{lo: [0, 0], hi: [0.4, 0.2]}]
time: {end: 0.02, output: 0.01}
EOF2
"$tide" run "$work/plain.yaml" --quiet --out "$work/plain"
! grep -q 'Name="Body"' "$work/plain/particles_0000.vtp" || { echo "FAIL: Body array without bodies"; exit 1; }
[ ! -e "$work/plain/bodies.pvd" ] && [ -z "$(ls "$work/plain" | grep '^bodies')" ] ||
	{ echo "FAIL: bodies files in a case without bodies"; exit 1; }
! grep -q 'body' "$work/plain/used_parameters.yaml" || { echo "FAIL: used_parameters lists body"; exit 1; }
echo "ok: a case without bodies writes no Body array and no bodies files"
