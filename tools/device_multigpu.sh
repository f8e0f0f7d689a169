#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/device_multigpu.sh — the multi-GPU runs of issue 7 on one node with several GPUs, phase by
# phase (a device command may run 10 minutes: give each call the phases that fit), from the
# repository root with build/ and .deps/lib as tools/device_pack.sh leaves them.  One MPI rank per
# GPU (MG_RANKS_PER_GPU=2: two; src/runtime.c gives each local rank its share of the GPUs), rank
# counts 1, 2, 4, ... up to the GPUs found (MG_GPUS to override; 0 runs the ranks on the CPU
# cores, to try the script on a machine without GPU).  Phases (MG_PHASES, default all, in order):
#   strong5 strong50   SPH strong scaling of SPHERIC test 2 at ~5 M and ~50 M particles
#                      (bench/sph_scaling.sh --mode strong);
#   weak4 weak16 weak64  weak scaling with ~4, 16, 64 M particles per GPU: N mirrored copies of
#                      the tank (bench/sph_scaling.sh --mode weak-copies), so every GPU has the
#                      same work;
#   overhead           the per-step breakdown (tide run --profile) of the ~50 M case on all GPUs;
#   gravity            Barnes-Hut weak scaling, MG_GRAV_PER_GPU particles per GPU (default 16 M),
#                      with the essential nodes' share of the walk time (bench/gravity_ranks.sh);
#   billion            SPHERIC test 2 at ~1e9 particles (MG_BILLION_N) on all GPUs, MG_BILLION_STEPS
#                      steps (default 4): first step, mean of the others, peak memory.
# Sizes are multiplied by MG_SCALE (default 1; e.g. 0.002 for a try on a small machine).  The
# particle spacing of a target count comes from one probe step of the case (bench/benchlib.py dp).
# Writes under $OUT (default /tmp/tide-device): PHASE/sph_scaling_*.csv and .png,
# overhead_profile.txt, gravity/gravity_ranks*.csv and .png, billion_summary.csv,
# multigpu.log and machine.txt.
set -uo pipefail
. "$(dirname "$0")/device_env.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
PY=/usr/bin/python3; [ -x $PY ] || PY=python3
gpus=${MG_GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)}
gpus=${gpus:-0}
rpg=${MG_RANKS_PER_GPU:-1} scale=${MG_SCALE:-1} steps=${MG_STEPS:-20}
phases=${MG_PHASES:-strong5 strong50 weak4 weak16 weak64 overhead gravity billion}
case_file=$here/cases/spheric2.yaml
maxr=$(( gpus > 0 ? gpus * rpg : ${MG_CPU_RANKS:-2} ))
ranks=""; for ((r = 1; r <= maxr; r *= 2)); do ranks="$ranks $r"; done
[ $(( maxr & (maxr - 1) )) -ne 0 ] && ranks="$ranks $maxr"   # 6 GPUs: 1 2 4 6
ranks=${MG_RANKS:-${ranks# }}
read -r -a mpirun <<< "${MPIRUN:-mpirun --allow-run-as-root --oversubscribe --bind-to none}"
export MPIRUN="${mpirun[*]}"
# with GPUs the ranks' CPU workers only feed them (the CUDA codelets do the work): 2 per rank
[ "$gpus" -gt 0 ] && export NCPU_PER_RANK=${NCPU_PER_RANK:-2}
target() { "$PY" -c "print(int(float('$1') * $scale))"; }
# SPHERIC 2 at spacing $2 on $1 ranks for $3 steps into $out/$4, log $4.log; more tide arguments after
sph_ranks() {
	local r=$1 dp=$2 ns=$3 name=$4; shift 4
	"${mpirun[@]}" -np "$r" -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_SILENT \
		-x STARPU_NCPU="${NCPU_PER_RANK:-1}" timeout 560 $t run "$case_file" --dp "$dp" \
		--max-steps "$ns" --no-output --blocks $(( 2 * r )) --overwrite --out "$out/$name" --quiet "$@" \
		>"$out/$name.log" 2>&1
}
{
step "machine: $gpus GPU(s), ranks $ranks ($rpg per GPU), phases: $phases"
{ nvidia-smi --query-gpu=index,name,memory.total --format=csv 2>/dev/null || echo "no GPU";
  nproc; free -g | head -2; git -C "$here" rev-parse HEAD 2>/dev/null; } | tee "$out/machine.txt"

step "probe: one step of $(basename "$case_file") at its own spacing"
probe=$out/probe
rm -rf "$probe"
$t run "$case_file" --max-steps 1 --no-output --out "$probe" --quiet >"$probe.log" 2>&1 ||
	{ echo "probe failed: $(tail -n 3 "$probe.log")"; exit 1; }
read -r nf0 nb0 dp0 < <($PY "$here/bench/benchlib.py" field "$probe/run_summary.csv" n_fluid n_bound dp)
dp_for() { $PY "$here/bench/benchlib.py" dp "$nf0" "$nb0" "$dp0" "$(target "$1")"; }
echo "probe: $nf0 fluid + $nb0 boundary particles at dp $dp0"

for ph in $phases; do
	case $ph in
	strong5|strong50)
		n=${ph#strong}; dp=$(dp_for "${n}e6")
		step "$ph: strong scaling at ~$(target "${n}e6") particles (dp $dp), ranks $ranks"
		bash "$here/bench/sph_scaling.sh" --mode strong --ranks "$ranks" --dp "$dp" --steps "$steps" \
			--out "$out/$ph" 2>&1 ;;
	weak4|weak16|weak64)
		n=${ph#weak}; dp=$(dp_for "${n}e6")
		step "$ph: weak scaling, ~$(target "${n}e6") particles per GPU (dp $dp, one tank copy per rank group)"
		bash "$here/bench/sph_scaling.sh" --mode weak-copies --ranks "$ranks" --dp "$dp" \
			--steps "$steps" --out "$out/$ph" 2>&1 ;;
	overhead)
		r=${ranks##* }; dp=$(dp_for 50e6)
		step "overhead: per-step breakdown on $r ranks at ~$(target 50e6) particles (dp $dp)"
		sph_ranks "$r" "$dp" $(( steps + 3 )) overhead --profile
		cp "$out/overhead.log" "$out/overhead_profile.txt"
		tail -n 30 "$out/overhead_profile.txt" ;;
	gravity)
		per=$(target "${MG_GRAV_PER_GPU:-16e6}")
		step "gravity: weak scaling, $per particles per rank, ranks $ranks"
		GR_EXPERIMENTS=weak GR_RANKS="$ranks" GR_WEAK_PER_RANK="$per" \
			GR_DEVICE_WEAK=$([ "$gpus" -gt 0 ] && echo cuda || echo cpu) \
			GR_BUDGET=${GR_BUDGET:-500} bash "$here/bench/gravity_ranks.sh" "$out/gravity" 2>&1 | tail -n 12 ;;
	billion)
		r=${ranks##* } nb=$(target "${MG_BILLION_N:-1e9}"); dp=$(dp_for "${MG_BILLION_N:-1e9}")
		step "billion: ~$nb particles (dp $dp) on $r ranks, ${MG_BILLION_STEPS:-4} steps"
		start=$SECONDS
		sph_ranks "$r" "$dp" "${MG_BILLION_STEPS:-4}" billion
		echo "exit $? after $(( SECONDS - start )) s"
		cp "$out/billion/run_summary.csv" "$out/billion_summary.csv" 2>/dev/null &&
			$PY "$here/bench/benchlib.py" table "$out/billion_summary.csv"
		;;
	*) echo "device_multigpu.sh: unknown phase '$ph' (strong5 strong50 weak4 weak16 weak64 overhead gravity billion)" ;;
	esac
done
} 2>&1 | tee "$out/multigpu.log"
