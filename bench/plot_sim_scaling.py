#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Efficiency table and plots of bench/sim_scaling.sh's CSV (issue 25).

Per series (weak N per rank, strong N in all), against its smallest rank count R0 that ran:
weak efficiency t(R0) / t(R), strong efficiency t(R0) R0 / (t(R) R).  Writes
OUT/sim_scaling_eff.csv (the rows with efficiency) and prints the table; with matplotlib,
OUT/sim_scaling.png: time per step and efficiency against the simulated GPUs, in the style of
bench/plot_gravity_ranks.py (without matplotlib: the CSV only, said once).

usage: bench/plot_sim_scaling.py SIM_SCALING.csv OUT_DIR
env: TIDE_SIM_TITLE (default 'tide SPH scaling'), TIDE_SIM_LABEL (what the models are)"""
import csv
import os
import sys


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    rows = list(csv.DictReader(open(sys.argv[1])))
    series = {}
    for r in rows:
        series.setdefault(r['series'], []).append(r)
    out_rows = []
    for name, rs in series.items():
        ok = sorted((int(r['ranks']), float(r['step_s']), r) for r in rs if r['step_s'])
        ref = ok[0] if ok else None
        for r in sorted(rs, key=lambda r: int(r['ranks'])):
            e = ''
            if ref and r['step_s']:
                n, t = int(r['ranks']), float(r['step_s'])
                e = '%.4f' % (ref[1] / t if r['mode'] == 'weak' else ref[1] * ref[0] / (t * n))
            out_rows.append(dict(r, efficiency=e))
    path = os.path.join(sys.argv[2], 'sim_scaling_eff.csv')
    with open(path, 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) + ['efficiency'] if rows else ['efficiency'])
        w.writeheader()
        w.writerows(out_rows)
    print('%-16s %6s %6s %12s %10s %9s %9s  %s' % ('series', 'ranks', 'nodes', 'step [s]', 'efficiency',
                                                   'wall [s]', 'peak MB', 'status'))
    for r in out_rows:
        print('%-16s %6s %6s %12s %10s %9s %9s  %s' % (r['series'], r['ranks'], r['nodes'], r['step_s'] or '-',
                                                       r['efficiency'] or '-', r['wall_s'], r['maxrss_MB'] or '-',
                                                       r['status']))
    try:
        import matplotlib
    except ImportError:
        print('plot_sim_scaling: no matplotlib here: %s only' % path)
        return 0
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 2, figsize=(11, 4.2))
    for name in sorted(series):
        pts = [(int(r['ranks']), float(r['step_s']), float(r['efficiency'])) for r in out_rows
               if r['series'] == name and r['efficiency']]
        if not pts:
            continue
        ax[0].plot([p[0] for p in pts], [p[1] for p in pts], 'o-', label=name)
        ax[1].plot([p[0] for p in pts], [p[2] for p in pts], 'o-', label=name)
    for a in ax:
        a.set_xscale('log', base=2)
        a.set_xlabel('simulated GPUs (one rank each)')
        a.legend(fontsize=7)
    ax[0].set_yscale('log')
    ax[0].set_ylabel('simulated time per step [s]')
    ax[1].set_ylabel('efficiency')
    ax[1].set_ylim(0, 1.1)
    fig.suptitle('%s, SimGrid simulation (%s)' % (os.environ.get('TIDE_SIM_TITLE', 'tide SPH scaling'), os.environ.get(
        'TIDE_SIM_LABEL', 'CPU-calibrated models, this 2-core machine')))
    fig.tight_layout()
    fig.savefig(os.path.join(sys.argv[2], 'sim_scaling.png'), dpi=120)
    return 0


if __name__ == '__main__':
    sys.exit(main())
