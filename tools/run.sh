#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/run.sh [CASE] [tide run options] — the README's main job: install, build, and run a case
# (default: the 2-D dam break of Martin & Moyce) with ParaView output and a run summary in runs/.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
bash tools/build.sh
case_file=${1:-cases/dambreak2d.yaml}
[ $# -gt 0 ] && shift
./build/tide run "$case_file" "$@"
