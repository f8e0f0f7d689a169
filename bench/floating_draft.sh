#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# bench/floating_draft.sh — the floating box's draft against Archimedes' as the resolution grows
# (issue 22): tests/data/floating_box.yaml (2-D box 0.2 m, density 500, released 4 cm above its
# draft) run at each dp of a list with the same tank and box, the draft over the last heave
# period and the heave period measured by tests/floating_check.py (draft(), the test's own
# measurement), and the CPU time of each run (/usr/bin/time: user + system seconds, so that a
# shared machine's wall time does not blur it).  Prints a table and writes DIR/floating_draft.csv.
#
# usage: bench/floating_draft.sh [--dp LIST] [--out DIR] [--tide PATH] [--label NAME]
#                                [extra tide run options, e.g. --set physics.diffusion=none]
#   --dp LIST   comma-separated spacings (default 0.02,0.01)
#   --out DIR   output folder (default bench/out/floating_draft); runs in DIR/runs/LABEL_dpX
#   --label     the CSV's label column for this set of options (default "case")
# STARPU_NCPU defaults to 1 (one worker: the CPU time is then the run's cost on one core).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
tide=$repo/build/tide
out=$repo/bench/out/floating_draft
dps=0.02,0.01
label=case
extra=()
die() { printf '%s: %s\n' "$(basename "$0")" "$*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--dp) [ $# -ge 2 ] || die "option --dp needs a value"; dps=$2; shift 2 ;;
	--out) [ $# -ge 2 ] || die "option --out needs a value"; out=$2; shift 2 ;;
	--tide) [ $# -ge 2 ] || die "option --tide needs a value"; tide=$2; shift 2 ;;
	--label) [ $# -ge 2 ] || die "option --label needs a value"; label=$2; shift 2 ;;
	-h | --help) sed -n '3,15p' "$0"; exit 0 ;;
	*) extra+=("$1"); shift ;;
	esac
done
[ -x "$tide" ] || die "no tide binary at $tide (build first, or --tide PATH)"
[ -x /usr/bin/time ] || die "/usr/bin/time is needed for the CPU times"
py=/usr/bin/python3; [ -x "$py" ] || py=python3
export STARPU_NCPU=${STARPU_NCPU:-1}
mkdir -p "$out/runs"
csv=$out/floating_draft.csv
[ -s "$csv" ] || echo "label,dp[m],across[-],draft[m],draft_error[%],heave_period[s],period_vs_estimate[%],cpu[s],options" >"$csv"
IFS=, read -r -a list <<<"$dps"
for dp in "${list[@]}"; do
	run=$out/runs/${label}_dp$dp
	rm -rf "$run"
	/usr/bin/time -f "%U %S" -o "$run.time" "$tide" run "$repo/tests/data/floating_box.yaml" --quiet \
		--set dp="$dp" "${extra[@]}" --out "$run"
	read -r u s <"$run.time"
	PYTHONPATH="$repo/tests" "$py" - "$run" "$dp" "$u" "$s" "$label" "${extra[*]}" >>"$csv" <<'PY'
import contextlib, math, sys
from floating_check import draft
run, dp, u, s, label, opts = sys.argv[1:7]
with contextlib.redirect_stdout(sys.stderr):   # draft()'s line to the terminal, not the CSV
    e, eT, n = draft(run, label="%s dp %s" % (label, dp))
# the period from its ratio to draft()'s estimate 2 pi sqrt((M + rho0 pi B^2 / 8) / (rho0 g B))
T = 2 * math.pi * math.sqrt((20.0 + 1000 * math.pi * 0.04 / 8) / (1000 * 9.81 * 0.2)) * (1 + eT)
print("%s,%s,%d,%.5f,%.2f,%.3f,%.1f,%.1f,%s" % (label, dp, round(0.2 / float(dp)), 0.1 * (1 + e),
      100 * e, T, 100 * eT, float(u) + float(s), opts), file=sys.stdout)
print("  CPU %.1f s" % (float(u) + float(s)), file=sys.stderr)
PY
done
column -s, -t "$csv"
