# SPDX-License-Identifier: LGPL-2.1-or-later
"""Bar chart of bench/sched_policies.sh's CSV: time per step per StarPU scheduler and worker
configuration, and the split of the executed tasks between CPU and GPU workers.

usage: plot_sched.py sched_policies.csv OUT.png
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def fnum(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def main(argv):
    if len(argv) != 3:
        raise SystemExit(__doc__)
    with open(argv[1], newline="") as f:
        rows = list(csv.DictReader(f))
    policies = list(dict.fromkeys(r["policy"] for r in rows))
    configs = list(dict.fromkeys(r["config"] for r in rows))
    get = {(r["policy"], r["config"]): r for r in rows}
    ok = [r for r in rows if r["status"] == "ok"]
    title = ""
    if ok:
        r = ok[0]
        title = f"{int(float(r['particles'])):,} particles, dp = {r['dp_m']} m, {r['steps']} steps, host {r['host']}"

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.6), constrained_layout=True)
    width = 0.8 / max(len(configs), 1)
    for j, cfg in enumerate(configs):
        xs, ys, labels = [], [], []
        for i, pol in enumerate(policies):
            r = get.get((pol, cfg))
            x = i + (j - (len(configs) - 1) / 2) * width
            t = fnum(r["time_per_step_ms"]) if r and r["status"] == "ok" else None
            if t is None:
                ax1.text(x, 0, "failed" if r else "", rotation=90, ha="center", va="bottom", fontsize=8, color="red")
                continue
            xs.append(x)
            ys.append(t)
            labels.append(f"{t:.3g}")
        r0 = next((get[(p, cfg)] for p in policies if (p, cfg) in get and get[(p, cfg)]["ncpu"]), None)
        desc = f"{cfg} ({r0['ncpu']} CPU + {r0['ncuda']} CUDA workers)" if r0 else cfg
        bars = ax1.bar(xs, ys, width, label=desc)
        ax1.bar_label(bars, labels=labels, fontsize=7, padding=2)
    ax1.set_xticks(range(len(policies)), policies)
    ax1.set_ylabel("time per step [ms]")
    ax1.set_title("time per step by STARPU_SCHED")
    ax1.legend(fontsize=8)
    ax1.grid(True, axis="y", alpha=0.3)

    # task split: one stacked bar per (policy, config)
    names, cpu_share, gpu_share, counts = [], [], [], []
    for pol in policies:
        for cfg in configs:
            r = get.get((pol, cfg))
            if not r or r["status"] != "ok":
                continue
            ct, gt = fnum(r["cpu_tasks"]) or 0, fnum(r["gpu_tasks"]) or 0
            tot = ct + gt
            names.append(f"{pol}\n{cfg}")
            cpu_share.append(ct / tot if tot else 0)
            gpu_share.append(gt / tot if tot else 0)
            counts.append(f"{int(ct)}/{int(gt)}")
    x = range(len(names))
    ax2.bar(x, cpu_share, 0.7, label="CPU workers", color="tab:blue")
    ax2.bar(x, gpu_share, 0.7, bottom=cpu_share, label="GPU workers", color="tab:orange")
    for i, c in enumerate(counts):
        ax2.text(i, 1.01, c, ha="center", va="bottom", fontsize=7)
    ax2.set_xticks(list(x), names, fontsize=7)
    ax2.set_ylim(0, 1.12)
    ax2.set_ylabel("share of executed tasks")
    ax2.set_title("executed tasks per worker kind (labels: CPU/GPU counts)")
    ax2.legend(fontsize=8, loc="lower right")
    fig.suptitle(f"tide, SPHERIC test 2: StarPU schedulers — {title}", fontsize=10)
    fig.savefig(argv[2], dpi=120)


if __name__ == "__main__":
    main(sys.argv)
