# SPDX-License-Identifier: LGPL-2.1-or-later
"""Reads tide's .vtp particle files (raw appended data, UInt64 headers) and their .pvd: the test
scripts' view of a run without VTK.  read_vtp(path) -> {array name: numpy array};
pvd_times(path) -> [(time, file name)]; quat_matrix(q) -> the rotation matrix of a unit
quaternion (qw, qx, qy, qz) of bodies_NNNN.vtp / bodies.csv."""
import re
import numpy as np

_TYPES = {"Float32": np.float32, "Float64": np.float64, "UInt8": np.uint8, "UInt32": np.uint32,
          "Int32": np.int32}


def read_vtp(path):
    raw = open(path, "rb").read()
    head, data = raw.split(b'<AppendedData encoding="raw">', 1)
    data = data[data.index(b"_") + 1:]
    out = {}
    for m in re.finditer(rb'<DataArray type="(\w+)" Name="(\w+)" NumberOfComponents="(\d+)" '
                         rb'format="appended" offset="(\d+)"', head):
        t, name, nc, off = m.group(1).decode(), m.group(2).decode(), int(m.group(3)), int(m.group(4))
        nbytes = int(np.frombuffer(data, np.uint64, 1, off)[0])
        a = np.frombuffer(data, _TYPES[t], nbytes // np.dtype(_TYPES[t]).itemsize, off + 8)
        out[name] = a.reshape(-1, nc) if nc > 1 else a
    return out


def pvd_times(path):
    text = open(path).read()
    return [(float(m.group(1)), m.group(2))
            for m in re.finditer(r'timestep="([^"]+)"[^>]*file="([^"]+)"', text)]


def quat_matrix(q):
    s, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - s * z), 2 * (x * z + s * y)],
                     [2 * (x * y + s * z), 1 - 2 * (x * x + z * z), 2 * (y * z - s * x)],
                     [2 * (x * z - s * y), 2 * (y * z + s * x), 1 - 2 * (x * x + y * y)]])
