#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The astrophysical particle files (issue 23): SWIFT/GADGET HDF5 and text input of tide gravity
# and tide nbody, their HDF5 output, bad files.  tests/astro_files.py reads and writes the files
# with h5py alone (an independent reader of the layout).
#  1. tide gravity --output of a generated Plummer sphere: the layout (Header, Units, dataset
#     shapes, types and unit attributes) as SWIFT/GADGET readers expect it, and its Accelerations
#     and Potentials against a direct sum over its Coordinates and Masses.
#  2. tide gravity --input of that file gives the generated run's forces bit for bit (the read is
#     exact), and so do the same particles as text, as an h5py-written file with other dtypes, with
#     the masses in the MassTable, and split over PartType0 (with gas fields), 1 and 5.
#  3. 2 ranks: the same particles and ids, forces within 1e-3 of 1 rank (99th percentile; the
#     trees differ), the check against the direct sum within 1e-3.
#  4. tide nbody with snapshots every 0.5 to t = 1, and continued from its t = 0.5 snapshot: the
#     t = 1 snapshots and the diagnostics from t = 0.5 on are identical, on 1 and on 2 ranks.
#     A file with a Units group (pc, Msun, Myr) has its velocities converted to G = 1.
#  5. Bad files: exit code 2, one sentence naming the file and the problem, nothing written
#     (also on 2 ranks: one sentence for both).
# Skipped (exit 77) when /usr/bin/python3 has no h5py (Debian: python3-h5py).
# usage: test_astro_io.sh TIDE SRC_ROOT
set -uo pipefail
tide=$(realpath "$1")
src=$2
py=/usr/bin/python3
[ -x "$py" ] || py=python3
"$py" -c "import h5py, numpy" 2>/dev/null || { echo "SKIP: h5py is not importable by $py (install python3-h5py)"; exit 77; }
files=("$py" "$src/tests/astro_files.py")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
source "$src/tests/mpirun_cpu.sh"
source "$src/tests/expect.sh"
export STARPU_NCPU=${STARPU_NCPU:-2}
N=3000
g=(gravity --repeat 1 --device cpu)
cd "$work" || exit 1

# 1. the layout written, checked by h5py
"$tide" "${g[@]}" --dist plummer --n $N --seed 7 --check 200 --output gen.hdf5 || fail "generated run"
"${files[@]}" layout gen.hdf5 $N || fail "layout of tide gravity --output"

# 2. the particles read back, in every form, give the same forces bit for bit
mkdir var
"${files[@]}" variants gen.hdf5 var || fail "writing the variants"
fields=(Accelerations Potentials Coordinates Masses)
"$tide" "${g[@]}" --input gen.hdf5 --output back.hdf5 || fail "--input gen.hdf5"
"${files[@]}" same gen.hdf5 back.hdf5 "${fields[@]}" Velocities ParticleIDs || fail "read back"
for f in particles.txt types.hdf5 masstable.hdf5 gas_dm_sinks.hdf5; do
	"$tide" "${g[@]}" --input "var/$f" --output "var/$f.out.hdf5" >/dev/null || fail "--input $f"
	"${files[@]}" same gen.hdf5 "var/$f.out.hdf5" "${fields[@]}" || fail "--input $f: other forces"
done
"$py" - var/gas_dm_sinks.hdf5.out.hdf5 <<'PY' || fail "types of gas_dm_sinks not written back"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
n = list(f["Header"].attrs["NumPart_ThisFile"])
assert n == [1000, 1990, 0, 0, 0, 10], n
assert all("PartType%d" % k in f for k in (0, 1, 5))
print("types written back:", n)
PY

# 3. two ranks
if [ ${#mpi[@]} -gt 0 ]; then
	out=$(nice "${mpi[@]}" -np 2 "$tide" "${g[@]}" --input gen.hdf5 --check $N --output m2.hdf5) ||
		fail "--input on 2 ranks"
	echo "$out" | grep '^check'
	p99=$(echo "$out" | sed -n 's/.*99% \([0-9.e+-]*\),.*/\1/p')
	awk -v p="$p99" 'BEGIN { exit !(p != "" && p + 0 <= 1e-3) }' || fail "2 ranks: check 99% '$p99'"
	"${files[@]}" same gen.hdf5 m2.hdf5 Coordinates Velocities Masses ParticleIDs || fail "2 ranks: particles"
	"${files[@]}" close gen.hdf5 m2.hdf5 1e-3 || fail "2 ranks: forces"
fi

# 4. nbody: a run continued from its snapshot is the uninterrupted run
nb=(nbody --dt 0.025 --t-end 1 --out-every 4 --snapshot-every 0.5)
continued() { # RUNNER... : runs A (t 0..1) and B (from A's t = 0.5 snapshot) with the runner
	local tag=$1; shift
	"$@" "$tide" "${nb[@]}" --n 2000 --seed 3 --csv "a$tag.csv" --snapshots "A$tag" >/dev/null ||
		{ fail "nbody $tag"; return; }
	"$@" "$tide" "${nb[@]}" --input "A$tag/snapshot_0001.hdf5" --csv "b$tag.csv" --snapshots "B$tag" \
		>/dev/null || { fail "nbody $tag from its snapshot"; return; }
	"${files[@]}" times "A$tag" 0 0.5 1 && "${files[@]}" times "B$tag" 0.5 1 || fail "$tag: times"
	"${files[@]}" same "A$tag/snapshot_0002.hdf5" "B$tag/snapshot_0001.hdf5" Coordinates Velocities \
		Masses ParticleIDs Accelerations Potentials || fail "$tag: continued run differs"
	# the diagnostics from t = 0.5 on (columns 2-14: t and the values; column 1 counts steps)
	diff <(grep -v '^#' "a$tag.csv" | cut -d, -f2- | awk -F, 'NR == 1 || $1 >= 0.5') \
	     <(grep -v '^#' "b$tag.csv" | cut -d, -f2-) >/dev/null || fail "$tag: continued diagnostics differ"
	echo "ok: nbody $tag continued from its t = 0.5 snapshot = the uninterrupted run"
}
continued 1rank env
[ ${#mpi[@]} -gt 0 ] && continued 2ranks nice "${mpi[@]}" -np 2
# a text file with velocities starts a run; its snapshot holds them
"$tide" nbody --input var/particles7.txt --dt 0.025 --t-end 0.05 --csv t7.csv \
	--snapshots T7 >/dev/null || fail "nbody --input text"
"${files[@]}" same gen.hdf5 T7/snapshot_0000.hdf5 Coordinates Velocities Masses || fail "text with velocities"

# a file in pc, Msun and Myr: its velocities converted to the G = 1 time unit, its units kept
"$tide" nbody --input var/units.hdf5 --dt 0.025 --t-end 0 --csv u.csv --snapshots U >/dev/null ||
	fail "nbody --input with Units"
"${files[@]}" units var/units.hdf5 U/snapshot_0000.hdf5 || fail "units"

# 5. bad files
mkdir bad
"${files[@]}" bad gen.hdf5 bad >bad/list || fail "writing the bad files"
declare -A says=(
	[no_coordinates.hdf5]="bad/no_coordinates.hdf5: PartType1 has no Coordinates dataset"
	[no_velocities.hdf5]="bad/no_velocities.hdf5: PartType1 has no Velocities dataset"
	[no_masses.hdf5]="bad/no_masses.hdf5: PartType1 has no Masses dataset and the Header's MassTable"
	[shape.hdf5]="bad/shape.hdf5: PartType1/Coordinates has the wrong shape"
	[rows.hdf5]="bad/rows.hdf5: PartType1/Masses has 40 rows"
	[nan.hdf5]="bad/nan.hdf5: PartType1/Coordinates row 7 holds nan, not a finite number"
	[inf.hdf5]="bad/inf.hdf5: PartType1/Velocities row 3 holds inf"
	[zero_mass.hdf5]="bad/zero_mass.hdf5: PartType1/Masses row 5 holds 0; it must be > 0"
	[negative_mass.hdf5]="bad/negative_mass.hdf5: PartType1/Masses row 9 holds -1; it must be > 0"
	[uncounted.hdf5]="bad/uncounted.hdf5: PartType0/Coordinates has 10 rows, but the Header's NumPart_ThisFile says 0 particles of type 0"
	[empty.hdf5]="bad/empty.hdf5 holds no particles"
	[count.hdf5]="bad/count.hdf5: its Header says 5 particles of type 4, but it has no PartType4"
	[not_hdf5.hdf5]="bad/not_hdf5.hdf5 is not an HDF5 file"
	[truncated.hdf5]="bad/truncated.hdf5 cannot be opened as HDF5"
	[short_line.txt]="bad/short_line.txt line 3: '4 5 6' is not 4 numbers"
	[word.txt]="bad/word.txt line 2: '1 2 three 0.5' is not 4 numbers"
	[nan.txt]="bad/nan.txt line 3: value 2 is nan"
	[zero_mass.txt]="bad/zero_mass.txt line 1: the mass is 0; masses must be > 0"
	[empty.txt]="bad/empty.txt holds no particles"
)
[ "$(wc -l <bad/list)" = ${#says[@]} ] || fail "astro_files.py bad made $(wc -l <bad/list) files, ${#says[@]} expected"
for f in $(cat bad/list); do
	expect "gravity_$f" 2 "${says[$f]}" "$tide" "${g[@]}" --input "bad/$f" --output "bad/$f.out.hdf5"
	expect "nbody_$f" 2 "${says[$f]}" "$tide" nbody --input "bad/$f" --csv "bad/$f.csv" --snapshots "bad/$f.snap"
	for w in "bad/$f.out.hdf5" "bad/$f.csv" "bad/$f.snap"; do
		[ ! -e "$w" ] || fail "$f: $w written for a bad file"
	done
done
"${files[@]}" huge bad/huge.hdf5 || fail "writing bad/huge.hdf5"
expect huge 1 "tide: reading bad/huge.hdf5 (1400000000 particles) needs at least" \
	"$tide" "${g[@]}" --input bad/huge.hdf5 --output bad/huge.out.hdf5
[ ! -e bad/huge.out.hdf5 ] || fail "huge: output written"
expect missing 2 "cannot read bad/missing.hdf5" "$tide" "${g[@]}" --input bad/missing.hdf5
expect input_and_n 2 "--input gen.hdf5 gives the particles; leave out --n" "$tide" "${g[@]}" --input gen.hdf5 --n 10
expect input_and_seed 2 "leave out --seed" "$tide" nbody --input gen.hdf5 --seed 3
expect t_end_before 2 "--t-end 0.1 is before the time 0.5" "$tide" nbody --input A1rank/snapshot_0001.hdf5 --t-end 0.1 --csv bad/t.csv
expect snapshot_every 2 "is not a whole number (>= 1) of steps" "$tide" nbody --snapshots bad/s --snapshot-every 0.013 --dt 0.01
if [ ${#mpi[@]} -gt 0 ]; then
	expect mpi_bad 2 "bad/nan.hdf5: PartType1/Coordinates row 7 holds nan" \
		"${mpi[@]}" -np 2 "$tide" "${g[@]}" --input bad/nan.hdf5 --output bad/m.hdf5
	[ "$(grep -c 'row 7 holds nan' "$work/mpi_bad.err")" = 1 ] || fail "2 ranks: not one sentence for a bad file"
	[ ! -e bad/m.hdf5 ] || fail "2 ranks: output written for a bad file"
	# rank 1 finds a damaged copy of the file (another node's disk): both stop, each says its part
	mkdir -p node1 && cp bad/nan.hdf5 node1/ic.hdf5 && cp gen.hdf5 ic.hdf5
	cat >node.sh <<EOF
#!/bin/bash
[ "\$OMPI_COMM_WORLD_RANK" = 1 ] && cd node1
exec "$tide" ${g[*]} --input ic.hdf5 --output out.hdf5
EOF
	chmod +x node.sh
	expect mpi_copies 2 "MPI rank 1 could not read ic.hdf5, which rank 0 read" "${mpi[@]}" -np 2 ./node.sh
	grep -qF "ic.hdf5: PartType1/Coordinates row 7 holds nan" mpi_copies.err || fail "rank 1 does not say why"
	[ ! -e out.hdf5 ] && [ ! -e node1/out.hdf5 ] || fail "2 ranks, other copies: output written"
fi

[ "$nfail" = 0 ] || { echo "astro_io: $nfail failure(s)"; exit 1; }
echo "astro_io: all cases pass"
