#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Floating bodies under the other schemes (issue 22): what test_floating_run.sh checks under
# the symplectic integrator and DBC contact, here
#  - under Verlet (physics.integrator: verlet): tests/data/floating_box.yaml's box of density 500
#    released 4 cm above its draft settles to the Archimedes draft within 2 % (mDBC, dp 0.01;
#    measured -0.27 %, symplectic -0.14 %, test_floating_run.sh; at dp 0.02 -2.22 %, as
#    symplectic's -2.23 %: bench/results/cpu-2core/floating_draft_convergence.md);
#  (contact with the floor under mDBC: tests/test_floating_contact.sh);
#  - floating.density above 25 rho0 (or a mass giving that) is refused with exit code 2.
# usage: test_floating_schemes.sh TIDE SRC_ROOT
set -euo pipefail
tide=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3
export PYTHONPATH="$src/tests${PYTHONPATH:+:$PYTHONPATH}"
export STARPU_NCPU=2

"$tide" run "$src/tests/data/floating_box.yaml" --quiet --set physics.integrator=verlet --out "$work/verlet"
"$py" - "$work/verlet" <<'PY'
import sys
from floating_check import draft
e, eT, n = draft(sys.argv[1], "floating box, Verlet")
if abs(e) > 0.02:
    sys.exit("FAIL: under Verlet the draft is not Archimedes' within 2 %")
PY

set +e
source "$src/tests/expect.sh"
bad() { # NAME TEXT FLOATING-KEYS
	local c="$work/$1.yaml"
	printf 'dim: 2\ndp: 0.02\ntank: {lo: [0, 0], hi: [1, 0.5]}\nfluid: [{lo: [0, 0], hi: [1, 0.3]}]\nobstacles:\n  - {lo: [0.4, 0.2], hi: [0.6, 0.4], floating: %s}\ntime: {end: 0.01}\n' "$3" >"$c"
	expect "$1" 2 "$2" "$tide" run "$c" --out "$work/$1_run" --quiet
}
bad dense "key 'obstacles[0].floating.density' = 30000 is above 25 rho0 = 25000 kg/m^3; allowed: 0 < density <= 25 rho0" \
	"{density: 30000}"
bad heavy "key 'obstacles[0].floating.mass' = 2000 gives a density of 50000 kg/m^3" "{mass: 2000}"
# the bound follows physics.rho0: 30000 is fine with rho0 = 1300 (bound 32500)
{ cat "$work/dense.yaml"; echo "physics: {rho0: 1300}"; } >"$work/dense1300.yaml"
"$tide" run "$work/dense1300.yaml" --quiet --max-steps 2 --out "$work/rho0" >"$work/rho0.out" 2>&1 ||
	fail "density 30000 with rho0 = 1300 (bound 32500) refused: $(head -c 300 "$work/rho0.out")"
[ "$nfail" = 0 ] || exit 1
