#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Independent reader and writer of SWIFT/GADGET HDF5 particle files for test_astro_io.sh (h5py
and numpy only, nothing of tide's): checks the layout tide writes, builds input files the way
a user of h5py would (other dtypes, MassTable, several particle types, text), builds damaged
files, and compares files.

usage: astro_files.py layout FILE N          the layout of a tide gravity --output file of N
                                             PartType1 particles, and its accelerations against
                                             a direct sum
       astro_files.py variants GEN DIR       input files holding GEN's particles
       astro_files.py bad GEN DIR            damaged files, one per case (names listed on stdout)
       astro_files.py huge FILE              a Header of 1.4e9 particles (50 rows)
       astro_files.py same A B FIELD...      the fields of all types are identical bit for bit
       astro_files.py close A B TOL          accelerations agree per particle to TOL (99th pct.)
       astro_files.py units SRC SNAP         SNAP holds SRC's velocities converted to G = 1
       astro_files.py times DIR T...         DIR's snapshots have Header Times T...
"""
import os
import sys

import h5py
import numpy as np

G_CGS = 6.67430e-8
UNITS = {"Unit length in cgs (U_L)": 3.0857e18, "Unit mass in cgs (U_M)": 1.989e33,
         "Unit time in cgs (U_t)": 3.15576e13, "Unit current in cgs (U_I)": 1.0,
         "Unit temperature in cgs (U_T)": 1.0}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def concat(path, field):
    """A field over all PartType groups, type after type."""
    with h5py.File(path, "r") as f:
        parts = [f["PartType%d" % k][field][()] for k in range(6)
                 if "PartType%d" % k in f and field in f["PartType%d" % k]]
    return np.concatenate(parts)


def layout(path, n):
    with h5py.File(path, "r") as f:
        h = f["Header"].attrs
        counts = np.array(h["NumPart_ThisFile"])
        if list(counts) != [0, n, 0, 0, 0, 0]:
            fail("NumPart_ThisFile is %s, not [0, %d, 0, 0, 0, 0]" % (counts, n))
        if list(h["NumPart_Total"]) != list(counts) or list(h["NumPart_Total_HighWord"]) != [0] * 6:
            fail("NumPart_Total / HighWord do not match NumPart_ThisFile")
        if list(h["MassTable"]) != [0.0] * 6 or int(h["NumFilesPerSnapshot"][0]) != 1:
            fail("MassTable or NumFilesPerSnapshot wrong")
        if int(h["Dimension"][0]) != 3 or len(h["BoxSize"]) != 3 or float(h["Time"][0]) != 0.0:
            fail("Dimension, BoxSize or Time wrong")
        for k in ("Redshift", "Flag_Entropy_ICs", "Omega0", "OmegaLambda", "HubbleParam"):
            if k not in h:
                fail("Header has no " + k)
        u = f["Units"].attrs
        U = {k: float(u["Unit %s in cgs (U_%s)" % (name, k)][0]) for k, name in
             (("L", "length"), ("M", "mass"), ("t", "time"), ("I", "current"), ("T", "temperature"))}
        tg = np.sqrt(U["L"] ** 3 / (G_CGS * U["M"]))
        if abs(U["t"] / tg - 1) > 1e-12:
            fail("Units: U_t = %g s is not the G = 1 time unit %g s" % (U["t"], tg))
        if f["RuntimePars"].attrs["PeriodicBoundariesOn"][0] != 0:
            fail("RuntimePars/PeriodicBoundariesOn is not 0")
        g = f["PartType1"]
        want = {"Coordinates": ((n, 3), np.float64, dict(L=1)),
                "Velocities": ((n, 3), np.float32, dict(L=1, t=-1)),
                "Masses": ((n,), np.float32, dict(M=1)),
                "ParticleIDs": ((n,), np.uint64, {}),
                "Accelerations": ((n, 3), np.float32, dict(L=1, t=-2)),
                "Potentials": ((n,), np.float32, dict(L=2, t=-2))}
        for name, (shape, dtype, dims) in want.items():
            d = g[name]
            if d.shape != shape or d.dtype != dtype:
                fail("%s is %s %s, not %s %s" % (name, d.shape, d.dtype, shape, np.dtype(dtype)))
            factor = 1.0
            for k in "MLtIT":
                e = float(d.attrs["U_%s exponent" % k][0])
                if e != dims.get(k, 0):
                    fail("%s: U_%s exponent %g, not %g" % (name, k, e, dims.get(k, 0)))
                factor *= U[k] ** e
            c = float(d.attrs["Conversion factor to CGS (not including cosmological corrections)"][0])
            if abs(c / factor - 1) > 1e-12:
                fail("%s: conversion factor %g, not %g" % (name, c, factor))
            for k in ("a-scale exponent", "h-scale exponent", "Description",
                      "Expression for physical CGS units"):
                if k not in d.attrs:
                    fail("%s has no attribute '%s'" % (name, k))
        ids = g["ParticleIDs"][()]
        if not np.array_equal(ids, np.arange(1, n + 1, dtype=np.uint64)):
            fail("ParticleIDs are not 1..N in order")
        x = g["Coordinates"][()]
        m = g["Masses"][()].astype(np.float64)
        a = g["Accelerations"][()].astype(np.float64)
        pot = g["Potentials"][()].astype(np.float64)
    if abs(m.sum() - 1) > 1e-5 or np.abs((m[:, None] * x).sum(0)).max() > 1e-5:
        fail("the particles are not the G = M = 1 Plummer sphere centred on 0 (M %g)" % m.sum())
    # accelerations and potentials of 64 particles against a direct sum in double precision:
    # the rows of Accelerations belong to the rows of Coordinates
    rng = np.random.default_rng(3)
    err = []
    for i in rng.choice(n, 64, replace=False):
        d = x - x[i]
        r2 = (d * d).sum(1)
        r2[i] = np.inf
        ad = (m[:, None] * d / r2[:, None] ** 1.5).sum(0)
        pd = -(m / np.sqrt(r2)).sum()
        err.append(max(np.linalg.norm(a[i] - ad) / np.linalg.norm(ad), abs(pot[i] / pd - 1)))
    if np.percentile(err, 99) > 2e-3:
        fail("accelerations/potentials differ from a direct sum: 99%% %.2e" % np.percentile(err, 99))
    print("layout ok: %s, %d particles, accelerations vs direct sum 99%% %.2e" %
          (path, n, np.percentile(err, 99)))


def write_h5(path, groups, masstable=None, header=True, units=None):
    with h5py.File(path, "w") as f:
        counts = [0] * 6
        for k, fields in groups.items():
            g = f.create_group("PartType%d" % k)
            for name, v in fields.items():
                g.create_dataset(name, data=v)
            counts[k] = len(next(iter(fields.values())))
        if header:
            h = f.create_group("Header")
            h.attrs["NumPart_ThisFile"] = np.array(counts, dtype=np.int32)
            h.attrs["NumPart_Total"] = np.array(counts, dtype=np.uint32)
            h.attrs["NumPart_Total_HighWord"] = np.zeros(6, dtype=np.uint32)
            h.attrs["MassTable"] = np.zeros(6) if masstable is None else np.array(masstable)
            h.attrs["Time"] = 0.0
            h.attrs["BoxSize"] = 10.0
            h.attrs["NumFilesPerSnapshot"] = 1
        if units:
            u = f.create_group("Units")
            for k, v in units.items():
                u.attrs[k] = v


def variants(gen, out):
    with h5py.File(gen, "r") as f:
        g = f["PartType1"]
        x, v, m = g["Coordinates"][()], g["Velocities"][()], g["Masses"][()]
    n = len(m)
    x32 = x.astype(np.float32)
    # text: comments, blank lines, x y z m with every float32 printed exactly (repr)
    with open(os.path.join(out, "particles.txt"), "w") as t:
        t.write("# the particles of %s\n# x y z m\n\n" % gen)
        for i in range(n):
            t.write("%r %r %r %r%s\n" % (float(x32[i, 0]), float(x32[i, 1]), float(x32[i, 2]),
                                          float(m[i]), "   # first" if i == 0 else ""))
    # float32 coordinates, float64 masses and velocities, int32 ids, no Units group
    write_h5(os.path.join(out, "types.hdf5"), {1: {
        "Coordinates": x32, "Velocities": v.astype(np.float64), "Masses": m.astype(np.float64),
        "ParticleIDs": np.arange(1, n + 1, dtype=np.int32)}})
    # the masses in the Header's MassTable only (all equal), no ids
    mt = [0.0, float(m[0]), 0, 0, 0, 0]
    if not np.all(m == m[0]):
        fail("the generated masses are not all equal")
    write_h5(os.path.join(out, "masstable.hdf5"), {1: {"Coordinates": x, "Velocities": v}},
             masstable=mt)
    # the same particles as gas, dark matter and sinks (file order kept), gas with its fields
    a, b = n // 3, n - 10
    sl = {0: slice(0, a), 1: slice(a, b), 5: slice(b, n)}
    groups = {}
    for k, s in sl.items():
        groups[k] = {"Coordinates": x[s], "Velocities": v[s], "Masses": m[s],
                     "ParticleIDs": np.arange(s.start + 1, s.stop + 1, dtype=np.uint64)}
    groups[0].update({"InternalEnergy": np.full(a, 0.05, np.float32),
                      "SmoothingLength": np.full(a, 0.1, np.float32),
                      "Density": np.ones(a, np.float32)})
    write_h5(os.path.join(out, "gas_dm_sinks.hdf5"), groups)
    # physical units (pc, solar mass, Myr): the velocities are converted to G = 1
    write_h5(os.path.join(out, "units.hdf5"), {1: {"Coordinates": x, "Velocities": v, "Masses": m}},
             units=UNITS)
    # 7 columns: velocities too
    with open(os.path.join(out, "particles7.txt"), "w") as t:
        for i in range(n):
            t.write(" ".join("%r" % float(q) for q in (*x32[i], m[i], *v[i])) + "\n")
    print("variants written to " + out)


def bad(gen, out):
    with h5py.File(gen, "r") as f:
        g = f["PartType1"]
        x, v, m = g["Coordinates"][()][:50], g["Velocities"][()][:50], g["Masses"][()][:50]
    base = lambda: {"Coordinates": x.copy(), "Velocities": v.copy(), "Masses": m.copy()}
    cases = []

    def h5(name, fields=None, **kw):
        write_h5(os.path.join(out, name), {1: fields if fields is not None else base()}, **kw)
        cases.append(name)

    f = base(); del f["Coordinates"]; h5("no_coordinates.hdf5", f)
    f = base(); del f["Velocities"]; h5("no_velocities.hdf5", f)
    f = base(); del f["Masses"]; h5("no_masses.hdf5", f)
    f = base(); f["Coordinates"] = x[:, :2].copy(); h5("shape.hdf5", f)
    f = base(); f["Masses"] = m[:40].copy(); h5("rows.hdf5", f)
    f = base(); f["Coordinates"][7, 1] = np.nan; h5("nan.hdf5", f)
    f = base(); f["Velocities"][3, 0] = np.inf; h5("inf.hdf5", f)
    f = base(); f["Masses"][5] = 0; h5("zero_mass.hdf5", f)
    f = base(); f["Masses"][9] = -1; h5("negative_mass.hdf5", f)
    # a gas group the Header does not count: its particles would be left out
    write_h5(os.path.join(out, "uncounted.hdf5"), {1: base()})
    with h5py.File(os.path.join(out, "uncounted.hdf5"), "a") as e:
        g = e.create_group("PartType0")
        g.create_dataset("Coordinates", data=x[:10])
    cases.append("uncounted.hdf5")
    with h5py.File(os.path.join(out, "empty.hdf5"), "w") as e:
        e.create_group("Header")
    cases.append("empty.hdf5")
    with h5py.File(os.path.join(out, "count.hdf5"), "w") as e:
        e.create_group("Header").attrs["NumPart_ThisFile"] = np.array([0, 0, 0, 0, 5, 0], np.uint32)
    cases.append("count.hdf5")
    with open(os.path.join(out, "not_hdf5.hdf5"), "w") as t:
        t.write("this is not an HDF5 file\n")
    cases.append("not_hdf5.hdf5")
    with open(gen, "rb") as s, open(os.path.join(out, "truncated.hdf5"), "wb") as t:
        t.write(s.read(3000))
    cases.append("truncated.hdf5")
    texts = {"short_line.txt": "# ok\n1 2 3 0.5\n4 5 6\n",
             "word.txt": "1 2 3 0.5\n1 2 three 0.5\n",
             "nan.txt": "1 2 3 0.5\n\n1 nan 3 0.5\n",
             "zero_mass.txt": "1 2 3 0\n",
             "empty.txt": "# nothing here\n\n"}
    for name, body in texts.items():
        with open(os.path.join(out, name), "w") as t:
            t.write(body)
        cases.append(name)
    print("\n".join(cases))


def huge(path):
    """A Header announcing 1.4e9 particles (for 50 rows): refused for memory before any read."""
    with h5py.File(path, "w") as f:
        g = f.create_group("PartType1")
        for name, shape in (("Coordinates", (50, 3)), ("Velocities", (50, 3)), ("Masses", (50,))):
            g.create_dataset(name, data=np.ones(shape))
        f.create_group("Header").attrs["NumPart_ThisFile"] = np.array([0, 1400000000, 0, 0, 0, 0],
                                                                      np.uint32)


def same(a, b, fields):
    for k in fields:
        p, q = concat(a, k), concat(b, k)
        if p.shape != q.shape or not np.array_equal(p, q):
            d = np.abs(p.astype(np.float64) - q.astype(np.float64)).max() if p.shape == q.shape else -1
            fail("%s of %s and %s differ (largest difference %g)" % (k, a, b, d))
    print("identical: %s = %s (%s)" % (a, b, ", ".join(fields)))


def close(a, b, tol):
    p, q = concat(a, "Accelerations").astype(np.float64), concat(b, "Accelerations").astype(np.float64)
    if not np.array_equal(concat(a, "ParticleIDs"), concat(b, "ParticleIDs")):
        fail("%s and %s hold other particles" % (a, b))
    d = np.linalg.norm(p - q, axis=1) / np.linalg.norm(p, axis=1)
    print("accelerations %s vs %s: |da|/|a| 99%% %.2e, max %.2e" % (a, b, np.percentile(d, 99), d.max()))
    if np.percentile(d, 99) > tol:
        fail("99th percentile above %g" % tol)


def units(src, snap):
    """snap (tide's snapshot of src at t = 0) holds src's velocities in the G = 1 time unit of
    src's length and mass units, and says so in its Units group."""
    L, M, t = (UNITS["Unit %s in cgs (U_%s)" % k] for k in (("length", "L"), ("mass", "M"), ("time", "t")))
    tg = np.sqrt(L * L * L / (G_CGS * M))
    with h5py.File(src, "r") as f, h5py.File(snap, "r") as g:
        v = f["PartType1/Velocities"][()].astype(np.float64)
        want = (v * (tg / t)).astype(np.float32)
        got = g["PartType1/Velocities"][()]
        u = g["Units"].attrs
        if not np.array_equal(got, want):
            fail("velocities not converted to G = 1: largest difference %g" % np.abs(got - want).max())
        if float(u["Unit length in cgs (U_L)"][0]) != L or float(u["Unit mass in cgs (U_M)"][0]) != M \
                or abs(float(u["Unit time in cgs (U_t)"][0]) / tg - 1) > 1e-15:
            fail("Units of %s are not pc, Msun and the G = 1 time unit" % snap)
        if not np.array_equal(f["PartType1/Coordinates"][()], g["PartType1/Coordinates"][()]):
            fail("coordinates changed")
    print("units: velocities x %.6g (U_t %g s -> %g s), exact" % (tg / t, t, tg))


def times(d, want):
    got = []
    for i in range(len(want)):
        with h5py.File(os.path.join(d, "snapshot_%04d.hdf5" % i), "r") as f:
            got.append(float(f["Header"].attrs["Time"][0]))
    if not np.allclose(got, want, rtol=0, atol=1e-12):
        fail("snapshot times %s, not %s" % (got, want))
    print("snapshot times %s" % got)


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "layout":
        layout(args[0], int(args[1]))
    elif cmd == "variants":
        variants(args[0], args[1])
    elif cmd == "bad":
        bad(args[0], args[1])
    elif cmd == "same":
        same(args[0], args[1], args[2:])
    elif cmd == "close":
        close(args[0], args[1], float(args[2]))
    elif cmd == "huge":
        huge(args[0])
    elif cmd == "units":
        units(args[0], args[1])
    elif cmd == "times":
        times(args[0], [float(t) for t in args[1:]])
    else:
        fail("unknown command " + cmd)
