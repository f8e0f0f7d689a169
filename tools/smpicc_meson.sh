#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# tools/smpicc_meson.sh — SimGrid's smpicc as meson's C compiler (tools/build.sh with
# TIDE_SIMGRID=1).  meson identifies a compiler by its --version, which smpicc answers with
# SimGrid's; its probes that only preprocess or ask the target go to cc itself.
for a in "$@"; do
	case "$a" in --version|-dumpversion|-dumpmachine|-E) exec cc "$@" ;; esac
done
exec smpicc "$@"
