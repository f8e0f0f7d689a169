#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/build.sh — install the dependencies (tools/bootstrap.sh) and build tide into build/.
# Users with their own StarPU 1.4 (module, Spack): set PKG_CONFIG_PATH so that
# `pkg-config starpumpi-1.4` finds it and run with TIDE_SKIP_BOOTSTRAP=1.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
if [ "${TIDE_SKIP_BOOTSTRAP:-0}" != 1 ]; then
  prefix=$(bash tools/bootstrap.sh | sed -n 's/^TIDE_STARPU_PREFIX=//p' | tail -n1)
  export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  export LD_LIBRARY_PATH="$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
if [ "${TIDE_SIMGRID:-0}" = 1 ]; then
  # The simulation build (issue 25): tide compiled by SimGrid's smpicc (through
  # tools/smpicc_meson.sh, which answers meson's compiler probes as cc) against the SimGrid
  # StarPU, into build-simgrid/; only the program (tests need real execution).
  builddir=${TIDE_BUILD_DIR:-build-simgrid}
  # as below: a build folder made against another StarPU prefix (other options) is redone;
  # the stamp also tells bench/bench_common.sh which starpu_smpirun goes with this build
  stamp="$builddir/.tide-starpu-prefix"
  wipe=()
  if [ -f "$builddir/build.ninja" ] && [ -n "${prefix:-}" ] && [ "$(cat "$stamp" 2>/dev/null)" != "$prefix" ]; then
    echo "[build] StarPU is now $prefix: meson setup --wipe $builddir (SimGrid)" >&2
    wipe=(--wipe)
  fi
  if [ ! -f "$builddir/build.ninja" ] || [ ${#wipe[@]} -gt 0 ]; then
    echo "[build] meson setup $builddir (SimGrid)" >&2
    SMPI_PRETEND_CC=1 CC="$here/tools/smpicc_meson.sh" meson setup "${wipe[@]}" "$builddir" --buildtype=release \
      -Dsimgrid=true -Dhdf5=disabled -Dcuda=disabled >&2
  fi
  [ -n "${prefix:-}" ] && echo "$prefix" > "$stamp"
  echo "[build] ninja -C $builddir tide" >&2
  ninja -C "$builddir" tide >&2
  exit 0
fi
builddir=${TIDE_BUILD_DIR:-build}
# The binaries' run path names the StarPU prefix, whose name changes with StarPU's options and
# tide's patches to it (tools/bootstrap.sh): a build folder made against another prefix is redone.
stamp="$builddir/.tide-starpu-prefix"
if [ -f "$builddir/build.ninja" ] && [ -n "${prefix:-}" ] && [ "$(cat "$stamp" 2>/dev/null)" != "$prefix" ]; then
  echo "[build] StarPU is now $prefix: meson setup --wipe $builddir" >&2
  meson setup --wipe "$builddir" --buildtype=release >&2
elif [ ! -f "$builddir/build.ninja" ]; then
  echo "[build] meson setup $builddir" >&2
  meson setup "$builddir" --buildtype=release >&2
fi
[ -n "${prefix:-}" ] && echo "$prefix" > "$stamp"
echo "[build] ninja -C $builddir" >&2
ninja -C "$builddir" >&2
