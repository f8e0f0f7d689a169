#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# HDF5 + XDMF output (output.format: both): every particles_NNNN.h5 must hold exactly the particles
# of the particles_NNNN.vtp of the same output (compared as sets keyed by id, bit for bit, by
# compare_particles), with the output's time and step;
# particles.xmf must be well-formed XML listing every .h5 in order with the .pvd's times and the
# particle count of the files.  The same on 2 MPI ranks, where the ranks write each .h5 together
# (the file says how many wrote it), and against the 1-rank run with the same blocks (the physics
# does not depend on the rank count: bit-identical), also with a 2 x 2 box decomposition.  A
# restart continues the series: its .xmf and .h5 files are those of the uninterrupted run.
# output.format is validated.  With ParaView installed (PVBATCH given), ParaView's own reader
# must read the .xmf as the .pvd.
# usage: test_h5_output.sh TIDE COMPARE_PARTICLES SRC_ROOT PARALLEL_HDF5(0|1) [PVBATCH]
set -euo pipefail
tide=$1; cmp_p=$2; src=$3; parallel=$4; pvbatch=${5:-}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
py=/usr/bin/python3; [ -x "$py" ] || py=python3
args=(run "$src/cases/hydrostatic.yaml" --dp 0.04 --set time.output=0.002 --blocks 4 --quiet)

# Checks one output directory; $2: the number of ranks that must have written each .h5.
check_dir() {
	local d=$1 ranks=$2 n=0 info
	: > "$d/h5_info.txt"
	for v in "$d"/particles_*.vtp; do
		h=${v%.vtp}.h5
		[ -f "$h" ] || { echo "FAIL: $h missing next to $v"; exit 1; }
		"$cmp_p" "$h" "$v" > /dev/null || { echo "FAIL: $h differs from $v"; exit 1; }
		info=$("$cmp_p" --info "$h")
		set -- $info
		[ "$4" = "$ranks" ] || { echo "FAIL: $h was written by $4 ranks, expected $ranks"; exit 1; }
		echo "$(basename "$h") $info" >> "$d/h5_info.txt"
		n=$((n + 1))
	done
	[ $n -ge 3 ] || { echo "FAIL: only $n outputs in $d"; exit 1; }
	"$py" - "$d" <<'EOF'
import os, re, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
info = [l.split() for l in open(os.path.join(d, "h5_info.txt"))]
pvd = ET.parse(os.path.join(d, "particles.pvd")).getroot()
pvd_times = {ds.get("file").replace(".vtp", ".h5"): float(ds.get("timestep"))
             for ds in pvd.iter("DataSet")}
root = ET.parse(os.path.join(d, "particles.xmf")).getroot()   # raises if not well-formed
assert root.tag == "Xdmf" and root.get("Version") == "3.0", root.attrib
coll = root.find("Domain/Grid")
assert coll.get("GridType") == "Collection" and coll.get("CollectionType") == "Temporal"
grids = coll.findall("Grid")
assert len(grids) == len(info), "xmf lists %d grids, %d .h5 on disk" % (len(grids), len(info))
prev = -1.0
for g, (name, n, t, step, ranks) in zip(grids, info):
    assert g.get("GridType") == "Uniform"
    t_xmf = float(g.find("Time").get("Value"))
    assert t_xmf == float(t) == pvd_times[name], (name, t_xmf, t, pvd_times.get(name))
    assert t_xmf > prev, "times not increasing at %s" % name
    prev = t_xmf
    top = g.find("Topology")
    assert top.get("TopologyType") == "Polyvertex" and top.get("NumberOfElements") == n, name
    conn = top.find("DataItem")
    assert conn.text.strip() == name + ":/Connectivity" and conn.get("Dimensions") == n, name
    assert g.find("Geometry").get("GeometryType") == "XYZ"
    items = {(e.text or "").strip(): e.get("Dimensions") for e in g.iter("DataItem")}
    for ds, comp in (("Position", 3), ("Velocity", 3), ("Density", 1), ("Pressure", 1),
                     ("Type", 1), ("Id", 1)):
        want = n + (" %d" % comp if comp > 1 else "")
        assert items.get(name + ":/" + ds) == want, (name, ds, items)
print("ok: %s: particles.xmf lists %d .h5 (times as in the .pvd, N as in the files)" %
      (d, len(grids)))
EOF
	echo "ok: $d: every .h5 holds the particles of its .vtp"
}

STARPU_NCPU=1 "$tide" "${args[@]}" --max-steps 30 --set output.format=both --out "$work/r1"
check_dir "$work/r1" 1

# hdf5 alone: no .vtp or .pvd; --format is the same key
STARPU_NCPU=1 "$tide" "${args[@]}" --max-steps 30 --format hdf5 --out "$work/h"
[ ! -e "$work/h/particles.pvd" ] && ! ls "$work/h"/particles_*.vtp > /dev/null 2>&1 ||
	{ echo "FAIL: output.format=hdf5 wrote .vtp/.pvd files"; exit 1; }
for h in "$work/r1"/particles_*.h5; do
	"$cmp_p" "$h" "$work/h/$(basename "$h")" > /dev/null ||
		{ echo "FAIL: --format hdf5 gives another $(basename "$h")"; exit 1; }
done
cmp "$work/r1/particles.xmf" "$work/h/particles.xmf" || { echo "FAIL: .xmf of --format hdf5 differs"; exit 1; }
echo "ok: --format hdf5 writes the same .h5 and .xmf, no .vtp"

# restart: stop at step 20 with a checkpoint, continue to 30
STARPU_NCPU=1 "$tide" "${args[@]}" --max-steps 20 --checkpoint-every 20steps --format both --out "$work/rs"
STARPU_NCPU=1 "$tide" run --restart "$work/rs/checkpoint" --max-steps 30 --quiet
cmp "$work/r1/particles.xmf" "$work/rs/particles.xmf" ||
	{ echo "FAIL: the restarted run's particles.xmf differs from the uninterrupted run's"; exit 1; }
for h in "$work/r1"/particles_*.h5; do
	"$cmp_p" "$h" "$work/rs/$(basename "$h")" > /dev/null ||
		{ echo "FAIL: restarted $(basename "$h") differs"; exit 1; }
done
echo "ok: a restart continues the .h5 series and its .xmf"

# validation
set +e
msg=$("$tide" "${args[@]}" --set output.format=netcdf --out "$work/bad" 2>&1); rc=$?
set -e
[ $rc -eq 2 ] && [[ $msg == *"output.format"*"netcdf"*"vtp, hdf5, both"* ]] ||
	{ echo "FAIL: output.format=netcdf: exit $rc, message: $msg"; exit 1; }
echo "ok: output.format=netcdf refused: $msg"

if command -v mpirun > /dev/null; then
	mpi=(mpirun --allow-run-as-root --oversubscribe --bind-to none
	     -x STARPU_NCPU=1 -x STARPU_WORKERS_NOBIND=1 -x STARPU_SILENT=1)
	[ -n "${STARPU_HOME:-}" ] && mpi+=(-x STARPU_HOME)
	"${mpi[@]}" -np 2 "$tide" "${args[@]}" --max-steps 30 --set output.format=both --out "$work/r2"
	[ "$parallel" = 1 ] && ranks=2 || ranks=1
	check_dir "$work/r2" $ranks
	for h in "$work/r1"/particles_*.h5; do
		"$cmp_p" "$h" "$work/r2/$(basename "$h")" > /dev/null ||
			{ echo "FAIL: $(basename "$h") of 2 ranks differs from 1 rank"; exit 1; }
	done
	cmp "$work/r1/particles.xmf" "$work/r2/particles.xmf" ||
		{ echo "FAIL: particles.xmf of 2 ranks differs from 1 rank"; exit 1; }
	echo "ok: 2 ranks ($ranks writing each file): the same .h5 particles and .xmf as 1 rank"
	# boxes of blocks (2 x 2 in x-z): a rank's blocks are no longer one run of block numbers
	"${mpi[@]}" -np 2 "$tide" "${args[@]}" --max-steps 30 --decomp 2x1x2 --format both --out "$work/b2"
	check_dir "$work/b2" $ranks
fi

if [ -n "$pvbatch" ]; then
	d=$work/r1; [ -d "$work/r2" ] && d=$work/r2
	if ! "$pvbatch" "$src/tests/pv_read_xmf.py" "$d" > "$work/pv.log" 2>&1; then
		cat "$work/pv.log"
		echo "FAIL: ParaView does not read $d/particles.xmf as its .pvd"
		exit 1
	fi
	grep '^ok' "$work/pv.log"
else
	echo "(ParaView's pvbatch not found: the .xmf is not opened in ParaView)"
fi
