#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/device_profile.sh — where the GPU step's time goes on the GPU node (build/, .deps/lib
# carried): tide --profile at ~13.3 M particles on 1 rank and on 2 ranks sharing the GPU, and
# Nsight Compute's speed-of-light numbers of the force kernel at ~1 M particles.
set -uo pipefail
. "$(dirname "$0")/device_env.sh"
{
echo "== 1 rank, 13.3 M"
$t run cases/spheric2.yaml --dp 0.00395 --max-steps 30 --no-output --profile --overwrite --out $out/p1 --quiet
echo "== 2 ranks sharing the GPU, 13.3 M"
mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_SILENT -x STARPU_NCPU=4 \
  $t run cases/spheric2.yaml --dp 0.00395 --max-steps 15 --no-output --blocks 2 --profile --overwrite --out $out/p2 --quiet
cat $out/p2/run_summary.csv
echo "== ncu, force kernel, ~1 M"
ncu --clock-control none -k regex:forces_kernel -s 3 -c 1 --section SpeedOfLight --section LaunchStats --section Occupancy \
  $t run cases/spheric2.yaml --dp 0.01014 --max-steps 5 --no-output --overwrite --out /tmp/pn --quiet 2>&1 | grep -v "^==PROF==" | tail -60
} 2>&1 | tee "$out/device_profile.log"
