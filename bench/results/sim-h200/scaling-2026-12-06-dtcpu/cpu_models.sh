#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# as run (from the repository root) for ../models_fit's CPU entries, then bench/sim_merge_models.py
# CPU models of the time step's record tasks (dt_combine, dt_init, dt_redux) on this machine
export STARPU_HOME=/tmp/dtcpu/cpucal/models STARPU_HOSTNAME=h200 STARPU_CALIBRATE=1 STARPU_SCHED=dmda \
  STARPU_NCPU=1 STARPU_NCUDA=0 STARPU_SILENT=1 TIDE_DT_REDUCTION=tree
mpirun --allow-run-as-root --oversubscribe --bind-to none -np 4 -x STARPU_HOME -x STARPU_HOSTNAME \
  -x STARPU_CALIBRATE -x STARPU_SCHED -x STARPU_NCPU -x STARPU_NCUDA -x STARPU_SILENT \
  -x STARPU_WORKERS_NOBIND=1 -x TIDE_DT_REDUCTION -x TIDE_MPI=1 \
  ${TIDE:-/work/main/build/tide} run cases/dambreak3obs.yaml --synthetic 4000 --blocks 4 --decomp 3d \
  --max-steps 200 --no-output --quiet --out /tmp/dtcpu/cpucal/run --overwrite
