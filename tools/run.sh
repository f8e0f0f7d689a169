#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/run.sh [CASE] [tide run options] — the README's main job: install, build, and run a case
# (default: the 2-D dam break of Martin & Moyce) with ParaView output and a run summary in runs/.
# Running it again replaces the earlier run of the case (--overwrite), unless --restart is given.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
bash tools/build.sh
case_file=${1:-cases/dambreak2d.yaml}
[ $# -gt 0 ] && shift
again=(--overwrite)
for a in "$case_file" "$@"; do [ "$a" = --restart ] || [ "$a" = --overwrite ] && again=(); done
./build/tide run "$case_file" ${again[@]+"${again[@]}"} "$@"
