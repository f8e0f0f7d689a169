#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plot a run's gauges.csv against time.

Usage: python3 tools/plot_gauges.py RUN_DIR [-o out.png]

One panel per kind of column: water heights [m], pressures [Pa], and the surge front.  For a
surge-front case (columns Z[-] and T[-]) the dimensionless front Z = x/a is drawn against
T = t sqrt(2g/a) together with the Martin & Moyce (1952) measurements
(/work/shared/reference/spheric-test2.md).  Default output: RUN_DIR/gauges.png.
"""
import argparse
import csv
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")  # files only: no display on compute nodes
import matplotlib.pyplot as plt  # noqa: E402

# Martin & Moyce 1952, Fig. 3: columns of width a = 2.25 in and a = 1.125 in (n^2 = 2).
MARTIN_MOYCE = {
    "a = 2.25 in": (
        [0.832, 1.219, 1.997, 2.547, 3.345, 4.034, 4.418, 5.091, 5.685, 6.306, 6.822, 7.439, 8.031],
        [1.217, 1.474, 2.292, 2.995, 4.134, 4.944, 5.881, 6.980, 7.945, 8.966, 9.986, 10.963, 11.977],
    ),
    "a = 1.125 in": (
        [0.849, 1.212, 1.602, 2.283, 2.950, 3.598, 3.905, 4.592, 4.961, 5.316],
        [1.245, 1.443, 1.884, 2.689, 3.728, 4.528, 4.999, 5.841, 6.271, 6.717],
    ),
}

UNIT = re.compile(r"^(.*)\[(.*)\]$")


def read_gauges(path):
    """Returns {column title: [values]} in file order."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        sys.exit(f"plot_gauges: {path} is empty.")
    header, data = rows[0], [r for r in rows[1:] if r]
    columns = {title: [] for title in header}
    for line, row in enumerate(data, start=2):
        if len(row) != len(header):
            sys.exit(f"plot_gauges: {path} line {line} has {len(row)} values, the header {len(header)}.")
        for title, value in zip(header, row):
            columns[title].append(float(value))
    return columns


def split_title(title):
    m = UNIT.match(title)
    return (m.group(1), m.group(2)) if m else (title, "")


def panels(columns):
    """Groups the measured columns: (panel title, y label, [column titles])."""
    heights, pressures = [], []
    for title in columns:
        name, unit = split_title(title)
        if name in ("time", "front", "Z", "T"):
            continue
        if unit == "m":
            heights.append(title)
        elif unit == "Pa":
            pressures.append(title)
    out = []
    if heights:
        out.append(("Water height", "height [m]", heights))
    if pressures:
        out.append(("Pressure", "pressure [Pa]", pressures))
    if "front[m]" in columns and "Z[-]" not in columns:  # else drawn as Z against T
        out.append(("Surge front", "front [m]", ["front[m]"]))
    return out


def plot_surge(ax, columns):
    ax.plot(columns["T[-]"], columns["Z[-]"], "-", label="tide")
    for (label, (t, z)), marker in zip(MARTIN_MOYCE.items(), ("o", "s")):
        ax.plot(t, z, marker, mfc="none", label=f"Martin & Moyce, {label}")
    ax.set_xlabel("T = t sqrt(2g/a) [-]")
    ax.set_ylabel("Z = x/a [-]")
    ax.set_title("Dimensionless surge front")
    ax.legend(fontsize="small")
    ax.grid(True, alpha=0.3)


def main():
    ap = argparse.ArgumentParser(description="Plot gauges.csv of a tide run against time.")
    ap.add_argument("run_dir", metavar="RUN_DIR", help="directory holding gauges.csv")
    ap.add_argument("-o", "--output", help="PNG to write (default RUN_DIR/gauges.png)")
    args = ap.parse_args()

    path = os.path.join(args.run_dir, "gauges.csv")
    if not os.path.isfile(path):
        sys.exit(f"plot_gauges: {path} does not exist.")
    columns = read_gauges(path)
    if "time[s]" not in columns:
        sys.exit(f"plot_gauges: {path} has no time[s] column.")
    groups = panels(columns)
    surge = "Z[-]" in columns and "T[-]" in columns
    n = len(groups) + surge
    if n == 0:
        sys.exit(f"plot_gauges: {path} holds no gauge columns.")

    fig, axes = plt.subplots(n, 1, figsize=(8, 3.2 * n), squeeze=False)
    axes = axes[:, 0]
    t = columns["time[s]"]
    for ax, (title, ylabel, names) in zip(axes, groups):
        for name in names:
            ax.plot(t, columns[name], label=split_title(name)[0])
        ax.set_xlabel("time [s]")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.legend(fontsize="small")
        ax.grid(True, alpha=0.3)
    if surge:
        plot_surge(axes[-1], columns)
    fig.tight_layout()
    out = args.output or os.path.join(args.run_dir, "gauges.png")
    fig.savefig(out, dpi=120)
    print(f"plot_gauges: wrote {out}")


if __name__ == "__main__":
    main()
