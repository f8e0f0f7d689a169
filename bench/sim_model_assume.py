#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A codelet's performance model taken from another's fit: an assumption, not a calibration.

A new codelet has no calibrated model until it has run on the machine the models describe (the
simulated H200, issue 25); a simulation needs one for every task.  This copies FROM's fitted
model file (bench/sim_fit_models.py: the non-linear regression a size^b + c) to the symbol TO in
every models directory given, with no history entries (they were FROM's measurements), and adds
a row to the directory's fits.csv saying so (rms, sizes and points left empty).
Used for bh_walk_sets, priced as bh_walk_let's fit: the interactions of all the received sets
at bh_walk_let's cost per interaction, its constant once per task.

With --scale SA SC the fit's a (cost per unit of size) is multiplied by SA and its c (constant)
by SC: the ratios of TO's fit to FROM's measured side by side on another GPU, carried over to the
machine the models describe (bh_walk_sets against bh_walk_let calibrated in one call on an H100,
applied to bh_walk_let's H200 fit; bench/results/sim-gravity/2026-12-06-walksets-cal).

usage: sim_model_assume.py [--scale SA SC] FROM TO STARPU_HOME...
       (e.g. tide_bh_walk_let tide_bh_walk_sets DIR)
"""
import csv
import glob
import os
import sys


def assume(frm, to, home, sa=1.0, sc=1.0):
    done = 0
    for path in glob.glob(os.path.join(home, '.starpu/sampling/codelets/*', frm + '.*')):
        host = os.path.basename(path)[len(frm) + 1:]
        lines, out, i = open(path).read().split('\n'), [], 0
        while i < len(lines):
            out.append(lines[i])
            if lines[i].startswith('# number of entries'):
                out.append('0')
                i += 2
                continue
            if lines[i].startswith('# a\t') and i + 1 < len(lines):
                a, b, c = (float(x) for x in lines[i + 1].split())
                out.append('%.9e\t%.9e\t%.9e' % (a * sa, b, c * sc))
                i += 2
                continue
            if lines[i].startswith('# hash'):
                break
            i += 1
        open(os.path.join(os.path.dirname(path), to + '.' + host), 'w').write('\n'.join(out) + '\n')
        done += 1
    fits = os.path.join(home, 'fits.csv')
    if os.path.exists(fits):
        rows = list(csv.reader(open(fits)))
        head = rows[0]
        new = []
        for r in rows[1:]:
            if r and r[0] == frm:
                d = dict(zip(head, r), model=to, rms_rel_err='', min_size='', max_size='', points='0')
                d['a_us'] = '%.6g' % (float(d['a_us']) * sa)
                d['c_us'] = '%.6g' % (float(d['c_us']) * sc)
                a, b, c = float(d['a_us']), float(d['b']), float(d['c_us'])
                for k, x in (('t_1M_us', 1e6), ('t_16M_us', 16e6)):
                    if k in d:
                        d[k] = '%.6g' % (a * x ** b + c)
                new.append([d[k] for k in head])
        rows = [r for r in rows if not r or r[0] != to] + new
        csv.writer(open(fits, 'w', newline=''), lineterminator='\n').writerows(rows)
    return done


if __name__ == '__main__':
    args, sa, sc = sys.argv[1:], 1.0, 1.0
    if args[:1] == ['--scale']:
        try:
            sa, sc = float(args[1]), float(args[2])
        except (IndexError, ValueError):
            print("sim_model_assume: --scale needs two numbers (the factors of a and c)", file=sys.stderr)
            sys.exit(2)
        args = args[3:]
    if len(args) < 3:
        sys.exit(__doc__.strip().split('\n\n')[-1].split('\n')[0])
    frm, to = args[0], args[1]
    for home in args[2:]:
        n = assume(frm, to, home, sa, sc)
        if not n:
            print(f"sim_model_assume: {home} has no model {frm}", file=sys.stderr)
            sys.exit(2)
        how = f" x ({sa:g}, {sc:g})" if (sa, sc) != (1.0, 1.0) else ""
        print(f"{home}: {to} = {frm}'s fit{how} ({n} file(s))")
