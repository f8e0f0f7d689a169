#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A gas case from a case file, end to end (tide run; docs/case-format.md "The gas scheme"): the
# example of the docs (a cold isothermal ball of mass 1 starting to collapse under its
# self-gravity, code units; its free-fall time is 1.1) runs,
# its used_parameters.yaml names the scheme, the units with their G and the gas section, and
# that file run again gives the same particles bit for bit (every gas key reads back); a
# gas.h_cell larger than h_max is refused (exit 2).
set -euo pipefail
tide=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/ball.yaml" <<'CASE'
dim: 3
dp: 0.2
units: code
domain: {lo: [-3, -3, -3], hi: [3, 3, 3]}
fluid_spheres: [{centre: [0, 0, 0], radius: 1}]
physics: {scheme: gas, rho0: 0.2387, gravity: [0, 0, 0], cfl: 0.3,
          self_gravity: {theta: 0.5, softening: 0.05}}
gas: {eos: isothermal, cs: 0.1, h_max: 0.6}
time: {end: 0.4, output: 0.2}
CASE
"$tide" run "$dir/ball.yaml" --quiet --out "$dir/a"
used=$dir/a/used_parameters.yaml
for want in "units: code" "scheme: gas" "G: 1" "eos: isothermal" "cs: 0.1" "h_max: 0.6" "eta: 1.2" "h_cell: 0.24"; do
	grep -q "$want" "$used" || { echo "FAIL: used_parameters.yaml lacks '$want'"; cat "$used"; exit 1; }
done
"$tide" run "$used" --quiet --out "$dir/b"
n=0
for f in "$dir"/a/particles_*.vtp; do
	cmp "$f" "$dir/b/$(basename "$f")" || { echo "FAIL: $(basename "$f") differs when run from used_parameters.yaml"; exit 1; }
	n=$((n + 1))
done
[ "$n" -ge 3 ] || { echo "FAIL: $n particle files"; exit 1; }
# gas.h_cell beyond h_max: one sentence naming the key and what is allowed, exit 2
rc=0
"$tide" run "$dir/ball.yaml" --quiet --out "$dir/c" --set gas.h_cell=0.7 2> "$dir/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "gas.h_cell.*allowed: 0 < h_cell <= h_max" "$dir/err" ||
	{ echo "FAIL: gas.h_cell = 0.7 > h_max gave exit $rc:"; cat "$dir/err"; exit 1; }
echo "ok: gas case run from a file and again from its used_parameters.yaml: $n particle files identical"
