#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/fxt_trace.sh — a traced StarPU-MPI run of tide (FxT) and its overlap breakdown, the
# task-graph counterpart of the multi-GPU paper's Figs. 8 and 10.
#
#   bench/fxt_trace.sh [--ranks N] [--case FILE] [--dp X] [--steps S] [--out DIR] [-- tide args]
#
# Runs `mpirun -np N tide run CASE --profile` with STARPU_FXT_TRACE=1, converts the traces with
# starpu_fxt_tool (DIR/trace: paje.trace for ViTE, tasks.rec, comms.rec, dag.dot) and prints,
# per rank, compute / packing / idle worker time and how much of the received messages' flight
# time was covered by computation (bench/fxt_overlap.py: DIR/overlap.csv, DIR/overlap.png), next
# to tide's own per-step breakdown (DIR/run/step_profile_rank*.csv).  Needs StarPU built with
# FxT (tools/bootstrap.sh does).  Tracing slows a run: use it to see structure, not for speed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/.." && pwd)
ranks=2 case_file=$repo/cases/dambreak2d.yaml dp=0.005 steps=40 out=$repo/bench/out/fxt
tide=$repo/build/tide pass=()
while [ $# -gt 0 ]; do
	case $1 in
	--ranks) ranks=$2; shift 2 ;; --case) case_file=$2; shift 2 ;; --dp) dp=$2; shift 2 ;;
	--steps) steps=$2; shift 2 ;; --out) out=$2; shift 2 ;; --tide) tide=$2; shift 2 ;;
	--) shift; pass=("$@"); break ;;
	*) echo "fxt_trace.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
prefix=$(pkg-config --variable=prefix starpumpi-1.4 2>/dev/null || true)
fxt_tool=$(command -v starpu_fxt_tool || { [ -n "$prefix" ] && echo "$prefix/bin/starpu_fxt_tool"; } || true)
[ -x "$fxt_tool" ] || { echo "fxt_trace.sh: starpu_fxt_tool not found (PATH or PKG_CONFIG_PATH to StarPU)" >&2; exit 2; }
[ -x "$tide" ] || { echo "fxt_trace.sh: $tide not found: build tide first (tools/build.sh)" >&2; exit 2; }
read -r -a mpirun <<< "${MPIRUN:-mpirun --allow-run-as-root --oversubscribe --bind-to none}"
rm -rf "$out"; mkdir -p "$out/fxt" "$out/trace"
ncpu=$(( $(nproc) / ranks )); [ $ncpu -ge 1 ] || ncpu=1
echo "== traced run: $ranks ranks x $ncpu CPU workers, $(basename "$case_file") dp $dp, $steps steps"
"${mpirun[@]}" -np "$ranks" -x STARPU_FXT_TRACE=1 -x STARPU_FXT_PREFIX="$out/fxt/" \
	-x STARPU_NCPU=$ncpu -x STARPU_SILENT=1 "$tide" run "$case_file" --dp "$dp" \
	--max-steps "$steps" --no-output --profile --out "$out/run" --quiet "${pass[@]}"
(cd "$out/trace" && "$fxt_tool" -i "$out"/fxt/prof_file_* > fxt_tool.log 2>&1)
echo "== overlap (from the trace; open $out/trace/paje.trace in ViTE for the timeline)"
PY=/usr/bin/python3; [ -x $PY ] || PY=python3
"$PY" "$here/fxt_overlap.py" "$out/trace" "$out/overlap"
