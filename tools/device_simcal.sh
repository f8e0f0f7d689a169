#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/device_simcal.sh — on the GPU node (a tools/device_pack.sh package carried along): the
# measured half of issue 25's simulator validation and the H200 calibration the simulation of
# many GPUs needs, packed into $OUT/simcal.tar.gz for the simulate phase on the build machine:
#  1. bench/sim_validate.sh --phase measure on CPU ranks (1, 2, 4 ranks of 3 CPU workers each on
#     the node's 16 cores: ranks that do not share cores, unlike the 2-core build machine);
#  2. the same for 1 rank with the GPU alone (SPHERIC 2 at dp 0.01, 1 M particles), whose models
#     and bus calibration (the H200's host and GPU links) the simulated GPU nodes use;
#  3. SPHERIC 2 on the GPU at the weak-scaling sizes per GPU (dp 0.0065 ~ 4 M, 0.004 ~ 13 M),
#     calibrated with its step traces recorded (the models and traces of one GPU's share);
#  4. the synthetic box at block sizes 0.25 .. 4 M (bench/sim_calibrate.sh), for the scaling runs.
# Then, on the build machine: tar xzf simcal.tar.gz and
#   STARPU_CALIBRATE_MINIMUM=1 bench/sim_validate.sh --phase simulate --out simcal/cpu \
#       --ranks "1 2 4" --ncpu 3 --platform "--intra-lat-us 32"
#   STARPU_CALIBRATE_MINIMUM=1 bench/sim_validate.sh --phase simulate --out simcal/gpu \
#       --ncpu 0 --ncuda 1 --case cases/spheric2.yaml --dp 0.01 --ranks 1 --steps 100 --blocks 1
#   (TIDE_SIM_HOST=h200; results: bench/results/sim-h200/README.md)
set -uo pipefail
. "$(dirname "$0")/device_env.sh"
export TIDE=$PWD/build/tide TIDE_SIM_HOST=h200
res=$out/simcal; mkdir -p "$res"
step "CPU ranks: calibrate, record, measure"
bash bench/sim_validate.sh --phase measure --out "$res/cpu" --ranks "1 2 4" --ncpu 3 2>&1 | tail -5
step "1 GPU rank: SPHERIC 2, dp 0.01"
bash bench/sim_validate.sh --phase measure --out "$res/gpu" --ranks 1 --ncpu 0 --ncuda 1 \
	--case cases/spheric2.yaml --dp 0.01 --steps 100 --blocks 1 2>&1 | tail -3
for dp in 0.0065 0.004; do
	step "1 GPU rank: SPHERIC 2, dp $dp (weak-scaling size)"
	bash bench/sim_validate.sh --phase measure --out "$res/gpu_$dp" --ranks 1 --ncpu 0 --ncuda 1 \
		--case cases/spheric2.yaml --dp "$dp" --steps 60 --blocks 1 2>&1 | tail -3
done
# 4. the synthetic box (tide run --synthetic) on the GPU at block sizes up to 4 M particles: the
#    points bench/sim_fit_models.py fits for bench/sim_scaling.sh (then, on the build machine:
#    python3 bench/sim_fit_models.py --host h200 --exponent 1 --min-size 10000 --absolute \
#        simcal/synth/models simcal/synth_fit
#    TIDE_SIM_HOST=h200 bash bench/sim_scaling.sh --models simcal/synth_fit --ncpu 0 --ncuda 1)
step "1 GPU rank: synthetic box, 8 blocks of 0.25 to 4 M particles"
bash bench/sim_calibrate.sh --out "$res/synth" --ncpu 0 --ncuda 1 --blocks 8 --steps 12 \
	--sizes "250000 1000000 2000000 4000000" 2>&1 | tail -8
# the models and traces, not the runs' own folders
( cd "$out" && find simcal -name 'cal_*' -prune -o -name 'meas_*' -prune -o -type f -print |
	tar czf simcal.tar.gz -T - )
ls -la "$out/simcal.tar.gz"
