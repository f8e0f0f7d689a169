#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Where a simulated step's time goes, from the ranks' task timelines (issue 25).

`tide run --profile` writes DIR/step_timeline_rankN.csv: every profiled task a rank ran, with
the simulated clock's times at which it was ready, fetched its data and ran
(bench/sim_scaling.sh --tide-args "--profile" puts them in DIR/SERIES_RANKS/).  With one GPU
worker per rank its tasks run one after the other, so a step of a rank is the GPU's work plus
the gaps between its tasks; each gap is charged to the task that ends it, which says what the
GPU waited for:
  halos      before the forces that read the neighbours' halos (sph_forces_boundary, or the
             unsplit sph_forces): the halos coming down from the neighbours' GPUs, across the
             network and up again, beyond what the interior's forces covered
  dt         before a dt_combine or the integrate: the time step's reduction (its rounds of
             messages between ranks)
  migrants   before migrate_unpack: the neighbours' migrant buffers
  other      any other gap (e.g. the host's submission of the next step)
A step of rank r: from its first cell_sort of the step to the next step's, the steady steps
(from --first-step on, the last step without a next one left out).  Load imbalance: the
slowest rank's GPU work against the mean over ranks.  A rank's tasks on its CPU worker (the
time step's combination, include/tide/dt_where.h; the timeline's arch column) are not on the
GPU's line: their time is shown apart (cpu work), and the GPU's wait for the rounds is the gap
before its integrate (dt).  Without a CUDA worker (CPU ranks) every task is on the line.

usage: bench/sim_timeline.py RUN_DIR [--first-step 2] [--csv OUT.csv]
Prints the mean over ranks, the rank of most GPU work and the rank of least; --csv writes one
row per rank (ms per steady step)."""
import csv
import glob
import os
import re
import sys

CATS = ('halos', 'dt', 'migrants', 'other')


def category(task):
    if task in ('sph_forces_boundary', 'sph_forces'):
        return 'halos'
    if task in ('dt_combine', 'integrate'):
        return 'dt'
    if task == 'migrate_unpack':
        return 'migrants'
    return 'other'


def rank_steps(path, first):
    """Per steady step of one rank: its length, GPU work and the gaps by category (s)."""
    rows = list(csv.DictReader(open(path)))
    for r in rows:
        for k in ('ready', 'data_start', 'data_end', 'start', 'end'):
            r[k] = float(r[k + '[s]'])
    rows.sort(key=lambda r: r['start'])
    # the GPU's line: its CUDA worker's tasks (timelines without arch: every task)
    side = [r for r in rows if r.get('arch', 'cuda') == 'cpu']
    if len(side) < len(rows):
        rows = [r for r in rows if r.get('arch', 'cuda') != 'cpu']
    else:
        side = []
    starts = [r['start'] for r in rows if r['family'] == 'cell_sort']
    # one block per rank: one cell_sort per step (several blocks: the first of each step)
    nblk = len({r['block'] for r in rows if r['family'] == 'cell_sort'})
    starts = starts[::max(nblk, 1)]
    out = []
    for k in range(first - 1, len(starts) - 1):
        t0, t1 = starts[k], starts[k + 1]
        st = dict(step=k + 1, length=t1 - t0, work=0.0, cpu=0.0, **{c: 0.0 for c in CATS})
        fam = {}
        prev = t0
        for r in rows:
            if r['start'] < t0 or r['start'] >= t1:
                continue
            gap = r['start'] - prev
            if gap > 0:
                st[category(r['task'])] += gap
            st['work'] += r['end'] - r['start']
            fam[r['task']] = fam.get(r['task'], 0.0) + r['end'] - r['start']
            prev = max(prev, r['end'])
        st['other'] += max(0.0, t1 - prev)  # after the step's last task
        for r in side:
            if t0 <= r['start'] < t1:
                st['cpu'] += r['end'] - r['start']
                fam['cpu:' + r['task']] = fam.get('cpu:' + r['task'], 0.0) + r['end'] - r['start']
        st['tasks'] = fam
        out.append(st)
    return out


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith('-'):
        print(__doc__)
        return 2
    run, first, out_csv = args[0], 2, None
    i = 1
    while i < len(args):
        if args[i] == '--first-step' and i + 1 < len(args):
            first = int(args[i + 1])
        elif args[i] == '--csv' and i + 1 < len(args):
            out_csv = args[i + 1]
        else:
            print('sim_timeline.py: unknown argument %s (--first-step N, --csv FILE)' % args[i],
                  file=sys.stderr)
            return 2
        i += 2
    paths = glob.glob(os.path.join(run, 'step_timeline_rank*.csv'))
    if not paths:
        print('sim_timeline.py: no step_timeline_rank*.csv in %s (tide run --profile writes them)'
              % run, file=sys.stderr)
        return 2
    ranks = []
    for p in paths:
        q = int(re.search(r'rank(\d+)\.csv$', p).group(1))
        steps = rank_steps(p, first)
        if not steps:
            continue
        n = len(steps)
        mean = {k: sum(s[k] for s in steps) / n for k in ('length', 'work', 'cpu') + CATS}
        fam = {}
        for s in steps:
            for t, v in s['tasks'].items():
                fam[t] = fam.get(t, 0.0) + v / n
        ranks.append(dict(rank=q, steps=n, fam=fam, **mean))
    if not ranks:
        print('sim_timeline.py: no steady step in %s (run more steps)' % run, file=sys.stderr)
        return 2
    ranks.sort(key=lambda r: r['rank'])
    ms = lambda v: '%.3f' % (1e3 * v)
    if out_csv:
        with open(out_csv, 'w', newline='') as f:
            w = csv.writer(f)
            w.writerow(['rank', 'steps', 'step_ms', 'gpu_work_ms'] + ['wait_%s_ms' % c for c in CATS]
                       + ['cpu_work_ms'])
            for r in ranks:
                w.writerow([r['rank'], r['steps'], ms(r['length']), ms(r['work'])] + [ms(r[c]) for c in CATS]
                           + [ms(r['cpu'])])
    nr = len(ranks)
    avg = {k: sum(r[k] for r in ranks) / nr for k in ('length', 'work', 'cpu') + CATS}
    hi = max(ranks, key=lambda r: r['work'])
    lo = min(ranks, key=lambda r: r['work'])
    print('%d ranks, steady steps from %d (ms per step; gaps charged to the task after them)' % (nr, first))
    print('%-22s %9s %9s %9s %9s %9s %9s %9s' % ('', 'step', 'GPU work', 'halos', 'dt', 'migrants',
                                                 'other', 'cpu work'))
    for name, r in (('mean over ranks', avg), ('most work: rank %d' % hi['rank'], hi),
                    ('least work: rank %d' % lo['rank'], lo)):
        print('%-22s %9s %9s %9s %9s %9s %9s %9s' % (name, ms(r['length']), ms(r['work']),
                                                     *(ms(r[c]) for c in CATS), ms(r['cpu'])))
    print('load imbalance (most GPU work / mean): %.3f' % (hi['work'] / avg['work']))
    print('rank %d GPU work by task (ms per step): %s' % (hi['rank'], ', '.join(
        '%s %.3f' % (t, 1e3 * v) for t, v in sorted(hi['fam'].items(), key=lambda x: -x[1]))))
    return 0


if __name__ == '__main__':
    sys.exit(main())
