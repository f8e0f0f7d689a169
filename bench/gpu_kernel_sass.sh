#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/gpu_kernel_sass.sh [REV...] — the CUDA SPH force kernels as the compiler makes them, no
# GPU needed: per template instantiation the registers, stack and spills (ptxas -v) and the SASS
# instructions of the candidate test and the pair loop (bench/sass_loops.py), for the work tree
# (no REV) or each git revision given, into bench/results/cpu-2core/gpu_kernel_sass_<name>.csv.
# Environment: GPU_ARCH (90), NVCC (nvcc), NVDISASM (nvdisasm, else /usr/local/cuda/bin/nvdisasm),
# STARPU_INC (the StarPU include folder; default: pkg-config starpumpi-1.4, else tools/bootstrap's
# cache).  An nvdisasm older than nvcc (Debian's 11.8 for a CUDA 13 cubin) does not read the new
# ELF header; the cubin's header is then rewritten to the old form (ABI 7: the SASS is the same).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
arch=${GPU_ARCH:-90}
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null || nvcc=/usr/local/cuda/bin/nvcc
dis=${NVDISASM:-nvdisasm}
command -v "$dis" >/dev/null || dis=/usr/local/cuda/bin/nvdisasm
[ -x "$(command -v "$dis")" ] || { echo "gpu_kernel_sass.sh: no nvdisasm (set NVDISASM)" >&2; exit 2; }
inc=${STARPU_INC:-$(pkg-config --variable=includedir starpumpi-1.4 2>/dev/null || true)}
if [ -z "$inc" ] || [ ! -f "$inc/starpu.h" ]; then
  inc=$(ls -d "$HOME"/.cache/tide-deps/starpu-*/include/starpu/1.4 2>/dev/null | head -n1)
fi
[ -f "$inc/starpu.h" ] || { echo "gpu_kernel_sass.sh: no starpu.h (set STARPU_INC)" >&2; exit 2; }
out=$here/bench/results/cpu-2core
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

one() { # src_dir name
  local src=$1 name=$2
  # the flags of meson.build's nvcc generator, the cubin alone
  nice -n 19 "$nvcc" -O3 -std=c++17 --expt-relaxed-constexpr -arch=sm_"$arch" -cubin \
    -DTIDE_USE_CUDA -I"$src/include" -I"$inc" "$src/codelets/sph_forces.cu" \
    -o "$tmp/$name.cubin" -Xptxas -v 2> "$tmp/$name.ptxas"
  if ! "$dis" -c "$tmp/$name.cubin" > "$tmp/$name.sass" 2>/dev/null || [ ! -s "$tmp/$name.sass" ]; then
    python3 - "$tmp/$name.cubin" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
if b[8] >= 8:  # ELF ABI 8 (CUDA 13): the SM in bits 8..15 of e_flags
    sm = (struct.unpack_from('<I', b, 0x30)[0] >> 8) & 0xff
    b[8] = 7
    struct.pack_into('<I', b, 0x30, (sm << 16) | 0x0500 | sm)
    open(sys.argv[1], 'wb').write(b)
EOF
    "$dis" -c "$tmp/$name.cubin" > "$tmp/$name.sass"
  fi
  python3 "$here/bench/sass_loops.py" "$tmp/$name.ptxas" "$tmp/$name.sass" > "$out/gpu_kernel_sass_$name.csv"
  echo "$out/gpu_kernel_sass_$name.csv"
  column -s, -t < "$out/gpu_kernel_sass_$name.csv"
}

if [ $# -eq 0 ]; then
  one "$here" worktree
else
  for rev in "$@"; do
    d=$tmp/src-$rev
    mkdir -p "$d"
    git -C "$here" archive "$rev" include codelets | tar -x -C "$d"
    one "$d" "$(git -C "$here" rev-parse --short "$rev")"
  done
fi
