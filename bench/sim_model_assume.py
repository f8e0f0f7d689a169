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

usage: sim_model_assume.py FROM TO STARPU_HOME...   (e.g. tide_bh_walk_let tide_bh_walk_sets DIR)
"""
import csv
import glob
import os
import sys


def assume(frm, to, home):
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
                new.append([d[k] for k in head])
        rows = [r for r in rows if not r or r[0] != to] + new
        csv.writer(open(fits, 'w', newline=''), lineterminator='\n').writerows(rows)
    return done


if __name__ == '__main__':
    if len(sys.argv) < 4:
        sys.exit(__doc__.strip().split('\n\n')[-1].split('\n')[0])
    frm, to = sys.argv[1], sys.argv[2]
    for home in sys.argv[3:]:
        n = assume(frm, to, home)
        if not n:
            print(f"sim_model_assume: {home} has no model {frm}", file=sys.stderr)
            sys.exit(2)
        print(f"{home}: {to} = {frm}'s fit ({n} file(s))")
