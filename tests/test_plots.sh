#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The plot scripts on real data: tools/plot_stats.py and tools/plot_gauges.py on short runs
# (still water: heights and pressures, also against a reference file in the SPHERIC format;
# the dam break: the surge front against Martin & Moyce), tools/plot_bench.py on the committed
# bench CSVs (ladders, schedulers, gravity) and on a strong-scaling CSV made here by
# bench/sph_scaling.sh on 1 and 2 ranks (when mpirun is there).  Each must write a PNG (checked
# by its signature and size); a missing, ill-formed or foreign CSV must give exit code 2 and a
# message naming the file; an unwritable output exit code 1.
# Skipped (exit 77) when matplotlib cannot be imported.
# usage: test_plots.sh TIDE_EXE SOURCE_ROOT
set -eu
tide=$1
root=$2
py=/usr/bin/python3
[ -x "$py" ] || py=python3
"$py" -c "import matplotlib" 2>/dev/null || { echo "SKIP: matplotlib is not importable by $py"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
rm -rf plots-out && mkdir plots-out

png_ok() { # a PNG signature and more than a few kilobytes of image
	[ -f "$1" ] || fail "$1 was not written"
	[ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$1 is not a PNG"
	[ "$(stat -c %s "$1")" -gt 5000 ] || fail "$1 is only $(stat -c %s "$1") bytes"
}

"$tide" run "$root/cases/hydrostatic.yaml" --dp 0.04 --set time.end=0.3 --set time.output=0.05 \
	--quiet --out plots-out/still
"$tide" run "$root/cases/dambreak2d.yaml" --dp 0.02 --set time.end=0.1 --quiet --out plots-out/dam

"$py" "$root/tools/plot_stats.py" plots-out/still
png_ok plots-out/still/statistics.png
"$py" "$root/tools/plot_gauges.py" plots-out/still -o plots-out/still-gauges.png
png_ok plots-out/still-gauges.png
"$py" "$root/tools/plot_gauges.py" plots-out/dam
png_ok plots-out/dam/gauges.png

# A reference file as the SPHERIC test 2 data come: whitespace columns under a '#' header.
cat > plots-out/ref.txt <<'EOF'
# measured data (made up for the test), columns: time, a height and a pressure
# time[s]  H_mid[m]  P_d0.40[Pa]
0.00  0.500  3924
0.15  0.499  3900
0.30  0.500  3930
EOF
msg=$("$py" "$root/tools/plot_gauges.py" plots-out/still --ref plots-out/ref.txt -o plots-out/ref.png)
png_ok plots-out/ref.png
grep -q "H_mid, P_d0.40 drawn" <<<"$msg" || fail "plot_gauges --ref did not draw H_mid and P_d0.40: $msg"
sed -n '3,$p' plots-out/ref.txt > plots-out/ref-nohead.txt
"$py" "$root/tools/plot_gauges.py" plots-out/still --ref plots-out/ref-nohead.txt \
	--ref-columns t,P_d0.10,P_d0.25 -o plots-out/ref2.png >/dev/null
png_ok plots-out/ref2.png

results=$root/bench/results
"$py" "$root/tools/plot_bench.py" "$results"/*/sph_ladder*.csv -o plots-out/ladder.png
png_ok plots-out/ladder.png
"$py" "$root/tools/plot_bench.py" "$results"/*/sched_policies.csv -o plots-out/sched.png
png_ok plots-out/sched.png
"$py" "$root/tools/plot_bench.py" "$results"/h200-1gpu/gravity_ladder.csv -o plots-out/gravity.png
png_ok plots-out/gravity.png
if command -v mpirun >/dev/null; then
	bash "$root/bench/sph_scaling.sh" --mode strong --ranks "1 2" --case "$root/cases/hydrostatic.yaml" \
		--dp 0.04 --steps 4 --out plots-out/scaling --tide "$tide" >/dev/null
	"$py" "$root/tools/plot_bench.py" plots-out/scaling/sph_scaling_strong.csv -o plots-out/scaling.png
	png_ok plots-out/scaling.png
else
	echo "no mpirun: the scaling plot is not tried"
fi

# Bad input: exit code 2 and the file named; an unwritable PNG: exit code 1.
expect() {
	local code=$1 what=$2
	shift 2
	set +e
	out=$("$py" "$@" 2>&1 >/dev/null)
	rc=$?
	set -e
	[ "$rc" = "$code" ] || fail "$*: exit code $rc, want $code ($out)"
	grep -qF -- "$what" <<<"$out" || fail "$*: message '$out' does not name '$what'"
}
head -n 3 plots-out/still/statistics.csv > plots-out/short.csv
echo "1,2,3" >> plots-out/short.csv
for s in plot_stats plot_gauges; do
	expect 2 "plots-out/none.csv" "$root/tools/$s.py" plots-out/none.csv
	expect 2 "plots-out/short.csv line 4" "$root/tools/$s.py" plots-out/short.csv -o plots-out/x.png
	expect 0 "" "$root/tools/$s.py" --help
done
expect 2 "plots-out/still/gauges.csv is not a tide statistics.csv" "$root/tools/plot_stats.py" \
	plots-out/still/gauges.csv -o plots-out/x.png
expect 2 "not a bench CSV" "$root/tools/plot_bench.py" plots-out/still/statistics.csv -o plots-out/x.png
expect 2 "different kinds" "$root/tools/plot_bench.py" "$results"/cpu-2core/sph_ladder.csv \
	"$results"/cpu-2core/sched_policies.csv -o plots-out/x.png
expect 2 "plots-out/none.csv" "$root/tools/plot_bench.py" plots-out/none.csv -o plots-out/x.png
expect 0 "" "$root/tools/plot_bench.py" --help
expect 2 "no header line" "$root/tools/plot_gauges.py" plots-out/still --ref plots-out/ref-nohead.txt
expect 2 "none of the columns" "$root/tools/plot_gauges.py" plots-out/still --ref plots-out/ref-nohead.txt \
	--ref-columns t,X,Y
expect 1 "cannot write plots-out/no/dir/x.png" "$root/tools/plot_stats.py" plots-out/still \
	-o plots-out/no/dir/x.png
[ ! -e plots-out/x.png ] || fail "a refused input still wrote plots-out/x.png"
echo "ok: plot_stats, plot_gauges (also --ref), plot_bench (ladder, scheduler, gravity, scaling), errors"
