#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Gas runs with collisionless particles from and to SWIFT/GADGET files (PartType0 gas, PartType1
# N-body; block.h TIDE_NBODY), with tests/gas_nbody_file.c (arguments: TIDE GAS_NBODY_FILE):
#  1. a file with a gas ball (552) and 200 collisionless particles: the run's snapshot_0000 holds
#     the same particles of both types bit for bit, with the Header's counts, and a run started
#     from that snapshot writes it again bit for bit; PartType1 masses from the Header's
#     MassTable (no Masses dataset) give the same particles;
#  2. the self-gravitating run to t = 0.3: every snapshot holds 552 + 200 particles, the
#     statistics and the summary count the 200 (n_nbody); 10 steps, checkpoint, restart, 10
#     more = 20 steps byte for byte;
#  3. 2 ranks: without self-gravity the snapshots of 1 rank bit for bit; with it within 1e-3 of
#     the largest magnitude (the essential trees of the rank split; 8.8e-5 measured);
#  4. bad PartType1 data (NaN velocity, a zero mass, Masses one row short, Coordinates N x 2):
#     exit code 2 and one sentence naming the file and PartType1's dataset;
#  5. text: a gas file and initial.nbody_file (x y z m vx vy vz lines) start a run with both
#     types; a bad line there exits 2 naming the file and line.
set -euo pipefail
tide=$(realpath "$1")
nf=$(realpath "$2")
. "$(dirname "${BASH_SOURCE[0]}")/mpirun_cpu.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
fail() { echo "FAIL: $*"; exit 1; }
col() { # FILE NAME: the column NAME of the CSV FILE's last row
	awk -F, -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i } END { print $c }' "$1"
}
case_of() { # FILE [EXTRA PHYSICS]
	cat <<CASE
dim: 3
dp: 0.2
units: code
domain: {lo: [-3, -3, -3], hi: [3, 3, 3]}
physics: {scheme: gas, rho0: 0.2387, gravity: [0, 0, 0], cfl: 0.3${2:-}}
gas: {eos: ideal, gamma: 1.6666667, u: 0.05, h_max: 0.6}
time: {end: 0.3, output: 0.1}
output: {format: swift}
initial: {file: $1}
CASE
}
grav=', self_gravity: {theta: 0.5, softening: 0.05}'
"$nf" make ic.hdf5 || fail "writing ic.hdf5"

# 1. read, written, read back
case_of ic.hdf5 "$grav" > ic.yaml
"$tide" run ic.yaml --quiet --max-steps 1 --out A 2>/dev/null || fail "one step from ic.hdf5"
"$nf" counts A/snapshot_0000.hdf5 552 200 || fail "counts of snapshot_0000"
"$nf" same ic.hdf5 A/snapshot_0000.hdf5 0 || fail "snapshot_0000 is not the file read"
case_of A/snapshot_0000.hdf5 "$grav" > again.yaml
"$tide" run again.yaml --quiet --max-steps 1 --out B 2>/dev/null || fail "one step from snapshot_0000"
"$nf" same A/snapshot_0000.hdf5 B/snapshot_0000.hdf5 0 || fail "the snapshot read back differs"
cp ic.hdf5 table.hdf5
"$nf" break table.hdf5 masstable || fail "making table.hdf5"
case_of table.hdf5 "$grav" > table.yaml
"$tide" run table.yaml --quiet --max-steps 1 --out T 2>/dev/null || fail "one step from table.hdf5"
"$nf" same ic.hdf5 T/snapshot_0000.hdf5 0 || fail "PartType1 masses from the MassTable differ"
echo "ok: gas + collisionless read, written as PartType0 + PartType1 and read back bit for bit (Masses or MassTable)"

# 2. the run
"$tide" run ic.yaml --quiet --out R 2>/dev/null || fail "the run to t = 0.3"
for k in 1 2 3; do "$nf" counts R/snapshot_000$k.hdf5 552 200 >/dev/null || fail "counts of snapshot $k"; done
[ "$(col R/statistics.csv 'n_nbody[-]')" = 200 ] || fail "statistics.csv n_nbody: $(tail -1 R/statistics.csv)"
[ "$(col R/statistics.csv 'n_fluid[-]')" = 552 ] || fail "statistics.csv n_fluid: $(tail -1 R/statistics.csv)"
[ "$(col R/run_summary.csv 'n_nbody[-]')" = 200 ] || fail "run_summary.csv n_nbody: $(cat R/run_summary.csv)"
echo "ok: the self-gravitating run keeps 552 gas + 200 collisionless particles; statistics and summary count them"

# checkpoints carry them: 20 steps = 10 steps, checkpoint, restart, 10 more (one CPU worker)
sed 's/end: 0.3, output: 0.1/end: 5, output: 0.1/' ic.yaml > ck.yaml
ck=(run ck.yaml --quiet --checkpoint-every 10steps)
STARPU_NCPU=1 "$tide" "${ck[@]}" --max-steps 20 --out C1 2>/dev/null || fail "the 20-step run"
STARPU_NCPU=1 "$tide" "${ck[@]}" --max-steps 10 --out C2 2>/dev/null || fail "the 10-step run"
STARPU_NCPU=1 "$tide" run --restart C2/checkpoint --max-steps 20 --checkpoint-every 10steps --quiet 2>/dev/null ||
	fail "the restart"
cmp C1/checkpoint/particles.bin C2/checkpoint/particles.bin || fail "the restarted run's particles differ"
for f in C1/snapshot_*.hdf5; do "$nf" same "$f" "C2/${f#C1/}" 0 >/dev/null || fail "restart: $f differs"; done
[ "$(col C2/run_summary.csv 'n_nbody[-]')" = 200 ] || fail "the restart's summary n_nbody: $(cat C2/run_summary.csv)"
echo "ok: checkpoint and restart with collisionless particles = the uninterrupted run, byte for byte"

# 3. 2 ranks
if [ ${#mpi[@]} -gt 0 ]; then
	case_of ic.hdf5 > hydro.yaml
	"$tide" run hydro.yaml --quiet --out H1 2>/dev/null || fail "hydro on 1 rank"
	nice "${mpi[@]}" -np 2 "$tide" run hydro.yaml --quiet --out H2 2>/dev/null || fail "hydro on 2 ranks"
	for f in H1/snapshot_*.hdf5; do   # without gravity the steps are long: not every output time
		"$nf" same "$f" "H2/${f#H1/}" 0 || fail "2 ranks differ (no gravity), $f"
	done
	nice "${mpi[@]}" -np 2 "$tide" run ic.yaml --quiet --out R2 2>/dev/null || fail "gravity on 2 ranks"
	"$nf" same R/snapshot_0003.hdf5 R2/snapshot_0003.hdf5 1e-3 || fail "2 ranks differ (gravity) at t = 0.3"
	echo "ok: 2 ranks = 1 rank, bit for bit without self-gravity, within 1e-3 with it (the tree tolerance)"
else
	echo "(no mpirun: 2-rank checks skipped)"
fi

# 4. bad PartType1 data
for what in nan-velocity:Velocities zero-mass:Masses short-masses:Masses flat-coordinates:Coordinates; do
	cp ic.hdf5 bad.hdf5
	"$nf" break bad.hdf5 "${what%%:*}" || fail "spoiling bad.hdf5 (${what%%:*})"
	case_of bad.hdf5 > bad.yaml
	rc=0
	"$tide" run bad.yaml --quiet --out X 2>err.txt || rc=$?
	[ "$rc" = 2 ] || fail "${what%%:*}: exit code $rc, expected 2 ($(cat err.txt))"
	grep -q "bad.hdf5.*PartType1/${what#*:}" err.txt || fail "${what%%:*}: the message does not name the file and PartType1/${what#*:}: $(cat err.txt)"
	[ "$(grep -c . err.txt)" = 1 ] || fail "${what%%:*}: more than one line: $(cat err.txt)"
	echo "ok: ${what%%:*}: $(cat err.txt)"
	rm -rf X
done
# 5. text: the gas lattice of test_gas_swift.sh and initial.nbody_file (x y z m vx vy vz)
awk 'BEGIN { for (i = 0; i < 6; i++) for (j = 0; j < 6; j++) for (k = 0; k < 6; k++)
             printf "%g %g %g 0.004 0 0 0 0.1\n", -0.5 + 0.2 * i, -0.5 + 0.2 * j, -0.5 + 0.2 * k }' > gas.txt
printf '# x y z m vx vy vz\n0.05 0.05 0.05 0.01 0.1 0 0\n-0.3 0.2 0.1 0.02\n' > nbody.txt
case_of gas.txt "$grav" | sed 's/^initial: {file: gas.txt}/initial: {file: gas.txt, nbody_file: nbody.txt}/' > text.yaml
grep -q nbody_file text.yaml || fail "text.yaml: $(cat text.yaml)"
"$tide" run text.yaml --quiet --max-steps 2 --out TX 2>/dev/null || fail "the run from gas.txt and nbody.txt"
"$nf" counts TX/snapshot_0000.hdf5 216 2 || fail "counts of the text run"
grep -q "nbody_file: .*nbody.txt" TX/used_parameters.yaml || fail "used_parameters.yaml lacks initial.nbody_file"
printf '0 0 0 0.01 1 2\n' > badnb.txt
sed 's/nbody.txt/badnb.txt/' text.yaml > badtext.yaml
rc=0
"$tide" run badtext.yaml --quiet --out X 2>err.txt || rc=$?
[ "$rc" = 2 ] && grep -q "badnb.txt line 1" err.txt || fail "a bad nbody_file line: exit code $rc, $(cat err.txt)"
echo "ok: text gas + initial.nbody_file (216 + 2); a bad line: $(cat err.txt)"
echo "gas_nbody_files: all checks passed"
