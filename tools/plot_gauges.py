#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plot a run's gauges.csv against time, optionally against measured reference data.

One panel per kind of column: water heights [m], pressures [Pa], velocities [m/s], forces on
obstacles [N] or [N/m], and the surge front.  For a
surge-front case (columns Z[-] and T[-]) the dimensionless front Z = x/a is drawn against
T = t sqrt(2g/a) together with the Martin & Moyce (1952) measurements.

--ref FILE adds measured time series, e.g. the SPHERIC test 2 (Kleefsman et al. 2005, MARIN)
water heights H1-H4 and pressures P1-P8, and then draws one panel per gauge.  The file is plain
text: columns separated by spaces, tabs, commas or semicolons; blank lines and lines starting
with '#' or '%' skipped; the last non-numeric line before the numbers names the columns
(a leading '#' allowed, units in brackets allowed: "time[s] H1[m] P1[Pa]"), or give the names
with --ref-columns.  The column named t or time (else the first) is the time [s]; every other
column whose name is a gauge's name in gauges.csv (H1, P3, ..., case-insensitive) is drawn in
that gauge's panel, in the gauge's unit (m, Pa).  Default output: RUN_DIR/gauges.png.
"""
import argparse
import math
import os
import re

import tide_csv

TOOL = "plot_gauges"

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

SURGE = ("time", "front", "Z", "T")
SEP = re.compile(r"[,;\s]+")


def gauge_columns(table):
    """The measured columns: ([height names], [pressure names]), by unit."""
    heights, pressures = [], []
    for name, title in zip(table.names, table.header):
        unit = tide_csv.split_title(title)[1]
        if name not in SURGE and unit == "m":
            heights.append(name)
        elif name not in SURGE and unit == "Pa":
            pressures.append(name)
    return heights, pressures


def more_columns(table):
    """Velocity probes [m/s] and forces on obstacles [N] (2-D: [N/m]): [(title, names)]."""
    groups = {"m/s": ("Velocity", []), "N": ("Force on obstacles", []),
              "N/m": ("Force on obstacles (per metre of width)", [])}
    for name, title in zip(table.names, table.header):
        unit = tide_csv.split_title(title)[1]
        if name not in SURGE and unit in groups:
            groups[unit][1].append(name)
    return [(t, names) for t, names in groups.values() if names]


def ref_name(token):
    """'H1[m]', 'H1(m)', '#H1' -> 'h1' (names compare without case or unit)."""
    token = re.sub(r"[\[(].*$", "", token.lstrip("#%").strip())
    return token.strip().lower()


def read_reference(path, names):
    """{column name (lower case): [values]} and the time column's name."""
    if not os.path.isfile(path):
        tide_csv.die(TOOL, f"the reference file {path} does not exist or is not a file.")
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        tide_csv.die(TOOL, f"cannot read the reference file {path}: {e.strerror}.")
    header, rows = None, []
    for k, line in enumerate(lines, start=1):
        text = line.strip()
        if not text:
            continue
        tokens = [t for t in SEP.split(text.lstrip("#%").strip()) if t]
        try:
            values = [float(t) for t in tokens]
        except ValueError:
            values = None
        if values is None or text[0] in "#%":
            if rows:
                if text[0] in "#%":
                    continue
                tide_csv.die(TOOL, f"{path} line {k}: '{text[:60]}' is not a row of numbers.")
            if text[0] != "%":
                header = tokens
            continue
        if rows and len(values) != len(rows[0][1]):
            tide_csv.die(TOOL, f"{path} line {k} has {len(values)} values, the first data row "
                               f"{len(rows[0][1])}.")
        rows.append((k, values))
    if not rows:
        tide_csv.die(TOOL, f"the reference file {path} holds no rows of numbers.")
    ncol = len(rows[0][1])
    if names and len(names) != ncol:
        tide_csv.die(TOOL, f"--ref-columns names {len(names)} columns but {path} has {ncol}.")
    header = names or header
    if not header:
        tide_csv.die(TOOL, f"{path} has {ncol} columns but no header line naming them; give the "
                           "names with --ref-columns time,H1,...")
    if len(header) != ncol:
        tide_csv.die(TOOL, f"{path}: the line before the numbers names {len(header)} columns "
                           f"('{' '.join(header)[:60]}') but the rows have {ncol}; give the names "
                           "with --ref-columns time,H1,...")
    keys = [ref_name(h) for h in header]
    time = next((k for k in keys if k in ("t", "time")), keys[0])
    return {key: [v[1][j] for v in rows] for j, key in enumerate(keys)}, time


def plot_surge(ax, table):
    ax.plot(table.column("T"), table.column("Z"), "-", label="tide")
    for (label, (t, z)), marker in zip(MARTIN_MOYCE.items(), ("o", "s")):
        ax.plot(t, z, marker, mfc="none", label=f"Martin & Moyce, {label}")
    ax.set_xlabel("T = t sqrt(2g/a) [-]")
    ax.set_ylabel("Z = x/a [-]")
    ax.set_title("Dimensionless surge front")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run_dir", metavar="RUN_DIR", help="directory holding gauges.csv (or the CSV itself)")
    ap.add_argument("-o", "--output", help="PNG to write (default RUN_DIR/gauges.png)")
    ap.add_argument("--ref", metavar="FILE", help="measured reference data (see above)")
    ap.add_argument("--ref-columns", metavar="NAMES", help="comma-separated names of the reference "
                    "file's columns, when it has no header line")
    ap.add_argument("--ref-label", default="experiment", help="legend label of the reference data")
    args = ap.parse_args()

    path = os.path.join(args.run_dir, "gauges.csv") if os.path.isdir(args.run_dir) else args.run_dir
    table = tide_csv.read_table(path, TOOL, ("time",), "tide gauges.csv")
    heights, pressures = gauge_columns(table)
    surge = table.has("Z") and table.has("T")
    if args.ref:
        names = [n.strip() for n in args.ref_columns.split(",")] if args.ref_columns else None
        ref, ref_time = read_reference(args.ref, names)
        matched = [n for n in heights + pressures if n.lower() in ref]
        if not matched:
            tide_csv.die(TOOL, f"none of the columns of {args.ref} ({', '.join(ref)}) is a gauge "
                               f"of {path} ({', '.join(heights + pressures) or 'none'}).")
        print(f"{TOOL}: reference {args.ref}: {', '.join(matched)} drawn with the gauges")
        # one panel per gauge, so that each measurement sits on its own curve
        panels = [(f"Water height {n}", n, [n]) for n in heights] + \
                 [(f"Pressure {n}", n, [n]) for n in pressures]
    else:
        ref, ref_time = None, None
        panels = ([("Water height", heights[0], heights)] if heights else []) + \
                 ([("Pressure", pressures[0], pressures)] if pressures else []) + \
                 [(title, names[0], names) for title, names in more_columns(table)]
    if table.has("front") and not surge:
        panels.append(("Surge front", "front", ["front"]))
    n = len(panels) + surge
    if n == 0:
        tide_csv.die(TOOL, f"{path} holds no gauge columns (heights [m], pressures [Pa], front).")

    plt = tide_csv.pyplot(TOOL)
    ncols = 2 if n > 3 else 1
    nrows = math.ceil(n / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(8 * ncols, 3.2 * nrows), squeeze=False)
    axes = axes.flatten()
    t = table.column("time")
    for ax, (title, unit_of, names) in zip(axes, panels):
        for name in names:
            ax.plot(t, table.column(name), label=f"tide {name}" if ref else name)
            if ref and name.lower() in ref:
                ax.plot(ref[ref_time], ref[name.lower()], "k-", lw=0.8, alpha=0.7,
                        label=f"{args.ref_label} {name}")
        ax.set_xlabel(table.label("time"))
        unit = table.unit(unit_of)
        ax.set_ylabel({"m": "height", "Pa": "pressure", "m/s": "velocity", "N": "force",
                       "N/m": "force per metre"}.get(unit, unit_of) + f" [{unit}]")
        ax.set_title(title)
    if surge:
        plot_surge(axes[len(panels)], table)
    for ax in axes[:n]:
        ax.legend(fontsize="small")
        ax.grid(True, alpha=0.3)
    for ax in axes[n:]:
        ax.set_visible(False)
    fig.tight_layout()
    out = args.output or os.path.join(os.path.dirname(path) or ".", "gauges.png")
    tide_csv.save(fig, out, TOOL)


if __name__ == "__main__":
    main()
