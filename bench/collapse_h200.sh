#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/collapse_h200.sh — issue 24's performance figures: the SP-TL turbulent collapse
# (cases/sp_tl_code.yaml, the code-unit twin of the cgs cases/sp_tl.yaml: gas + self-gravity
# + turbulent initial velocities) at about 1, 4 and 16
# million particles: time per step and its split between the gas (density with its h
# iterations, forces), the tree (self-gravity: build, moments, walk) and the rest, from
# tide run --profile, the sinks (sink_gravity, sink_accrete, sink_region, issue 24) apart.
# The case's sinks section (threshold 10^4 rho0) gets r_acc = 2 h at the threshold for each dp
# (--set sinks.accretion_radius); the first steps from t = 0 make no sink yet, so sinks_ms is
# the per-step accretion and candidate pass of a run with sinks on.
# Compare with the paper's Table 4 (a FLASH AMR step with its GPU tree) only loosely: its cells
# are not tide's particles.
#
# usage: bench/collapse_h200.sh [--out DIR] [--steps S] [--tide PATH]
#   env TIDE_COLLAPSE_TARGETS: comma-separated particle counts (default 1e6,4e6,16e6; e.g.
#   5e3,2e4 to check the script on a CPU machine).  Runs from a tools/device_pack.sh package
#   (./build/tide) as from a checkout.
# Writes DIR/collapse_bench.csv and prints it.  gas_ms, tree_ms, other_ms: the tasks' execution
# time per step summed over the workers (--profile), which may exceed the step's wall time.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tide="$repo/build/tide"
out="$repo/bench/out/collapse"
steps=10
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=${2:?--out needs a folder}; shift 2 ;;
	--steps) steps=${2:?--steps needs a number}; shift 2 ;;
	--tide) tide=${2:?--tide needs a path}; shift 2 ;;
	-h|--help) sed -n '3,16p' "$0"; exit 0 ;;
	*) echo "collapse_h200.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
case "$steps" in ''|*[!0-9]*|0) echo "collapse_h200.sh: --steps needs a whole number > 0" >&2; exit 2 ;; esac
[ -x "$tide" ] || { echo "collapse_h200.sh: no tide binary at $tide" >&2; exit 2; }
py=/usr/bin/python3; [ -x "$py" ] || py=python3
for d in "$repo/.deps/lib" /usr/local/cuda/lib64; do   # the device package's libraries
	[ -d "$d" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
mkdir -p "$out/runs"
csv="$out/collapse_bench.csv"
echo "target,particles,dp,steps,step_ms,gas_ms,tree_ms,sinks_ms,other_ms,ns_per_particle_step" > "$csv"
IFS=, read -r -a list <<< "${TIDE_COLLAPSE_TARGETS:-1e6,4e6,16e6}"
for target in "${list[@]}"; do
	# the sphere of radius 3 holds about (4/3) pi 27 / dp^3 particles
	dp=$("$py" -c "import math,sys; print(f'{(36 * math.pi / float(sys.argv[1])) ** (1 / 3):.5g}')" "$target")
	dir="$out/runs/sp_tl_$target"
	rm -rf "$dir"
	printf '[%s] SP-TL, target %s: dp %s\n' "$(date +%H:%M:%S)" "$target" "$dp" >&2
	# r_acc = 2 h at the threshold: 2 eta dp (rho0 / rho_thr)^(1/3), eta 1.2, rho_thr = 10^4 rho0
	racc=$("$py" -c "import sys; print(f'{2 * 1.2 * float(sys.argv[1]) * 1e-4 ** (1 / 3):.5g}')" "$dp")
	if ! "$tide" run "$repo/cases/sp_tl_code.yaml" --dp "$dp" --max-steps "$((steps + 1))" --no-output \
		--set sinks.accretion_radius="$racc" \
		--profile --quiet --out "$dir" > "$dir.log" 2>&1; then
		echo "collapse_h200.sh: the run at $target failed: $(tail -n 2 "$dir.log" | tr '\n' ' ')" >&2
		continue
	fi
	"$py" - "$dir" "$target" "$dp" >> "$csv" <<'PY'
import csv, json, sys
d, target, dp = sys.argv[1:]
s = json.load(open(d + "/run_summary.json"))
prof = {r["task"]: float(r["exec_per_step[ms]"]) for r in csv.DictReader(open(d + "/step_profile_rank0.csv"))}
n = s["n_fluid"] + s["n_bound"]
step = 1e3 * s["later_step_s"]
gas = prof.get("gas_density", 0.0) + prof.get("sph_forces", 0.0)
tree = prof.get("self_gravity", 0.0) + prof.get("gravity_tree", 0.0)
sinks = prof.get("sinks", 0.0)
other = sum(prof.values()) - gas - tree - sinks
print(f"{target},{n},{dp},{s['steps']},{step:.4f},{gas:.4f},{tree:.4f},{sinks:.4f},{other:.4f},{1e6 * step / n:.4f}")
PY
done
column -s, -t < "$csv" || cat "$csv"
echo "collapse_h200.sh: $csv"
