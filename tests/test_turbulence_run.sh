#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Turbulent initial velocities in a run (docs/case-format.md "Turbulent initial velocities"): a
# gas ball with turbulence: {mach: 2}; its first particle file has rms speed 2 c_s (the field is
# scaled on the particles) and no mean velocity, used_parameters.yaml names every turbulence key
# and runs again to the same particles, another seed gives other velocities, and 2 ranks with 2
# blocks give the initial particle file of 1 rank bit for bit (every rank builds the whole set
# and the field is the same on each).
set -euo pipefail
tide=$1
here=$(cd "$(dirname "$0")" && pwd)
source "$here/mpirun_cpu.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
source "$here/gas_ball.sh"
gas_ball 0.1 "turbulence: {mach: 2, seed: 5, grid: 16}" > "$dir/ball.yaml"
STARPU_NCPU=1 "$tide" run "$dir/ball.yaml" --blocks 2 --quiet --out "$dir/a"
used=$dir/a/used_parameters.yaml
for want in "turbulence:" "mach: 2" "slope: -4" "solenoidal: 0.5" "seed: 5" "grid: 16"; do
	grep -q "$want" "$used" || { echo "FAIL: used_parameters.yaml lacks '$want'"; cat "$used"; exit 1; }
done
py=/usr/bin/python3; [ -x "$py" ] || py=python3   # Debian's, with numpy
PYTHONPATH=$here "$py" - "$dir/a/particles_0000.vtp" <<'PY'
import sys
import numpy as np
from vtp_points import read_vtp
d = read_vtp(sys.argv[1])
v = d["Velocity"].astype(np.float64)
rms = np.sqrt((v ** 2).sum(axis=1).mean()) / 0.1
mean = np.abs(v.mean(axis=0)).max()
print(f"{len(v)} particles: rms Mach {rms:.6f} (requested 2), largest mean component {mean:.2g}")
if abs(rms - 2) > 1e-4 or mean > 1e-5:
    sys.exit("FAIL: the initial velocities are not the requested field")
PY
STARPU_NCPU=1 "$tide" run "$used" --blocks 2 --quiet --out "$dir/b"
for f in "$dir"/a/particles_*.vtp; do
	cmp "$f" "$dir/b/$(basename "$f")" || { echo "FAIL: $(basename "$f") differs when run from used_parameters.yaml"; exit 1; }
done
STARPU_NCPU=1 "$tide" run "$dir/ball.yaml" --blocks 2 --quiet --set turbulence.seed=6 --max-steps 1 --out "$dir/c"
if cmp -s "$dir/a/particles_0000.vtp" "$dir/c/particles_0000.vtp"; then
	echo "FAIL: seeds 5 and 6 give the same particles"; exit 1
fi
if [ ${#mpi[@]} -gt 0 ]; then
	# the initial particles only: later files of this self-gravitating ball differ in the last
	# bits on 2 ranks without turbulence too (the gravity's sums across ranks), not the field
	nice "${mpi[@]}" -np 2 "$tide" run "$dir/ball.yaml" --blocks 2 --quiet --max-steps 1 --out "$dir/r2"
	cmp "$dir/a/particles_0000.vtp" "$dir/r2/particles_0000.vtp" ||
		{ echo "FAIL: the initial particles of 2 ranks differ from 1 rank"; exit 1; }
else
	echo "no mpirun: the 2-rank comparison is not run"
fi
echo "ok: turbulent gas ball: Mach, used parameters, seed, 2 ranks = 1 rank"
