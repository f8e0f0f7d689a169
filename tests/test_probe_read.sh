#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What tide probe reads (issue 18): the same particles in every form a user may have give the
# same values.
#  - tests/data/tide_original.vtp (a tide snapshot of dambreak2d at dp 0.02, 637 particles)
#    re-saved by VTK's vtkXMLPolyDataWriter (tests/data/make_vtk_fixtures.py): appended raw,
#    appended zlib with UInt64 and with UInt32 headers (big-endian, small blocks), appended
#    base64, inline binary with and without zlib, ascii, ascii split into two Pieces: the probe
#    CSV is byte for byte the original's; Float32 points with Float64 fields in reverse order: equal to float precision;
#  - nfluid of the original equals a brute-force count of fluid particles within 2h made here
#    from the ascii fixture with Python's XML parser (an independent reading of the file);
#  - a file without Velocity gives the other columns, the velocity ones empty;
#  - tide's HDF5 output: the .h5 of the same snapshot gives the original's values with the
#    file's time; a real run with --format both probed through particles.xmf (HDF5 reader) and
#    particles.pvd (VTK reader) gives the same CSV; a run directory holding only HDF5 output
#    is probed through its particles.xmf;
#  - damaged files (truncated at several places, bad zlib data, bad base64, missing Points,
#    missing or mis-shaped fields, wrong sizes, NaN, a foreign compressor or type; damaged
#    .xmf and .pvd series) are refused with exit 2, nothing on standard output, and one line on
#    stderr naming the file; a series missing a snapshot leaves no partial -o file; a binary
#    points file is refused naming the file and line without echoing its bytes; --line with
#    too many points names the allowed maximum.
# usage: test_probe_read.sh TIDE_EXE SOURCE_ROOT
set -u
tide=$1
root=$2
data=$root/tests/data
case_file=$data/tide_original.yaml
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tide_probe_read.XXXXXX")
py=/usr/bin/python3
[ -x "$py" ] || py=python3
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# edit SRC DST PYTHON-EXPR: DST = the bytes b of SRC transformed by the expression.
edit() { "$py" -c "import sys; b = open(sys.argv[1], 'rb').read(); open(sys.argv[2], 'wb').write($3)" "$1" "$2"; }

# Points through the water column, along the floor under the collapsing column and in the air.
pts=(--point 0.1,0.1 --point 0.05,0.3 --line 0,0.02:1.0,0.02:26 --line 0.15,0.01:0.15,0.5:12
     --point 1.5,0.5 --height)
probe() { "$tide" probe "$@" --case "$case_file" "${pts[@]}"; }

probe "$data/tide_original.vtp" > "$tmp/ref.csv" || fail "probe of tide_original.vtp: exit $?"

# The reference against an independent reading of the particles (Python's XML parser on the
# ascii re-save): nfluid = fluid particles within 2h, and some points are wet, some dry.
"$py" - "$data/vtk_ascii.vtp" "$tmp/ref.csv" <<'EOF' || fail "reference CSV vs brute force"
import csv, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
piece = root.find("PolyData/Piece")
pts = [float(v) for v in piece.find("Points/DataArray").text.split()]
types = [int(v) for v in [a for a in piece.find("PointData") if a.get("Name") == "Type"][0].text.split()]
n = int(piece.get("NumberOfPoints"))
assert len(pts) == 3 * n and len(types) == n, "ascii fixture sizes"
h2 = (2 * 2 * 0.02) ** 2  # (2h)^2, h = coefh dp
rows = list(csv.DictReader(open(sys.argv[2])))
wet = 0
for r in rows:
    x, z = float(r["x[m]"]), float(r["z[m]"])
    count = sum(1 for i in range(n) if types[i] == 0 and
                (pts[3 * i] - x) ** 2 + (pts[3 * i + 2] - z) ** 2 < h2)
    if count != int(r["nfluid[-]"]):
        sys.exit("FAIL: nfluid %s at (%g, %g), brute force %d" % (r["nfluid[-]"], x, z, count))
    wet += count > 0
if len(rows) != 41 or wet < 10 or wet == len(rows):
    sys.exit("FAIL: %d rows, %d wet: the points do not test much" % (len(rows), wet))
print("reference: %d rows, %d with fluid, nfluid = brute force (%d particles)" % (len(rows), wet, n))
EOF

for f in vtk_appended_raw vtk_appended_zlib_u64 vtk_appended_zlib_u32_be vtk_appended_base64 \
         vtk_binary_inline vtk_binary_inline_zlib vtk_ascii; do
	if ! probe "$data/$f.vtp" > "$tmp/$f.csv"; then fail "$f.vtp: exit $?"; continue; fi
	cmp -s "$tmp/ref.csv" "$tmp/$f.csv" && echo "$f.vtp: the original's values" ||
		fail "$f.vtp: values differ from tide_original.vtp: $(diff "$tmp/ref.csv" "$tmp/$f.csv" | head -3)"
done

# Two <Piece>s (the ascii re-save split after its first 200 particles, cell arrays dropped):
# the particles of both, in order, give the same values.
"$py" - "$data/vtk_ascii.vtp" "$tmp/pieces.vtp" <<'EOF'
import sys, xml.etree.ElementTree as ET
tree = ET.parse(sys.argv[1])
poly = tree.getroot().find("PolyData")
piece = poly.find("Piece")
n, k = int(piece.get("NumberOfPoints")), 200
poly.remove(piece)
for lo, hi in ((0, k), (k, n)):
    p = ET.SubElement(poly, "Piece", NumberOfPoints=str(hi - lo))
    for sec in ("PointData", "Points"):
        s = ET.SubElement(p, sec)
        for a in piece.find(sec).findall("DataArray"):
            c = int(a.get("NumberOfComponents", "1"))
            b = ET.SubElement(s, "DataArray", {key: a.get(key) for key in a.keys() if not key.startswith("Range")})
            b.text = " ".join(a.text.split()[lo * c:hi * c])
tree.write(sys.argv[2])
EOF
probe "$tmp/pieces.vtp" > "$tmp/pieces.csv" || fail "two pieces: exit $?"
cmp -s "$tmp/ref.csv" "$tmp/pieces.csv" && echo "two pieces: the original's values" ||
	fail "two pieces: $(diff "$tmp/ref.csv" "$tmp/pieces.csv" | head -3)"

# Without Velocity (output.fields may leave it out): the other columns as before, the velocity
# ones empty, and a note saying so.
edit "$data/vtk_ascii.vtp" "$tmp/novel.vtp" "b.replace(b'Name=\"Velocity\"', b'Name=\"Speed\"')"
probe "$tmp/novel.vtp" > "$tmp/novel.csv" 2> "$tmp/novel.err" || fail "no Velocity: exit $?"
if cmp -s <(cut -d, -f1-5,9- "$tmp/ref.csv") <(cut -d, -f1-5,9- "$tmp/novel.csv") &&
   [ "$(cut -d, -f6-8 "$tmp/novel.csv" | sed 1d | sort -u)" = ",," ] &&
   grep -q "novel.vtp has no Velocity array" "$tmp/novel.err"; then
	echo "no Velocity array: the other values, velocity columns empty"
else
	fail "no Velocity array: $(diff "$tmp/ref.csv" "$tmp/novel.csv" | head -3) $(cat "$tmp/novel.err")"
fi

# Float32 points: each value within 1e-5 of its column's largest magnitude, nfluid the same.
close() {   # close A.csv B.csv SKIPCOLS: same rows, equal to float precision past column SKIPCOLS
	"$py" - "$@" <<'EOF'
import csv, sys
a, b = (list(csv.reader(open(p))) for p in sys.argv[1:3])
skip = int(sys.argv[3])
if len(a) != len(b) or a[0] != b[0]:
    sys.exit("FAIL: %d vs %d rows or another header" % (len(a), len(b)))
scale = [max([abs(float(r[k])) for r in a[1:] if r[k]] + [1e-30]) for k in range(len(a[0]))]
for ra, rb in zip(a[1:], b[1:]):
    for k in range(skip, len(ra)):
        if (ra[k] == "") != (rb[k] == "") or (ra[k] and abs(float(ra[k]) - float(rb[k])) > 1e-5 * scale[k]):
            sys.exit("FAIL: %s: %s vs %s" % (a[0][k], ra, rb))
        if k == 4 and ra[k] != rb[k]:
            sys.exit("FAIL: nfluid %s vs %s" % (ra, rb))
EOF
}
probe "$data/vtk_float32_reordered.vtp" > "$tmp/f32.csv" || fail "vtk_float32_reordered.vtp: exit $?"
close "$tmp/ref.csv" "$tmp/f32.csv" 1 && echo "vtk_float32_reordered.vtp: the original's values to float precision" ||
	fail "vtk_float32_reordered.vtp"

# The .h5 of the same snapshot: the same values, and the time from the file.
probe "$data/tide_original.h5" > "$tmp/h5.csv" || fail "tide_original.h5: exit $?"
if cmp -s <(cut -d, -f2- "$tmp/ref.csv") <(cut -d, -f2- "$tmp/h5.csv") &&
   [ "$(cut -d, -f1 "$tmp/h5.csv" | sed -n 2p)" = 0.100176036 ]; then
	echo "tide_original.h5: the original's values at t = 0.100176036 s"
else
	fail "tide_original.h5: $(diff "$tmp/ref.csv" "$tmp/h5.csv" | head -3)"
fi

# A real run writing both formats: the HDF5 series and the VTK series agree snapshot by snapshot.
run=$tmp/run
"$tide" run "$root/cases/dambreak2d.yaml" --dp 0.02 --format both --set time.end=0.02 \
	--set time.output=0.01 --quiet --out "$run" > "$tmp/run.log" 2>&1 || fail "tide run: $(tail -3 "$tmp/run.log")"
"$tide" probe "$run/particles.pvd" "${pts[@]}" > "$tmp/pvd.csv" || fail "probe particles.pvd: exit $?"
"$tide" probe "$run/particles.xmf" "${pts[@]}" > "$tmp/xmf.csv" || fail "probe particles.xmf: exit $?"
rows=$(($(wc -l < "$tmp/xmf.csv") - 1))
if [ "$rows" = 123 ] && cmp -s "$tmp/pvd.csv" "$tmp/xmf.csv"; then
	echo "run with --format both: particles.xmf and particles.pvd give the same $rows rows"
else
	fail "particles.xmf ($rows rows) vs particles.pvd: $(diff "$tmp/pvd.csv" "$tmp/xmf.csv" | head -3)"
fi
# The directory with only its HDF5 output left: found through particles.xmf.
mkdir "$tmp/h5only"
cp "$run"/*.h5 "$run/particles.xmf" "$run/used_parameters.yaml" "$tmp/h5only/"
"$tide" probe "$tmp/h5only" "${pts[@]}" > "$tmp/h5only.csv" || fail "probe of an HDF5-only run: exit $?"
cmp -s "$tmp/pvd.csv" "$tmp/h5only.csv" && echo "HDF5-only run directory: the same rows" ||
	fail "HDF5-only run directory: $(diff "$tmp/pvd.csv" "$tmp/h5only.csv" | head -3)"
"$tide" probe "$tmp/h5only" --last "${pts[@]}" > "$tmp/h5last.csv"
[ "$(cut -d, -f1 "$tmp/h5last.csv" | sort -u | wc -l)" = 2 ] || fail "--last on the .xmf series"

# ---- refusals ----
# refused_by NAME PHRASE INPUT [probe args...]: exit 2, empty stdout, and one stderr line naming
# NAME (the file or option at fault) with PHRASE.
refused_by() {
	local name=$1 phrase=$2 file=$3
	shift 3
	"$tide" probe "$file" --case "$case_file" --point 0.1,0.1 "$@" > "$tmp/out" 2> "$tmp/err"
	local rc=$?
	if [ $rc != 2 ] || [ -s "$tmp/out" ] || [ "$(wc -l < "$tmp/err")" != 1 ] ||
	   ! grep -qF -- "$name" "$tmp/err" || ! grep -qF -- "$phrase" "$tmp/err"; then
		fail "$(basename -- "$name"): exit $rc (want 2), stderr '$(head -c 300 "$tmp/err")' (want one line naming it with '$phrase')"
	else
		echo "refused $(basename -- "$name"): $(cat "$tmp/err")"
	fi
}
refused() { local f=$1 p=$2; shift 2; refused_by "$f" "$p" "$f" "$@"; }

# Damaged series: cut short, a grid without its time, a snapshot the series names but lacks.
head -c 700 "$run/particles.xmf" > "$tmp/cut.xmf"
refused "$tmp/cut.xmf" "not a valid XDMF series"
edit "$run/particles.xmf" "$tmp/notime.xmf" "b.replace(b'<Time ', b'<Tide ', 1)"
refused "$tmp/notime.xmf" "has no <Time Value>"
head -c 200 "$run/particles.pvd" > "$tmp/cut.pvd"
refused "$tmp/cut.pvd" "not a valid .pvd series"
rm "$tmp/h5only/particles_0001.h5"   # -o: a failed series leaves no partial CSV
"$tide" probe "$tmp/h5only" "${pts[@]}" -o "$tmp/partial.csv" 2> "$tmp/err"
rc=$?
if [ $rc = 2 ] && [ ! -e "$tmp/partial.csv" ] && [ "$(wc -l < "$tmp/err")" = 1 ] &&
   grep -q "particles_0001.h5: No such file" "$tmp/err"; then
	echo "refused a series missing a file: $(cat "$tmp/err")"
else
	fail "series missing particles_0001.h5: exit $rc, stderr '$(cat "$tmp/err")'"
fi

for f in tide_original.vtp vtk_appended_zlib_u64.vtp vtk_appended_base64.vtp vtk_binary_inline_zlib.vtp \
         vtk_ascii.vtp; do
	size=$(stat -c %s "$data/$f")
	for cut in 60 700 $((size / 3)) $((size / 2)) $((size - 40)) $((size - 5)); do
		head -c "$cut" "$data/$f" > "$tmp/cut${cut}_$f"
		refused "$tmp/cut${cut}_$f" "truncated"
	done
done
size=$(stat -c %s "$data/tide_original.h5")
for cut in 100 $((size / 2)) $((size - 100)); do
	head -c "$cut" "$data/tide_original.h5" > "$tmp/cut${cut}.h5"
	refused "$tmp/cut${cut}.h5" "HDF5"
done

z=$data/vtk_appended_zlib_u64.vtp
# Density's zlib stream (offset 1775 past '_'; header 4 x UInt64) overwritten in its middle.
edit "$z" "$tmp/badzlib.vtp" "b[:b.index(b'_', b.index(b'<AppendedData')) + 1 + 1775 + 32 + 40] + b'\\xff' * 16 + b[b.index(b'_', b.index(b'<AppendedData')) + 1 + 1775 + 32 + 56:]"
refused "$tmp/badzlib.vtp" "not valid zlib data"
edit "$z" "$tmp/lz4.vtp" "b.replace(b'vtkZLibDataCompressor', b'vtkLZ4DataCompressor', 1)"
refused "$tmp/lz4.vtp" "vtkLZ4DataCompressor"
i=$data/vtk_binary_inline.vtp
edit "$i" "$tmp/badb64.vtp" "b.replace(b'\n          6B0AAAAA', b'\n          6B0A*AAA', 1)"
refused "$tmp/badb64.vtp" "base64"
a=$data/vtk_ascii.vtp
edit "$a" "$tmp/nopoints.vtp" "b[:b.index(b'<Points>')] + b[b.index(b'</Points>') + 9:]"
refused "$tmp/nopoints.vtp" "no Points array"
edit "$a" "$tmp/nodensity.vtp" "b.replace(b'Name=\"Density\"', b'Name=\"Rho\"')"
refused "$tmp/nodensity.vtp" "no Density array"
edit "$a" "$tmp/notype.vtp" "b.replace(b'Name=\"Type\"', b'Name=\"Kind\"')"
refused "$tmp/notype.vtp" "no Type array"
edit "$a" "$tmp/twocomp.vtp" "b.replace(b'Name=\"Velocity\" NumberOfComponents=\"3\"', b'Name=\"Velocity\" NumberOfComponents=\"2\"')"
refused "$tmp/twocomp.vtp" "2 components, 3 expected"
n=$(grep -o 'NumberOfPoints="[0-9]*"' "$a" | grep -o '[0-9]*')
edit "$a" "$tmp/fewer.vtp" "b.replace(b'NumberOfPoints=\"$n\"', b'NumberOfPoints=\"$((n - 1))\"')"
refused "$tmp/fewer.vtp" "more than"
edit "$data/tide_original.vtp" "$tmp/more.vtp" "b.replace(b'NumberOfPoints=\"$n\"', b'NumberOfPoints=\"$((n + 1))\"')"
refused "$tmp/more.vtp" "inconsistent"
edit "$data/tide_original.vtp" "$tmp/huge.vtp" "b.replace(b'NumberOfPoints=\"$n\"', b'NumberOfPoints=\"999999999999\"')"
refused "$tmp/huge.vtp" "declares 999999999999 points"
# NaN: the first density of the ascii file, and the first position of tide's binary file.
edit "$a" "$tmp/nan.vtp" "b[:b.index(b'>', b.index(b'Name=\"Density\"')) + 1] + b' nan ' + b[b.index(b'>', b.index(b'Name=\"Density\"')) + 1:].lstrip().split(None, 1)[1]"
refused "$tmp/nan.vtp" "Density nan"
t=$data/tide_original.vtp
off=$(grep -ao 'Name="Points" NumberOfComponents="3" format="appended" offset="[0-9]*"' "$t" | grep -o '[0-9]*"$' | tr -d '"')
edit "$t" "$tmp/nanpos.vtp" "b[:b.index(b'_', b.index(b'<AppendedData')) + 1 + $off + 8] + b'\\x00\\x00\\x00\\x00\\x00\\x00\\xf8\\x7f' + b[b.index(b'_', b.index(b'<AppendedData')) + 1 + $off + 16:]"
refused "$tmp/nanpos.vtp" "Points nan"
edit "$a" "$tmp/grid.vtp" "b.replace(b'type=\"PolyData\"', b'type=\"UnstructuredGrid\"', 1)"
refused "$tmp/grid.vtp" "UnstructuredGrid"
printf 'hello\n' > "$tmp/text.vtp"
refused "$tmp/text.vtp" "not XML"
head -c 2000 "$data/tide_original.h5" > "$tmp/fake.vtp"
refused "$tmp/fake.vtp" "not XML"
cp "$t" "$tmp/renamed.h5"
refused "$tmp/renamed.h5" "not an HDF5 file"

# Fault 10: a binary points file is named with its line, never echoed; --line names its limit.
head -c 3000 "$data/tide_original.h5" > "$tmp/points.bin"
refused_by "$tmp/points.bin line 1" "binary" "$t" --points-file "$tmp/points.bin"
grep -q 'x,y,z' "$tmp/err" || fail "the binary points file's message does not say what a line must be"
LC_ALL=C grep -q '[^[:print:]]' "$tmp/err" && fail "raw bytes of the binary points file echoed"
refused_by "--line" "N from 2 to 10000000 points" "$t" --line 0,0:1,1:100000000

rm -rf "$run"
if [ $fails = 0 ]; then
	rm -rf "$tmp"
	echo "test_probe_read: all passed"
	exit 0
fi
echo "test_probe_read: $fails check(s) FAILED; files kept in $tmp"
exit 1
