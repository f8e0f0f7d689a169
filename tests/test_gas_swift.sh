#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Gas runs from and to SWIFT/GADGET files (issue 23): output.format swift and initial.file.
#  1. the self-gravitating ideal-gas ball of tests/gas_ball.sh (552 particles, code units) to
#     t = 1.2 with snapshots every 0.3: snapshot_0002.hdf5 read back by tide's reader and the
#     HDF5 library (gas_swift_check layout: Header, counts, Units, every gas dataset, ids, rho h^3
#     = m eta^3);
#  2. the same case started from that snapshot (initial.file, no fluid_spheres) and run to 1.2:
#     its snapshots are the first run's from t = 0.6 on, bit for bit (the snapshot carries tide's
#     leapfrog state: half-step v and u, last kick);
#  3. 2 ranks (the snapshot written by the ranks together where parallel HDF5 allows): the ball
#     without self-gravity on 2 ranks = 1 rank, and started on 2 ranks from 1 rank's snapshot =
#     1 rank continued, bit for bit (with self-gravity, 2 ranks differ from 1 rank by the
#     essential trees of the rank split, about 1e-4, and a run started from a file splits the
#     ranks afresh: its continuation is compared on 1 rank above);
#  4. a text file (x y z m vx vy vz u) starts a run, h from the density pass;
#  4b. a SWIFT file without SmoothingLength (nor Density), and the text file: the run's t = 0
#     snapshot has h > 0 (h was 0 there, written before the first density pass, and could not
#     be read back), and a run started from that snapshot = the run continued, bit for bit;
#  5. bad files: exit code 2 and one sentence naming the file (and dataset or line).
. "$(dirname "${BASH_SOURCE[0]}")/gas_swift_setup.sh"
"$tide" run ball.yaml --quiet --out A 2>/dev/null || fail "the ball with output.format swift"
ls A/snapshot_000{0,1,2,3,4}.hdf5 >/dev/null || fail "snapshots missing: $(ls A)"
t2=$(sed -n 4p A/statistics.csv | cut -d, -f1)
"$check" layout A/snapshot_0002.hdf5 552 "$t2" 6 || fail "layout of snapshot_0002.hdf5"
# as h5py reads it (yt and swiftsimio read through h5py), where h5py is installed
if python3 -c 'import h5py' 2>/dev/null; then
	python3 - A/snapshot_0002.hdf5 <<'PY' || fail "h5py reading snapshot_0002.hdf5"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
g = f["PartType0"]
for name, shape in [("Coordinates", (552, 3)), ("Velocities", (552, 3)), ("Masses", (552,)),
                    ("InternalEnergy", (552,)), ("SmoothingLength", (552,)), ("Density", (552,)),
                    ("ParticleIDs", (552,))]:
    assert g[name].shape == shape, (name, g[name].shape)
assert f["Header"].attrs["NumPart_Total"][0] == 552
assert "Unit length in cgs (U_L)" in f["Units"].attrs
assert (g["Masses"][:] > 0).all() and (g["SmoothingLength"][:] > 0).all()
print("h5py: PartType0's seven datasets, Header and Units as expected")
PY
else
	echo "(no h5py here: the layout is checked by tide's reader and the HDF5 library above)"
fi

# 2. started from the t = 0.6 snapshot
from() { # CASE SNAPSHOT: the case without its particles, from the snapshot
	grep -v '^fluid_spheres' "$1"
	echo "initial: {file: $2}"
}
from ball.yaml A/snapshot_0002.hdf5 > from.yaml
"$tide" run from.yaml --quiet --out B 2>/dev/null || fail "the run from the snapshot"
"$check" same A/snapshot_0002.hdf5 B/snapshot_0000.hdf5 0 || fail "the start differs from the snapshot"
"$check" same A/snapshot_0003.hdf5 B/snapshot_0001.hdf5 0 || fail "continued run differs at t = 0.9"
"$check" same A/snapshot_0004.hdf5 B/snapshot_0002.hdf5 0 || fail "continued run differs at t = 1.2"
echo "ok: started from its t = 0.6 snapshot = the run continued, bit for bit (1 rank, self-gravity)"

# 3. 2 ranks, hydrodynamics alone
sed '/self_gravity/d; s/cfl: 0.3,$/cfl: 0.3}/' ball.yaml > hydro.yaml
grep -q 'cfl: 0.3}' hydro.yaml || fail "hydro.yaml: $(cat hydro.yaml)"
"$tide" run hydro.yaml --quiet --out H1 2>/dev/null || fail "hydro on 1 rank"
if [ ${#mpi[@]} -gt 0 ]; then
	nice "${mpi[@]}" -np 2 "$tide" run hydro.yaml --quiet --out H2 2>/dev/null || fail "hydro on 2 ranks"
	for k in 0 1 2 3 4; do
		"$check" same H1/snapshot_000$k.hdf5 H2/snapshot_000$k.hdf5 0 || fail "2 ranks differ, snapshot $k"
	done
	from hydro.yaml H1/snapshot_0002.hdf5 > hfrom.yaml
	nice "${mpi[@]}" -np 2 "$tide" run hfrom.yaml --quiet --out H3 2>/dev/null || fail "from the file on 2 ranks"
	"$check" same H1/snapshot_0004.hdf5 H3/snapshot_0002.hdf5 0 || fail "2 ranks from the file differ"
	echo "ok: 2 ranks write the snapshots of 1 rank, and continue 1 rank's snapshot bit for bit"
else
	echo "(no mpirun: 2-rank checks skipped)"
fi

# 4. a text file: two species on a lattice, masses 1 and 2 (x y z m vx vy vz u), h not given
awk 'BEGIN { for (i = 0; i < 6; i++) for (j = 0; j < 6; j++) for (k = 0; k < 6; k++)
             printf "%g %g %g %g 0 0 0 0.1\n", -0.5 + 0.2 * i, -0.5 + 0.2 * j, -0.5 + 0.2 * k,
                    (i + j + k) % 2 ? 0.004 : 0.008 }' > lattice.txt
from hydro.yaml lattice.txt | sed 's/end: 1.2, output: 0.3/end: 0.05, output: 0.05/' > text.yaml
"$tide" run text.yaml --quiet --out T 2>/dev/null || fail "the run from a text file"
tt=$(sed -n 3p T/statistics.csv | cut -d, -f1)
"$check" layout T/snapshot_0001.hdf5 216 "$tt" 6 || fail "layout of the text run"
echo "ok: a text file of x y z m vx vy vz u with two masses starts a run"

# 4b. files without h: the t = 0 snapshot reads back and continues the run
cp H1/snapshot_0002.hdf5 noh.hdf5
"$check" break noh.hdf5 no-h || fail "cannot remove SmoothingLength and Density"
from hydro.yaml noh.hdf5 > noh.yaml
"$tide" run noh.yaml --quiet --out NH 2>/dev/null || fail "the run from a file without SmoothingLength"
"$check" layout NH/snapshot_0000.hdf5 552 "$(sed -n 2p NH/statistics.csv | cut -d, -f1)" 6 ||
	fail "the t = 0 snapshot of the run from a file without SmoothingLength"
from hydro.yaml NH/snapshot_0000.hdf5 > noh2.yaml
"$tide" run noh2.yaml --quiet --out NH2 2>/dev/null || fail "the run from the t = 0 snapshot of a file without h"
for k in 0 1 2; do
	"$check" same NH/snapshot_000$k.hdf5 NH2/snapshot_000$k.hdf5 0 ||
		fail "from the t = 0 snapshot of a file without h: snapshot $k differs"
done
from hydro.yaml T/snapshot_0000.hdf5 | sed 's/end: 1.2, output: 0.3/end: 0.05, output: 0.05/' > text2.yaml
"$tide" run text2.yaml --quiet --out T2 2>/dev/null || fail "the run from the text run's t = 0 snapshot"
"$check" same T/snapshot_0001.hdf5 T2/snapshot_0001.hdf5 0 || fail "from the text run's t = 0 snapshot: t = 0.05 differs"
echo "ok: files without h (SWIFT without SmoothingLength, text): the t = 0 snapshot reads back and continues the run bit for bit"

# 5. bad files: exit code 2, one sentence naming the file
bad() { # NAME FILE WORDS...: the run from FILE stops with exit code 2 and the words
	local name=$1 f=$2 rc=0
	shift 2
	from hydro.yaml "$f" > bad.yaml
	"$tide" run bad.yaml --quiet --out "bad_$name" 2> err.txt >/dev/null || rc=$?
	[ "$rc" = 2 ] || fail "$name: exit code $rc, expected 2: $(cat err.txt)"
	grep -q "$(basename "$f")" err.txt || fail "$name: the message does not name the file: $(cat err.txt)"
	for w in "$@"; do grep -q -- "$w" err.txt || fail "$name: no '$w' in: $(cat err.txt)"; done
	echo "ok: $name refused: $(head -c 300 err.txt | tr '\n' ' ')"
}
for w in no-masses short-density nan-u zero-mass negative-mass outside; do
	cp H1/snapshot_0002.hdf5 "$w.hdf5"
	"$check" break "$w.hdf5" "$w" || fail "cannot spoil $w"
done
bad no-masses no-masses.hdf5 Masses
bad short-density short-density.hdf5 Density
bad nan-u nan-u.hdf5 InternalEnergy
bad zero-mass zero-mass.hdf5 Masses
bad negative-mass negative-mass.hdf5 Masses
bad outside outside.hdf5 Coordinates domain
"$tide" nbody --n 50 --seed 3 --dt 0.025 --t-end 0 --snapshots N >/dev/null 2>&1 || fail "nbody snapshot"
bad nbody N/snapshot_0000.hdf5 PartType1
printf '0 0 0 1\n0.1 0 0 nan\n' > nan.txt;        bad nan-text nan.txt "line 2"
printf '0 0 0 1\n0.1 0 0 0\n' > zero.txt;         bad zero-text zero.txt "line 2" mass
printf '0 0 0 -1\n' > neg.txt;                    bad negative-text neg.txt "line 1" mass
printf '# nothing\n' > empty.txt;                 bad empty-text empty.txt "no particles"
printf '0 0 0 1 0 0\n' > six.txt;                 bad six-numbers six.txt "line 1"
printf '0 0 9 1\n' > out.txt;                     bad outside-text out.txt domain
echo "ok: gas runs from and to SWIFT/GADGET files"
