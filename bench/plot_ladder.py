# SPDX-License-Identifier: LGPL-2.1-or-later
"""Draw bench/sph_ladder.sh's CSV: time per step and particle-steps/s against particle count
(log-log), with DualSPHysics reference points as labelled markers, and GPU bytes per particle
when the runs used a GPU.

usage: plot_ladder.py sph_ladder.csv [more.csv ...] OUT.png
Several CSVs (e.g. a CPU box and the GPU node) are drawn as separate series.
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# DualSPHysics on the SPHERIC test 2 geometry (reference values given with the task)
REFS = [
    # label, particles, ms/step, bytes/particle (None: not known)
    ("DualSPHysics, H200", 13.3e6, 49.4, 178.0),
    ("DualSPHysics, 2-core CPU", 117e3, 135.0, None),
]


def load(path):
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("particles")]
    rows.sort(key=lambda r: float(r["particles"]))
    return rows


def series_label(path, rows):
    if not rows:
        return os.path.basename(path)
    r = rows[0]
    dev = f"{r['ncuda']} GPU + {r['ncpu']} CPU workers" if int(r["ncuda"]) > 0 else f"{r['ncpu']} CPU workers"
    return f"tide, {r['host']}: {dev}, {r['sched']}"


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    csvs, png = argv[1:-1], argv[-1]
    data = [(p, load(p)) for p in csvs]
    have_bpp = any(r["bytes_per_particle"] for _, rows in data for r in rows)
    ncol = 3 if have_bpp else 2
    fig, axes = plt.subplots(1, ncol, figsize=(5.2 * ncol, 4.4), constrained_layout=True)
    ax_t, ax_p = axes[0], axes[1]
    markers = "os^vD"
    for i, (path, rows) in enumerate(data):
        if not rows:
            continue
        n = [float(r["particles"]) for r in rows]
        t = [float(r["time_per_step_ms"]) for r in rows]
        ps = [float(r["particle_steps_per_s"]) for r in rows]
        lab = series_label(path, rows)
        ax_t.plot(n, t, "-" + markers[i % len(markers)], label=lab)
        ax_p.plot(n, ps, "-" + markers[i % len(markers)], label=lab)
        if have_bpp:
            nb = [float(r["particles"]) for r in rows if r["bytes_per_particle"]]
            bb = [float(r["bytes_per_particle"]) for r in rows if r["bytes_per_particle"]]
            if nb:
                axes[2].plot(nb, bb, "-" + markers[i % len(markers)], label=lab)
    ref_style = [dict(marker="*", color="crimson", ms=13), dict(marker="P", color="darkgreen", ms=11)]
    for (lab, n, ms, bpp), st in zip(REFS, ref_style):
        text = f"{lab}\n{n / 1e6:.3g} M, {ms:g} ms/step" + (f", {bpp:g} B/particle" if bpp else "")
        ax_t.plot([n], [ms], ls="none", label=text, **st)
        right = n > 1e6  # label to the left of points near the right edge
        off, ha = ((-8, 6), "right") if right else ((6, 6), "left")
        ax_t.annotate(lab, (n, ms), textcoords="offset points", xytext=off, fontsize=8, color=st["color"], ha=ha)
        ps = n / (ms * 1e-3)
        ax_p.plot([n], [ps], ls="none", label=f"{lab}: {ps:.3g} /s", **st)
        ax_p.annotate(lab, (n, ps), textcoords="offset points", xytext=(off[0], -12), fontsize=8,
                      color=st["color"], ha=ha)
        if have_bpp and bpp:
            axes[2].plot([n], [bpp], ls="none", label=f"{lab}: {bpp:g} B", **st)
            axes[2].annotate(lab, (n, bpp), textcoords="offset points", xytext=(-10, 8), fontsize=8,
                             color=st["color"], ha="right")
    ax_t.set(xscale="log", yscale="log", xlabel="particles", ylabel="time per step [ms]",
             title="SPHERIC test 2: time per step")
    ax_p.set(xscale="log", yscale="log", xlabel="particles", ylabel="particle-steps per second [1/s]",
             title="throughput")
    if have_bpp:
        axes[2].set(xscale="log", xlabel="particles", ylabel="peak device bytes per particle [B]",
                    title="GPU memory")
        axes[2].set_ylim(bottom=0)
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="best")
    fig.savefig(png, dpi=120)


if __name__ == "__main__":
    main(sys.argv)
