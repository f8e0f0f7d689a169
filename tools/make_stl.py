#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes the STL meshes of the shipped cases into cases/geometry/ (run from the repository root:
python3 tools/make_stl.py).  Every quad is split into two triangles turned so that their normal
points out of the solid (counter-clockwise seen from outside), and shared edges use the very same
vertices, so every mesh is closed.

- spheric2_tank.stl (binary): the SPHERIC test 2 tank as a cup, inner faces [0, 3.22] x [0, 1]
  x [0, 1] (those of tank: in cases/spheric2.yaml), walls 0.06 m = 3 layers at dp = 0.02, open top.
- spheric2_obstacle.stl (ASCII): the box obstacle, each face cut into 4 x 4 quads (96 triangles)
  to exercise the code on more than 12 triangles.
- beach_tank.stl (binary), beach.stl (ASCII): the tank and the 1:10 wedge of cases/dam_beach.yaml.
"""
import os
import struct
import sys


def sub(a, b):
    return [a[i] - b[i] for i in range(3)]


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def tri(tris, a, b, c, out):
    """Appends triangle abc, turned so that its normal points along out."""
    n = cross(sub(b, a), sub(c, a))
    if sum(n[i] * out[i] for i in range(3)) < 0:
        b, c = c, b
    tris.append((a, b, c))


def quad(tris, a, b, c, d, out):
    """Quad abcd (in order around it) as two triangles facing out."""
    tri(tris, a, b, c, out)
    tri(tris, a, c, d, out)


def box(tris, lo, hi, n=1, inward=False):
    """The six faces of box [lo, hi], each cut into n x n quads; facing out (or into the box)."""
    def coord(a, i):
        return lo[a] + (hi[a] - lo[a]) * i / n
    s = -1 if inward else 1
    for a in range(3):
        b, c = (a + 1) % 3, (a + 2) % 3
        for side in (0, 1):
            out = [0, 0, 0]
            out[a] = s * (1 if side else -1)
            for i in range(n):
                for j in range(n):
                    pts = []
                    for (di, dj) in ((0, 0), (1, 0), (1, 1), (0, 1)):
                        p = [0, 0, 0]
                        p[a] = hi[a] if side else lo[a]
                        p[b] = coord(b, i + di)
                        p[c] = coord(c, j + dj)
                        pts.append(p)
                    quad(tris, *pts, out)


def cup(lo, hi, w):
    """A tank with walls of thickness w outside the inner box [lo, hi] and no roof: outer
    bottom and sides, inner bottom and sides (facing the cavity), and the rim at z = hi[2]."""
    tris = []
    olo = [lo[0] - w, lo[1] - w, lo[2] - w]
    ohi = [hi[0] + w, hi[1] + w, hi[2]]
    top = hi[2]
    for (L, H, s) in ((olo, ohi, 1), (lo, hi, -1)):
        x0, y0, z0 = L
        x1, y1 = H[0], H[1]
        quad(tris, [x0, y0, z0], [x1, y0, z0], [x1, y1, z0], [x0, y1, z0], [0, 0, -s])
        quad(tris, [x0, y0, z0], [x0, y1, z0], [x0, y1, top], [x0, y0, top], [-s, 0, 0])
        quad(tris, [x1, y0, z0], [x1, y1, z0], [x1, y1, top], [x1, y0, top], [s, 0, 0])
        quad(tris, [x0, y0, z0], [x1, y0, z0], [x1, y0, top], [x0, y0, top], [0, -s, 0])
        quad(tris, [x0, y1, z0], [x1, y1, z0], [x1, y1, top], [x0, y1, top], [0, s, 0])
    o = [[olo[0], olo[1]], [ohi[0], olo[1]], [ohi[0], ohi[1]], [olo[0], ohi[1]]]
    i = [[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]]
    for k in range(4):
        m = (k + 1) % 4
        quad(tris, o[k] + [top], o[m] + [top], i[m] + [top], i[k] + [top], [0, 0, 1])
    return tris


def wedge(x0, x1, y0, y1, h):
    """A beach: the prism under z = h (x - x0) / (x1 - x0) over [x0, x1] x [y0, y1]."""
    tris = []
    a, b, c = [x0, 0, 0], [x1, 0, 0], [x1, 0, h]
    for (y, s) in ((y0, -1), (y1, 1)):
        tri(tris, [a[0], y, 0], [b[0], y, 0], [c[0], y, h], [0, s, 0])
    quad(tris, [x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0], [0, 0, -1])
    quad(tris, [x1, y0, 0], [x1, y1, 0], [x1, y1, h], [x1, y0, h], [1, 0, 0])
    quad(tris, [x0, y0, 0], [x1, y0, h], [x1, y1, h], [x0, y1, 0], [-h, 0, x1 - x0])
    return tris


def write(path, tris, binary):
    if binary:
        with open(path, 'wb') as f:
            # "solid" in a binary header on purpose: readers must tell by the size
            f.write(b'solid tide make_stl.py binary'.ljust(80, b' '))
            f.write(struct.pack('<I', len(tris)))
            for t in tris:
                f.write(struct.pack('<12fH', 0, 0, 0, *t[0], *t[1], *t[2], 0))
    else:
        with open(path, 'w') as f:
            f.write('solid tide\n')
            for t in tris:
                f.write('  facet normal 0 0 0\n    outer loop\n')
                for v in t:
                    f.write('      vertex %r %r %r\n' % tuple(float(x) for x in v))
                f.write('    endloop\n  endfacet\n')
            f.write('endsolid tide\n')


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else 'cases/geometry'
    os.makedirs(out, exist_ok=True)
    write(os.path.join(out, 'spheric2_tank.stl'), cup([0, 0, 0], [3.22, 1.0, 1.0], 0.06), True)
    obs = []
    box(obs, [0.6635, 0.2955, 0.0], [0.8245, 0.6985, 0.161], n=4)
    write(os.path.join(out, 'spheric2_obstacle.stl'), obs, False)
    write(os.path.join(out, 'beach_tank.stl'), cup([0, 0, 0], [2.0, 0.3, 0.6], 0.06), True)
    write(os.path.join(out, 'beach.stl'), wedge(0.8, 2.0, 0.0, 0.3, 0.12), False)


if __name__ == '__main__':
    main()
