# SPDX-License-Identifier: LGPL-2.1-or-later
# Run by pvbatch (ParaView) from tests/test_h5_output.sh when ParaView is installed: opens
# DIR/particles.xmf with the reader ParaView itself picks for the file, and DIR/particles.pvd, and
# checks at every time of the series that both give the same times, the same points and the same
# point arrays (as sets keyed by Id), with one vertex cell per particle.
# usage: pvbatch pv_read_xmf.py DIR
import os
import sys

import numpy as np
from paraview import servermanager as sm
from paraview.simple import OpenDataFile
from vtk.util.numpy_support import vtk_to_numpy

d = sys.argv[1]
xmf = OpenDataFile(os.path.join(d, "particles.xmf"))
pvd = OpenDataFile(os.path.join(d, "particles.pvd"))
for r in (xmf, pvd):
    r.UpdatePipelineInformation()
times = list(xmf.TimestepValues)
assert times == list(pvd.TimestepValues), (times, list(pvd.TimestepValues))
assert len(times) >= 3, times


def fetch(r, t):
    r.UpdatePipeline(t)
    data = sm.Fetch(r)
    while data.IsA("vtkMultiBlockDataSet"):
        data = data.GetBlock(0)
    pd = data.GetPointData()
    ids = vtk_to_numpy(pd.GetArray("Id"))
    o = np.argsort(ids, kind="stable")
    arrays = {"Points": vtk_to_numpy(data.GetPoints().GetData())[o]}
    for name in ("Velocity", "Density", "Pressure", "Type", "Id"):
        arrays[name] = vtk_to_numpy(pd.GetArray(name))[o]
    return data.GetNumberOfPoints(), data.GetNumberOfCells(), arrays


for t in times:
    nx, cx, ax = fetch(xmf, t)
    np_, cp, ap = fetch(pvd, t)
    assert nx == np_ == cx == cp, (t, nx, np_, cx, cp)
    for name in ap:
        assert np.array_equal(ax[name], ap[name]), (t, name)
print("ok: ParaView (%s) reads %s/particles.xmf: %d times, the particles of the .pvd at each"
      % (xmf.GetXMLName(), d, len(times)))
