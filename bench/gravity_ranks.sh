#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/gravity_ranks.sh OUT — the Barnes–Hut paper's GPU/CPU-ratio experiment on one node with
# one GPU (Lukat & Banerjee: several MPI ranks sharing the node's GPU against the same ranks on
# the CPU cores), from the repository root with build/ (CUDA build) and .deps/lib present:
#
#   1. strong: Plummer spheres of about 7 M and 20 M particles (GR_SIZES), mpirun -np R for
#      R in GR_RANKS (1 2 4 8 16), every rank's tree walked on the one GPU (--device cuda);
#   2. ratio:  the same ranks with the GPU and with the CPU tree (--device cpu, the cores split
#      evenly over the ranks: STARPU_NCPU = cores / R), and the GPU/CPU speedup per R, at
#      GR_RATIO_SIZES (default 7 M: on the 16-core H200 node a 7 M evaluation takes ~6 s on the
#      CPU tree and the ten runs ~150 s; GR_RATIO_SIZES="7000000 20000000" adds 20 M, ~19 s per
#      CPU evaluation and ~400 s for its runs, so give it GR_BUDGET=700 or a call of its own);
#   4. exchange (GR_EXPERIMENTS="exchange", CPU ranks, e.g. on a laptop): bytes of essential
#      nodes sent per rank per evaluation against the number of ranks GR_EXCHANGE_RANKS (1 2 4 8
#      16): experiment exchange_all1, the exchange before issue 25 (all-to-all, one box per
#      receiver: TIDE_GRAVITY_FAR=all TIDE_GRAVITY_BOXES=1), against exchange_near, near/far
#      ranks with a coarse tree for the far ones and each receiver's cover of boxes
#      (TIDE_GRAVITY_FAR=GR_FAR_NU, default 1; TIDE_GRAVITY_BOXES default); GR_EXCHANGE_N
#      particles (default 100000) of GR_EXCHANGE_DIST (uniform), STARPU_NCPU=1 per rank; summary
#      column bytes_per_rank (mean over the ranks);
#   3. weak:   GR_WEAK_PER_RANK particles per rank (default 0.5 M) on R ranks, GPU, with the share
#      of the essential nodes, twice: of the walk time (tide gravity times every rank's walk
#      tasks over its own tree and over the essential nodes it received, StarPU's task
#      profiling; summed over the ranks) and of the items (essential cells and particles
#      received, over the cells and particles of the ranks' own trees).
#
# Per-gravity-step time = tide gravity's "total": the median of GR_REPEAT (GPU, default 2) or 1
# (CPU) full evaluations (build, moments, virtual roots and essential-node exchange, walks),
# submitted at once; walk = the median walk alone.  No accuracy check (--check 0).
# Every run has a timeout (GR_TIMEOUT, default 90 s, never more than what is left of GR_BUDGET,
# default 330 s); a run cut off or failed is a row with status timeout/failed and empty times.
# Environment: GR_SIZES, GR_RANKS, GR_RATIO_SIZES, GR_WEAK_PER_RANK, GR_THETA (0.6), GR_REPEAT,
# GR_CORES (default nproc), GR_GPU_NCPU (STARPU_NCPU of each rank in GPU runs, default 0: the
# walk tasks are CUDA-only, and StarPU's idle CPU workers poll), GR_EXPERIMENTS ("strong ratio
# weak"), GR_DEVICES_RATIO ("cuda cpu"), GR_DEVICE_STRONG and GR_DEVICE_WEAK (cuda; cpu to try
# the script on a machine without GPU), GR_BUDGET, GR_TIMEOUT, MPIRUN, TIDE (./build/tide),
# GR_MPS (1: run everything under CUDA MPS, so that the ranks' kernels share the GPU at once
# instead of taking turns; needs nvidia-cuda-mps-control; machine.txt records it).
# Every rank generates all N particles and splits them, so a 20 M run takes 20-50 s whatever R;
# on the H200 node the defaults ended in 280 s with GR_BUDGET=290 (bench/results/h200-1gpu/).
# The budget skips (row "skipped") what does not fit.  Memory: each essential-node buffer is
# sized for the sender's whole tree, 2 (R - 1) of them per rank (~90 GB over 16 ranks at 20 M,
# host and GPU; it fitted on the H200 node).
# Writes OUT/gravity_ranks.csv (one row per run), OUT/gravity_ranks_summary.csv (speedups,
# efficiencies), OUT/gravity_ranks.png (bench/plot_gravity_ranks.py), OUT/raw/*.csv (tide's
# own rows), OUT/logs/*.log, OUT/machine.txt.
set -uo pipefail
out=${1:-bench/out/gravity_ranks}
mkdir -p "$out/raw" "$out/logs"
export LD_LIBRARY_PATH="$PWD/.deps/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export STARPU_HOME=${STARPU_HOME:-/tmp/tide-starpu-home}
export STARPU_SILENT=1
tide=${TIDE:-./build/tide}
sizes=${GR_SIZES:-7000000 20000000}
ranks=${GR_RANKS:-1 2 4 8 16}
ratio_sizes=${GR_RATIO_SIZES:-7000000}
weak_per_rank=${GR_WEAK_PER_RANK:-500000}
theta=${GR_THETA:-0.6}
repeat=${GR_REPEAT:-2}
cores=${GR_CORES:-$(nproc)}
gpu_ncpu=${GR_GPU_NCPU:-0}
mps=${GR_MPS:-0}
experiments=${GR_EXPERIMENTS:-strong ratio weak}
devices_ratio=${GR_DEVICES_RATIO:-cuda cpu}
dev_strong=${GR_DEVICE_STRONG:-cuda}
dev_weak=${GR_DEVICE_WEAK:-cuda}
budget=${GR_BUDGET:-330}
run_timeout=${GR_TIMEOUT:-90}
read -r -a mpirun <<< "${MPIRUN:-mpirun --allow-run-as-root --bind-to none --oversubscribe}"
PY=/usr/bin/python3; [ -x $PY ] || PY=python3
exchange_ranks=${GR_EXCHANGE_RANKS:-1 2 4 8 16}
exchange_n=${GR_EXCHANGE_N:-100000}
exchange_dist=${GR_EXCHANGE_DIST:-uniform}
far_nu=${GR_FAR_NU:-1}
dist=plummer
export TIDE_GRAVITY_FAR=${TIDE_GRAVITY_FAR:-auto} TIDE_GRAVITY_BOXES=${TIDE_GRAVITY_BOXES:-16}
csv="$out/gravity_ranks.csv"
echo "experiment,device,n,ranks,ncpu_per_rank,status,t_step_s,t_walk_s,t_build_s,t_moments_s,cells,groups,let_cells,let_particles,let_bytes,wall_s,walk_exec_s,walk_let_exec_s" >"$csv"
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1; echo "cores $cores"; echo "mps $mps"; git rev-parse HEAD; } \
	>"$out/machine.txt" 2>&1
start=$SECONDS

# run EXPERIMENT DEVICE N R: one mpirun, one row of gravity_ranks.csv
run() {
	local exp=$1 dev=$2 n=$3 r=$4
	local left=$(( budget - (SECONDS - start) )) t=$run_timeout
	[ "$left" -lt "$t" ] && t=$left
	local ncpu ncuda reps
	if [ "$dev" = cuda ]; then ncpu=$gpu_ncpu ncuda=1 reps=$repeat
	else ncpu=$(( cores / r > 0 ? cores / r : 1 )) ncuda=0 reps=1; fi
	[ "${exp%%_*}" = exchange ] && ncpu=1
	local tag="${exp}_${dev}_n${n}_r${r}" raw="$out/raw/${exp}_${dev}_n${n}_r${r}.csv"
	rm -f "$raw"
	if [ "$t" -lt 5 ]; then
		echo "$exp,$dev,$n,$r,$ncpu,skipped,,,,,,,,,,0" >>"$csv"
		echo "[gravity_ranks] $tag: skipped (budget spent)"
		return
	fi
	# the ranks share the cores: no binding (every rank would bind its workers to the same first
	# cores); --device cpu also keeps StarPU off the GPU (STARPU_NCUDA=0)
	local t0=$SECONDS status=ok
	STARPU_NCPU=$ncpu STARPU_NCUDA=$ncuda STARPU_WORKERS_NOBIND=1 \
	timeout -k 10 "$t" "${mpirun[@]}" -np "$r" -x LD_LIBRARY_PATH -x STARPU_HOME -x STARPU_SILENT \
		-x STARPU_NCPU -x STARPU_NCUDA -x STARPU_WORKERS_NOBIND -x TIDE_GRAVITY_FAR -x TIDE_GRAVITY_BOXES \
		"$tide" gravity --n "$n" --dist "$dist" --theta "$theta" --quadrupole --device "$dev" \
		--repeat "$reps" --check 0 --csv "$raw" >"$out/logs/$tag.log" 2>&1
	local rc=$? wall=$(( SECONDS - t0 ))
	[ $rc -eq 124 ] || [ $rc -eq 137 ] && status=timeout
	[ $rc -ne 0 ] && [ "$status" = ok ] && status=failed
	[ "$status" = ok ] && [ ! -s "$raw" ] && status=failed
	if [ "$status" = ok ]; then
		# tide's header: n,dist,theta,quadrupole,eps,device,walk_tasks,cells,groups,t_build_s,
		# t_moments_s,t_walk_s,t_total_s,t_first_s,check_n,err_median,err_p99,err_max,
		# pot_err_p99,ranks,let_cells,let_particles,let_bytes,walk_exec_s,walk_let_exec_s
		awk -F, -v e="$exp" -v d="$dev" -v r="$r" -v c="$ncpu" -v w="$wall" 'NR == 2 {
			printf "%s,%s,%s,%s,%s,ok,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", e, d, $1, r, c, $13,
			       $12, $10, $11, $8, $9, $21, $22, $23, w, $24, $25 }' "$raw" >>"$csv"
	else
		echo "$exp,$dev,$n,$r,$ncpu,$status,,,,,,,,,,$wall,," >>"$csv"
	fi
	echo "[gravity_ranks] $tag: $status in ${wall}s ($(grep -h 'time \[s\]' "$out/logs/$tag.log" | head -n 1))"
}

if [ "$mps" = 1 ]; then
	if command -v nvidia-cuda-mps-control >/dev/null && nvidia-cuda-mps-control -d; then
		trap 'echo quit | nvidia-cuda-mps-control' EXIT
		sleep 1
	else
		echo "gravity_ranks.sh: GR_MPS=1 but the CUDA MPS daemon does not start" >&2; exit 2
	fi
fi
for exp in $experiments; do
	case $exp in
	strong) for n in $sizes; do for r in $ranks; do run strong "$dev_strong" "$n" "$r"; done; done ;;
	ratio) for n in $ratio_sizes; do for r in $ranks; do for d in $devices_ratio; do run ratio "$d" "$n" "$r"; done; done; done ;;
	weak) for r in $ranks; do run weak "$dev_weak" $(( weak_per_rank * r )) "$r"; done ;;
	exchange) for r in $exchange_ranks; do
		dist=$exchange_dist TIDE_GRAVITY_FAR=all TIDE_GRAVITY_BOXES=1 run exchange_all1 cpu "$exchange_n" "$r"
		dist=$exchange_dist TIDE_GRAVITY_FAR=$far_nu TIDE_GRAVITY_BOXES=16 run exchange_near cpu "$exchange_n" "$r"
	done ;;
	*) echo "gravity_ranks.sh: unknown experiment '$exp' (strong, ratio, weak, exchange)" >&2; exit 2 ;;
	esac
done

# summary: strong speedup T(1)/T(R) and efficiency, GPU/CPU speedup per R, weak efficiency
# T(1)/T(R) and the essential-node share
"$PY" - "$csv" "$out/gravity_ranks_summary.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))]
ok = [r for r in rows if r['status'] == 'ok']
t = lambda r: float(r['t_step_s'])
def find(exp, dev, n, R):
    for r in ok:
        if r['experiment'] == exp and r['device'] == dev and r['n'] == n and r['ranks'] == R:
            return r
out = open(sys.argv[2], 'w')
w = csv.writer(out)
w.writerow(['experiment', 'device', 'n', 'ranks', 't_step_s', 't_walk_s', 'speedup_vs_1_rank',
            'efficiency', 'gpu_over_cpu_speedup', 'essential_share', 'essential_time_share',
            'bytes_per_rank'])
lines = []
for r in rows:
    if r['status'] != 'ok':
        w.writerow([r['experiment'], r['device'], r['n'], r['ranks'], r['status'], '', '', '', '', '', '', ''])
        lines.append(f"{r['experiment']:6} {r['device']:4} n {int(r['n']):>9} R {int(r['ranks']):>2}: {r['status']}")
        continue
    R = int(r['ranks'])
    if r['experiment'] == 'weak':  # the 1-rank run of the weak series (fewer particles)
        one = next((x for x in ok if x['experiment'] == 'weak' and x['device'] == r['device'] and x['ranks'] == '1'), None)
    else:
        one = find(r['experiment'], r['device'], r['n'], '1')
    sp = eff = ratio = share = tshare = ''
    if one:
        if r['experiment'] == 'weak':
            eff = t(one) / t(r); sp = eff * R
        else:
            sp = t(one) / t(r); eff = sp / R
    if r['experiment'] == 'ratio' and r['device'] == 'cuda':
        cpu = find('ratio', 'cpu', r['n'], r['ranks'])
        if cpu: ratio = t(cpu) / t(r)
    if R > 1 and r['let_cells'] and float(r['cells']) > 0:
        # items received from other ranks over the own trees' items (cells + particles)
        share = (float(r['let_cells']) + float(r['let_particles'])) / (float(r['cells']) + float(r['n']))
    if R > 1 and r.get('walk_let_exec_s'):
        # the walk tasks' execution time over received essential nodes, of all walk time
        own, let = float(r['walk_exec_s']), float(r['walk_let_exec_s'])
        if own + let > 0: tshare = let / (own + let)
    f = lambda v, p: f"{v:.{p}f}" if v != '' else ''
    bpr = float(r['let_bytes']) / R if r['let_bytes'] else ''
    w.writerow([r['experiment'], r['device'], r['n'], R, r['t_step_s'], r['t_walk_s'], f(sp, 3),
                f(eff, 3), f(ratio, 2), f(share, 3), f(tshare, 3), f(bpr, 0)])
    lines.append(f"{r['experiment']:6} {r['device']:4} n {int(r['n']):>9} R {R:>2}: step {t(r):8.4f} s  walk "
                 f"{float(r['t_walk_s']):8.4f} s  speedup {f(sp, 2) or '-':>6}  eff {f(eff, 2) or '-':>5}"
                 + (f"  GPU/CPU {f(ratio, 1)}" if ratio != '' else '')
                 + (f"  essential share {f(share, 2)} of items" if share != '' else '')
                 + (f", {f(tshare, 2)} of walk time" if tshare != '' else '')
                 + (f"  {bpr / 1e3:.1f} kB sent per rank" if bpr != '' and R > 1 else ''))
out.close()
print('\n'.join(lines))
PY
"$PY" "$(dirname "$0")/plot_gravity_ranks.py" "$out/gravity_ranks_summary.csv" \
	"$out/gravity_ranks.png" || echo "[gravity_ranks] no plot (matplotlib missing?)"
echo "[gravity_ranks] done in $(( SECONDS - start )) s; $csv, $out/gravity_ranks_summary.csv"
