# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the gas run tests: gas_ball CS [EXTRA] prints the self-gravitating gas ball of
# docs/case-format.md (code units, G = 1, radius 1, rho0 = 0.2387, dp 0.2: 552 particles of mass
# 0.2387 * 0.2^3), isothermal with sound speed CS, to t = 0.1 with outputs every 0.05; EXTRA
# (YAML lines) is appended.
gas_ball() {
	cat <<CASE
dim: 3
dp: 0.2
units: code
domain: {lo: [-3, -3, -3], hi: [3, 3, 3]}
fluid_spheres: [{centre: [0, 0, 0], radius: 1}]
physics: {scheme: gas, rho0: 0.2387, gravity: [0, 0, 0], cfl: 0.3,
          self_gravity: {theta: 0.5, softening: 0.05}}
gas: {eos: isothermal, cs: $1, h_max: 0.6}
time: {end: 0.1, output: 0.05}
${2:-}
CASE
}
