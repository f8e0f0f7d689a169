#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Models of one machine scaled to stand for another (issue 25): the fitted performance models
of IN (bench/sim_fit_models.py's output, t = a size^b + c) with a and c of each named codelet
multiplied by its factor, written to OUT with the rest (bus calibration included) copied.  For
the gravity scaling before the H200 models exist: this CPU's fitted gravity models times the
ratio of the H200's measured time to the CPU model's at the same size (say so wherever the
results are shown: a measured ratio at one size, not a calibration).

usage: sim_scale_models.py IN OUT SYMBOL=FACTOR ... [--host NAME]
  e.g. tide_bh_walk=8.5e-4 tide_bh_build=2.6e-3; OUT/scaled.txt records the factors."""
import glob
import os
import shutil
import sys


def main(argv):
    host = os.environ.get('TIDE_SIM_HOST', 'tide-calibrated')
    args = [a for a in argv if not a.startswith('--host')]
    if len(args) < 3:
        print(__doc__)
        return 2
    src, dst = args[0], args[1]
    factors = {}
    for a in args[2:]:
        name, _, f = a.partition('=')
        try:
            factors[name] = float(f)
        except ValueError:
            sys.exit('sim_scale_models.py: %s is not SYMBOL=FACTOR' % a)
    if os.path.exists(dst):
        shutil.rmtree(dst)
    shutil.copytree(src, dst)
    done = set()
    for p in glob.glob(os.path.join(dst, '.starpu', 'sampling', 'codelets', '*', '*.' + host)):
        sym = os.path.basename(p)[:-len(host) - 1]
        if sym not in factors:
            continue
        lines = open(p).read().split('\n')
        for i in range(len(lines) - 1):
            if lines[i].startswith('# a') and len(lines[i + 1].split()) == 3:
                a, b, c = (float(x) for x in lines[i + 1].split())
                if a == a and c == c:  # not nan: a fit
                    lines[i + 1] = '%.9e\t%.9e\t%.9e' % (a * factors[sym], b, c * factors[sym])
                    done.add(sym)
        open(p, 'w').write('\n'.join(lines))
    missing = set(factors) - done
    if missing:
        sys.exit('sim_scale_models.py: no fit of %s in %s' % (', '.join(sorted(missing)), src))
    with open(os.path.join(dst, 'scaled.txt'), 'w') as f:
        f.write('sim_scale_models.py %s %s %s\n' % (src, dst, ' '.join(args[2:])))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
