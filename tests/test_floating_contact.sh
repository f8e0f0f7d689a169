#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Floating bodies landing on solids under mDBC (issue 22; the contact force of
# include/tide/sph_pair.h, tide_contact_*), whole 2-D runs at dp = 0.02 m:
#  - tests/data/floating_sink.yaml's box of density 2000 kg/m^3 released 12 cm above the floor
#    under mDBC, with 1 and 2 CPU workers: its lowest particle never comes closer than 0.5 dp to
#    the floor's top particles (geometric contact puts it 1 dp above them; an undetected contact
#    sank it 1.1 dp into the floor before); at rest from 1.5 s its bottom face is within
#    [-0.15, +0.02] dp of the floor: the particles are spheres of diameter dp, so a body resting
#    with its bottom row over the floor's particles touches at the geometric contact (0) and one
#    nested between them (shifted dp/2 along the floor, the stable rest) at sqrt(3)/2 - 1 =
#    -0.134 dp, less the spring's overlap (about 0.003 dp here, sph_pair.h's estimate);
#    |vz| < 0.01 m/s there, the fluid + contact force equal to its weight within 2 %, and no
#    particle lost (statistics.csv's counts never change);
#  - the same box under mDBC no-slip walls (physics.mdbc_slip: noslip, 2 CPU workers), with the
#    same bounds: the continuity equation reads the floor's own velocity (zero), not its mirror
#    of the fluid squeezed out of the gap (include/tide/sph_pair.h, tide_wall_velocity; reading
#    the mirror, the run went unphysical at 0.36 s with the box 1.7 dp above the floor);
#  - tests/data/floating_land3d.yaml: a 3-D box of density 2000 lands on the floor (2 CPU
#    workers): the same bounds, but the stable rest nested in the hollow between four of the
#    floor's particles (shifted dp/2 along x and y) is dp/sqrt(2) - dp = -0.293 dp below the
#    geometric contact, so the rest offset within [-0.31, +0.02] dp, from 1 s;
#  - tests/data/floating_stack.yaml (2 CPU workers, 4 blocks, so contacts cross block faces):
#    a box lands on a fixed obstacle, another on the floor and a third on that one (floating on
#    floating, the reaction carried to the lower body), each with the same bounds against the
#    surface below it; the same run on 2 MPI ranks gives the same particle files bit for bit
#    (contact pairs across ranks through the halos).
# usage: test_floating_contact.sh TIDE SRC_ROOT
set -euo pipefail
tide=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3
export PYTHONPATH="$src/tests${PYTHONPATH:+:$PYTHONPATH}"
source "$src/tests/mpirun_cpu.sh"

for w in 1 2; do
	STARPU_NCPU=$w "$tide" run "$src/tests/data/floating_sink.yaml" --quiet \
		--set physics.boundary=mdbc --set time.end=2 --set gauges.every=0.005 --out "$work/land$w"
	"$py" - "$work/land$w" "$w" <<'PY'
import sys
from floating_check import landing
gap, off, vz, ef, kept = landing(sys.argv[1], 2000, label="box landing on the floor, %s CPU worker(s)" % sys.argv[2])
if not (gap >= 0.5 and -0.15 <= off <= 0.02 and vz < 0.01 and abs(ef) < 0.02 and kept):
    sys.exit("FAIL: under mDBC the box does not land and rest on the floor")
PY
done

STARPU_NCPU=2 "$tide" run "$src/tests/data/floating_sink.yaml" --quiet --set physics.boundary=mdbc \
	--set physics.mdbc_slip=noslip --set time.end=2 --set gauges.every=0.005 --out "$work/landns"
"$py" - "$work/landns" <<'PY'
import sys
from floating_check import landing
gap, off, vz, ef, kept = landing(sys.argv[1], 2000, label="box landing on the floor, noslip walls")
if not (gap >= 0.5 and -0.15 <= off <= 0.02 and vz < 0.01 and abs(ef) < 0.02 and kept):
    sys.exit("FAIL: under mDBC noslip the box does not land and rest on the floor")
PY

STARPU_NCPU=2 "$tide" run "$src/tests/data/floating_land3d.yaml" --quiet --out "$work/land3d"
"$py" - "$work/land3d" <<'PY'
import sys
from floating_check import landing
gap, off, vz, ef, kept = landing(sys.argv[1], 2000, B=0.08, D=0.08, H=0.06, t_rest=1.0,
                                 label="3-D box landing on the floor")
if not (gap >= 0.5 and -0.31 <= off <= 0.02 and vz < 0.01 and abs(ef) < 0.02 and kept):
    sys.exit("FAIL: under mDBC the 3-D box does not land and rest on the floor")
PY

STARPU_NCPU=2 "$tide" run "$src/tests/data/floating_stack.yaml" --quiet --blocks 4 --out "$work/stack"
"$py" - "$work/stack" <<'PY'
import sys
from floating_check import landing
d = sys.argv[1]
for body, kw, what in (("1", {"floor": 0.1}, "box A on the fixed obstacle"),
                       ("2", {}, "box C on the floor"),
                       ("3", {"under": ("2", 0.1)}, "box B on the floating box C")):
    gap, off, vz, ef, kept = landing(d, 2000, body=body, H=0.1, label=what, **kw)
    if not (gap >= 0.5 and -0.15 <= off <= 0.02 and vz < 0.01 and abs(ef) < 0.02 and kept):
        sys.exit("FAIL: under mDBC %s does not land and rest" % what)
PY
if [ ${#mpi[@]} -gt 0 ]; then
	same_on_2_ranks "$tide" "$src/tests/data/floating_stack.yaml" 4 "$work/stack" "$work/stack2"
else
	echo "no mpirun: the 2-rank comparison is skipped"
fi
