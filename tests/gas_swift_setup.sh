# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the tests of gas runs with SWIFT snapshots (test_gas_swift.sh, test_gas_checkpoint.sh)
# with their arguments TIDE GAS_SWIFT_CHECK: sets tide and check (absolute paths), mpi
# (mpirun_cpu.sh), fail, works in a temporary directory removed at exit, and writes there
# ball.yaml: the gas ball of gas_ball.sh as an ideal gas (u = 0.05) to t = 1.2 with SWIFT
# snapshots every 0.3 (self-gravity: it collapses, 47 steps).
set -euo pipefail
tide=$(realpath "$1")   # absolute: the test works in a directory of its own
check=$(realpath "$2")
. "$(dirname "${BASH_SOURCE[0]}")/gas_ball.sh"
. "$(dirname "${BASH_SOURCE[0]}")/mpirun_cpu.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail() { echo "FAIL: $*"; exit 1; }
gas_ball 0.3 'gas: {eos: ideal, gamma: 1.6666667, u: 0.05, h_max: 0.6}
time: {end: 1.2, output: 0.3}
output: {format: swift}' | sed '/^gas: {eos: isothermal/d; /^time: {end: 0.1/d' > ball.yaml
