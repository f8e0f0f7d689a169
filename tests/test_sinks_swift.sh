#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Sinks in a gas run's SWIFT snapshots (docs/case-format.md "Sink particles"; src/sinks_swift.c):
#  1. the gas ball of gas_ball.sh with sinks (test_sinks_run.sh's: a sink forms at once) and
#     output.format swift to t = 1.2 (snapshots every 0.3): every snapshot's PartType5 holds the sinks of sinks.csv at
#     the same time (count, ids, masses to float precision, positions to 1e-9, velocities to
#     float precision), NumPart_ThisFile/Total[5] count them, their ParticleIDs (2^40 + id) are
#     apart from the gas ids (sinks_swift_check);
#  2. on 2 ranks (where mpirun runs) the sinks are written once: PartType5 = sinks.csv again;
#  3. a run started from its t = 0.6 snapshot (initial.file) takes the snapshot's sinks: its
#     first snapshot's PartType5 = the file's, its sinks.csv starts with them, and at t = 0.9
#     and 1.2 it has the same sinks as the run that wrote the file (ids; masses within 1e-3,
#     positions within 1e-3, times within 1e-6: the file keeps the sinks' velocity, not the
#     leapfrog's half step nor last acceleration, which the first time step sees);
#  4. a case without sinks refuses a file with PartType5 (exit 2, one sentence).
set -euo pipefail
tide=$(realpath "$1")
check=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/gas_ball.sh"
. "$here/mpirun_cpu.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail() { echo "FAIL: $*"; exit 1; }
gas_ball 0.1 "sinks: {density_threshold: 0.2, accretion_radius: 0.5}
output: {format: swift}" | sed 's/time: {end: 0.1, output: 0.05}/time: {end: 1.2, output: 0.3}/' > ball.yaml
grep -q "end: 1.2" ball.yaml || fail "ball.yaml: $(cat ball.yaml)"

# same_as_csv SNAPSHOT CSV: PartType5 of SNAPSHOT = the rows of CSV at its time
same_as_csv() {
	"$check" "$1" > snap.txt || fail "sinks_swift_check $1"
	local t n
	t=$(sed -n 1p snap.txt | cut -d' ' -f2)
	n=$(sed -n 2p snap.txt | cut -d' ' -f2)
	awk -F, -v t="$t" '/^[0-9]/ { d = $1 - t; if (d < 0) d = -d; if (d <= 1e-8 * (1 + (t < 0 ? -t : t))) print $2, $3, $4, $5, $6, $7, $8, $9 }' "$2" > csv.txt
	[ "$(wc -l < csv.txt)" -eq "$n" ] || fail "$1 (t = $t): $n sinks in PartType5, $(wc -l < csv.txt) in $2 at that time"
	sed -n '3,$p' snap.txt | paste -d' ' - csv.txt | awk -v f="$1" '
		function abs(x) { return x < 0 ? -x : x }
		function rel(a, b) { return abs(a - b) / (abs(b) > 1e-30 ? abs(b) : 1) }
		{ if ($1 != $9) { print "FAIL: " f ": sink id " $1 " against " $9; bad = 1 }
		  if (rel($2, $10) > 1e-6) { print "FAIL: " f ": mass " $2 " against " $10; bad = 1 }
		  for (k = 3; k <= 5; k++) if (abs($k - $(k + 8)) > 1e-8 * (1 + abs($(k + 8)))) { print "FAIL: " f ": position " $k " against " $(k + 8); bad = 1 }
		  for (k = 6; k <= 8; k++) if (abs($k - $(k + 8)) > 1e-6 * (1 + abs($(k + 8)))) { print "FAIL: " f ": velocity " $k " against " $(k + 8); bad = 1 }
		} END { exit bad }' || fail "$1 differs from $2"
	echo "$n"
}

# 1. one rank
"$tide" run ball.yaml --quiet --out A 2>/dev/null || fail "the ball with sinks and output.format swift"
ls A/snapshot_000{0,1,2,3,4}.hdf5 >/dev/null || fail "snapshots missing: $(ls A)"
counts=""
for f in A/snapshot_*.hdf5; do counts="$counts $(same_as_csv "$f" A/sinks.csv)"; done
case "$counts" in *[1-9]*) ;; *) fail "no snapshot holds a sink (counts:$counts)";; esac
echo "ok: 1 rank, PartType5 of each snapshot = sinks.csv at its time (sinks per snapshot:$counts)"

# 2. two ranks: written once
if [ ${#mpi[@]} -gt 0 ]; then
	nice "${mpi[@]}" -np 2 "$tide" run ball.yaml --blocks 2 --quiet --out M 2>/dev/null || fail "2 ranks"
	counts=""
	for f in M/snapshot_*.hdf5; do counts="$counts $(same_as_csv "$f" M/sinks.csv)"; done
	echo "ok: 2 ranks, PartType5 = sinks.csv, each sink once (sinks per snapshot:$counts)"
else
	echo "(no mpirun: the 2-rank check skipped)"
fi

# 3. started from the t = 0.6 snapshot
{ grep -v '^fluid_spheres' ball.yaml; echo "initial: {file: A/snapshot_0002.hdf5}"; } > from.yaml
"$tide" run from.yaml --out B > B.log 2>&1 || { cat B.log; fail "the run from the snapshot"; }
grep -q "sinks from .*A/snapshot_0002.hdf5 (PartType5)" B.log || fail "the log does not say the sinks were read: $(cat B.log)"
"$check" A/snapshot_0002.hdf5 | sed 1d > a2.txt
"$check" B/snapshot_0000.hdf5 | sed 1d > b0.txt
cmp a2.txt b0.txt || { diff a2.txt b0.txt; fail "the run from the snapshot does not start with its sinks"; }
nb=$(same_as_csv B/snapshot_0000.hdf5 B/sinks.csv)
[ "$nb" -ge 1 ] || fail "the snapshot A/snapshot_0002.hdf5 holds no sink"
for k in 3 4; do   # continued: A's snapshot k, from the file: B's k - 2
	"$check" A/snapshot_000$k.hdf5 | sed 2d > a.txt
	"$check" B/snapshot_000$((k - 2)).hdf5 | sed 2d > b.txt
	[ "$(wc -l < a.txt)" -eq "$(wc -l < b.txt)" ] || fail "snapshot $k: $(wc -l < a.txt) lines continued, $(wc -l < b.txt) from the file"
	paste -d' ' a.txt b.txt | awk '
		function abs(x) { return x < 0 ? -x : x }
		NR == 1 { ta = $2; tb = $4; next }
		{ dm = abs($10 / $2 - 1); for (k = 3; k <= 5; k++) if (abs($(k + 8) - $k) > dx) dx = abs($(k + 8) - $k)
		  if (dm > mm) mm = dm; if ($1 != $9) bad = 1 }
		END { printf "ok: from the t = 0.6 snapshot to t = %s (continued: %s): %d sinks, masses within %.2e, positions within %.2e\n", tb, ta, NR - 1, mm, dx
		      exit !(abs(ta - tb) < 1e-6 * ta && !bad && mm < 1e-3 && dx < 1e-3) }' || fail "the run from the snapshot has other sinks at snapshot $k: $(cat a.txt) / $(cat b.txt)"
done

# 4. no sinks in the case: the file's PartType5 refused
{ grep -v '^fluid_spheres\|^sinks' ball.yaml; echo "initial: {file: A/snapshot_0002.hdf5}"; } > nosinks.yaml
set +e
"$tide" run nosinks.yaml --quiet --out C 2> err.txt
rc=$?
set -e
[ $rc -eq 2 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -q PartType5 err.txt || fail "a case without sinks from a file with sinks: exit $rc, $(cat err.txt)"
echo "ok: a case without sinks refuses the file: $(cat err.txt)"
echo "ok: sinks in SWIFT snapshots"
