#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/bootstrap.sh — install everything tide needs on a fresh Debian 12 machine.
#
#  * Debian packages: compilers, meson, ninja, pkg-config, Open MPI, hwloc, FxT, libyaml, parallel
#    HDF5 (Open MPI flavour, for the .h5 particle output), expat and zlib (tide probe's VTK/XDMF
#    readers), FFTW 3 (turbulent initial velocities), matplotlib.
#  * StarPU 1.4.x built from Debian's source package (unstable suite: Debian 12 ships only 1.3,
#    which has no CUDA), with CUDA when nvcc is present, StarPU-MPI and FxT, sized for 128 CPUs and
#    8 GPUs, without OpenCL, Fortran, StarPU-FFT, docs, examples and tests.
#
# StarPU goes into a cache prefix outside the clone (TIDE_DEPS, default ~/.cache/tide-deps) whose
# name encodes the version and options, so a second run — or CI on the same machine — reuses it.
# Idempotent; prints what it does.  Prints the prefix on the last line of stdout as
#   TIDE_STARPU_PREFIX=/path
# Set TIDE_SKIP_APT=1 to skip the package step (no root).
# TIDE_SIMGRID=1: the simulation build instead (issue 25; tools/build.sh builds tide against it
# in build-simgrid/): StarPU with SimGrid (Debian's libsimgrid-dev), static as SimGrid's MPI
# (SMPI) needs, without FxT and CUDA (configure refuses CUDA with SimGrid: simulated GPUs come
# from the performance models and the platform files of a calibration run), without tide's
# patches about real cores, with one about the simulator's own cost (one time-advance callback
# per process, below).  Its own cache prefix (the options and patches are in its name).
set -euo pipefail

say() { printf '[bootstrap] %s\n' "$*" >&2; }
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

DEBS=(build-essential gcc g++ meson ninja-build pkg-config
      libopenmpi-dev openmpi-bin libhwloc-dev hwloc libfxt-dev fxt-tools
      libyaml-dev libhdf5-openmpi-dev libexpat1-dev zlib1g-dev libfftw3-dev python3 python3-matplotlib python3-numpy python3-yaml python3-h5py dpkg-dev xz-utils
      ca-certificates)
SIMGRID=${TIDE_SIMGRID:-0}
[ "$SIMGRID" = 1 ] && DEBS+=(libsimgrid-dev xsltproc)

if [ "${TIDE_SKIP_APT:-0}" != 1 ]; then
  missing=()
  for p in "${DEBS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    say "installing Debian packages: ${missing[*]}"
    $SUDO apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
  else
    say "Debian packages already installed"
  fi
fi

# ---- StarPU -------------------------------------------------------------------------------
NVCC=""
if command -v nvcc >/dev/null 2>&1; then NVCC=$(command -v nvcc)
elif [ -x /usr/local/cuda/bin/nvcc ]; then NVCC=/usr/local/cuda/bin/nvcc; fi
CUDA_DIR=""
[ -n "$NVCC" ] && CUDA_DIR=$(dirname "$(dirname "$(readlink -f "$NVCC")")")

STARPU_SERIES=1.4
OPTS=(--enable-mpi --with-fxt --enable-maxcpus=128 --enable-maxcudadev=8 --enable-maxbuffers=16
      --disable-opencl --disable-fortran --disable-starpufft --disable-build-doc
      --disable-build-examples --disable-build-tests --disable-socl --disable-starpupy
      --disable-hdf5 --disable-mlr --disable-gdb --disable-simgrid)
if [ "$SIMGRID" = 1 ]; then
  # Sized for one simulated rank (SMPI runs all ranks in one process, each with its own copy of
  # StarPU's globals): at most 16 CPU workers (the H200 calibration host's), 2 GPUs, 4 memory
  # nodes.  A handle holds a replicate per memory node, each with two request arrays of
  # STARPU_MAXNODES pointers: 32 nodes made every handle ~20 KB, 4 make it well under 1 KB.
  OPTS=(--enable-simgrid --disable-shared --enable-mpi --without-fxt --enable-maxcpus=16
        --enable-maxcudadev=2 --enable-maxopencldev=1 --enable-maxhipdev=1
        --enable-maxmaxfpgadev=1 --enable-maxnodes=4
        --enable-maxbuffers=16 --disable-opencl --disable-fortran
        --disable-starpufft --disable-build-doc --disable-build-examples --disable-build-tests
        --disable-socl --disable-starpupy --disable-hdf5 --disable-mlr --disable-gdb)
  CUDA_DIR=""
elif [ -n "$CUDA_DIR" ]; then
  OPTS+=(--enable-cuda --with-cuda-dir="$CUDA_DIR" --disable-cuda-memcpy-peer)
else
  OPTS+=(--disable-cuda)
fi
# extra configure options (e.g. TIDE_STARPU_EXTRA=--enable-blocking-drivers), part of the hash
read -r -a EXTRA <<< "${TIDE_STARPU_EXTRA:-}"
[ ${#EXTRA[@]} -gt 0 ] && OPTS+=("${EXTRA[@]}")
# tide's source patches (below) are part of the hash too: a cache built without them is not reused
PATCHES="cuda13-computemode spin-yield mpi-poll-sleep"
[ "$SIMGRID" = 1 ] && PATCHES="simgrid-time-advance-once-v3"
OPTHASH=$(printf '%s\n' "${OPTS[@]}" "$PATCHES" | sha1sum | cut -c1-10)
DEPS=${TIDE_DEPS:-$HOME/.cache/tide-deps}
mkdir -p "$DEPS"

existing=$(ls -d "$DEPS"/starpu-${STARPU_SERIES}.*-"$OPTHASH" 2>/dev/null | head -n1 || true)
if [ -n "$existing" ] && [ -f "$existing/.tide-complete" ]; then
  say "StarPU already built with these options: $existing"
  echo "TIDE_STARPU_PREFIX=$existing"
  exit 0
fi

SRC_LIST=/etc/apt/sources.list.d/tide-unstable-src.sources
if ! ls "$DEPS"/src/starpu_${STARPU_SERIES}.*.orig.tar.gz >/dev/null 2>&1; then
  if [ ! -f "$SRC_LIST" ]; then
    say "adding a deb-src entry for Debian unstable (source packages only) in $SRC_LIST"
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: unstable\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      | $SUDO tee "$SRC_LIST" >/dev/null
    $SUDO apt-get update -q >&2
  fi
  mkdir -p "$DEPS/src"
  say "downloading Debian's StarPU source package into $DEPS/src"
  (cd "$DEPS/src" && apt-get source --download-only starpu >&2)
fi
TARBALL=$(ls "$DEPS"/src/starpu_${STARPU_SERIES}.*.orig.tar.* | sort -V | tail -n1)
VERSION=$(basename "$TARBALL" | sed -E 's/^starpu_([0-9.]+)(\+[^.]*)?\.orig.*/\1/')
PREFIX="$DEPS/starpu-$VERSION-$OPTHASH"
BUILD="$DEPS/build-starpu-$VERSION-$OPTHASH"
say "building StarPU $VERSION into $PREFIX"
rm -rf "$BUILD" "$PREFIX"; mkdir -p "$BUILD"
tar -xf "$TARBALL" -C "$BUILD" --strip-components=1

# CUDA 13 removed cudaDeviceProp::computeMode; ask the attribute instead.
[ "$SIMGRID" = 1 ] || for f in "$BUILD"/src/drivers/cuda/driver_cuda.c "$BUILD"/src/drivers/cuda/driver_cuda1.c; do
  [ -f "$f" ] || continue
  if grep -q 'props\[[a-z]*\]\.computeMode\|\.computeMode' "$f"; then
    say "patching $(basename "$f") for CUDA 13 (computeMode)"
    python3 - "$f" <<'PY'
import re, sys
p = sys.argv[1]; s = open(p).read()
# "<expr>.computeMode" -> "_tide_compute_mode(<devid expr>)" needs the device id; StarPU uses
# cudaGetDeviceProperties(&props[devid], devid) and later props[devid].computeMode.
s2 = re.sub(r'(\w+)\[(\w+)\]\.computeMode', r'_tide_compute_mode(\2)', s)
s2 = re.sub(r'(\w+)\.computeMode', r'_tide_compute_mode(-1)', s2)
helper = ('\nstatic inline int _tide_compute_mode(int dev)\n{\n\tint v = 0;\n'
          '\tif (dev < 0) cudaGetDevice(&dev);\n'
          '\tcudaDeviceGetAttribute(&v, cudaDevAttrComputeMode, dev);\n\treturn v;\n}\n')
# put the helper after the last #include
idx = [m.end() for m in re.finditer(r'^#include[^\n]*\n', s2, re.M)]
s2 = s2[:idx[-1]] + helper + s2[idx[-1]:]
open(p, 'w').write(s2)
PY
  fi
done

# An idle CPU worker spins (STARPU_UYIELD, "pause") and never gives its core up, and the last
# awake worker of a context never blocks, even with --enable-blocking-drivers.  When an MPI rank
# has one core, the StarPU-MPI progress thread then only runs when the kernel preempts the
# spinning worker (once a scheduler tick, 4 ms at HZ=250), and every message waits for that.
# Once the backoff has reached its maximum, yield the core to whatever else is runnable.
f="$BUILD"/src/drivers/driver_common/driver_common.c
if [ "$SIMGRID" != 1 ] && [ -f "$f" ] && ! grep -q tide_spin_yield "$f"; then
  say "patching driver_common.c (idle workers sched_yield at maximum backoff)"
  python3 - "$f" <<'PY'
import re, sys
p = sys.argv[1]; s = open(p).read()
old = ("\twhile(delay--)\n\t\tSTARPU_UYIELD();\n}")
assert old in s, "StarPU's _starpu_exponential_backoff changed; update tools/bootstrap.sh"
new = ("\twhile(delay--)\n\t\tSTARPU_UYIELD();\n"
       "\t/* tide_spin_yield: let the MPI progress thread have a core we only spin on */\n"
       "\tif (worker->spinning_backoff >= worker->config->conf.driver_spinning_backoff_max)\n"
       "\t\tsched_yield();\n}")
s = s.replace(old, new, 1)
idx = [m.end() for m in re.finditer(r'^#include[^\n]*\n', s, re.M)]
s = s[:idx[-1]] + '#include <sched.h>\n' + s[idx[-1]:]
open(p, 'w').write(s)
PY
fi

# StarPU-MPI's progression thread polls without pause while requests are pending.  Sharing a
# core with a worker, a thread that never sleeps is never woken either, so the kernel runs it
# only when it preempts the worker at a scheduler tick: every step of a message (envelope, data,
# completion) then waits up to 4 ms (HZ=250).  With TIDE_MPI_POLL_SLEEP_US=N (tide sets it when
# a rank has less than two cores, src/runtime.c) a poll that found nothing sleeps N us; the
# wake-up lets it preempt the worker within a time slice.  Unset or 0: StarPU's own behaviour.
f="$BUILD"/mpi/src/mpi/starpu_mpi_mpi.c
if [ "$SIMGRID" != 1 ] && [ -f "$f" ] && ! grep -q tide_poll_sleep "$f"; then
  say "patching starpu_mpi_mpi.c (optional sleep of an idle progression poll)"
  python3 - "$f" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
def sub(old, new, count=1):
    global s
    assert s.count(old) >= count, "StarPU-MPI's progression loop changed near %r; update tools/bootstrap.sh" % old[:60]
    s = s.replace(old, new, count)
sub("\tint mpi_driver_task_counter = 0;\n",
    "\tint mpi_driver_task_counter = 0;\n"
    "\t/* tide_poll_sleep: see tools/bootstrap.sh */\n"
    "\tint tide_poll_sleep_us = starpu_getenv_number_default(\"TIDE_MPI_POLL_SLEEP_US\", 0);\n"
    "\tint tide_busy = 0;\n")
sub("\t\t/* get one recv request */\n\t\tunsigned n = 0;\n",
    "\t\t/* get one recv request */\n\t\tunsigned n = 0;\n\t\ttide_busy = 0;\n")
sub("\t\t/* get one send request */\n\t\tn = 0;\n",
    "\t\ttide_busy |= n > 0;\n\t\t/* get one send request */\n\t\tn = 0;\n")
sub("\t\t_STARPU_MPI_TRACE_POLLING_BEGIN();\n\n\t\t/* If there is no currently submitted envelope_request",
    "\t\ttide_busy |= n > 0;\n\t\t_STARPU_MPI_TRACE_POLLING_BEGIN();\n\n\t\t/* If there is no currently submitted envelope_request")
sub("\t\t\tif (flag)\n\t\t\t{\n\t\t\t\t_STARPU_MPI_TRACE_POLLING_END();\n",
    "\t\t\tif (flag)\n\t\t\t{\n\t\t\t\ttide_busy = 1;\n\t\t\t\t_STARPU_MPI_TRACE_POLLING_END();\n")
sub("\t\t// We release the lock to avoid monopolizing it while polling for terminations\n",
    "\t\tif (tide_poll_sleep_us > 0 && !tide_busy)\n\t\t{\n"
    "\t\t\tSTARPU_PTHREAD_MUTEX_UNLOCK(&progress_mutex);\n"
    "\t\t\tusleep(tide_poll_sleep_us);\n"
    "\t\t\tSTARPU_PTHREAD_MUTEX_LOCK(&progress_mutex);\n\t\t}\n"
    "\t\t// We release the lock to avoid monopolizing it while polling for terminations\n")
if '#include <unistd.h>' not in s:
    sub('#include <starpu_mpi_fxt.h>\n', '#include <starpu_mpi_fxt.h>\n#include <unistd.h>\n')
open(p, 'w').write(s)
PY
fi

# SimGrid build: a contended simulated spinlock waits on a condition that StarPU broadcasts at
# every advance of the simulated clock (src/core/simgrid_cpp.cpp).  Under SMPI every rank has its
# own (privatized) copy of StarPU, and each copy registered its own time-advance callback: R
# callbacks per clock advance, and the advances grow with R (41 % of the CPU of a 1024-rank
# start-up, bench/results/sim-h200/scaling-2026-12-06-rank1024).  Register one callback per
# process (the first copy; the copies find its registry through an environment variable, libc
# being one for all of them: not a SimGrid property, whose setting is a simcall, so that every
# rank's actor looked before any had set it), and broadcast only the copies that count a
# waiter, in the order they registered: the same actors are woken in the same order as before,
# so nothing simulated changes.
f="$BUILD"/src/core/simgrid_cpp.cpp
if [ "$SIMGRID" = 1 ] && [ -f "$f" ] && ! grep -q tide_time_advance_once "$f"; then
  say "patching simgrid_cpp.cpp and thread.h (one time-advance callback per process)"
  python3 - "$f" "$BUILD"/src/common/thread.h "$BUILD"/src/core/simgrid.h <<'PY'
import sys
def patch(p, pairs):
    s = open(p).read()
    for old, new in pairs:
        assert s.count(old) == 1, "StarPU changed near %r in %s; update tools/bootstrap.sh" % (old[:60], p)
        s = s.replace(old, new)
    open(p, 'w').write(s)
cpp, thread_h, simgrid_h = sys.argv[1:4]
patch(cpp, [
("""#include <simgrid/s4u/Engine.hpp>
""", """#include <simgrid/s4u/Engine.hpp>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
"""),
("""starpu_pthread_mutex_t _starpu_simgrid_time_advance_mutex;
starpu_pthread_cond_t _starpu_simgrid_time_advance_cond;
#endif
""",
"""starpu_pthread_mutex_t _starpu_simgrid_time_advance_mutex;
starpu_pthread_cond_t _starpu_simgrid_time_advance_cond;

/* tide_time_advance_once: one registry per process (shared by the privatized copies of StarPU
 * that SMPI makes, one per rank): each copy's condition and count of waiters, indexed in the
 * order the copies registered, in two arrays (the callback reads the counts of 1024 copies in
 * 4 KB instead of a page of each copy), and the waiters of all copies; the first copy registers
 * the one callback. */
struct _tide_time_advance_registry
{
	int waiters;
	unsigned n, size;
	starpu_pthread_cond_t **cond;
	int *copy_waiters;
};
/* "PID:ADDRESS": a child process inherits the variable, not the registry */
#define TIDE_TIME_ADVANCE_ENV "TIDE_STARPU_TIME_ADVANCE_REGISTRY"
static struct _tide_time_advance_registry *_tide_time_advance_reg;
static unsigned _tide_time_advance_id;
static int _tide_time_advance_early; /* waiters counted before this copy registered */

void _starpu_simgrid_time_advance_waiting(int delta)
{
	struct _tide_time_advance_registry *reg = _tide_time_advance_reg;
	if (!reg)
	{
		_tide_time_advance_early += delta;
		return;
	}
	reg->copy_waiters[_tide_time_advance_id] += delta;
	reg->waiters += delta;
}

static void _tide_time_advance_register(void)
{
	if (_tide_time_advance_reg)
		return; /* this copy is in already (StarPU initialized again) */
	/* no simcall between looking and setting: no other actor runs in between */
	const char *env = getenv(TIDE_TIME_ADVANCE_ENV);
	struct _tide_time_advance_registry *reg = NULL;
	long pid = 0;
	unsigned long long addr = 0;
	if (env && sscanf(env, "%ld:%llx", &pid, &addr) == 2 && pid == (long) getpid())
		reg = (struct _tide_time_advance_registry *) (uintptr_t) addr;
	else
	{
		reg = (struct _tide_time_advance_registry *) calloc(1, sizeof(*reg));
		STARPU_ASSERT(reg);
		char buf[64];
		snprintf(buf, sizeof(buf), "%ld:%llx", (long) getpid(), (unsigned long long) (uintptr_t) reg);
		setenv(TIDE_TIME_ADVANCE_ENV, buf, 1);
		/* The clock advances only when every actor is blocked: no copy changes a count
		 * meanwhile.  Copies without a waiter had nothing to wake: skipping them wakes the same
		 * actors in the same order as one callback per copy, in the order they registered. */
		simgrid::s4u::Engine::on_time_advance_cb([reg](double)
		{
			if (!reg->waiters)
				return;
			for (unsigned i = 0; i < reg->n; i++)
				if (reg->copy_waiters[i])
					STARPU_PTHREAD_COND_BROADCAST(reg->cond[i]);
		});
	}
	if (reg->n == reg->size)
	{
		reg->size = reg->size ? 2 * reg->size : 64;
		reg->cond = (starpu_pthread_cond_t **) realloc(reg->cond, reg->size * sizeof(*reg->cond));
		reg->copy_waiters = (int *) realloc(reg->copy_waiters, reg->size * sizeof(*reg->copy_waiters));
		STARPU_ASSERT(reg->cond && reg->copy_waiters);
	}
	_tide_time_advance_id = reg->n++;
	reg->cond[_tide_time_advance_id] = &_starpu_simgrid_time_advance_cond;
	reg->copy_waiters[_tide_time_advance_id] = _tide_time_advance_early;
	reg->waiters += _tide_time_advance_early;
	_tide_time_advance_reg = reg;
}
#endif
"""),
("""	simgrid::s4u::Engine::on_time_advance_cb([](double)
	{
		STARPU_PTHREAD_COND_BROADCAST(&_starpu_simgrid_time_advance_cond);
	});
""",
"""	_tide_time_advance_register();
"""),
])
patch(thread_h, [
("""	STARPU_PTHREAD_MUTEX_LOCK(&_starpu_simgrid_time_advance_mutex);
#endif
	while (lock->taken)
""",
"""	STARPU_PTHREAD_MUTEX_LOCK(&_starpu_simgrid_time_advance_mutex);
	_starpu_simgrid_time_advance_waiting(1);
#endif
	while (lock->taken)
"""),
("""	lock->taken = 1;
#ifdef STARPU_HAVE_S4U_ON_TIME_ADVANCE_CB
	STARPU_PTHREAD_MUTEX_UNLOCK(&_starpu_simgrid_time_advance_mutex);
""",
"""	lock->taken = 1;
#ifdef STARPU_HAVE_S4U_ON_TIME_ADVANCE_CB
	_starpu_simgrid_time_advance_waiting(-1);
	STARPU_PTHREAD_MUTEX_UNLOCK(&_starpu_simgrid_time_advance_mutex);
"""),
])
patch(simgrid_h, [
("""extern starpu_pthread_cond_t _starpu_simgrid_time_advance_cond;
""",
"""extern starpu_pthread_cond_t _starpu_simgrid_time_advance_cond;
/** tide_time_advance_once: a spinlock waiter of this copy starts (+1) or stops (-1) waiting */
void _starpu_simgrid_time_advance_waiting(int delta);
"""),
])
PY
fi

cd "$BUILD"
say "configure ${OPTS[*]}"
CUDA_ENV=()
[ -n "$CUDA_DIR" ] && CUDA_ENV=(NVCC_CC=gcc NVCCFLAGS="-arch=sm_90" PATH="$CUDA_DIR/bin:$PATH")
env "${CUDA_ENV[@]}" ./configure --prefix="$PREFIX" "${OPTS[@]}" >configure.log 2>&1 || { tail -n 40 configure.log >&2; exit 1; }
say "make -j$(nproc)"
make -j"$(nproc)" >make.log 2>&1 || { tail -n 60 make.log >&2; exit 1; }
make install >install.log 2>&1 || { tail -n 40 install.log >&2; exit 1; }
touch "$PREFIX/.tide-complete"
rm -rf "$BUILD"
say "StarPU $VERSION installed in $PREFIX"
echo "TIDE_STARPU_PREFIX=$PREFIX"
