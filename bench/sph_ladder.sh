#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/sph_ladder.sh — time per step and particle throughput of tide on the SPHERIC test 2 geometry
# (cases/spheric2.yaml) over a ladder of particle counts: about 0.1, 0.2, 0.4, 1, 2, 4, 7 and
# 13 million particles, up to --max-particles.  Writes DIR/sph_ladder.csv, DIR/machine.txt and
# DIR/sph_ladder.png (bench/plot_ladder.py), and prints a table.  See bench/README.md.
set -euo pipefail

usage() {
	cat <<'EOF'
usage: bench/sph_ladder.sh [options] [extra tide run options, e.g. --blocks 64]

  --max-particles N   largest rung to run (default: what fits in GPU memory, from a probe run's
                      device bytes per particle; CPU only: 250000 per core, i.e. 0.5e6 on 2 cores)
  --steps S           timed steps per rung (default 50)
  --warmup W          untimed warm-up steps (default 5)
  --single            one run of S steps per rung, reporting tide's own time_per_step (averaged
                      over all steps, the first ones included) instead of the default
                      differencing of two runs: (wall(W+S steps) - wall(W steps)) / S
  --targets LIST      comma-separated particle counts (default 1e5,2e5,4e5,1e6,2e6,4e6,7e6,13e6)
  --case FILE         case file (default cases/spheric2.yaml)
  --out DIR           output folder (default bench/out)
  --tide PATH         tide binary (default build/tide)
  --keep-runs         keep each run's folder (VTP output, logs) under DIR/runs/
  --no-plot           do not draw DIR/sph_ladder.png
  --                  everything after it goes to tide run unchanged
Other unknown arguments are passed to tide run too.  StarPU variables (STARPU_SCHED, STARPU_NCPU,
STARPU_NCUDA, ...) are taken from the environment.
EOF
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=bench/bench_common.sh
source "$here/bench_common.sh"

max_particles=""
steps=50
warmup=5
single=0
targets="1e5,2e5,4e5,1e6,2e6,4e6,7e6,13e6"
case_file="$repo/cases/spheric2.yaml"
out="$repo/bench/out"
tide="$repo/build/tide"
keep_runs=0
plot=1
pass=()
while [ $# -gt 0 ]; do
	case "$1" in
	--max-particles) max_particles=$(need_value "$@"); shift 2 ;;
	--steps) steps=$(need_value "$@"); shift 2 ;;
	--warmup) warmup=$(need_value "$@"); shift 2 ;;
	--single) single=1; shift ;;
	--targets) targets=$(need_value "$@"); shift 2 ;;
	--case) case_file=$(need_value "$@"); shift 2 ;;
	--out) out=$(need_value "$@"); shift 2 ;;
	--tide) tide=$(need_value "$@"); shift 2 ;;
	--keep-runs) keep_runs=1; shift ;;
	--no-plot) plot=0; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; pass+=("$@"); break ;;
	*) pass+=("$1"); shift ;;
	esac
done
case "$steps" in ''|*[!0-9]*|0) die "--steps needs a whole number > 0, got '$steps'" ;; esac
case "$warmup" in ''|*[!0-9]*) die "--warmup needs a whole number >= 0, got '$warmup'" ;; esac
if [ "$single" = 0 ] && [ "$warmup" = 0 ]; then warmup=1; fi   # differencing needs a first run
[ -x "$tide" ] || die "no tide binary at $tide (build it: ninja -C build)"
[ -f "$case_file" ] || die "no case file $case_file"
mkdir -p "$out/runs"
out=$(cd "$out" && pwd)
setup_libs
write_machine_info "$out/machine.txt" "$tide"

# --- probe: one step at the case's own spacing gives the fluid/boundary split (fluid ~ dp^-3,
# boundary layers ~ dp^-2) and the host/device bytes per particle
probe="$out/runs/probe"
log "probe: $(basename "$case_file") at its own dp, 1 step"
if ! tide_run "$probe" "" 1; then die "probe run failed, see $probe/log.txt"; fi
read -r nf0 nb0 dp0 ncpu ncuda sched ph0 pd0 < <(field "$probe" n_fluid n_bound dp ncpu_workers ncuda_workers sched peak_host peak_device)
n0=$((nf0 + nb0))
log "probe: $n0 particles ($nf0 fluid + $nb0 boundary) at dp = $dp0 m; $ncpu CPU + $ncuda CUDA workers, scheduler $sched"

if [ -z "$max_particles" ]; then
	max_particles=$(default_max_particles "$n0" "$ph0" "$pd0" "$ncuda")
	log "--max-particles not given: using $max_particles"
fi
max_particles=$($PY -c "import sys; print(int(float(sys.argv[1])))" "$max_particles")

csv="$out/sph_ladder.csv"
echo "particles,dp_m,steps,time_per_step_ms,particle_steps_per_s,peak_device_bytes,bytes_per_particle,expected_bytes_per_particle,ncpu,ncuda,sched,host,candidates_per_particle,neighbours_per_particle,pair_interactions_per_s" > "$csv"
host=$(hostname -s 2>/dev/null || hostname)
nrows=0
IFS=, read -r -a target_list <<< "$targets"
for target in "${target_list[@]}"; do
	dp=$($PY "$here/benchlib.py" dp "$nf0" "$nb0" "$dp0" "$target")
	pred=$($PY "$here/benchlib.py" count "$nf0" "$nb0" "$dp0" "$dp")
	# 5 % slack: the rungs are "about" their target and the probe-based limit is conservative
	if [ "$pred" -gt $((max_particles + max_particles / 20)) ]; then
		log "skip target $target: dp = $dp m would give about $pred particles > --max-particles $max_particles"
		continue
	fi
	label=$(printf 'n%s_dp%s' "$target" "$dp")
	if [ "$single" = 1 ]; then
		log "target $target: dp = $dp m (about $pred particles), one run of $steps steps"
		rb="$out/runs/$label"
		if ! tide_run "$rb" "$dp" "$steps" --pair-stats; then warn "run failed (see $rb/log.txt); stopping the ladder"; break; fi
		read -r nf nb sb tps_s pd ed ncpu ncuda sched < <(field "$rb" n_fluid n_bound steps time_per_step peak_device expected_device ncpu_workers ncuda_workers sched)
		tps_ms=$($PY -c "import sys; print(f'{float(sys.argv[1])*1e3:.4g}')" "$tps_s")
		nsteps=$sb
	else
		log "target $target: dp = $dp m (about $pred particles), runs of $warmup and $((warmup + steps)) steps"
		ra="$out/runs/${label}_a"
		rb="$out/runs/${label}_b"
		if ! tide_run "$ra" "$dp" "$warmup"; then warn "run failed (see $ra/log.txt); stopping the ladder"; break; fi
		if ! tide_run "$rb" "$dp" "$((warmup + steps))" --pair-stats; then warn "run failed (see $rb/log.txt); stopping the ladder"; break; fi
		read -r sa wa < <(field "$ra" steps wall)
		read -r nf nb sb wb pd ed ncpu ncuda sched < <(field "$rb" n_fluid n_bound steps wall peak_device expected_device ncpu_workers ncuda_workers sched)
		[ "$sb" -gt "$sa" ] || { warn "the longer run did only $sb steps (the shorter $sa); stopping"; break; }
		nsteps=$((sb - sa))
		tps_ms=$($PY -c "import sys; a,b,n=map(float,sys.argv[1:]); print(f'{(b-a)/n*1e3:.4g}')" "$wa" "$wb" "$nsteps")
		case "$tps_ms" in -*|0)
			tps_ms=$($PY -c "import sys; print(f'{float(sys.argv[1])*1e3:.4g}')" "$(field "$rb" time_per_step)")
			warn "the ${warmup}-step run took longer than the $((warmup + steps))-step one (a busy machine?); reporting the longer run's own time_per_step, $tps_ms ms"
			;;
		esac
		# tide's own clock around each step of the longer run (first step left out) as a check
		# of the difference, which a write or a wait at a run's end would upset
		own=$(field "$rb" later_steps)
		$PY -c "import sys; d, o = float(sys.argv[1]), 1e3 * float(sys.argv[2]); sys.exit(0 if o <= 0 or abs(d - o) <= 0.1 * o else 1)" "$tps_ms" "$own" ||
			warn "the difference, $tps_ms ms/step, is more than 10 % off the longer run's own later steps, $($PY -c "import sys; print(f'{1e3 * float(sys.argv[1]):.4g}')" "$own") ms"
	fi
	np=$((nf + nb))
	# the GPU's bytes per particle: StarPU's peak, and what tide expects from its allocation
	# formulas (run.log says where they go: bench/results/cpu-2core/gpu_memory.md)
	read -r pss bpp ebpp < <($PY -c "
import sys
n, t, pd, ed, ncuda = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
pss = n / (t * 1e-3) if t > 0 else 0
bpp = f'{pd / n:.1f}' if ncuda > 0 and pd > 0 else '-'
ebpp = f'{ed / n:.1f}' if ncuda > 0 and ed > 0 else '-'
print(f'{pss:.4g}', bpp, ebpp)" "$np" "$tps_ms" "$pd" "${ed:-0}" "$ncuda")
	[ "$bpp" = "-" ] && bpp=""
	[ "$ebpp" = "-" ] && ebpp=""
	# the neighbour search of the longer run's last state (tide run --pair-stats): candidates
	# tested and neighbours found per particle, and the pairs evaluated per second (each force
	# pass of the step evaluates particles x neighbours of them)
	read -r cand nbr pairs < <($PY -c "
import csv, sys
try:
    r = next(csv.DictReader(open(sys.argv[1] + '/pair_stats.csv')))
except (OSError, StopIteration):
    print('- - -'); sys.exit()
c, b, k = (float(r[f]) for f in ('candidates_per_particle[-]', 'neighbours_per_particle[-]', 'force_passes_per_step[-]'))
n, t = float(sys.argv[2]), float(sys.argv[3])
print(f'{c:.1f} {b:.1f} {n * b * k / (t * 1e-3):.4g}' if t > 0 else f'{c:.1f} {b:.1f} -')" "$rb" "$np" "$tps_ms")
	echo "$np,$dp,$nsteps,$tps_ms,$pss,$pd,$bpp,$ebpp,$ncpu,$ncuda,$sched,$host,${cand#-},${nbr#-},${pairs#-}" >> "$csv"
	nrows=$((nrows + 1))
	log "  $np particles: $tps_ms ms/step, $pss particle-steps/s${bpp:+, $bpp B/particle on the GPU}${ebpp:+ ($ebpp expected)}"
	[ "$cand" = - ] || log "  $cand candidates tested and $nbr neighbours found per particle: $pairs pair interactions/s"
	[ "$keep_runs" = 1 ] || rm -f "$out"/runs/"$label"*/particles_*.vtp
done
[ "$keep_runs" = 1 ] || rm -f "$probe"/particles_*.vtp
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)" >> "$out/machine.txt"

echo
echo "sph_ladder: $csv ($nrows rung(s); $([ "$single" = 1 ] && echo "tide's time_per_step over $steps steps" || echo "wall-time difference of $((warmup + steps))- and $warmup-step runs"))"
$PY "$here/benchlib.py" table "$csv"
if [ "$plot" = 1 ] && [ "$nrows" -gt 0 ]; then
	if "$PY" "$here/plot_ladder.py" "$csv" "$out/sph_ladder.png"; then
		echo "plot: $out/sph_ladder.png"
	else
		warn "plot failed (is matplotlib installed for $PY?)"
	fi
fi
