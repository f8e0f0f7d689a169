# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the shell tests need to check tide's measurements against their own evaluation, written
from the documents (docs/commands.md, docs/case-format.md) and not from tide's code:

- read_vtp(path): the arrays of a tide .vtp (XML PolyData, raw appended data, UInt64 block
  headers) with numpy, independently of tide's reader (src/vtp_read.c);
- snapshots(run_dir): (time, .vtp path) of every entry of particles.pvd;
- Used(run_dir): the run's used_parameters.yaml as a few numbers (dim, dp, coefh, rho0, gamma,
  c0, kernel, gravity, tank, fluid boxes, obstacles);
- Shepard: a brute-force kernel sum over every fluid particle (no cell grid), double precision;
- box_lattice(used): the fluid particle positions and the boundary particle count of a case of
  boxes, by case-format.md's rules (Particles).
"""
import re
import numpy as np

_TYPES = {"Float32": "f4", "Float64": "f8", "UInt8": "u1", "Int8": "i1", "UInt32": "u4",
          "Int32": "i4", "UInt64": "u8", "Int64": "i8"}


def read_vtp(path):
    """{array name: numpy array} (n x ncomp for vectors) of the .vtp at path."""
    data = open(path, "rb").read()
    start = data.index(b"<AppendedData")
    head = data[:start].decode("ascii")
    if 'encoding="raw"' not in data[start:start + 200].decode("ascii", "replace"):
        raise ValueError("%s: appended data is not raw" % path)
    base = data.index(b"_", start) + 1
    order = "<" if 'byte_order="LittleEndian"' in head else ">"
    hdr = np.dtype(order + ("u8" if 'header_type="UInt64"' in head else "u4"))
    n = int(re.search(r'NumberOfPoints="(\d+)"', head).group(1))
    out = {}
    for m in re.finditer(r"<DataArray([^>]*?)/?>", head):
        a = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
        if a.get("format") != "appended":
            raise ValueError("%s: array %s is not appended" % (path, a.get("Name")))
        off = base + int(a["offset"])
        nbytes = int(np.frombuffer(data, hdr, 1, off)[0])
        dt = np.dtype(order + _TYPES[a["type"]])
        v = np.frombuffer(data, dt, nbytes // dt.itemsize, off + hdr.itemsize)
        k = int(a.get("NumberOfComponents", "1"))
        out[a["Name"]] = v.reshape(-1, k) if k > 1 else v
    if len(out["Points"]) != n:
        raise ValueError("%s: %d points, NumberOfPoints %d" % (path, len(out["Points"]), n))
    return out


def snapshots(run):
    """[(time, path)] of the run's particles.pvd, in order."""
    pvd = open(run + "/particles.pvd").read()
    return [(float(t), run + "/" + f)
            for t, f in re.findall(r'timestep="([^"]+)"[^>]*file="([^"]+)"', pvd)]


class Used:
    """The numbers of a run's used_parameters.yaml the references need."""

    def __init__(self, run):
        self.text = open(run + "/used_parameters.yaml").read()
        self.dim = int(self.num("dim"))
        self.dp, self.coefh = self.num("dp"), self.num("coefh")
        self.rho0, self.gamma = self.num("rho0"), self.num("gamma")
        self.kernel = re.search(r"^\s*kernel:\s*(\w+)", self.text, re.M).group(1)
        self.gravity = [float(v) for v in
                        re.search(r"gravity:\s*\[([^\]]*)\]", self.text).group(1).split(",")]
        self.g = float(np.linalg.norm(self.gravity))
        self.fluid, self.obstacles = self.boxes("fluid"), self.boxes("obstacles")
        tank = re.search(r"^tank:\s*\{lo:\s*\[([^\]]*)\],\s*hi:\s*\[([^\]]*)\],\s*open_top:\s*"
                         r"(\w+),\s*layers:\s*(\d+)\}", self.text, re.M)
        self.tank = tank and ([float(v) for v in tank.group(1).split(",")],
                              [float(v) for v in tank.group(2).split(",")],
                              tank.group(3) == "true", int(tank.group(4)))
        self.h = self.coefh * self.dp
        # c0 = coefsound sqrt(|g| hswl) (case-format.md)
        self.c0 = self.num("coefsound") * np.sqrt(self.g * self.num("hswl"))
        self.B = self.c0 ** 2 * self.rho0 / self.gamma
        self.mass = self.rho0 * self.dp ** self.dim

    def boxes(self, key):
        """[(lo, hi)] of the list `key:` (fluid, obstacles), vectors as in the file."""
        m = re.search(r"^" + key + r":\n((?:  - .*\n)*)", self.text, re.M)
        return [([float(v) for v in lo.split(",")], [float(v) for v in hi.split(",")])
                for lo, hi in re.findall(r"lo:\s*\[([^\]]*)\],\s*hi:\s*\[([^\]]*)\]",
                                         m.group(1) if m else "")]

    def num(self, key):
        m = re.search(r"^\s*" + key + r":\s*([-0-9.eE+]+)", self.text, re.M)
        if not m:
            raise KeyError("no %s in used_parameters.yaml" % key)
        return float(m.group(1))

    def pressure(self, rho):
        """Tait: p = B ((rho/rho0)^gamma - 1)."""
        return self.B * ((np.asarray(rho, dtype=float) / self.rho0) ** self.gamma - 1.0)


def kernel_w(kernel, dim, h, r):
    """W(r) of the cubic spline (Monaghan & Lattanzio 1985) or the Wendland C2 kernel, support
    2h, normalised in 2-D or 3-D (the kernels DualSPHysics documents)."""
    q = np.asarray(r, dtype=float) / h
    if kernel == "cubic":
        alpha = 10.0 / (7.0 * np.pi * h * h) if dim == 2 else 1.0 / (np.pi * h ** 3)
        w = np.where(q < 1.0, 1.0 - 1.5 * q ** 2 + 0.75 * q ** 3, 0.25 * (2.0 - q) ** 3)
    else:
        alpha = 7.0 / (4.0 * np.pi * h * h) if dim == 2 else 21.0 / (16.0 * np.pi * h ** 3)
        w = (1.0 - 0.5 * q) ** 4 * (2.0 * q + 1.0)
    return np.where(q < 2.0, alpha * w, 0.0)


class Shepard:
    """Brute-force kernel sums over all fluid particles of one snapshot."""

    def __init__(self, used, arrays):
        fluid = arrays["Type"] == 0
        self.u = used
        self.x = arrays["Points"][fluid].astype(float)
        self.rho = arrays["Density"][fluid].astype(float)
        self.v = arrays["Velocity"][fluid].astype(float)
        self.p = used.pressure(self.rho)

    def _near(self, point):
        d = self.x - np.asarray(point, dtype=float)
        if self.u.dim == 2:
            d[:, 1] = 0.0  # 2-D cases live in the x-z plane
        r = np.sqrt((d * d).sum(axis=1))
        return r, r < 2.0 * self.u.h

    def sample(self, point):
        """(nfluid within 2h, closest |r - 2h| among all, p, rho, v[3]) by Shepard interpolation
        sum f_j V_j W / sum V_j W, V_j = m / rho_j; p etc. None when no fluid is near."""
        r, near = self._near(point)
        tie = float(np.min(np.abs(r - 2.0 * self.u.h))) if len(r) else np.inf
        n = int(near.sum())
        if n == 0:
            return n, tie, None, None, None
        vw = self.u.mass / self.rho[near] * kernel_w(self.u.kernel, self.u.dim, self.u.h, r[near])
        s = vw.sum()
        return (n, tie, (self.p[near] * vw).sum() / s, (self.rho[near] * vw).sum() / s,
                (self.v[near] * vw[:, None]).sum(axis=0) / s)

    def fraction(self, point):
        """sum_j V_j W(r - r_j): the fluid volume fraction, 1 inside the water, 0 in the air."""
        r, near = self._near(point)
        return float((self.u.mass / self.rho[near] *
                      kernel_w(self.u.kernel, self.u.dim, self.u.h, r[near])).sum())

    def height(self, x, y=0.0):
        """The water height at (x, y): the first z above the lowest fluid particle where the
        volume fraction falls through 1/2 (the MeasureTool convention of commands.md's tide
        probe), found on a dp/20 grid and interpolated linearly.  On still water this is the
        highest such z too."""
        z0 = float(self.x[:, 2].min())
        step = self.u.dp / 20.0
        zs = z0 + step * np.arange(int((self.x[:, 2].max() + 2 * self.u.h - z0) / step) + 2)
        f = np.array([self.fraction((x, y, z)) for z in zs])
        below = np.nonzero(f < 0.5)[0]
        below = below[below > 0]
        if len(below) == 0:
            return float(zs[-1])
        k = below[0]
        return float(zs[k - 1] + (f[k - 1] - 0.5) / (f[k - 1] - f[k]) * step)


def box_lattice(u):
    """(fluid positions n x len(lo), boundary particle count) of a case of boxes built by the rules
    of case-format.md: fluid at lo + (i + 1/2) dp for the whole cells of each box, minus the
    points inside an obstacle grown by dp minus its half spacing and those inside an earlier box
    grown by dp/2; tank walls: `layers` layers outside each walled inner face, the inner span
    with n = whole cells at spacing length/n; obstacles filled the same way (not overlapping)."""
    dp = u.dp
    cells = lambda length: max(int(np.floor(length / dp + 1e-6)), 0)
    eps = 1e-9

    def inside(p, lo, hi, margin):
        ok = np.ones(len(p), dtype=bool)
        for a in range(len(lo)):
            ok &= (p[:, a] > lo[a] - margin[a] + eps) & (p[:, a] < hi[a] + margin[a] - eps)
        return ok

    nbound = 0
    if u.tank:
        lo, hi, open_top, layers = u.tank
        nin = [max(cells(h - l), 1) for l, h in zip(lo, hi)]
        n = [k + layers + (0 if (a == len(lo) - 1 and open_top) else layers)
             for a, k in enumerate(nin)]
        nbound += int(np.prod(n) - np.prod(nin))
    spacing = []
    for k, (lo, hi) in enumerate(u.obstacles):
        nk = [max(cells(h - l), 1) for l, h in zip(lo, hi)]
        spacing.append([(h - l) / m for l, h, m in zip(lo, hi, nk)])
        nbound += int(np.prod(nk))
        for lo2, hi2 in u.obstacles[:k]:
            if all(l < h2 and l2 < h for l, h, l2, h2 in zip(lo, hi, lo2, hi2)):
                raise ValueError("overlapping obstacles are not counted here")
    pts = []
    for b, (lo, hi) in enumerate(u.fluid):
        axes = [l + (np.arange(cells(h - l)) + 0.5) * dp for l, h in zip(lo, hi)]
        p = np.stack([g.ravel() for g in np.meshgrid(*axes, indexing="ij")], axis=1)
        keep = np.ones(len(p), dtype=bool)
        for (olo, ohi), s in zip(u.obstacles, spacing):
            keep &= ~inside(p, olo, ohi, [dp - 0.5 * v for v in s])
        for elo, ehi in u.fluid[:b]:
            keep &= ~inside(p, elo, ehi, [0.5 * dp] * len(lo))
        pts.append(p[keep])
    return np.concatenate(pts), nbound
