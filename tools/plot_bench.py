#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plot the CSV files of bench/ (bench/results/*/*.csv or a fresh bench/out/), any of them.

The kind of each file is told from its header (all files of one call must be of one kind; each
file is a series):
  ladder     particles, time_per_step_ms, particle_steps_per_s (bench/sph_ladder.sh):
             time per step and particle-steps/s against the particle count, log-log
  scaling    ranks, speedup, efficiency (bench/sph_scaling.sh): speedup and efficiency against
             the MPI rank count, with the ideal lines
  scheduler  policy, config, time_per_step_ms (bench/sched_policies.sh): bars of the time per
             step per StarPU scheduler and worker configuration (and the GPU's share of the
             executed tasks when a GPU took part)
  gravity    n, t_total_s (bench/gravity_h200.sh): time per force evaluation, particles/s and
             the 99th-percentile force error against n, one series per device and theta
  overhead   run, wall_per_step_ms, overhead_pct (bench/output_overhead.sh): bars of the wall
             time per step and of the overhead against the run without output, per run (none,
             vtp, hdf5, gauges), one series per file (e.g. per dp)
"""
import argparse
import math
import os

import tide_csv

TOOL = "plot_bench"
KINDS = {  # kind: the columns that tell it (checked in this order)
    "scheduler": ("policy", "config", "time_per_step_ms"),
    "scaling": ("ranks", "speedup", "efficiency", "time_per_step_ms"),
    "ladder": ("particles", "time_per_step_ms", "particle_steps_per_s"),
    "gravity": ("n", "t_total_s"),
    "overhead": ("run", "wall_per_step_ms", "overhead_pct"),
}


def kind_of(table):
    for kind, cols in KINDS.items():
        if all(table.has(c) for c in cols):
            return kind
    tide_csv.die(TOOL, f"{table.path} is not a bench CSV: its columns ({', '.join(table.header)}) "
                       "match none of the ladder, scaling, scheduler, gravity or overhead files.")


def describe(table):
    """Series label: the file's name and, on a second line, the workers, scheduler and host as
    the file's first row says."""
    name = os.path.splitext(os.path.basename(table.path))[0]
    first = lambda col: table.text(col)[0] if table.has(col) and table.text(col)[0] else None
    bits = []
    if first("ncpu_per_rank"):
        bits.append(f"{first('ncpu_per_rank')} CPU + {first('ncuda') or 0} CUDA per rank")
    elif first("ncpu"):
        bits.append(f"{first('ncpu')} CPU + {first('ncuda') or 0} CUDA workers")
    bits += [first(col) for col in ("sched", "mode", "host") if first(col)]
    return f"{name}\n({', '.join(bits)})" if bits else name


def sorted_by(xs, *ys):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    return [[v[i] for i in order] for v in (xs,) + ys]


def plot_ladder(plt, tables):
    fig, (at, ap) = plt.subplots(1, 2, figsize=(12, 4.6), constrained_layout=True)
    for k, t in enumerate(tables):
        n, ms, ps = sorted_by(t.column("particles"), t.column("time_per_step_ms"),
                              t.column("particle_steps_per_s"))
        at.plot(n, ms, "-o", ms=4, label=describe(t))
        ap.plot(n, ps, "-o", ms=4, label=describe(t))
    at.set(xscale="log", yscale="log", xlabel="particles", ylabel="time per step [ms]",
           title="Time per step")
    ap.set(xscale="log", yscale="log", xlabel="particles", ylabel="particle-steps per second",
           title="Throughput")
    for ax in (at, ap):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small")
    return fig


def plot_scaling(plt, tables):
    fig, (asp, aef) = plt.subplots(1, 2, figsize=(11, 4.4), constrained_layout=True)
    top = 1
    for t in tables:
        r, sp, ef = sorted_by(t.column("ranks"), t.column("speedup"), t.column("efficiency"))
        top = max(top, max(r))
        asp.plot(r, sp, "-o", label=describe(t))
        aef.plot(r, ef, "-s", label=describe(t))
    asp.plot([1, top], [1, top], "k--", lw=0.8, label="ideal")
    aef.axhline(1.0, color="k", ls="--", lw=0.8, label="ideal")
    asp.set(xlabel="MPI ranks", ylabel="speedup", title="Speedup")
    top_eff = max(max(t.column("efficiency")) for t in tables)
    aef.set(xlabel="MPI ranks", ylabel="parallel efficiency", title="Efficiency",
            ylim=(0, max(1.15, 1.1 * top_eff)))
    for ax in (asp, aef):
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
    return fig


def plot_scheduler(plt, tables):
    groups = []  # (label, table, config): the workers as the config's first row says
    for t in tables:
        conf = t.text("config")
        for cfg in dict.fromkeys(conf):
            i = conf.index(cfg)
            workers = ", ".join(f"{t.text(c)[i]} {w}" for c, w in (("ncpu", "CPU"), ("ncuda", "CUDA"))
                                if t.has(c))
            where = f"{os.path.basename(os.path.dirname(os.path.abspath(t.path)))}, " if len(tables) > 1 else ""
            host = f", {t.text('host')[i]}" if t.has("host") else ""
            groups.append((f"{where}{cfg} ({workers}{host})", t, cfg))
    policies = list(dict.fromkeys(p for t in tables for p in t.text("policy")))
    share = any(t.has("gpu_task_share") and any(not math.isnan(v) for v in t.column("gpu_task_share"))
                for t in tables)
    fig, axes = plt.subplots(1, 2 if share else 1, figsize=(12 if share else 7, 4.6),
                             constrained_layout=True, squeeze=False)
    width = 0.8 / len(groups)
    for j, (label, t, cfg) in enumerate(groups):
        pol, conf = t.text("policy"), t.text("config")
        ms = t.column("time_per_step_ms")
        status = t.text("status") if t.has("status") else ["ok"] * len(pol)
        gs = t.column("gpu_task_share") if share and t.has("gpu_task_share") else None
        xs, ys, gx, gy = [], [], [], []
        for i in range(len(pol)):
            if conf[i] != cfg:
                continue
            x = policies.index(pol[i]) + (j - (len(groups) - 1) / 2) * width
            if status[i] != "ok" or math.isnan(ms[i]):
                axes[0, 0].text(x, 0, "failed", rotation=90, ha="center", va="bottom", color="red",
                                fontsize=8)
                continue
            xs.append(x)
            ys.append(ms[i])
            if gs and not math.isnan(gs[i]):
                gx.append(x)
                gy.append(gs[i])
        bars = axes[0, 0].bar(xs, ys, width, label=label, color=f"C{j}")
        axes[0, 0].bar_label(bars, labels=[f"{y:.3g}" for y in ys], fontsize=7, padding=2)
        if share and gx:
            axes[0, 1].bar(gx, gy, width, label=label, color=f"C{j}")
    for ax, ylabel, title in zip(axes[0], ("time per step [ms]", "GPU share of the tasks"),
                                 ("Time per step by STARPU_SCHED", "Tasks run by the GPU")):
        ax.set_xticks(range(len(policies)), policies)
        ax.set(ylabel=ylabel, title=title)
        ax.margins(y=0.2)  # room for the bar labels and the legend
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize="small")
    return fig


def plot_gravity(plt, tables):
    have_err = all(t.has("err_p99") for t in tables)
    fig, axes = plt.subplots(1, 3 if have_err else 2, figsize=(16 if have_err else 11, 4.6),
                             constrained_layout=True)
    for t in tables:
        n, tt = t.column("n"), t.column("t_total_s")
        keys = [tuple(t.text(c)[i] if t.has(c) else "" for c in ("device", "dist", "theta"))
                for i in range(len(n))]
        err = t.column("err_p99") if have_err else None
        for key in dict.fromkeys(keys):
            idx = [i for i in range(len(n)) if keys[i] == key]
            xs, ys = sorted_by([n[i] for i in idx], [tt[i] for i in idx])
            label = ", ".join(b for b in (key[0], key[1], f"theta {key[2]}" if key[2] else "") if b)
            if len(tables) > 1:
                label = f"{os.path.basename(t.path)}: {label}"
            axes[0].plot(xs, ys, "-o", ms=4, label=label)
            axes[1].plot(xs, [x / y for x, y in zip(xs, ys)], "-o", ms=4, label=label)
            if err:
                xe, ye = sorted_by([n[i] for i in idx], [err[i] for i in idx])
                axes[2].plot(xe, ye, "-o", ms=4, label=label)
    axes[0].set(ylabel="time per force evaluation [s]", title="Barnes-Hut: time")
    axes[1].set(ylabel="particles per second", title="Barnes-Hut: throughput")
    if have_err:
        axes[2].set(ylabel="99th percentile relative force error", title="Accuracy")
    for ax in axes:
        ax.set(xscale="log", yscale="log", xlabel="particles")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="x-small")
    return fig


def plot_overhead(plt, tables):
    runs = list(dict.fromkeys(r for t in tables for r in t.text("run")))
    fig, (am, ao) = plt.subplots(1, 2, figsize=(12, 4.6), constrained_layout=True)
    width = 0.8 / len(tables)
    for j, t in enumerate(tables):
        run, ms, pct = t.text("run"), t.column("wall_per_step_ms"), t.column("overhead_pct")
        status = t.text("status") if t.has("status") else ["ok"] * len(run)
        dp = t.text("dp_m")[0] if t.has("dp_m") else ""
        n = t.column("particles")[0] if t.has("particles") else math.nan
        label = describe(t) + (f"\ndp {dp} m" if dp else "") + \
            (f", {n / 1e6:.3g} M particles" if not math.isnan(n) else "")
        for ax, ys in ((am, ms), (ao, pct)):
            xs, vs = [], []
            for i, r in enumerate(run):
                x = runs.index(r) + (j - (len(tables) - 1) / 2) * width
                if status[i] != "ok" or math.isnan(ys[i]):
                    ax.text(x, 0, "failed", rotation=90, ha="center", va="bottom", color="red",
                            fontsize=8)
                    continue
                xs.append(x)
                vs.append(ys[i])
            bars = ax.bar(xs, vs, width, label=label, color=f"C{j}")
            ax.bar_label(bars, labels=[f"{v:.3g}" for v in vs], fontsize=7, padding=2)
    for ax, ylabel, title in ((am, "wall time per step [ms]", "Step loop wall time per step"),
                              (ao, "overhead [%]", "Overhead against --no-output")):
        ax.set_xticks(range(len(runs)), runs)
        ax.set(ylabel=ylabel, title=title)
        ax.axhline(0, color="k", lw=0.6)
        ax.margins(y=0.2)
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize="x-small")
    return fig


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+", metavar="CSV", help="bench CSV files of one kind")
    ap.add_argument("-o", "--output", required=True, help="PNG to write")
    args = ap.parse_args()
    tables = [tide_csv.read_table(p, TOOL) for p in args.csv]
    kinds = [kind_of(t) for t in tables]
    if len(set(kinds)) > 1:
        tide_csv.die(TOOL, "the files are of different kinds (" +
                     ", ".join(f"{t.path}: {k}" for t, k in zip(tables, kinds)) + "); plot each kind apart.")
    plt = tide_csv.pyplot(TOOL)
    fig = {"ladder": plot_ladder, "scaling": plot_scaling, "scheduler": plot_scheduler,
           "gravity": plot_gravity, "overhead": plot_overhead}[kinds[0]](plt, tables)
    fig.suptitle(f"tide bench ({kinds[0]}): " + ", ".join(os.path.basename(p) for p in args.csv),
                 fontsize=10)
    tide_csv.save(fig, args.output, TOOL)


if __name__ == "__main__":
    main()
