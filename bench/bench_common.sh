# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=bash disable=SC2154  # here, repo, tide, case_file, pass: set by the caller
# bench/bench_common.sh — shell helpers sourced by the bench/ scripts (sph_ladder.sh, sched_policies.sh,
# output_overhead.sh, and the simulation scripts sim_*.sh for their set-up).
# Expects the caller to set: here (bench/), repo, and for tide_run: tide, case_file, pass (array of
# extra tide options).

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
warn() { printf '%s: warning: %s\n' "$(basename "$0")" "$*" >&2; }
die() { printf '%s: %s\n' "$(basename "$0")" "$*" >&2; exit 2; }
need_value() { [ $# -ge 2 ] || die "option $1 needs a value"; printf '%s' "$2"; }

# python3 with matplotlib: the Debian one first (the pyenv python3 on PATH may lack it)
pick_python() {
	local p
	for p in /usr/bin/python3 python3; do
		if command -v "$p" > /dev/null 2>&1 && "$p" -c 'import matplotlib' > /dev/null 2>&1; then
			echo "$p"; return
		fi
	done
	if [ -x /usr/bin/python3 ]; then echo /usr/bin/python3; else echo python3; fi
}
PY=$(pick_python)

# shared libraries of a build carried to another machine (tools/device_check.sh's layout)
setup_libs() {
	local d
	for d in "$repo/.deps/lib" /usr/local/cuda/lib64; do
		[ -d "$d" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	done
	return 0
}

# tide_run DIR DP STEPS [OPTION...]: one benchmark run (DP empty: the case's own spacing), no particle
# output (gauges.csv only).  Log in DIR/log.txt, the command and StarPU environment in DIR/command.txt.
# Returns non-zero when tide fails or the summary's status is not "ok".
tide_run() {
	local dir=$1 dp=$2 nsteps=$3 rc=0 status
	shift 3   # the rest: more tide run options for this run
	rm -rf "$dir"
	mkdir -p "$dir"
	# --no-output: the t = 0 snapshot is written while the steps run, so the short run of a
	# wall-time difference would wait for it at its end and the long one hide it (13 M: 20 ms
	# per step reported for 33.6)
	local args=(run "$case_file" --max-steps "$nsteps" --no-output --out "$dir" --quiet)
	[ -n "$dp" ] && args+=(--dp "$dp")
	args+=(${pass[@]+"${pass[@]}"} "$@")
	{ env | grep '^STARPU_' | sort || true; echo "$tide ${args[*]}"; } > "$dir/command.txt"
	"$tide" "${args[@]}" > "$dir/log.txt" 2>&1 || rc=$?
	if [ "$rc" != 0 ]; then
		warn "tide exited with $rc: $(tail -n 3 "$dir/log.txt" | tr '\n' ' ')"
		return 1
	fi
	[ -f "$dir/run_summary.csv" ] || { warn "no $dir/run_summary.csv"; return 1; }
	status=$("$PY" "$here/benchlib.py" field "$dir/run_summary.csv" status)
	[ "$status" = ok ] || { warn "run status: $status"; return 1; }
}

# field DIR COLUMN...: columns of DIR/run_summary.csv, space separated
field() { local d=$1; shift; "$PY" "$here/benchlib.py" field "$d/run_summary.csv" "$@"; }

# default_max_particles N PEAK_HOST PEAK_DEVICE NCUDA (from a probe run of N particles):
# GPU: 85 % of the GPUs' memory at the probe's device bytes per particle (the probe's fixed
# overheads make this conservative); CPU only: 250000 particles per core (time, not memory, is
# the limit there).  Both capped by 70 % of the host memory at the probe's host bytes per particle.
default_max_particles() {
	local n=$1 ph=$2 pd=$3 ncuda=$4 gpu_mem=0 host_mem
	host_mem=$(awk '/^MemTotal:/ {print $2 * 1024}' /proc/meminfo 2>/dev/null || echo 0)
	if [ "$ncuda" -gt 0 ] && command -v nvidia-smi > /dev/null 2>&1; then
		gpu_mem=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits 2>/dev/null |
			head -n "$ncuda" | awk '{s += $1 * 1048576} END {print s + 0}')
	fi
	"$PY" - "$n" "$ph" "$pd" "$ncuda" "$gpu_mem" "$host_mem" "$(nproc)" <<'EOF'
import sys
n, ph, pd, ncuda, gpu_mem, host_mem, ncores = map(float, sys.argv[1:])
if ncuda > 0:
    lim = 0.85 * gpu_mem * n / pd if gpu_mem > 0 and pd > 0 else 13.5e6
else:
    lim = 250000 * ncores
if host_mem > 0 and ph > 0:
    lim = min(lim, 0.7 * host_mem * n / ph)
print(int(lim))
EOF
}

# write_machine_info FILE TIDE: what the numbers were measured on
write_machine_info() {
	local f=$1 t=$2
	{
		echo "# SPDX-License-Identifier: LGPL-2.1-or-later"
		echo "date: $(date -Iseconds)"
		echo "host: $(hostname)"
		[ -r /etc/os-release ] && echo "os: $(# shellcheck disable=SC1091
			. /etc/os-release && echo "$PRETTY_NAME")"
		echo "kernel: $(uname -r)"
		echo "nproc: $(nproc)"
		echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1)"
		echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null) (other processes share the machine when this is near or above nproc)"
		echo "memory: $(awk '/^MemTotal:/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null)"
		if command -v nvidia-smi > /dev/null 2>&1; then
			nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
		fi
		echo "tide: $t ($("$t" --version 2>/dev/null | head -n 1))"
		if git -C "$repo" rev-parse --short HEAD > /dev/null 2>&1; then
			echo "git: $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- src tasks codelets include meson.build 2>/dev/null || echo ' (sources with local changes)')"
		else
			echo "git: (no repository here)"
		fi
		env | grep '^STARPU_' | sort | sed 's/^/env: /' || true
		"$t" info 2>&1 | grep -v '^\[starpu\]' | sed 's/^/tide info: /'
	} > "$f"
}

# ---- the simulation scripts (issue 25: sim_calibrate.sh, sim_scaling.sh, sim_gravity_*.sh) ----

# sim_starpu_env STARPU_HOME NCPU NCUDA: the StarPU environment of a calibration run or a simulated
# one: the models of host TIDE_SIM_HOST (default tide-calibrated) in STARPU_HOME, dmda unless
# STARPU_SCHED says otherwise, NCPU CPU and NCUDA CUDA workers per rank.
sim_starpu_env() {
	export STARPU_HOME=$1 STARPU_HOSTNAME=${TIDE_SIM_HOST:-tide-calibrated}
	export STARPU_SCHED=${STARPU_SCHED:-dmda} STARPU_SILENT=1 STARPU_NCPU=$2 STARPU_NCUDA=$3
}

# sim_calibrate_setup OUT NCPU NCUDA: for a calibration script (real runs, normal build): sets
# tide (TIDE, default build/tide), out (OUT made, absolute), the StarPU environment writing the
# models into OUT/models, and mpi (an array: MPIRUN, default mpirun --allow-run-as-root
# --oversubscribe --bind-to none, passing that environment to every rank).
sim_calibrate_setup() {
	tide=${TIDE:-$repo/build/tide}
	[ -x "$tide" ] || die "no normal build at $tide (bash tools/build.sh)"
	mkdir -p "$1"; out=$(cd "$1" && pwd)
	sim_starpu_env "$out/models" "$2" "$3"
	local launcher
	read -r -a launcher <<< "${MPIRUN:-mpirun --allow-run-as-root --oversubscribe --bind-to none}"
	# shellcheck disable=SC2034 # mpi: the caller runs it
	mpi=("${launcher[@]}" -x STARPU_NCPU -x STARPU_NCUDA -x STARPU_WORKERS_NOBIND=1 -x STARPU_SILENT
	     -x STARPU_HOME -x STARPU_HOSTNAME -x STARPU_SCHED -x STARPU_CALIBRATE -x TIDE_MPI=1)
}

# sim_pick_build: sets sim (the simulation build: TIDE_SIM, default build-simgrid/tide) and
# smpirun (STARPU_SMPIRUN, default the starpu_smpirun of the StarPU that build was linked with,
# tools/build.sh's stamp, else the first cached one); exits 2 naming what is missing.
sim_pick_build() {
	sim=${TIDE_SIM:-$repo/build-simgrid/tide}
	[ -x "$sim" ] || die "no simulation build at $sim (TIDE_SIMGRID=1 bash tools/build.sh)"
	local sp
	sp=$(cat "$(dirname "$sim")/.tide-starpu-prefix" 2>/dev/null || true)
	[ -n "$sp" ] && [ -x "$sp/bin/starpu_smpirun" ] || sp=$(ls -d "$HOME"/.cache/tide-deps/starpu-*/bin/starpu_smpirun 2>/dev/null | head -n 1 | xargs -r dirname | xargs -r dirname)
	smpirun=${STARPU_SMPIRUN:-${sp:+$sp/bin/starpu_smpirun}}
	[ -x "$smpirun" ] || die "no starpu_smpirun (set STARPU_SMPIRUN)"
}

# sim_run_setup MODELS OUT NCPU NCUDA: for a scaling script (simulated runs): checks MODELS (a
# STARPU_HOME of fitted models) and sets models (absolute), sim (the simulation build, TIDE_SIM,
# default build-simgrid/tide), smpirun (STARPU_SMPIRUN, default the cached StarPU's), out (OUT
# made, absolute) and the StarPU environment; exits 2 naming what is missing.
sim_run_setup() {
	models=$1
	[ -n "$models" ] || die "--models STARPU_HOME is needed (bench/sim_fit_models.py writes one)"
	[ -d "$models/.starpu/sampling/codelets" ] || die "$models holds no .starpu/sampling/codelets"
	models=$(cd "$models" && pwd)
	sim_pick_build
	mkdir -p "$2"; out=$(cd "$2" && pwd)
	sim_starpu_env "$models" "$3" "$4"
	# buffers StarPU allocates at capacity and a simulation touches only in part (a message's
	# size, a halo's header): with glibc's fixed mmap threshold the rest stays address space
	# (8 ranks of 4 M particles of SPH: 484 MB at the peak instead of 856 MB)
	export MALLOC_MMAP_THRESHOLD_=${MALLOC_MMAP_THRESHOLD_:-65536}
	# SimGrid options every simulated run gets (before the caller's own): no guard page under
	# the actors' stacks.  Each guard is a mapping of its own, and StarPU-MPI starts an actor per
	# request: 512 ranks of weak 16 M held 30 000 mappings mid-run, where Linux allows 65 530
	# (vm.max_map_count), so 1024 would fail in mmap; without guards 64 ranks peak at 1 147
	# mappings instead of 4 272, the same simulated times.
	# shellcheck disable=SC2034 # the caller passes it to starpu_smpirun
	smpi_cfg="--cfg=contexts/guard-size:0"
}
