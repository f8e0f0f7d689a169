#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plot a run's statistics.csv (written by tide run at every output) against simulated time.

Six panels, units taken from the file's header (2-D runs are per metre of width):
energies (kinetic, Tait elastic, and the changes of the potential and of the total energy since
the first row), momentum components, fluid mass and count, time step (log scale), wall-clock
time per step, and the largest speed with the density range.
Default output: statistics.png beside the CSV.
"""
import argparse
import math
import os

import tide_csv

TOOL = "plot_stats"
REQUIRED = ("time", "step", "dt", "n_fluid", "fluid_mass", "E_kin", "E_pot", "E_int", "E_total",
            "px", "py", "pz", "v_max", "rho_min", "rho_max", "wall_per_step")


def decorate(ax, t, ylabel, title):
    ax.set_xlabel(t.label("time"))
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small")


def twin_panel(ax, t, left, what, rights, right_label, title):
    """One column on the left axis (solid), others on a right axis (dashed)."""
    time = t.column("time")
    ax.plot(time, t.column(left), color="C0")
    other = ax.twinx()
    for name in rights:
        other.plot(time, t.column(name), "--", color="C1")
    other.set_ylabel(right_label, color="C1")
    decorate(ax, t, t.label(left, what), title)
    ax.yaxis.label.set_color("C0")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("input", metavar="RUN_DIR|statistics.csv", help="a run directory or its statistics.csv")
    ap.add_argument("-o", "--output", help="PNG to write (default: statistics.png beside the CSV)")
    args = ap.parse_args()
    path = os.path.join(args.input, "statistics.csv") if os.path.isdir(args.input) else args.input
    t = tide_csv.read_table(path, TOOL, REQUIRED, "tide statistics.csv")
    plt = tide_csv.pyplot(TOOL)
    time = t.column("time")
    col = t.column

    fig, axes = plt.subplots(3, 2, figsize=(12, 10))
    ax = axes[0, 0]
    ax.plot(time, col("E_kin"), label="kinetic")
    ax.plot(time, col("E_int"), label="elastic (Tait)")
    for name, label in (("E_pot", "potential"), ("E_total", "total")):
        v = col(name)
        ax.plot(time, [x - v[0] for x in v], label=f"{label} - its first value ({v[0]:.6g})")
    decorate(ax, t, t.label("E_kin", "energy"), "Energy")

    ax = axes[0, 1]
    for name in ("px", "py", "pz"):
        v = col(name)
        if any(x != 0 for x in v):  # a 2-D run has py = 0 throughout
            ax.plot(time, v, label=name)
    decorate(ax, t, t.label("px", "momentum"), "Momentum (fluid)")

    twin_panel(axes[1, 0], t, "fluid_mass", "fluid mass", ("n_fluid",), "fluid particles",
               "Fluid mass (solid) and count (dashed)")

    ax = axes[1, 1]
    dt = col("dt")
    steps = [(x, y) for x, y in zip(time, dt) if y > 0]  # the first row has no step yet
    if steps:
        ax.semilogy(*zip(*steps))
    decorate(ax, t, t.label("dt", "time step"), "Time step (last step before each output)")

    ax = axes[2, 0]
    wall = [(x, y) for x, y in zip(time, col("wall_per_step")) if y > 0 and not math.isnan(y)]
    if wall:
        ax.plot(*zip(*wall), "o-", ms=3)
    ax.set_ylim(bottom=0)
    decorate(ax, t, t.label("wall_per_step", "wall time per step"), "Wall-clock time per step")

    twin_panel(axes[2, 1], t, "v_max", "largest speed", ("rho_min", "rho_max"),
               t.label("rho_min", "density min, max"), "Largest speed (solid), density range (dashed)")

    fig.suptitle(f"tide statistics: {path}", fontsize=10)
    fig.tight_layout()
    out = args.output or os.path.join(os.path.dirname(path) or ".", "statistics.png")
    tide_csv.save(fig, out, TOOL)


if __name__ == "__main__":
    main()
