#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# device call O (session 13): the ordered force kernel's executed instructions per SASS
# instruction (Nsight Compute source page), to split its cost into the candidate pass, the pair
# pass and the rest; 1.04 M particles, SPHERIC 2, Verlet
set -u
tar xJf .devz/main13.tar.xz && ln -sfn .dev/build build && ln -sfn .dev .deps
. tools/device_env.sh
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpu.txt
timeout 300 ncu --clock-control none -k regex:forces_cell_kernel -s 2 -c 1 --section SourceCounters --section InstructionStats --page source --print-source sass --csv ./build/tide run cases/spheric2.yaml --dp 0.01 --max-steps 4 --no-output --overwrite > /tmp/sass.csv 2> $OUT/ncu_err.txt; echo rc=$?
wc -l /tmp/sass.csv; head -c 600 /tmp/sass.csv; xz -9 -c /tmp/sass.csv > $OUT/ordered_sass_counts.csv.xz; ls -la $OUT
