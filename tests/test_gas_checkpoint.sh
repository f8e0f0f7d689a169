#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Checkpoints of gas runs (physics.scheme: gas; src/checkpoint.c carries the blocks' aux fields:
# h, u, 1/Omega, the switch, the last kick and the mass, with the leapfrog's half-step v and u in
# the Verlet fields): the self-gravitating ideal-gas ball of tests/gas_ball.sh with SWIFT
# snapshots (output.format swift) and a checkpoint every 10 steps,
#  (a) 40 steps in one go = 20 steps, checkpoint, restart, 20 more: the final checkpoint's
#      particles byte for byte, statistics.csv but its wall-time column, every snapshot bit for
#      bit (gas_swift_check);
#  (b) killed with SIGKILL after its first checkpoint (the snapshots slowed down by the test hook
#      TIDE_TEST_SNAPSHOT_DELAY_MS so the kill comes mid-run), restarted: = (a)'s uninterrupted run;
#  (c) the same as (a) on 2 ranks;
#  (d) a run started from a snapshot (initial.file): its own checkpoint
#      and restart = its uninterrupted continuation.
# usage: test_gas_checkpoint.sh TIDE GAS_SWIFT_CHECK
. "$(dirname "${BASH_SOURCE[0]}")/gas_swift_setup.sh"
export STARPU_NCPU=1
run=(run ball.yaml --quiet --checkpoint-every 10steps)

# same_run REF DIR: DIR's final checkpoint, statistics and snapshots are REF's
same_run() {
	cmp "$1/checkpoint/particles.bin" "$2/checkpoint/particles.bin" || fail "$2: final particles differ from $1"
	# statistics.csv without its last column, the wall time per step
	cmp <(sed 's/,[^,]*$//' "$1/statistics.csv") <(sed 's/,[^,]*$//' "$2/statistics.csv") ||
		fail "$2: statistics.csv differs from $1"
	local n=0
	for f in "$1"/snapshot_*.hdf5; do
		"$check" same "$f" "$2/$(basename "$f")" 0 >/dev/null || fail "$2: $(basename "$f") differs from $1"
		n=$((n + 1))
	done
	[ "$(ls "$2"/snapshot_*.hdf5 | wc -l)" = $n ] || fail "$2 has other snapshots than $1"
	echo "ok: $2 = $1 ($n snapshots bit for bit, final checkpoint byte for byte, statistics.csv but the wall time)"
}

# (a)
"$tide" "${run[@]}" --max-steps 40 --out full1 2>/dev/null || fail "uninterrupted run"
"$tide" "${run[@]}" --max-steps 20 --out half1 2>/dev/null || fail "first half"
grep -q "step: 20" half1/checkpoint/checkpoint.txt || fail "no checkpoint at step 20"
"$tide" run --restart half1/checkpoint --max-steps 40 --checkpoint-every 10steps --quiet 2>/dev/null ||
	fail "restart"
same_run full1 half1

# (b) SIGKILL after the first checkpoint
TIDE_TEST_SNAPSHOT_DELAY_MS=300 "$tide" "${run[@]}" --max-steps 40 --out kill 2>/dev/null &
pid=$!
for _ in $(seq 1200); do [ -f kill/checkpoint/checkpoint.txt ] && break; sleep 0.05; done
kill -9 $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
[ -f kill/checkpoint/checkpoint.txt ] || fail "no checkpoint before the kill"
step=$(sed -n 's/^step: //p' kill/checkpoint/checkpoint.txt)
[ "$step" -lt 40 ] || fail "the run ended before the kill (step $step)"
"$tide" run --restart kill/checkpoint --max-steps 40 --checkpoint-every 10steps --quiet 2>/dev/null ||
	fail "restart after SIGKILL"
echo "killed at or after step $step, restarted from its checkpoint"
same_run full1 kill

# (c) 2 ranks
if [ ${#mpi[@]} -gt 0 ]; then
	nice "${mpi[@]}" -np 2 "$tide" "${run[@]}" --max-steps 40 --out full2 2>/dev/null || fail "2 ranks"
	nice "${mpi[@]}" -np 2 "$tide" "${run[@]}" --max-steps 20 --out half2 2>/dev/null || fail "2 ranks, half"
	nice "${mpi[@]}" -np 2 "$tide" run --restart half2/checkpoint --max-steps 40 \
		--checkpoint-every 10steps --quiet 2>/dev/null || fail "2 ranks, restart"
	same_run full2 half2
else
	echo "(no mpirun: 2-rank restart skipped)"
fi

# (d) a run from a file: its checkpoint restarts it too
{ grep -v '^fluid_spheres' ball.yaml; echo "initial: {file: full1/snapshot_0001.hdf5}"; } > from.yaml
"$tide" run from.yaml --quiet --checkpoint-every 10steps --max-steps 30 --out ffull 2>/dev/null || fail "from file"
"$tide" run from.yaml --quiet --checkpoint-every 10steps --max-steps 15 --out fhalf 2>/dev/null || fail "from file, half"
"$tide" run --restart fhalf/checkpoint --max-steps 30 --checkpoint-every 10steps --quiet 2>/dev/null ||
	fail "from file, restart"
same_run ffull fhalf
echo "ok: gas runs restart from their checkpoints as the uninterrupted runs"
