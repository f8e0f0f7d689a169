#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Snapshots written by the writer thread while the run goes on (src/snapshot_writer.c):
#  (a) content: with an output at every step, the last particles_NNNN.vtp and .h5 hold exactly
#      the particles of the checkpoint written synchronously at the same step (gathered, read
#      back from particles.bin by compare_particles; the snapshot of the step before must
#      differ, so the comparison can fail), every .h5 holds what its .vtp holds, and the times
#      of the .pvd, of every .h5 and of statistics.csv are the same, one per output; on 1 and
#      2 MPI ranks;
#  (b) a stop file (1 and 2 ranks) and SIGTERM (1 rank) while a snapshot is pending (the writer slowed down by the test
#      hook TIDE_TEST_SNAPSHOT_DELAY_MS) leave every snapshot the .pvd lists complete, as many
#      rows in statistics.csv, no *.tmp, and the last snapshot equal to the stop's checkpoint;
#  (c) output.fields writes exactly the chosen arrays (vtp header, HDF5 datasets and the .xmf),
#      output.precision single writes Float32 positions; bad values are refused (exit 2, one
#      sentence naming the allowed fields);
#  (d) the HDF5 attributes: units on every dataset, case_name, dp, h and tide_version at the
#      root, with the case's values.
# usage: test_snapshots.sh TIDE COMPARE_PARTICLES SRC_ROOT
set -euo pipefail
tide=$1; cmp_p=$2; src=$3
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3
mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
case2d=$src/cases/dambreak2d.yaml
# an output at every step (the interval is below any time step)
args=(run "$case2d" --dp 0.01 --set time.output=1e-7 --blocks 4 --quiet --format both)
fail() { echo "FAIL: $*"; exit 1; }

# same_times DIR: the .pvd's times, the .h5 time attributes and statistics.csv's times agree,
# one per output, and the files the .pvd lists are all there.
same_times() {
	local d=$1
	: > "$d/h5_times.txt"
	for h in "$d"/particles_*.h5; do
		set -- $("$cmp_p" --info "$h")
		echo "$(basename "$h") $2" >> "$d/h5_times.txt"
	done
	"$py" - "$d" <<'PY'
import csv, os, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
pvd = [(ds.get("file"), float(ds.get("timestep")))
       for ds in ET.parse(os.path.join(d, "particles.pvd")).getroot().iter("DataSet")]
h5 = [l.split() for l in open(os.path.join(d, "h5_times.txt"))]
rows = list(csv.reader(open(os.path.join(d, "statistics.csv"))))[1:]
assert len(pvd) == len(h5) == len(rows), (len(pvd), len(h5), len(rows))
for (f, t), (hf, ht), r in zip(pvd, h5, rows):
    assert os.path.exists(os.path.join(d, f)), f
    assert hf == f.replace(".vtp", ".h5"), (f, hf)
    assert t == float(ht) == float(r[0]), (f, t, ht, r[0])
PY
	ls "$d" | grep -q '\.tmp' && fail "$d holds temporary files: $(ls "$d" | grep '\.tmp')"
	return 0
}

# content DIR N: output N (the last) equals the checkpoint, N-1 does not, every .h5 = its .vtp
content() {
	local d=$1 n=$2 last prev
	last=$(printf '%s/particles_%04d' "$d" "$n"); prev=$(printf '%s/particles_%04d' "$d" $((n - 1)))
	"$cmp_p" "$d/checkpoint/particles.bin" "$last.vtp" > /dev/null || fail "$last.vtp is not the checkpoint's state"
	"$cmp_p" "$d/checkpoint/particles.bin" "$last.h5" > /dev/null || fail "$last.h5 is not the checkpoint's state"
	if "$cmp_p" "$d/checkpoint/particles.bin" "$prev.vtp" > /dev/null 2>&1; then
		fail "$prev.vtp equals the state one step later: the comparison sees nothing"
	fi
	for v in "$d"/particles_*.vtp; do
		"$cmp_p" "${v%.vtp}.h5" "$v" > /dev/null || fail "${v%.vtp}.h5 differs from $v"
	done
	same_times "$d"
}

# (a) one rank and two ranks
"$tide" "${args[@]}" --max-steps 20 --checkpoint-every 20steps --out "$work/a1"
content "$work/a1" 20
"${mpi[@]}" -np 2 "$tide" "${args[@]}" --max-steps 20 --checkpoint-every 20steps --out "$work/a2"
content "$work/a2" 20
# the physics does not depend on the rank count (same blocks): the 2-rank files are the 1-rank's
"$cmp_p" "$work/a1/particles_0020.vtp" "$work/a2/particles_0020.vtp" > /dev/null ||
	fail "the 2-rank snapshot differs from the 1-rank one"
echo "ok: snapshots = synchronous checkpoint state, 1 and 2 ranks"

# (b) stop file and SIGTERM with a snapshot pending
stopped() {
	local d=$1 n
	n=$(grep -c '<DataSet' "$d/particles.pvd")
	[ "$n" -ge 2 ] || fail "$d: only $n snapshots before the stop"
	grep -q "^outputs: $n," "$d/checkpoint/checkpoint.txt" ||
		fail "$d: the checkpoint does not count the $n snapshots written"
	same_times "$d"
	"$cmp_p" "$d/checkpoint/particles.bin" "$(printf '%s/particles_%04d.vtp' "$d" $((n - 1)))" \
		> /dev/null || fail "$d: the last snapshot is not the state at the stop"
}
for how in stop term stop2; do
	d=$work/b_$how
	mkdir -p "$d"
	launch=("$tide")
	[ $how = stop2 ] && launch=("${mpi[@]}" -np 2 -x TIDE_TEST_SNAPSHOT_DELAY_MS "$tide")
	TIDE_TEST_SNAPSHOT_DELAY_MS=300 "${launch[@]}" "${args[@]}" --max-steps 100000 --out "$d" &
	pid=$!
	for i in $(seq 600); do [ -f "$d/particles_0002.vtp" ] && break; sleep 0.1; done
	[ -f "$d/particles_0002.vtp" ] || { kill -KILL $pid; fail "$how: no snapshot appeared"; }
	if [ $how = term ]; then kill -TERM $pid; else touch "$d/STOP"; fi
	rc=0; wait $pid || rc=$?
	want=0; [ $how = term ] && want=143
	[ $rc = $want ] || fail "$how: exit $rc, expected $want"
	stopped "$d"
done
echo "ok: a stop with a snapshot pending leaves every snapshot complete (1 rank: stop file, SIGTERM; 2 ranks: stop file)"

# (c) output.fields and output.precision
"$tide" "${args[@]}" --max-steps 2 --out "$work/c" --set 'output.fields=[position, density]' \
	--set output.precision=single --checkpoint-every 2steps
v=$work/c/particles_0001.vtp
names=$(head -c 4096 "$v" | grep -a -o 'Name="[A-Za-z]*"' | tr '\n' ' ')
[ "$names" = 'Name="Density" Name="Points" Name="connectivity" Name="offsets" ' ] ||
	fail "output.fields [position, density]: the .vtp has $names"
head -c 4096 "$v" | grep -a -q 'type="Float32" Name="Points"' || fail "single precision: the points are not Float32"
sets=$("$cmp_p" --attrs "$work/c/particles_0001.h5" | grep = | sed -n '5,$p' | tr '\n' ' ')
[ "$sets" = 'Position=m float32 Density=kg/m^3 float32 Connectivity=1 int32 ' ] ||
	fail "output.fields [position, density]: the .h5 has $sets"
grep -q 'Name="Velocity"\|Name="Pressure"\|Name="Type"\|Name="Id"' "$work/c/particles.xmf" &&
	fail "the .xmf lists arrays that were not written"
grep -q 'Precision="4" Format="HDF">particles_0001.h5:/Position' "$work/c/particles.xmf" ||
	fail "the .xmf does not say the positions are 4-byte floats"
# a restart continues the .xmf with every earlier .h5 (counted by Connectivity: no Id needed),
# each listed with the arrays it holds, also when the restart writes other fields
"$tide" run --restart "$work/c/checkpoint" --max-steps 4 --quiet --set 'output.fields=[position, velocity]' # precision stays single
[ "$(grep -c '<Grid Name="particles_' "$work/c/particles.xmf")" = 5 ] ||
	fail "after the restart the .xmf lists $(grep -c '<Grid Name="particles_' "$work/c/particles.xmf") files, expected 5"
xmf_items=$(grep -o 'Precision="[48]" Format="HDF">particles_000[14].h5:/[A-Za-z]*' "$work/c/particles.xmf" | tr '\n' ' ')
[ "$xmf_items" = 'Precision="4" Format="HDF">particles_0001.h5:/Connectivity Precision="4" Format="HDF">particles_0001.h5:/Position Precision="4" Format="HDF">particles_0001.h5:/Density Precision="4" Format="HDF">particles_0004.h5:/Connectivity Precision="4" Format="HDF">particles_0004.h5:/Position Precision="4" Format="HDF">particles_0004.h5:/Velocity ' ] ||
	fail "the .xmf after a restart with other fields lists: $xmf_items"
for bad in '[position, vorticity]' '[density]' 'position'; do
	rc=0; msg=$("$tide" "${args[@]}" --max-steps 1 --out "$work/bad" --set "output.fields=$bad" 2>&1) || rc=$?
	[ $rc = 2 ] || fail "output.fields=$bad: exit $rc, expected 2"
	[ "$(printf '%s\n' "$msg" | wc -l)" = 1 ] || fail "output.fields=$bad: more than one line: $msg"
	case $msg in *"position, velocity, density, pressure, type, id"*) ;; *) fail "output.fields=$bad: $msg";; esac
done
[ ! -e "$work/bad/particles_0000.vtp" ] || fail "a refused case wrote particles"
echo "ok: output.fields / output.precision"

# (d) HDF5 attributes, the case's values
"$cmp_p" --attrs "$work/a1/particles_0003.h5" > "$work/attrs.txt"
version=$("$tide" --version | awk '{print $2}')
"$py" - "$work/attrs.txt" "$version" <<'PY'
import sys
a = dict(l.rstrip("\n").split("=", 1) for l in open(sys.argv[1]))
assert a["case_name"] == "dambreak2d", a
assert float(a["dp"]) == 0.01 and float(a["h"]) == 2.0 * 0.01, a   # coefh 2 (the case)
assert a["tide_version"] == sys.argv[2], (a, sys.argv[2])
units = {k: v.split()[0] for k, v in a.items() if k[0].isupper()}
assert units == {"Position": "m", "Velocity": "m/s", "Density": "kg/m^3", "Pressure": "Pa",
                 "Type": "1", "Id": "1", "Connectivity": "1"}, units
PY
echo "ok: HDF5 attributes"
