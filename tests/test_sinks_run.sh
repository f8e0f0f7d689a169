#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Sink particles in a run (docs/case-format.md "Sink particles"): the gas ball of gas_ball.sh
# with sinks: {density_threshold: 0.2, accretion_radius: 0.5} (below the ball's density: the
# centre's particle becomes a sink as soon as the ball starts to fall in); used_parameters.yaml
# names every sinks key and runs again to the same sinks.csv; sinks.csv has its header and a
# sink at every output after the first; run_summary.json says n_sinks; a run restarted from a
# checkpoint goes on with the same sinks (sinks.csv, less a row written after the checkpoint,
# and the gas bit for bit); bad sinks keys get one sentence naming the key and exit 2.
set -euo pipefail
tide=$1
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
source "$here/gas_ball.sh"
gas_ball 0.1 "sinks: {density_threshold: 0.2, accretion_radius: 0.5}" > "$dir/ball.yaml"
STARPU_NCPU=1 "$tide" run "$dir/ball.yaml" --blocks 2 --out "$dir/a" > "$dir/stdout"
used=$dir/a/used_parameters.yaml
for want in "sinks:" "density_threshold: 0.2" "accretion_radius: 0.5" "softening: 0.5" "max: 64"; do
	grep -q "$want" "$used" || { echo "FAIL: used_parameters.yaml lacks '$want'"; cat "$used"; exit 1; }
done
csv=$dir/a/sinks.csv
head -2 "$csv" | grep -q "^time\[s\],id,mass\[mass\],x\[m\]" || { echo "FAIL: sinks.csv header"; cat "$csv"; exit 1; }
rows=$(grep -c "^[0-9]" "$csv" || true)
[ "$rows" -ge 1 ] || { echo "FAIL: no sink in sinks.csv"; cat "$csv"; exit 1; }
grep -q '"n_sinks": *[1-9]' "$dir/a/run_summary.json" || { echo "FAIL: run_summary.json n_sinks"; grep sink "$dir/a/run_summary.json"; exit 1; }
grep -q "sinks at t = .*: 1, holding mass" "$dir/stdout" || { echo "FAIL: the log has no sinks line"; exit 1; }
STARPU_NCPU=1 "$tide" run "$used" --blocks 2 --quiet --out "$dir/b"
cmp "$csv" "$dir/b/sinks.csv" || { echo "FAIL: sinks.csv differs when run from used_parameters.yaml"; exit 1; }
echo "run: $rows sink rows in sinks.csv: $(tail -1 "$csv")"
# checkpoints carry the sinks: 16 steps in one go = 8, a checkpoint, a restart, 8 more (bit for bit)
sed 's/time: {end: 0.1, output: 0.05}/time: {end: 1.0, output: 0.1}/' "$dir/ball.yaml" > "$dir/long.yaml"
STARPU_NCPU=1 "$tide" run "$dir/long.yaml" --blocks 2 --quiet --max-steps 16 --checkpoint-every 8steps --out "$dir/full" 2> /dev/null
STARPU_NCPU=1 "$tide" run "$dir/long.yaml" --blocks 2 --quiet --max-steps 8 --checkpoint-every 8steps --out "$dir/half" 2> /dev/null
# as if the stopped run had written an output after its checkpoint: the restart drops that row
echo "0.99,0,1,0,0,0,0,0,0,1,0,0,0,0" >> "$dir/half/sinks.csv"
STARPU_NCPU=1 "$tide" run --restart "$dir/half/checkpoint" --max-steps 16 --checkpoint-every 8steps --quiet 2> /dev/null
cmp "$dir/full/sinks.csv" "$dir/half/sinks.csv" || { echo "FAIL: sinks.csv after a restart differs"; diff "$dir/full/sinks.csv" "$dir/half/sinks.csv" | head; exit 1; }
cmp "$dir/full/checkpoint/particles.bin" "$dir/half/checkpoint/particles.bin" || { echo "FAIL: the gas after a restart differs"; exit 1; }
echo "restart: sinks.csv ($(grep -c "^[0-9]" "$dir/full/sinks.csv") rows) and the gas bit for bit after 8 + 8 steps"
# bad keys: exit 2, one sentence naming the key
bad() {
	local what=$1 extra=$2 key=$3 base=${4:-}
	if [ -n "$base" ]; then printf '%s\n%s\n' "$base" "$extra" > "$dir/bad.yaml"
	else gas_ball 0.1 "$extra" > "$dir/bad.yaml"; fi
	set +e
	"$tide" run "$dir/bad.yaml" --quiet --out "$dir/bad" 2> "$dir/err"
	local rc=$?
	set -e
	if [ $rc -ne 2 ] || [ "$(wc -l < "$dir/err")" -ne 1 ] || ! grep -q "$key" "$dir/err"; then
		echo "FAIL: $what: exit $rc, stderr:"; cat "$dir/err"; exit 1
	fi
	echo "bad $what: $(cat "$dir/err")"
}
bad "threshold" "sinks: {density_threshold: -1, accretion_radius: 0.5}" "sinks.density_threshold"
bad "radius missing" "sinks: {density_threshold: 1}" "sinks.accretion_radius"
bad "max" "sinks: {density_threshold: 1, accretion_radius: 0.5, max: 1000}" "sinks.max"
bad "unknown key" "sinks: {density_threshold: 1, accretion_radius: 0.5, radius: 2}" "radius"
nograv=$(gas_ball 0.1 | sed 's/cfl: 0.3,$/cfl: 0.3}/; /self_gravity/d')
bad "bonnor_ebert xi_max" "bonnor_ebert: {xi_max: 0}" "bonnor_ebert.xi_max"
bad "no self-gravity" "sinks: {density_threshold: 1, accretion_radius: 0.5}" "sinks" "$nograv"
echo "ok: sinks in a run: used parameters, sinks.csv, summary, log, restart, bad keys"
