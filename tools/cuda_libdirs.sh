#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Prints, one per line, the folders where the CUDA runtime library may live for
# the nvcc given as $1. meson calls it: nvcc may be a symlink or a wrapper in
# /usr/local/bin (as on the CI machine), so the folder next to it is not enough.
nvcc=${1:-nvcc}
real=$(readlink -f "$(command -v "$nvcc" 2>/dev/null || echo "$nvcc")" 2>/dev/null)
if [ -n "$real" ]; then
  top=$(dirname "$(dirname "$real")")
  echo "$top/lib64"; echo "$top/targets/x86_64-linux/lib"; echo "$top/lib"
fi
# nvcc itself knows where it links cudart from.
tmp=$(mktemp -d 2>/dev/null || echo /tmp)
"$nvcc" --dryrun -v "$tmp/x.cu" -o "$tmp/x" 2>&1 | sed -n 's/^#\$ LIBRARIES=//p' |
  tr ' ' '\n' | sed -n 's/^"\{0,1\}-L\([^"]*\)"\{0,1\}$/\1/p' | grep -v '/stubs$'
[ "$tmp" != /tmp ] && rmdir "$tmp" 2>/dev/null
for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
  [ -n "$d" ] && { echo "$d/lib64"; echo "$d/targets/x86_64-linux/lib"; }
done
echo /usr/lib/x86_64-linux-gnu
exit 0
