#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A gas case in cgs runs in internal units (src/case_units.h): cases/sp_tl.yaml (cgs, 1.1e5
# particles at its dp; here dp 6e16 cm, about 520) against the same collapse written in code
# units equal to those internal units (length 1.2e18 cm, the domain's side; mass rho0 L^3; G = 1),
# its values computed here from the cgs ones.  The two runs must be the same run: the particle
# files (.vtp, in internal units) of every output byte for byte, the same t_sim after the same
# steps, the same Jeans lines; the cgs run's used_parameters.yaml keeps units cgs and its values,
# its log names the internal units.  A case in cgs used to stop at its first step (h^3 overflows
# a float).
set -euo pipefail
tide=$1
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
	printf "time: {end: %.17g, output: %.17g}\noutput: {format: vtp}\n", 1.2e12 / T, 3e9 / T;
}' > "$dir/internal.yaml"
run() { # case out [options]
	local c=$1 o=$2; shift 2
	STARPU_NCPU=1 "$tide" run "$c" --blocks 2 --max-steps $steps --out "$dir/$o" "$@" > "$dir/$o.log" 2>&1 ||
		{ echo "FAIL: the run of $c failed:"; tail -n 5 "$dir/$o.log"; exit 1; }
}
run "$cases/sp_tl.yaml" cgs --dp 6e16 --set time.output=3e9 --set output.format=vtp
run "$dir/internal.yaml" code
grep -q "units: the cgs case runs in internal units of 1.2e+18 cm" "$dir/cgs.log" ||
	{ echo "FAIL: the cgs run's log does not name its internal units"; grep -i units "$dir/cgs.log"; exit 1; }
grep -q "^units: cgs" "$dir/cgs/used_parameters.yaml" && grep -q "rho0: 1.76e-18" "$dir/cgs/used_parameters.yaml" ||
	{ echo "FAIL: used_parameters.yaml is not the case as given"; grep -n "units\|rho0" "$dir/cgs/used_parameters.yaml"; exit 1; }
t1=$(grep -o '"t_sim": [^,]*' "$dir/cgs/run_summary.json")
t2=$(grep -o '"t_sim": [^,]*' "$dir/code/run_summary.json")
[ -n "$t1" ] && [ "$t1" = "$t2" ] || { echo "FAIL: t_sim differs: cgs '$t1', code '$t2'"; exit 1; }
j1=$(grep -o "Jeans check.*" "$dir/cgs.log"); j2=$(grep -o "Jeans check.*" "$dir/code.log")
[ -n "$j1" ] && [ "$j1" = "$j2" ] || { echo "FAIL: the Jeans lines differ:"; echo "$j1"; echo "$j2"; exit 1; }
n=0
for f in "$dir"/code/*.vtp; do
	b=$(basename "$f")
	cmp -s "$f" "$dir/cgs/$b" || { echo "FAIL: $b differs between the cgs and code-unit runs"; exit 1; }
	n=$((n + 1))
done
[ "$n" -ge 2 ] || { echo "FAIL: only $n particle files to compare"; ls "$dir/code"; exit 1; }
echo "ok: sp_tl in cgs = its code-unit twin in the internal units: $n .vtp files identical, $t1, $(echo "$j1" | wc -l) Jeans lines equal"
