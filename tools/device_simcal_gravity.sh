#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/device_simcal_gravity.sh — on the GPU node (a tools/device_pack.sh package carried along):
# the H200 calibration of the gravity codelets for the gravity weak-scaling simulation (issue 25),
# packed into $OUT/simcal_gravity.tar.gz (one file; under 9 minutes with the defaults):
# bench/sim_gravity_calibrate.sh with the GPU alone (--ncpu 0 --ncuda 1 --device cuda) on the
# synthetic gravity domain (tide gravity --synthetic: a uniform cube, Morton pieces), one rank at
# 1, 4 and 16 M particles (bh_build, bh_moments, bh_walk in one GPU's own use) and 2 and 4 ranks
# sharing the GPU at 1 and 4 M per rank (bh_vroot, bh_essential, bh_walk_sets, and bh_walk_let
# in a second pass with TIDE_GRAVITY_LET_WALK=each; their times
# include the sharing: an upper bound for a GPU of one's own), with the H200's bus calibration;
# and CPU ranks of 3 workers (1, 2, 4 ranks) for the validation of the simulation.
# Then, on the build machine (results: bench/results/sim-gravity/README.md):
#   tar xzf simcal_gravity.tar.gz
#   python3 bench/sim_fit_models.py --host h200 --exponent 1 --min-size 10000 \
#       simcal_gravity/models simcal_gravity/models_fit
#   TIDE_SIM_HOST=h200 bash bench/sim_gravity_scaling.sh --models simcal_gravity/models_fit \
#       --ncpu 0 --ncuda 1 --label "H200 models" --out bench/results/sim-gravity/h200
set -uo pipefail
. "$(dirname "$0")/device_env.sh"
export TIDE=$PWD/build/tide TIDE_SIM_HOST=h200
# the runs' folders stay outside $OUT (what comes back is the one tarball)
work=${TMPDIR:-/tmp}/tide-simcal-gravity; rm -rf "$work"; res=$work/simcal_gravity; mkdir -p "$res"
step "1 GPU rank: synthetic gravity domain, 1 to 16 M particles"
bash bench/sim_gravity_calibrate.sh --out "$res" --ncpu 0 --ncuda 1 --device cuda --runs 1 \
	--repeat 3 --ranks 1 --sizes "1000000 4000000 16000000" 2>&1 | tail -4
step "2 and 4 ranks sharing the GPU: 1 and 4 M particles per rank"
bash bench/sim_gravity_calibrate.sh --out "$res" --ncpu 0 --ncuda 1 --device cuda --runs 1 \
	--repeat 3 --ranks "2 4" --sizes "1000000 4000000" 2>&1 | tail -5
# the same with one walk task per received set (TIDE_GRAVITY_LET_WALK=each): bh_walk_let's model
# beside bh_walk_sets' (the merged walk, the default above), for the comparison; its own folder,
# so that the validation's measured runs stay the default's; its bh_walk_let model is copied in
step "2 and 4 ranks sharing the GPU, one walk per received set (bh_walk_let)"
TIDE_GRAVITY_LET_WALK=each bash bench/sim_gravity_calibrate.sh --out "$res/each" --ncpu 0 --ncuda 1 \
	--device cuda --runs 1 --repeat 3 --ranks "2 4" --sizes "1000000 4000000" 2>&1 | tail -5
cp "$res"/each/models/.starpu/sampling/codelets/*/tide_bh_walk_let.* "$res"/models/.starpu/sampling/codelets/*/ 2>/dev/null
# the validation's measured half on ranks that do not share cores (this machine's 16: the 2-core
# build machine's ranks did): 1, 2, 4 CPU ranks of 3 workers, their models calibrated alike;
# then on the build machine: bench/sim_gravity_validate.sh --cal simcal_gravity/cpu
#   --models simcal_gravity/cpu_fit --ncpu 3 (after sim_fit_models.py --absolute --exponent 1)
step "CPU ranks (3 workers each): 1, 2, 4 ranks of 100 k and 400 k particles"
bash bench/sim_gravity_calibrate.sh --out "$res/cpu" --ncpu 3 --ncuda 0 --device cpu --runs 1 \
	--repeat 3 --ranks "1 2 4" --sizes "100000 400000" 2>&1 | tail -6
( cd "$work" && tar czf "$out/simcal_gravity.tar.gz" simcal_gravity )
ls -la "$out/simcal_gravity.tar.gz"
