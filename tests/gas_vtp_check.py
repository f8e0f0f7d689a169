# SPDX-License-Identifier: LGPL-2.1-or-later
"""A gas run's .vtp (vtk_output.c) read back without numpy: per particle, Pressure is the gas
EOS of Density and InternalEnergy (ideal: (gamma - 1) rho u; isothermal: cs^2 rho) and
SmoothingLength is positive.   gas_vtp_check.py FILE.vtp ideal GAMMA | isothermal CS"""
import re
import struct
import sys

path, eos, k = sys.argv[1], sys.argv[2], float(sys.argv[3])
data = open(path, "rb").read()
start = data.index(b"<AppendedData")
head = data[:start].decode("ascii")
base = data.index(b"_", start) + 1
order = "<" if 'byte_order="LittleEndian"' in head else ">"
hfmt = "Q" if 'header_type="UInt64"' in head else "I"
arr = {}
for m in re.finditer(r"<DataArray([^>]*?)/?>", head):
    a = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
    if a.get("type") != "Float32" or a.get("NumberOfComponents", "1") != "1":
        continue
    off = base + int(a["offset"])
    nbytes = struct.unpack_from(order + hfmt, data, off)[0]
    arr[a["Name"]] = struct.unpack_from(order + "%df" % (nbytes // 4), data, off + struct.calcsize(hfmt))
for name in ("Density", "Pressure", "InternalEnergy", "SmoothingLength", "SoundSpeed"):
    if name not in arr:
        sys.exit("FAIL: %s has no array %s" % (path, name))
rho, p, u, h = arr["Density"], arr["Pressure"], arr["InternalEnergy"], arr["SmoothingLength"]
err = 0.0
for i in range(len(rho)):
    want = (k - 1.0) * rho[i] * u[i] if eos == "ideal" else k * k * rho[i]
    err = max(err, abs(p[i] - want) / max(abs(want), 1e-30))
print("%s: %d particles, max |p - p_eos| / p_eos = %.3g, min h = %g" % (path, len(rho), err, min(h)))
if err > 4e-7 or min(h) <= 0:
    sys.exit("FAIL: the .vtp's Pressure is not the gas EOS, or h <= 0")
