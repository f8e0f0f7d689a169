# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/device_env.sh — sourced by the tools/device_*.sh scripts on the GPU node (run from the
# repository root with build/ and .deps/lib as tools/device_pack.sh leaves them): the output
# folder $out ($OUT, default /tmp/tide-device), the libraries, StarPU's home, the tide binary $t
# and a step heading.
out=${OUT:-/tmp/tide-device}; mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/.deps/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export STARPU_HOME=${STARPU_HOME:-/tmp/tide-starpu-home} STARPU_SILENT=1
t=./build/tide
step() { printf '\n== %s (%s)\n' "$*" "$(date +%T)"; }
# StarPU looks for its installation's sampling models under the prefix it was built for, which
# the node lacks: it then warns on every start, a line tests counting a run's messages reject
mkdir -p $(grep -aoE '/[[:alnum:]/._+-]*/share/starpu/perfmodels/sampling' .deps/lib/libstarpu-1.4.so.* 2>/dev/null | sort -u) 2>/dev/null
