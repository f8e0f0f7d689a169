#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The step trace (src/step_trace.c; issue 25: a simulation build replays a real run's steps):
#  (a) --record-steps writes one record per step, and a replay of it gives the recorded run's
#      particles bit for bit (the replayed time steps are the computed ones);
#  (b) the replay really replaces the data's reduction: a trace with every time step halved
#      gives a run whose simulated time is exactly the sum of the halved steps (half the
#      recorded time) and whose particles differ;
#  (c) 2 ranks record the same trace as 1 rank; a run that re-splits its blocks goes on
#      recording and replaying;
#  (d) a trace shorter than the run, a file that is not a trace, a missing file, a path that
#      cannot be written, a trace of another particle count and both options together are
#      refused with one sentence.
# usage: test_step_trace.sh TIDE SRC_ROOT
set -uo pipefail
tide=$(realpath "$1"); src=$(realpath "$2")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export STARPU_NCPU=1
source "$src/tests/expect.sh"
source "$src/tests/mpirun_cpu.sh"
# 4 blocks on 1 and 2 ranks: the record holds the fullest block's fill, which the blocks decide
dam=(run "$src/cases/dambreak2d.yaml" --dp 0.02 --max-steps 40 --blocks 4 --quiet --set time.output=0.001)
cd "$work" || exit 1

"$tide" "${dam[@]}" --out rec --record-steps rec.trace || { echo "FAIL: the recording run"; exit 1; }
n=$(grep -vc '^#' rec.trace)
[ "$n" = 40 ] && echo "ok: 40 steps, 40 records" || fail "40 steps wrote $n records"
"$tide" "${dam[@]}" --out rep --replay-steps rec.trace || fail "the replay run"
same=1
for f in rec/particles_*.vtp; do cmp -s "$f" "rep/$(basename "$f")" || same=0; done
[ "$same" = 1 ] && echo "ok: the replay's particle files are the recorded run's" ||
	fail "the replay's particles differ from the recorded run's"

# (b) every dt halved: the replayed run's time is the sum of the halved steps
python3 - rec.trace half.trace <<'PY'
import sys
with open(sys.argv[1]) as f, open(sys.argv[2], 'w') as g:
    for line in f:
        if line.startswith('#'):
            g.write(line); continue
        p = line.split()
        p[1] = (float.fromhex(p[1]) / 2).hex()
        g.write(' '.join(p) + '\n')
PY
"$tide" "${dam[@]}" --out half --replay-steps half.trace || fail "the halved replay"
python3 - rec/run_summary.csv half/run_summary.csv half.trace <<'PY' || nfail=$((nfail + 1))
import csv, sys
def t_sim(p):
    with open(p) as f:
        return float(next(csv.DictReader(f))['t_sim[s]'])
t_rec, t_half = t_sim(sys.argv[1]), t_sim(sys.argv[2])
# the run adds the float time steps in double, as this sum does
s = sum(float.fromhex(l.split()[1]) for l in open(sys.argv[3]) if not l.startswith('#'))
ok = abs(t_half - s) <= 1e-9 * s and abs(t_half - t_rec / 2) <= 1e-6 * t_rec
print(('ok' if ok else 'FAIL') + ': halved trace: t = %.9g s (sum of its steps %.9g, recorded run %.9g)'
      % (t_half, s, t_rec))
sys.exit(0 if ok else 1)
PY
cmp -s rec/particles_0002.vtp half/particles_0002.vtp && fail "halved steps left the particles unchanged" ||
	echo "ok: halved steps move the particles differently"

# re-split blocks (a new simulation of the same particles) go on recording and replaying
"$tide" "${dam[@]}" --no-output --rebalance-every 10 --out rb --record-steps rb.trace ||
	fail "the re-splitting recording run"
n=$(grep -vc '^#' rb.trace)
[ "$n" = 40 ] && echo "ok: re-split every 10 steps: 40 records" || fail "re-split every 10 steps: $n records"
"$tide" "${dam[@]}" --no-output --rebalance-every 10 --out rb2 --replay-steps half.trace 2>/dev/null &&
	python3 -c 'import csv,sys; t=float(next(csv.DictReader(open(sys.argv[1])))["t_sim[s]"]); s=sum(float.fromhex(l.split()[1]) for l in open(sys.argv[2]) if l[0] != "#"); sys.exit(abs(t - s) > 1e-9 * s)' rb2/run_summary.csv half.trace &&
	echo "ok: re-split every 10 steps: the replay's time is the halved trace's" ||
	fail "re-split every 10 steps: the replay did not follow the trace"

# (c) 2 ranks record the same steps
if [ ${#mpi[@]} -gt 0 ]; then
	nice "${mpi[@]}" -np 2 "$tide" "${dam[@]}" --no-output --out rec2 --record-steps rec2.trace ||
		fail "the 2-rank recording"
	cmp -s rec.trace rec2.trace && echo "ok: 2 ranks record the same trace as 1 rank" ||
		fail "the 2-rank trace differs from 1 rank's"
else
	echo "skip: no mpirun (2-rank record)"
fi

# (d) refusals
head -n 11 rec.trace > short.trace
expect short 1 "ends before step 11" "$tide" "${dam[@]}" --no-output --out s --replay-steps short.trace
echo "not a trace" > junk.trace
expect junk 2 "junk.trace is not a tide step trace" "$tide" "${dam[@]}" --out j --replay-steps junk.trace
expect missing 2 "cannot read the step trace nothere.trace" "$tide" "${dam[@]}" --out m --replay-steps nothere.trace
expect other_case 1 "recorded with" "$tide" run "$src/cases/dambreak2d.yaml" --dp 0.03 --max-steps 5 --blocks 4 --quiet --no-output --out o --replay-steps rec.trace
expect unwritable 2 "cannot write the step trace $work/none/x.trace" "$tide" "${dam[@]}" --out u --record-steps "$work/none/x.trace"
expect both 2 "exclude each other" "$tide" "${dam[@]}" --out b --record-steps x.trace --replay-steps rec.trace
[ "$nfail" = 0 ] || { echo "$nfail failure(s)"; exit 1; }
