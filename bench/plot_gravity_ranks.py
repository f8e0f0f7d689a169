#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plot bench/gravity_ranks.sh's summary CSV: time per gravity step against the rank count for
the strong and weak runs, the GPU/CPU speedup per rank count (the Barnes-Hut paper's Fig. 12),
and the weak runs' share of the essential nodes in the walk time and in the items walked
(its Figs. 15-17); with exchange runs (issue 25) a fourth panel: bytes of essential nodes sent
per rank per evaluation, the exchange before issue 25 against near/far ranks with covers.

usage: bench/plot_gravity_ranks.py SUMMARY.csv OUT.png"""
import csv
import sys


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def main():
    if len(sys.argv) != 3 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) == 2 else 2
    try:
        rows = list(csv.DictReader(open(sys.argv[1])))
    except OSError as e:
        print(f"plot_gravity_ranks: cannot read {sys.argv[1]}: {e.strerror}", file=sys.stderr)
        return 2
    need = {"experiment", "device", "n", "ranks", "t_step_s", "gpu_over_cpu_speedup"}
    if not rows or not need <= set(rows[0]):
        print(f"plot_gravity_ranks: {sys.argv[1]} is not a gravity_ranks summary (columns "
              f"{', '.join(sorted(need))} needed)", file=sys.stderr)
        return 2
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    exch = {}
    for r in rows:
        if r["experiment"].startswith("exchange") and num(r.get("bytes_per_rank")) is not None:
            exch.setdefault(r["experiment"], []).append((int(r["ranks"]), float(r["bytes_per_rank"])))
    fig, ax = plt.subplots(1, 4 if exch else 3, figsize=(20 if exch else 15, 4.2))
    for exp, pts in sorted(exch.items()):
        pts = sorted(p for p in pts if p[0] > 1)
        label = {"exchange_all1": "all-to-all, one box (before issue 25)",
                 "exchange_near": "near/far ranks, covers of 16 boxes"}.get(exp, exp)
        ax[3].plot([p[0] for p in pts], [p[1] / 1e3 for p in pts], "o-", label=label)
    if exch:
        ax[3].set_xscale("log", base=2)
        ax[3].set_xlabel("MPI ranks (CPU, N fixed)")
        ax[3].set_ylabel("essential nodes sent per rank per evaluation [kB]")
        ax[3].legend(fontsize=7)
    series = {}
    for r in rows:
        if num(r["t_step_s"]) is None:  # empty, or the status of a run cut off or failed
            continue
        key = (r["experiment"], r["device"], r["n"] if r["experiment"] != "weak" else "")
        series.setdefault(key, []).append((int(r["ranks"]), float(r["t_step_s"])))
    for (exp, dev, n), pts in sorted(series.items()):
        pts.sort()
        label = f"{exp} {dev}" + (f" N={int(n)/1e6:g} M" if n else " (N/rank fixed)")
        ax[0].plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=label)
    ax[0].set_xscale("log", base=2)
    ax[0].set_yscale("log")
    ax[0].set_xlabel("MPI ranks sharing one GPU (or the node's cores)")
    ax[0].set_ylabel("time per gravity step [s]")
    ax[0].legend(fontsize=7)
    ratio = sorted((int(r["ranks"]), float(r["gpu_over_cpu_speedup"]))
                   for r in rows if num(r["gpu_over_cpu_speedup"]) is not None)
    ax[1].bar([str(p[0]) for p in ratio], [p[1] for p in ratio])
    ax[1].set_yscale("log")
    ax[1].set_xlabel("MPI ranks")
    ax[1].set_ylabel("GPU tree / CPU tree speedup [-]")
    for col, label in (("essential_time_share", "of the walk tasks' time"),
                       ("essential_share", "items received / own items (cells + particles)")):
        pts = sorted((int(r["ranks"]), float(r[col])) for r in rows
                     if r["experiment"] == "weak" and num(r.get(col)) is not None)
        if pts:
            ax[2].plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=label)
    ax[2].set_xscale("log", base=2)
    ax[2].set_xlabel("MPI ranks (weak: N/rank fixed)")
    ax[2].set_ylabel("essential nodes received [-]")
    if ax[2].lines:
        ax[2].legend(fontsize=7)
    fig.tight_layout()
    try:
        fig.savefig(sys.argv[2], dpi=110)
    except OSError as e:
        print(f"plot_gravity_ranks: cannot write {sys.argv[2]}: {e.strerror}", file=sys.stderr)
        return 1
    print(f"plot_gravity_ranks: wrote {sys.argv[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
