#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/test.sh — the README's test command: install, build, and run every test (meson test).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
bash tools/build.sh
meson test -C "${TIDE_BUILD_DIR:-build}" --print-errorlogs "$@"
