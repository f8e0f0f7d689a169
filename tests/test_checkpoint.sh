#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Checkpoint / restart of tide run (src/checkpoint.c, src/checkpoint.h):
#  (a) 240 steps in one go vs 120 steps, checkpoint, restart, 120 more: the final checkpoint's
#      particles, every particles_NNNN.vtp, gauges.csv and particles.pvd are bit-for-bit equal;
#  (b) the same on 2 MPI ranks, and on 3 with block_owners: hilbert (the restart keeps the
#      checkpoint's owners);
#  (c) a 1-rank checkpoint continued on 2 ranks (same blocks: bit-for-bit equal again), and with
#      other blocks (re-split: the same particle ids survive);
#  (d) runs killed with SIGKILL in the middle of writing a checkpoint (the writer slowed down by
#      the test hook TIDE_TEST_CHECKPOINT_DELAY_MS) leave the previous checkpoint valid, and its
#      continuation equals the uninterrupted run;
#  (e) a checkpoint with one flipped byte is refused (exit 2) with a message naming the file;
#  (f) the stop file DIR/STOP and SIGTERM stop a run with a checkpoint (exit 0 / 143), on one
#      rank and (stop file) on two.
# usage: test_checkpoint.sh TIDE SRC_ROOT
set -euo pipefail
tide=$1; src=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none
     -x STARPU_NCPU=1 -x STARPU_WORKERS_NOBIND=1 -x STARPU_SILENT=1)
[ -n "${STARPU_HOME:-}" ] && mpi+=(-x STARPU_HOME)
export STARPU_NCPU=1
args=(run "$src/cases/dambreak2d.yaml" --dp 0.01 --set time.output=0.004 --quiet --blocks 4
      --rebalance-every 50)
fail() { echo "FAIL: $*"; exit 1; }

# same_run REF DIR: the particles of the last checkpoint and every output of REF are in DIR
same_run() {
	cmp "$1/checkpoint/particles.bin" "$2/checkpoint/particles.bin" ||
		fail "$2: final particles differ from $1"
	cmp "$1/gauges.csv" "$2/gauges.csv" || fail "$2: gauges.csv differs from $1"
	cmp "$1/particles.pvd" "$2/particles.pvd" || fail "$2: particles.pvd differs from $1"
	local n=0
	for f in "$1"/particles_*.vtp; do
		cmp "$f" "$2/$(basename "$f")" || fail "$2: $(basename "$f") differs from $1"
		n=$((n + 1))
	done
	[ "$(ls "$2"/particles_*.vtp | wc -l)" = $n ] || fail "$2 has other outputs than $1"
	echo "ok: $2 = $1 ($n outputs, final particles bit for bit)"
}

# ids PARTICLES_BIN: the sorted particle ids of a checkpoint
ids() {
	"$py" - "$1" <<'EOF'
import sys, numpy as np
raw = open(sys.argv[1], "rb").read()
n = len(raw) // (3 * 8 + 12 * 4 + 3 * 4)
off = n * (3 * 8 + 12 * 4)
print(" ".join(map(str, np.sort(np.frombuffer(raw, np.uint32, n, off)))))
EOF
}

# (a) one rank
"$tide" "${args[@]}" --max-steps 240 --checkpoint-every 120steps --out "$work/full1"
"$tide" "${args[@]}" --max-steps 120 --checkpoint-every 120steps --out "$work/half1"
cp -r "$work/half1" "$work/half1_kept"
"$tide" run --restart "$work/half1/checkpoint" --max-steps 240 --checkpoint-every 120steps --quiet
same_run "$work/full1" "$work/half1"

# (b) two ranks
"${mpi[@]}" -np 2 "$tide" "${args[@]}" --max-steps 240 --checkpoint-every 120steps --out "$work/full2"
"${mpi[@]}" -np 2 "$tide" "${args[@]}" --max-steps 120 --checkpoint-every 120steps --out "$work/half2"
"${mpi[@]}" -np 2 "$tide" run --restart "$work/half2/checkpoint" --max-steps 240 \
	--checkpoint-every 120steps --quiet
same_run "$work/full2" "$work/half2"
same_run "$work/full1" "$work/full2"

# (b2) three ranks, blocks given to ranks along the Hilbert curve (block_owners: hilbert; the
# re-splits every 50 steps move the owners with the cuts): the restart takes the checkpoint's
# owners (its log lists them), and the run equals the uninterrupted one and the 1-rank one
hil=(--set block_owners=hilbert)
"${mpi[@]}" -np 3 "$tide" "${args[@]}" "${hil[@]}" --max-steps 240 --checkpoint-every 120steps --out "$work/full3h"
"${mpi[@]}" -np 3 "$tide" "${args[@]}" "${hil[@]}" --max-steps 120 --checkpoint-every 120steps --out "$work/half3h"
saved=$(sed -n 's/.*rank: \([0-9]*\)}$/\1/p' "$work/half3h/checkpoint/checkpoint.txt")
want=$(for r in 0 1 2; do echo "$saved" | grep -cx "$r" || true; done | paste -sd/ | sed 's|/| / |g')
"${mpi[@]}" -np 3 "$tide" run --restart "$work/half3h/checkpoint" --max-steps 240 \
	--checkpoint-every 120steps > "$work/restart3h.log" 2>&1 || { cat "$work/restart3h.log"; fail "restart on 3 ranks"; }
grep -q "blocks of each rank (block_owners: hilbert): $want;" "$work/restart3h.log" ||
	fail "the restart on 3 ranks did not take the checkpoint's owners ($want blocks): $(grep 'blocks of each' "$work/restart3h.log")"
same_run "$work/full3h" "$work/half3h"
same_run "$work/full1" "$work/full3h"
echo "ok: 3 ranks with Hilbert owners ($want blocks): restart keeps them"

# (c) 1 -> 2 ranks with the same blocks, then with other blocks
cp -r "$work/half1_kept" "$work/half12"
"${mpi[@]}" -np 2 "$tide" run --restart "$work/half12/checkpoint" --max-steps 240 \
	--checkpoint-every 120steps --quiet
same_run "$work/full1" "$work/half12"
cp -r "$work/half1_kept" "$work/half12b"
"${mpi[@]}" -np 2 "$tide" run --restart "$work/half12b/checkpoint" --max-steps 240 --blocks 3 \
	--checkpoint-every 120steps --quiet
[ "$(ids "$work/full1/checkpoint/particles.bin")" = "$(ids "$work/half12b/checkpoint/particles.bin")" ] ||
	fail "restart on 2 ranks with 3 blocks lost or duplicated particle ids"
grep -q "step: 240" "$work/half12b/checkpoint/checkpoint.txt" || fail "restart with 3 blocks did not reach step 240"
echo "ok: 1-rank checkpoint continued on 2 ranks with 3 blocks instead of 4: same particle ids"

# (d) SIGKILL while a checkpoint is being written, at random moments of the write
for k in 1 2 3; do
	d="$work/kill$k"
	TIDE_TEST_CHECKPOINT_DELAY_MS=100 "$tide" "${args[@]}" --max-steps 100000 \
		--checkpoint-every 40steps --out "$d" &
	pid=$!
	for _ in $(seq 600); do [ -f "$d/checkpoint/header.bin" ] && break; sleep 0.05; done
	[ -f "$d/checkpoint/header.bin" ] || { kill -9 $pid; fail "no first checkpoint in $d"; }
	# wait for the next write to start, then kill somewhere inside it (it takes ~2.3 s)
	for _ in $(seq 600); do compgen -G "$d/checkpoint.tmp-*" >/dev/null && break; sleep 0.02; done
	compgen -G "$d/checkpoint.tmp-*" >/dev/null || { kill -9 $pid; fail "no second checkpoint in $d"; }
	sleep "0.$((RANDOM % 20))"
	kill -9 $pid
	wait $pid 2>/dev/null || true
	step=$(sed -n 's/^step: //p' "$d/checkpoint/checkpoint.txt")
	echo "killed run $k while writing; the checkpoint left is of step $step"
	"$tide" run --restart "$d/checkpoint" --max-steps 240 --checkpoint-every 120steps --quiet ||
		fail "the checkpoint left by the killed run $k does not restart"
	same_run "$work/full1" "$d"
	compgen -G "$d/checkpoint.tmp-*" >/dev/null && fail "stale temporary checkpoint left in $d"
done

# (e) one flipped byte
flip() { # FILE OFFSET
	"$py" -c 'import sys; p, o = sys.argv[1], int(sys.argv[2]); b = bytearray(open(p, "rb").read()); o %= len(b); b[o] ^= 0x10; open(p, "wb").write(b)' "$1" "$2"
}
for f in particles.bin header.bin used_parameters.yaml; do
	d="$work/bad_$f"
	cp -r "$work/full1/checkpoint" "$d"
	flip "$d/$f" 777
	set +e
	msg=$("$tide" run --restart "$d" --max-steps 250 --out "$work/bad_out" 2>&1)
	rc=$?
	set -e
	[ $rc = 2 ] || fail "a checkpoint with a flipped byte in $f gave exit code $rc, not 2: $msg"
	grep -q "$d/$f" <<<"$msg" || fail "the refusal does not name $d/$f: $msg"
	echo "ok: flipped byte in $f refused: $msg"
done

# (f) stop file and SIGTERM
for how in stopfile sigterm mpi_stopfile; do
	d="$work/stop_$how"
	launch=("$tide"); [ $how = mpi_stopfile ] && launch=("${mpi[@]}" -np 2 "$tide")
	"${launch[@]}" "${args[@]}" --max-steps 1000000 --set time.end=1000 --out "$d" &
	pid=$!
	for _ in $(seq 600); do [ -f "$d/particles_0002.vtp" ] && break; sleep 0.05; done
	if [ $how = sigterm ]; then kill -TERM $pid; else touch "$d/STOP"; fi
	set +e; wait $pid; rc=$?; set -e
	want=0; [ $how = sigterm ] && want=143
	[ $rc = $want ] || fail "$how: exit code $rc, not $want"
	[ -f "$d/STOP" ] && fail "$how: the stop file was not removed"
	grep -q stopped "$d/run_summary.csv" || fail "$how: the summary does not say the run stopped"
	step=$(sed -n 's/^step: //p' "$d/checkpoint/checkpoint.txt")
	"$tide" run --restart "$d/checkpoint" --max-steps $((step + 10)) --quiet ||
		fail "$how: the checkpoint does not restart"
	echo "ok: $how stopped the run at step $step with exit code $rc; restart continues"
done
