# SPDX-License-Identifier: LGPL-2.1-or-later
"""What tools/plot_*.py share: reading the CSV files tide and bench/ write (a header row whose
titles carry their units, e.g. "E_kin[J/m]"), with one clear sentence and exit code 2 for a
missing or ill-formed file, matplotlib without a display, and writing the PNG (exit code 1 when
it cannot be written)."""
import csv
import math
import os
import re
import sys

UNIT = re.compile(r"^(.*?)\s*\[(.*)\]$")


def die(tool, message, code=2):
    print(f"{tool}: {message}", file=sys.stderr)
    sys.exit(code)


def split_title(title):
    """'E_kin[J/m]' -> ('E_kin', 'J/m'); a title without brackets has no unit."""
    m = UNIT.match(title.strip())
    return (m.group(1), m.group(2)) if m else (title.strip(), "")


class Table:
    """A CSV file as text cells, with columns looked up by their name without the unit."""

    def __init__(self, path, tool, header, rows, lines):
        self.path, self.tool, self.header, self.rows, self.lines = path, tool, header, rows, lines
        self.names = [split_title(t)[0] for t in header]

    def has(self, name):
        return name in self.names

    def index(self, name):
        if name not in self.names:
            die(self.tool, f"{self.path} has no {name} column (columns: {', '.join(self.header)}).")
        return self.names.index(name)

    def unit(self, name):
        return split_title(self.header[self.index(name)])[1]

    def label(self, name, what=None):
        """Axis label 'what [unit]' from the header."""
        unit = self.unit(name)
        return f"{what or name} [{unit}]" if unit else (what or name)

    def text(self, name):
        k = self.index(name)
        return [r[k].strip() for r in self.rows]

    def column(self, name):
        """The column as floats (an empty cell is NaN); a cell that is not a number is an error."""
        k, out = self.index(name), []
        for row, line in zip(self.rows, self.lines):
            cell = row[k].strip()
            if not cell:
                out.append(math.nan)
                continue
            try:
                out.append(float(cell))
            except ValueError:
                die(self.tool, f"{self.path} line {line}: {self.header[k]} is '{cell}', not a number.")
        return out


def read_table(path, tool, required=(), what="CSV file"):
    """Reads path; required names columns that must be there (else: not a tide `what`)."""
    if not os.path.isfile(path):
        die(tool, f"{path} does not exist or is not a file.")
    try:
        with open(path, newline="") as f:
            reader = csv.reader(f)
            rows, lines = [], []
            for row in reader:
                if row and any(c.strip() for c in row):
                    rows.append(row)
                    lines.append(reader.line_num)
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        die(tool, f"cannot read {path}: {e}.")
    if not rows:
        die(tool, f"{path} is empty.")
    header, data = [h.strip() for h in rows[0]], rows[1:]
    for row, line in zip(data, lines[1:]):
        if len(row) != len(header):
            die(tool, f"{path} line {line} has {len(row)} values but the header has {len(header)}.")
    if not data:
        die(tool, f"{path} has a header but no data rows.")
    table = Table(path, tool, header, data, lines[1:])
    missing = [n for n in required if not table.has(n)]
    if missing:
        die(tool, f"{path} is not a {what}: it has no {', '.join(missing)} column"
                  f"{'s' if len(missing) > 1 else ''} (columns: {', '.join(header)}).")
    return table


def pyplot(tool):
    """matplotlib.pyplot drawing to files only (no display on compute nodes)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        die(tool, "matplotlib is not installed (Debian: apt-get install python3-matplotlib).", code=1)
    return plt


def save(fig, out, tool):
    try:
        fig.savefig(out, dpi=120)
    except OSError as e:
        die(tool, f"cannot write {out}: {e.strerror or e}.", code=1)
    print(f"{tool}: wrote {out}")
