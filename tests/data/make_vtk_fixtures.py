#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Makes the VTK-written fixtures of tests/test_probe_read.sh: a tide snapshot re-saved by VTK's
# own vtkXMLPolyDataWriter in the encodings a user's tools produce.  Needs python3-vtk9 (Debian;
# only to remake the fixtures: neither the build nor the tests need VTK).  Run from anywhere:
#
#   build/tide run cases/dambreak2d.yaml --dp 0.02 --format both --set time.end=0.1 \
#       --set time.output=0.05 --out /tmp/fix
#   cp /tmp/fix/particles_0002.vtp tests/data/tide_original.vtp
#   cp /tmp/fix/particles_0002.h5 tests/data/tide_original.h5
#   cp /tmp/fix/used_parameters.yaml tests/data/tide_original.yaml
#   /usr/bin/python3 tests/data/make_vtk_fixtures.py
#
# Each fixture holds the same particles as tide_original.vtp; probing it must give the same
# values (vtk_float32_reordered.vtp to float precision: its points are Float32).
import os
import sys

from vtkmodules.util.numpy_support import numpy_to_vtk, vtk_to_numpy
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.vtkCommonDataModel import vtkPolyData
from vtkmodules.vtkIOXML import vtkXMLPolyDataReader, vtkXMLPolyDataWriter

here = os.path.dirname(os.path.abspath(__file__))


def read(path):
    r = vtkXMLPolyDataReader()
    r.SetFileName(path)
    r.Update()
    pd = r.GetOutput()
    if pd.GetNumberOfPoints() == 0:
        sys.exit(f"{path}: VTK read no points")
    return pd


def write(pd, name, mode, compress=False, header64=True, big_endian=False, b64_appended=False,
          block=None):
    w = vtkXMLPolyDataWriter()
    w.SetFileName(os.path.join(here, name))
    w.SetInputData(pd)
    {"appended": w.SetDataModeToAppended, "binary": w.SetDataModeToBinary,
     "ascii": w.SetDataModeToAscii}[mode]()
    if compress:
        w.SetCompressorTypeToZLib()
    else:
        w.SetCompressorTypeToNone()
    if block:
        w.SetBlockSize(block)
    w.SetHeaderTypeToUInt64() if header64 else w.SetHeaderTypeToUInt32()
    w.SetByteOrderToBigEndian() if big_endian else w.SetByteOrderToLittleEndian()
    w.SetEncodeAppendedData(1 if b64_appended else 0)
    if not w.Write():
        sys.exit(f"{name}: vtkXMLPolyDataWriter failed")
    print(f"wrote {name}: {os.path.getsize(os.path.join(here, name))} bytes")


def reordered_float32(pd):
    """The same particles with Float32 points, Float64 velocity and density, and the point
    data arrays in reverse order."""
    out = vtkPolyData()
    pts = vtkPoints()
    pts.SetData(numpy_to_vtk(vtk_to_numpy(pd.GetPoints().GetData()).astype("float32"), deep=1))
    out.SetPoints(pts)
    out.SetVerts(pd.GetVerts())
    src = pd.GetPointData()
    for k in reversed(range(src.GetNumberOfArrays())):
        a = src.GetArray(k)
        v = vtk_to_numpy(a)
        if a.GetName() in ("Velocity", "Density"):
            v = v.astype("float64")
        b = numpy_to_vtk(v.copy(), deep=1)
        b.SetName(a.GetName())
        out.GetPointData().AddArray(b)
    return out


def main():
    pd = read(os.path.join(here, "tide_original.vtp"))
    write(pd, "vtk_appended_raw.vtp", "appended")
    write(pd, "vtk_appended_zlib_u64.vtp", "appended", compress=True)
    write(pd, "vtk_appended_zlib_u32_be.vtp", "appended", compress=True, header64=False,
          big_endian=True, block=4096)
    write(pd, "vtk_appended_base64.vtp", "appended", b64_appended=True, header64=False)
    write(pd, "vtk_binary_inline.vtp", "binary")
    write(pd, "vtk_binary_inline_zlib.vtp", "binary", compress=True, header64=False, block=1000)
    write(pd, "vtk_ascii.vtp", "ascii")
    write(reordered_float32(pd), "vtk_float32_reordered.vtp", "appended", compress=True)


if __name__ == "__main__":
    main()
