#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/gas_h200.sh — issue 23's performance figures: the gas + self-gravity step (physics.scheme:
# gas, bench/cases/gas_sphere.yaml) at about 1, 4 and 16 million particles, its split between
# the density pass (with its h iterations), the force pass and the tree (tide run --profile),
# beside the weakly compressible step (cases/spheric2.yaml, Verlet, DBC) at about the same
# counts, so that the gas part per particle can be set against the water step per particle.
# Goals (issue 23): gas part (density + forces) per particle <= 2.5 x the water step per
# particle; the whole gas + gravity step at 16 M <= 0.5 s.
#
# usage: bench/gas_h200.sh [--out DIR] [--steps S] [--tide PATH] [--targets LIST] [--no-water]
#   --targets  comma-separated particle counts (default 1e6,4e6,16e6; env TIDE_GAS_TARGETS too,
#              e.g. 2e4,5e4 to check the script on a CPU machine)
#   --steps    timed steps per run (default 20; the first step, which builds the tree and
#              settles h, is left out of later_step_s)
# Writes DIR/gas_bench.csv (one row per run) and prints a table.  StarPU variables are taken
# from the environment.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
tide="$repo/build/tide"
out="$repo/bench/out/gas"
steps=20
targets=${TIDE_GAS_TARGETS:-1e6,4e6,16e6}
water=1
die() { printf 'gas_h200.sh: %s\n' "$*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=${2:?--out needs a folder}; shift 2 ;;
	--steps) steps=${2:?--steps needs a number}; shift 2 ;;
	--tide) tide=${2:?--tide needs a path}; shift 2 ;;
	--targets) targets=${2:?--targets needs a list}; shift 2 ;;
	--no-water) water=0; shift ;;
	-h|--help) sed -n '3,19p' "$0"; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done
case "$steps" in ''|*[!0-9]*|0) die "--steps needs a whole number > 0, got '$steps'" ;; esac
[ -x "$tide" ] || die "no tide binary at $tide (build it: ninja -C build)"
for d in "$repo/.deps/lib" /usr/local/cuda/lib64; do
	[ -d "$d" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
mkdir -p "$out/runs"
csv="$out/gas_bench.csv"
echo "scheme,target,particles,dp,steps,step_ms,gas_density_ms,forces_ms,self_gravity_ms,tree_ms,other_ms,ns_per_particle_step,peak_device_bytes" > "$csv"

# run SCHEME TARGET CASE DP [extra tide options]: one --profile run, a CSV row
run() {
	local scheme=$1 target=$2 case_file=$3 dp=$4; shift 4
	local dir="$out/runs/${scheme}_$target"
	rm -rf "$dir"
	printf '[%s] %s, target %s: dp %s\n' "$(date +%H:%M:%S)" "$scheme" "$target" "$dp" >&2
	if ! "$tide" run "$case_file" --dp "$dp" --max-steps "$((steps + 1))" --no-output --profile \
		--out "$dir" --quiet "$@" > "$dir.log" 2>&1; then
		printf 'gas_h200.sh: the %s run failed: %s\n' "$scheme" "$(tail -n 2 "$dir.log" | tr '\n' ' ')" >&2
		return 1
	fi
	python3 - "$dir" "$scheme" "$target" "$dp" >> "$csv" <<'PY'
import csv, json, sys
d, scheme, target, dp = sys.argv[1:]
s = json.load(open(d + "/run_summary.json"))
prof = {r["task"]: float(r["exec_per_step[ms]"]) for r in csv.DictReader(open(d + "/step_profile_rank0.csv"))}
n = s["n_fluid"] + s["n_bound"]
step = 1e3 * s["later_step_s"]
dens, forces, grav = prof.get("gas_density", 0.0), prof.get("sph_forces", 0.0), prof.get("self_gravity", 0.0)
tree = prof.get("gravity_tree", 0.0)
other = sum(prof.values()) - dens - forces - grav - tree
print(f"{scheme},{target},{n},{dp},{s['steps']},{step:.4f},{dens:.4f},{forces:.4f},{grav:.4f},{tree:.4f},"
      f"{other:.4f},{1e6 * step / n:.4f},{s['peak_device_bytes']}")
PY
}

IFS=, read -r -a list <<< "$targets"
for target in "${list[@]}"; do
	# the sphere of radius 1 holds about (4/3) pi / dp^3 particles
	dp=$(python3 -c "import math,sys; print(f'{(4 * math.pi / 3 / float(sys.argv[1])) ** (1 / 3):.5g}')" "$target")
	hmax=$(python3 -c "import sys; print(f'{1.5 * float(sys.argv[1]):.5g}')" "$dp")
	run gas "$target" "$repo/bench/cases/gas_sphere.yaml" "$dp" --set gas.h_max="$hmax" || true
	if [ "$water" = 1 ]; then
		# SPHERIC 2 holds about 0.825 / dp^3 particles (12.89 M at dp 0.004)
		wdp=$(python3 -c "import sys; print(f'{(0.825 / float(sys.argv[1])) ** (1 / 3):.4g}')" "$target")
		run water "$target" "$repo/cases/spheric2.yaml" "$wdp" || true
	fi
done

python3 - "$csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(f"{'scheme':6} {'particles':>10} {'step ms':>9} {'density':>9} {'forces':>9} {'gravity':>9} {'tree':>8} "
      f"{'other':>8} {'ns/p-step':>10}")
for r in rows:
    print(f"{r['scheme']:6} {int(r['particles']):>10} {float(r['step_ms']):>9.2f} "
          f"{float(r['gas_density_ms']):>9.2f} {float(r['forces_ms']):>9.2f} "
          f"{float(r['self_gravity_ms']):>9.2f} {float(r['tree_ms']):>8.2f} {float(r['other_ms']):>8.2f} "
          f"{float(r['ns_per_particle_step']):>10.3f}")
water = {r["target"]: r for r in rows if r["scheme"] == "water"}
for r in rows:
    if r["scheme"] != "gas":
        continue
    n = int(r["particles"])
    gas = 1e6 * (float(r["gas_density_ms"]) + float(r["forces_ms"])) / n
    line = f"gas at {n}: density + forces {gas:.3f} ns/particle, whole step {float(r['step_ms']) / 1e3:.3f} s"
    w = water.get(r["target"])
    if w:
        ww = float(w["ns_per_particle_step"])
        line += f"; water step {ww:.3f} ns/particle ({int(w['particles'])}): ratio {gas / ww:.2f} (goal <= 2.5)"
    print(line)
PY
echo "gas_h200.sh: $csv"
