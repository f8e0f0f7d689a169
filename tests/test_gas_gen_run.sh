#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The generator cases as a user runs them: tide run cases/sod.yaml, sedov.yaml, evrard.yaml for a
# few steps each write ParaView files (particles.pvd and .vtp files holding the generator's
# particle count) and a used_parameters.yaml that tide run reads back as a case (as --restart
# does); a case with positions: glass and a glass file beside it runs; a bad glass file and a
# key of another generator type are refused with exit code 2.
# usage: test_gas_gen_run.sh TIDE SRC_ROOT
set -euo pipefail
tide=$1; src=$2
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for k in sod:6480 sedov:32768 evrard:1472; do
	name=${k%%:*}; n=${k##*:}
	"$tide" run "$src/cases/$name.yaml" --out "$work/$name" --max-steps 3 --quiet ||
		fail "tide run cases/$name.yaml exited with $?"
	[ -s "$work/$name/particles.pvd" ] || fail "$name: no particles.pvd"
	vtp=$(ls "$work/$name"/particles_*.vtp | head -1)
	grep -q "NumberOfPoints=\"$n\"" "$vtp" || fail "$name: $vtp does not hold $n particles"
	"$tide" run "$work/$name/used_parameters.yaml" --out "$work/$name.again" --max-steps 1 --quiet ||
		fail "$name: used_parameters.yaml does not read back as a case"
	echo "ok: $name: $n particles in $vtp; used_parameters.yaml reads back"
done
# gauges in a gas run read the gas (each particle's h and mass, the ideal gas's p = (gamma - 1)
# rho u): Sod's undisturbed states at t <= 0.05 (the rarefaction head reaches z = -0.25 at
# t = 0.21, the shock z = 0.25 at 0.14): p 1 and 0.1, velocity 0
{ cat "$src/cases/sod.yaml"
  printf 'gauges:\n  every: 0.025\n  pressure:\n    - {name: PL, at: [0.075, 0.075, -0.25]}\n'
  printf '    - {name: PR, at: [0.075, 0.075, 0.25]}\n  velocity:\n    - {name: UL, at: [0.075, 0.075, -0.25]}\n'
} > "$work/sod_gauges.yaml"
"$tide" run "$work/sod_gauges.yaml" --out "$work/sodg" --no-output --set time.end=0.05 --quiet ||
	fail "sod with gauges exited with $?"
python3 - "$work/sodg/gauges.csv" <<'PY' || fail "Sod's pressure gauges do not read its states"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
col = lambda p: next(k for k in rows[0] if k.startswith(p))
worst = 0.0
for r in rows:
    pl, pr, u = float(r[col("PL[")]), float(r[col("PR[")]), float(r[col("ULz[")])
    print("t = %s: p left %.5f (1), right %.5f (0.1), vz left %.2g" % (r[col("time[")], pl, pr, u))
    worst = max(worst, abs(pl - 1), abs(pr / 0.1 - 1), abs(u))
print("largest relative error %.3g" % worst)
sys.exit(0 if len(rows) >= 3 and worst < 0.01 else 1)
PY
# a glass file beside the case (relative path), the top hat on it
"$tide" glass --n 512 --iterations 50 --out "$work/g512.txt" >/dev/null
cat > "$work/top_hat.yaml" <<'YAML'
dim: 3
dp: 0.1
units: code
domain: {lo: [-1.1, -1.1, -1.1], hi: [1.1, 1.1, 1.1]}
physics: {scheme: gas, gravity: [0, 0, 0]}
gas: {eos: isothermal, cs: 0.1, h_max: 0.5}
generator: {type: top_hat, rho_in: 1, rho_out: 0.125, R: 0.5, u: 0.01, half: 1, positions: glass,
            glass: g512.txt}
time: {end: 1}
YAML
"$tide" run "$work/top_hat.yaml" --out "$work/top_hat" --max-steps 2 --quiet ||
	fail "the top hat on glass exited with $?"
grep -q "glass: .*g512.txt" "$work/top_hat/used_parameters.yaml" || fail "used_parameters.yaml lacks the glass"
echo "ok: top hat on a glass file given relative to the case"
echo "0.5 0.5" > "$work/bad.txt"
sed 's/g512.txt/bad.txt/' "$work/top_hat.yaml" > "$work/bad.yaml"
set +e
msg=$("$tide" run "$work/bad.yaml" --out "$work/bad" 2>&1); rc=$?
[ $rc = 2 ] || fail "a bad glass file: exit code $rc, not 2 ($msg)"
grep -q "generator.glass.*line 1" <<<"$msg" || fail "a bad glass file: message '$msg'"
sed 's/u: 0.01,/u: 0.01, E: 1,/' "$work/top_hat.yaml" > "$work/bad2.yaml"
msg=$("$tide" run "$work/bad2.yaml" --out "$work/bad2" 2>&1); rc=$?
[ $rc = 2 ] || fail "a sedov key in a top hat: exit code $rc, not 2 ($msg)"
grep -q "'generator.E' is not used by generator type top_hat" <<<"$msg" || fail "message '$msg'"
echo "ok: bad glass and foreign key refused (exit 2): $msg"
