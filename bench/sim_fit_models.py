#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Performance models that extrapolate in size, for the scaling simulation (issue 25).

The history-based models calibrated by real runs (bench/sim_calibrate.sh, tools/device_simcal.sh)
hold one mean time per task footprint, i.e. per block size met: a simulated rank of 16 M
particles meets none of them.  This fits every codelet's calibrated points (size = the particles
of the task's blocks, tide_perfmodel_size; time = the entry's mean) with t = a size^b + c and
writes the same model files with that fit as StarPU's non-linear regression, valid for any size
(minx 1, maxx 2^40): a simulation build's codelets are STARPU_NL_REGRESSION_BASED
(include/tide/codelet_decl.h), so StarPU predicts every task from the fit, and the history
entries stay for the record.  Why a fit of our own and not StarPU's: StarPU refuses its
regression outside [0.9 minx, 1.1 maxx] of the calibrated sizes, which is the whole point here.

The fit: weighted least squares of the relative error (sizes span decades), each entry weighted
by min(n, 20) samples; for each b on a grid (0.5 .. 1.5, or --exponent B) a and c >= 0 in closed
form, the best b kept.  A task family of one size (the time-step records: size 1) gets its mean.

The choice for the scaling runs (bench/sim_scaling.sh's defaults): --exponent 1 --min-size
10000, a cost linear in the particles fitted on blocks of 10 k particles and more: an SPH task's
work is per particle times a neighbour count that a uniform fluid keeps fixed; the free fit's
b > 1 on the CPU (1.08 for sph_forces) comes from the small blocks, whose particles at the box's
surface have fewer neighbours, and would put 16 M particles 80 % above the linear cost.

usage: sim_fit_models.py [--exponent B] [--min-size N] [--absolute] [--host NAME] IN_STARPU_HOME
                         OUT_STARPU_HOME
Copies the bus calibration (IN/.starpu/sampling/bus) too, and prints one line per model and
architecture: a, b, c and the predicted time at 1 M and 16 M particles, and writes
OUT/fits.csv.
"""
import argparse
import glob
import math
import os
import shutil
import sys


def fit(points, exponent=None, absolute=False):
    """points: (size, mean_us, n).  Returns a, b, c, rms relative error (absolute: of the
    errors relative to the points' mean time)."""
    sizes = {p[0] for p in points}
    ybar = sum(p[1] for p in points) / len(points)

    def s(y):  # the scale of a point's error
        return ybar if absolute else y
    if len(sizes) < 2:
        w = sum(min(p[2], 20) for p in points)
        return 0.0, 1.0, sum(p[1] * min(p[2], 20) for p in points) / w, 0.0
    best = None
    grid = [exponent] if exponent else [0.5 + 0.005 * i for i in range(201)]
    for b in grid:
        # minimise sum w (a x^b + c - y)^2 / s(y)^2
        S = {k: 0.0 for k in ('uu', 'u', '1', 'uy', 'y')}
        for x, y, n in points:
            w = min(n, 20) / (s(y) * s(y))
            u = x ** b
            S['uu'] += w * u * u; S['u'] += w * u; S['1'] += w
            S['uy'] += w * u * y; S['y'] += w * y
        det = S['uu'] * S['1'] - S['u'] ** 2
        a = (S['uy'] * S['1'] - S['u'] * S['y']) / det if det > 0 else 0.0
        c = (S['uu'] * S['y'] - S['u'] * S['uy']) / det if det > 0 else 0.0
        if c < 0 or a < 0:  # the constraint active: one term alone
            a1, c1 = S['uy'] / S['uu'], 0.0
            a2, c2 = 0.0, S['y'] / S['1']
            cand = []
            for aa, cc in ((a1, c1), (a2, c2)):
                cand.append((sum(min(n, 20) * ((aa * x ** b + cc - y) / s(y)) ** 2 for x, y, n in points), aa, cc))
            _, a, c = min(cand)
        err = sum(min(n, 20) * ((a * x ** b + c - y) / s(y)) ** 2 for x, y, n in points)
        if best is None or err < best[0]:
            best = (err, a, b, c)
    err, a, b, c = best
    wsum = sum(min(p[2], 20) for p in points)
    return a, b, c, math.sqrt(err / wsum)


def rewrite(path, out_path, exponent, min_size, report, symbol, absolute=False):
    lines = open(path).read().split('\n')
    out = []
    i = 0
    arch = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith('# sumlnx'):
            # the block: regression line, '# a b c', nl line, '# not multiple...', '0',
            # '# hash ...', then the entries (their count was given above)
            nentries = int(out[-1]) if out and out[-1].strip().isdigit() else 0
            j = i + 1
            while not lines[j].startswith('# hash'):
                j += 1
            entries = [l.split() for l in lines[j + 1:j + 1 + nentries]]
            pts = [(int(e[1]), float(e[3]), int(e[7])) for e in entries if float(e[3]) > 0]
            big = [p for p in pts if p[0] >= min_size]
            pts = big if big else pts  # a one-size family (size 1) keeps its points
            if pts:
                a, b, c, rms = fit(pts, exponent, absolute)
                nsample = max(10, sum(p[2] for p in pts))
                out.append(line)
                out.append('0.000000e+00\t0.000000e+00\t0.000000e+00\t0.000000e+00\tnan\tnan\t%d\t1\t%d'
                           % (nsample, 1 << 40))
                out.append('# a\t\tb\t\tc')
                out.append('%.9e\t%.9e\t%.9e' % (a, b, c))
                report.append((symbol, arch, a, b, c, rms, min(p[0] for p in pts), max(p[0] for p in pts), len(pts)))
                k = i + 1
                while not lines[k].startswith('# a'):
                    k += 1
                i = k + 2  # past the old nl line
                arch += 1
                continue
            arch += 1
        out.append(line)
        i += 1
    with open(out_path, 'w') as f:
        f.write('\n'.join(out))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--exponent', type=float, default=None,
                    help='fix b (e.g. 1: linear in size); default: fitted in 0.5 .. 1.5')
    ap.add_argument('--absolute', action='store_true',
                    help='least squares of the absolute errors (each point weighted by its samples) '
                         'instead of the relative ones: a family whose entries of one size mix '
                         'cheap and costly tasks (a halo_pack of an edge and of a face) keeps its '
                         'mean time instead of the cheap tasks\' time')
    ap.add_argument('--min-size', type=int, default=0,
                    help='fit only the points of at least this many particles (small blocks: '
                         'more of their particles at the box surface, fewer neighbours)')
    ap.add_argument('--host', default=os.environ.get('TIDE_SIM_HOST', 'tide-calibrated'))
    ap.add_argument('inp')
    ap.add_argument('out')
    a = ap.parse_args(argv)
    src = glob.glob(os.path.join(a.inp, '.starpu', 'sampling', 'codelets', '*'))
    if not src:
        sys.exit('sim_fit_models.py: no %s/.starpu/sampling/codelets: not a calibrated STARPU_HOME' % a.inp)
    report = []
    for d in src:
        od = os.path.join(a.out, '.starpu', 'sampling', 'codelets', os.path.basename(d))
        os.makedirs(od, exist_ok=True)
        for p in sorted(glob.glob(os.path.join(d, '*.' + a.host))):
            sym = os.path.basename(p)[:-len(a.host) - 1]
            rewrite(p, os.path.join(od, os.path.basename(p)), a.exponent, a.min_size, report, sym,
                    a.absolute)
    bus = os.path.join(a.inp, '.starpu', 'sampling', 'bus')
    if os.path.isdir(bus):
        shutil.copytree(bus, os.path.join(a.out, '.starpu', 'sampling', 'bus'), dirs_exist_ok=True)
    with open(os.path.join(a.out, 'fits.csv'), 'w') as f:
        f.write('model,arch,a_us,b,c_us,rms_rel_err,min_size,max_size,points,t_1M_us,t_16M_us\n')
        for sym, arch, A, B, C, rms, lo, hi, n in report:
            t1, t16 = A * 1e6 ** B + C, A * 16e6 ** B + C
            f.write('%s,%d,%.6g,%.4f,%.6g,%.4f,%d,%d,%d,%.6g,%.6g\n' % (sym, arch, A, B, C, rms, lo, hi, n, t1, t16))
            print('%-22s arch %d: %.4g x^%.3f + %.4g us  (rms %.1f %%, sizes %d..%d, %d points)  '
                  '1 M: %.3g s, 16 M: %.3g s' % (sym, arch, A, B, C, 100 * rms, lo, hi, n, t1 * 1e-6, t16 * 1e-6))


if __name__ == '__main__':
    main()
