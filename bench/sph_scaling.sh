#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/sph_scaling.sh — strong and weak scaling of distributed SPH over MPI ranks (the multi-GPU
# paper's Figs. 6-7 and 11), on whatever machine it is given.
#
#   bench/sph_scaling.sh [--mode strong|weak|weak-copies] [--ranks "1 2 4"] [--case FILE] [--dp X]
#                        [--steps S] [--blocks-per-rank B] [--out DIR] [--tide PATH] [-- tide args]
#
# strong: the same case (dp X) on every rank count; speedup s = T1/TN, efficiency s/N.
# weak:   dp shrinks with the rank count (3-D: dp_N = X / N^(1/3)) so the particles per rank stay
#         about constant; efficiency = (particle-steps/s per rank at N) / (that at 1 rank), which
#         stays honest when the particle count is not exactly N times the 1-rank one.  This is
#         the paper's Fig. 11, but refining also changes the work per particle (more fluid
#         against wall particles, SPHERIC 2: 50 % fluid at 224 k, 55 % at 402 k particles).
# weak-copies: N mirrored copies of the tank along x at the same dp (bench/mirror_case.py;
#         needs python3-yaml), so every rank gets the same work; efficiency = T1 / TN.
# T is the summary's later_steps of one run of W+S steps: the mean time of the steps after the
# first (which includes the uploads), measured inside tide; one run per rank count instead of
# the difference of two runs' step-loop times, which also cancels the first step but costs a
# second run (and the start of one of two runs on a busy shared machine).  Environment: MPIRUN
# (default: mpirun --allow-run-as-root --oversubscribe --bind-to none), NCPU_PER_RANK (STARPU_NCPU of each rank, default: cores / ranks, at least 1),
# and any STARPU_* variable (passed to every rank).  Writes DIR/sph_scaling_MODE.csv and .png.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/.." && pwd)
mode=strong ranks="1 2 4" case_file=$repo/cases/spheric2.yaml dp=0.03 steps=20 warm=3 bpr=2
out=$repo/bench/out tide=$repo/build/tide pass=()
while [ $# -gt 0 ]; do
	case $1 in
	--mode) mode=$2; shift 2 ;; --ranks) ranks=$2; shift 2 ;; --case) case_file=$2; shift 2 ;;
	--dp) dp=$2; shift 2 ;; --steps) steps=$2; shift 2 ;; --blocks-per-rank) bpr=$2; shift 2 ;;
	--out) out=$2; shift 2 ;; --tide) tide=$2; shift 2 ;; --) shift; pass=("$@"); break ;;
	*) echo "sph_scaling.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
case $mode in strong|weak|weak-copies) ;; *) echo "--mode must be strong, weak or weak-copies" >&2; exit 2 ;; esac
for d in "$repo/.deps/lib" /usr/local/cuda/lib64; do
	[ -d "$d" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
PY=/usr/bin/python3; [ -x $PY ] || PY=python3
read -r -a mpirun <<< "${MPIRUN:-mpirun --allow-run-as-root --oversubscribe --bind-to none}"
cores=$(nproc)
mkdir -p "$out"
csv=$out/sph_scaling_$mode.csv
echo "mode,ranks,particles,dp_m,time_per_step_ms,particle_steps_per_s,speedup,efficiency,ncpu_per_rank,ncuda,host" > "$csv"

col() { # summary column by name
	"$PY" - "$1" "$2" <<'PY'
import csv, sys
r = list(csv.reader(open(sys.argv[1])))
h = [c.split('[')[0] for c in r[0]]
print(r[1][h.index(sys.argv[2])])
PY
}

run() { # ranks dp nsteps dir [case]
	local n=$1 d=$2 ns=$3 dir=$4 cf=${5:-$case_file} ncpu=${NCPU_PER_RANK:-$(( cores / $1 > 0 ? cores / $1 : 1 ))}
	local env_args=(-x "STARPU_NCPU=$ncpu" -x STARPU_SILENT=1 -x LD_LIBRARY_PATH)
	while IFS= read -r v; do env_args+=(-x "$v"); done < <(env | grep '^STARPU_' | cut -d= -f1 | grep -v '^STARPU_NCPU$')
	# one core per rank or less: tide places the workers itself (src/runtime.c)
	rm -rf "$dir"
	"${mpirun[@]}" -np "$n" "${env_args[@]}" "$tide" run "$cf" --dp "$d" --max-steps "$ns" \
		--no-output --blocks $(( n * bpr )) --out "$dir" --quiet ${pass[@]+"${pass[@]}"} > "$dir.log" 2>&1 ||
		{ echo "tide failed on $n ranks: $(tail -n 3 "$dir.log")" >&2; exit 1; }
}

t1= pps1=
for n in $ranks; do
	d=$dp
	[ "$mode" = weak ] && d=$("$PY" -c "print($dp / $n ** (1/3))")
	cf=$case_file
	if [ "$mode" = weak-copies ]; then
		cf=$out/copies_$n.yaml
		"$PY" "$here/mirror_case.py" "$case_file" "$n" "$cf"
	fi
	run "$n" "$d" $(( warm + steps )) "$out/scal_${n}" "$cf"
	tl=$(col "$out/scal_${n}/run_summary.csv" later_steps)
	np=$(( $(col "$out/scal_${n}/run_summary.csv" n_fluid) + $(col "$out/scal_${n}/run_summary.csv" n_bound) ))
	ncuda=$(col "$out/scal_${n}/run_summary.csv" ncuda_workers)
	ncpu=$(col "$out/scal_${n}/run_summary.csv" ncpu_workers)
	read -r tms pps sp eff < <("$PY" - "$tl" "$np" "$n" "$mode" "${t1:-0}" "${pps1:-0}" <<'PY'
import sys
t, np_, n = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
mode, t1, pps1 = sys.argv[4], float(sys.argv[5]), float(sys.argv[6])
pps = np_ / t
if t1 == 0: t1, pps1 = t, pps
if mode == 'strong': sp = t1 / t; eff = sp / n
elif mode == 'weak-copies': eff = t1 / t; sp = eff * n
else: eff = (pps / n) / pps1; sp = eff * n
print(f"{1e3*t:.4f} {pps:.5g} {sp:.4f} {eff:.4f}")
PY
)
	[ -z "$t1" ] && { t1=$("$PY" -c "print($tms/1e3)"); pps1=$pps; }
	echo "$mode,$n,$np,$d,$tms,$pps,$sp,$eff,$ncpu,$ncuda,$(hostname)" >> "$csv"
	printf '%-6s ranks %2d  %10d particles  %9.3f ms/step  %10.4g p-steps/s  speedup %6.3f  efficiency %5.3f\n' \
		"$mode" "$n" "$np" "$tms" "$pps" "$sp" "$eff"
done
"$PY" - "$csv" "${csv%.csv}.png" <<'PY'
import csv, sys
import matplotlib; matplotlib.use('Agg')
import matplotlib.pyplot as plt
rows = list(csv.DictReader(open(sys.argv[1])))
n = [int(r['ranks']) for r in rows]; eff = [float(r['efficiency']) for r in rows]
sp = [float(r['speedup']) for r in rows]
fig, ax = plt.subplots(1, 2, figsize=(9, 3.6))
ax[0].plot(n, sp, 'o-', label='tide'); ax[0].plot(n, n, 'k--', lw=0.8, label='ideal')
ax[0].set_xlabel('MPI ranks'); ax[0].set_ylabel('speedup'); ax[0].legend()
ax[1].plot(n, eff, 's-'); ax[1].axhline(1, color='k', lw=0.8, ls='--')
ax[1].set_ylim(0, 1.1); ax[1].set_xlabel('MPI ranks'); ax[1].set_ylabel('efficiency')
fig.suptitle(f"{rows[0]['mode']} scaling, {rows[0]['particles']} particles at 1 rank ({rows[0]['host']})")
fig.tight_layout(); fig.savefig(sys.argv[2], dpi=120)
PY
echo "wrote $csv and ${csv%.csv}.png"
