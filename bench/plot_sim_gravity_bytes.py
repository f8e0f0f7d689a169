#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Bytes of essential nodes sent per rank per gravity evaluation against the ranks (issue 25),
from bench/sim_gravity_scaling.sh's CSV: prints the table and, with matplotlib, writes
OUT/sim_gravity_bytes.png (mean and largest over the ranks, per series).

usage: bench/plot_sim_gravity_bytes.py SIM_GRAVITY_SCALING.csv OUT_DIR
env: TIDE_SIM_LABEL (what the models are, for the title)"""
import csv
import os
import sys


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    rows = [r for r in csv.DictReader(open(sys.argv[1])) if r['let_bytes_mean']]
    print('%-18s %6s %16s %16s' % ('series', 'ranks', 'bytes/rank mean', 'bytes/rank max'))
    for r in rows:
        print('%-18s %6s %16s %16s' % (r['series'], r['ranks'], r['let_bytes_mean'], r['let_bytes_max']))
    try:
        import matplotlib
    except ImportError:
        print('plot_sim_gravity_bytes: no matplotlib here: no plot')
        return 0
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4.2))
    for name in sorted({r['series'] for r in rows}):
        pts = sorted((int(r['ranks']), float(r['let_bytes_mean']), float(r['let_bytes_max']))
                     for r in rows if r['series'] == name and int(r['ranks']) > 1)
        if not pts:
            continue
        ax.plot([p[0] for p in pts], [p[1] / 1e6 for p in pts], 'o-', label=name + ' mean')
        ax.plot([p[0] for p in pts], [p[2] / 1e6 for p in pts], 's--', label=name + ' max')
    ax.set_xscale('log', base=2)
    ax.set_xlabel('simulated GPUs (one rank each)')
    ax.set_ylabel('essential nodes sent per rank per evaluation [MB]')
    ax.legend(fontsize=7)
    ax.set_title('tide gravity exchange (%s)' % os.environ.get('TIDE_SIM_LABEL', 'modelled counts'), fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(sys.argv[2], 'sim_gravity_bytes.png'), dpi=120)
    return 0


if __name__ == '__main__':
    sys.exit(main())
