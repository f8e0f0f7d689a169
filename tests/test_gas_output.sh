#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Particle files of a gas run (issue 23): the .h5 and .vtp hold InternalEnergy, SmoothingLength,
# SoundSpeed and the gas pressure, read back per particle (gas_output_check for the .h5,
# gas_vtp_check.py for the .vtp): p = (gamma - 1) rho u for the ideal gas, p = cs^2 rho for the
# isothermal one (a cold ball of mass 1 under its self-gravity, code units, as test_gas_run.sh);
# the .xmf lists the gas arrays; statistics.csv's E_int is sum m u; output.fields is followed.
set -euo pipefail
tide=$1
check=$2
vtp=$3
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
gas: {eos: ideal, gamma: 1.6666667, u: 0.05, h_max: 0.6}
time: {end: 0.2, output: 0.1}
output: {format: both}
CASE
"$tide" run "$dir/ball.yaml" --quiet --out "$dir/ideal"
"$check" "$dir/ideal/particles_0002.h5" ideal 1.6666667
python3 "$vtp" "$dir/ideal/particles_0002.vtp" ideal 1.6666667
"$tide" run "$dir/ball.yaml" --quiet --out "$dir/iso" --set gas.eos=isothermal --set gas.cs=0.3
"$check" "$dir/iso/particles_0002.h5" isothermal 0.3
python3 "$vtp" "$dir/iso/particles_0002.vtp" isothermal 0.3
# statistics.csv: E_int of the ideal gas is sum m u = M u at the start (every u = 0.05)
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
         NR == 2 { e = $col["E_int[J]"]; m = $col["fluid_mass[kg]"]; r = e / (0.05 * m) - 1;
                   printf "statistics.csv at t = 0: E_int = %.9g, M u = %.9g\n", e, 0.05 * m;
                   exit (r > 1e-6 || r < -1e-6) }' "$dir/ideal/statistics.csv" ||
	{ echo "FAIL: E_int of the ideal gas is not sum m u"; head -2 "$dir/ideal/statistics.csv"; exit 1; }
for a in InternalEnergy SmoothingLength SoundSpeed; do
	grep -q "particles_0002.h5:/$a" "$dir/ideal/particles.xmf" ||
		{ echo "FAIL: particles.xmf does not list $a"; exit 1; }
done
# output.fields chooses among the gas arrays too
"$tide" run "$dir/ball.yaml" --quiet --out "$dir/some" --set 'output.fields=[position, density, smoothing_length]'
grep -q "SmoothingLength" "$dir/some/particles.xmf" && ! grep -q "InternalEnergy\|Pressure" "$dir/some/particles.xmf" ||
	{ echo "FAIL: output.fields [position, density, smoothing_length] not followed"; cat "$dir/some/particles.xmf"; exit 1; }
echo "ok: gas particle files carry u, h, c and the gas EOS pressure (ideal and isothermal)"
