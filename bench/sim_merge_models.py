#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Adds another architecture's calibrated models to a simulation's models (issue 25).

A simulated GPU rank with a CPU worker (bench/sim_scaling.sh --ncpu 1 --ncuda 1) runs the time
step's combination there (include/tide/dt_where.h), and StarPU's simulation needs a CPU model of
every task that may run on it.  The H200 models (bench/results/sim-h200/models_fit) hold CUDA
entries only.  This takes the named codelets' model files from a STARPU_HOME calibrated on
other workers (e.g. a CPU run with STARPU_CALIBRATE=1), fits them as bench/sim_fit_models.py
does (a family of one size, such as the step records' size 1, gets its mean), and appends each
of their device combinations that OUT's file of the same name lacks (OUT's own combinations are
kept as they are; --replace: IN's replace OUT's of the same device type, e.g. CPU times of the
H200 host in place of another machine's).  Prints what it added.

usage: sim_merge_models.py [--host NAME] [--replace] --codelets "tide_dt_combine tide_dt_init" IN OUT
  IN, OUT: STARPU_HOMEs (.starpu/sampling/codelets/VERSION/SYMBOL.HOST); OUT is changed in place.
"""
import argparse
import glob
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sim_fit_models  # noqa: E402  (its fit, so that OUT holds fitted models only)

SEP = '####################'


def split(text):
    """(header up to the combination count, [combination blocks]) of a model file."""
    lines = text.rstrip('\n').split('\n')
    i = lines.index('# number of combinations')
    head, n = lines[:i + 1], int(lines[i + 1])
    rest = lines[i + 2:]
    starts = [k for k in range(len(rest) - 1) if rest[k] == SEP and rest[k + 1].startswith('# COMB_')]
    if len(starts) != n:
        raise ValueError('%d combinations announced, %d found' % (n, len(starts)))
    combs = [rest[a:b] for a, b in zip(starts, starts[1:] + [len(rest)])]
    return head, combs


def device_type(comb):
    k = next(i for i, l in enumerate(comb) if l.startswith('# device type'))
    return comb[k + 1].strip()


def renumber(comb, j):
    return ['# COMB_%d' % j if l.startswith('# COMB_') else re.sub(r'\(Comb\d+\)', '(Comb%d)' % j, l)
            for l in comb]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--host', default=os.environ.get('TIDE_SIM_HOST', 'tide-calibrated'))
    ap.add_argument('--codelets', required=True, help='model symbols, space-separated')
    ap.add_argument('--replace', action='store_true',
                    help="IN's combinations replace OUT's of the same device type")
    ap.add_argument('inp')
    ap.add_argument('out')
    a = ap.parse_args(argv)
    for sym in a.codelets.split():
        src = glob.glob(os.path.join(a.inp, '.starpu', 'sampling', 'codelets', '*', sym + '.' + a.host))
        dst = glob.glob(os.path.join(a.out, '.starpu', 'sampling', 'codelets', '*', sym + '.' + a.host))
        if len(src) != 1 or len(dst) != 1:
            sys.exit('sim_merge_models.py: %s.%s: %d file(s) in %s and %d in %s, one of each needed'
                     % (sym, a.host, len(src), a.inp, len(dst), a.out))
        with tempfile.TemporaryDirectory() as tmp:
            fitted = os.path.join(tmp, 'model')
            report = []
            sim_fit_models.rewrite(src[0], fitted, None, 0, report, sym)
            _, new = split(open(fitted).read())
        head, combs = split(open(dst[0]).read())
        if a.replace:
            theirs = {device_type(c) for c in new}
            combs = [renumber(c, j) for j, c in
                     enumerate([c for c in combs if device_type(c) not in theirs])]
        have = {device_type(c) for c in combs}
        added = [c for c in new if device_type(c) not in have]
        for c in added:
            combs.append(renumber(c, len(combs)))
        lines = head + [str(len(combs))] + [l for c in combs for l in c]
        with open(dst[0], 'w') as f:
            f.write('\n'.join(lines) + '\n')
        for r in report:
            print('%s: added device type(s) %s (fit: %.4g x^%.3f + %.4g us); kept %s'
                  % (sym, ', '.join(device_type(c) for c in added) or 'none', r[2], r[3], r[4],
                     ', '.join(sorted(have))))
    return 0


if __name__ == '__main__':
    sys.exit(main())
