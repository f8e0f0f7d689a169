#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/device_pack.sh — prepares what travels to the GPU node (which has CUDA and Open MPI but
# no package registry): a CUDA build in build-dev/ — without HDF5 (the node has no HDF5 library),
# or with TIDE_DEV_HDF5=1 with Debian's parallel HDF5 and the libraries it needs carried along
# (libmpi, hwloc and the C library stay the node's),
# its programs stripped into .dev/build/ (tide and the test programs) and the shared libraries
# the node lacks (StarPU, StarPU-MPI, FxT, libyaml, expat) in .dev/lib/.  Both folders are
# git-ignored; name `.dev` in the device tool's `carry` and start the command there with
#   ln -sfn .dev/build build && ln -sfn .dev .deps
# so that tools/device_*.sh and bench/ find build/tide and .deps/lib.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
prefix=$(TIDE_SKIP_APT=1 bash tools/bootstrap.sh | sed -n 's/^TIDE_STARPU_PREFIX=//p' | tail -n1)
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export LD_LIBRARY_PATH="$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
h5=disabled
[ "${TIDE_DEV_HDF5:-0}" = 1 ] && h5=enabled
if [ -f build-dev/build.ninja ]; then
	meson configure build-dev -Dhdf5=$h5 >&2
else
	meson setup build-dev --buildtype=release -Dhdf5=$h5 >&2
fi
ninja -C build-dev >&2
rm -rf .dev
mkdir -p .dev/build/tests .dev/lib
cp build-dev/tide .dev/build/
for t in build-dev/tests/test_* build-dev/tests/compare_particles; do [ -x "$t" ] && [ -f "$t" ] && cp "$t" .dev/build/tests/; done
strip --strip-debug .dev/build/tide .dev/build/tests/* 2>/dev/null || true
# the libraries tide needs that are not on the node: StarPU's, FxT, libyaml, and expat (tide
# probe's XML parser: not known to be on the node)
keep='starpu|fxt|yaml|expat'
# HDF5 and what it pulls in (curl, ssl, szip...), but not MPI, hwloc, glibc or CUDA's libraries
# (cuBLAS and the rest, which StarPU links): the node's own
[ "$h5" = enabled ] && keep='.'
for lib in $(ldd build-dev/tide | awk '/=>/ {print $3}' | grep -E "$keep" | grep -v '^/usr/local/cuda' |
             grep -vE '/lib(c|m|dl|pthread|rt|resolv|mpi|open-rte|open-pal|hwloc|udev|cuda|cudart|cu[a-z]+|nv[A-Za-z]+|stdc\+\+|gcc_s)\.so'); do
	cp -L "$lib" .dev/lib/
done
strip --strip-debug .dev/lib/* 2>/dev/null || true
du -sh .dev >&2
