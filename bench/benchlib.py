# SPDX-License-Identifier: LGPL-2.1-or-later
"""Small helpers shared by bench/sph_ladder.sh and bench/sched_policies.sh (standard library only).

  benchlib.py field SUMMARY.csv COLUMN...      print the named columns of a tide run_summary.csv
                                               (COLUMN is matched without its "[unit]" suffix)
  benchlib.py dp NF NB DP0 TARGET              the spacing giving about TARGET particles, given a
                                               run at spacing DP0 with NF fluid and NB boundary
                                               particles (fluid ~ dp^-3, boundary ~ dp^-2)
  benchlib.py count NF NB DP0 DP               the particle count predicted at spacing DP
  benchlib.py workerstats FILE                 parse StarPU's STARPU_WORKER_STATS summary: prints
                                               "cpu_tasks gpu_tasks cpu_exec_ms gpu_exec_ms nworkers"
  benchlib.py table CSV                        print a CSV as an aligned text table
"""
import csv
import re
import sys


def read_summary(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if len(rows) < 2:
        raise SystemExit(f"benchlib: {path}: no value row")
    keys = [re.sub(r"\[.*\]$", "", k) for k in rows[0]]
    return dict(zip(keys, rows[1]))


def cmd_field(path, *cols):
    s = read_summary(path)
    out = []
    for c in cols:
        if c not in s:
            raise SystemExit(f"benchlib: {path}: no column {c!r} (have {', '.join(s)})")
        out.append(s[c])
    print(" ".join(out))


def count(nf, nb, dp0, dp):
    r = dp0 / dp
    return nf * r ** 3 + nb * r ** 2


def cmd_dp(nf, nb, dp0, target):
    nf, nb, dp0, target = float(nf), float(nb), float(dp0), float(target)
    # count(dp) is decreasing in dp: bisect on log(dp)
    lo, hi = dp0 * 1e-3, dp0 * 1e3
    for _ in range(200):
        mid = (lo * hi) ** 0.5
        if count(nf, nb, dp0, mid) > target:
            lo = mid
        else:
            hi = mid
    dp = (lo * hi) ** 0.5
    # round to 4 significant digits so the value is readable in file names and logs
    print(f"{float(f'{dp:.4g}'):.6g}")


def cmd_count(nf, nb, dp0, dp):
    print(f"{count(float(nf), float(nb), float(dp0), float(dp)):.0f}")


def parse_workerstats(text):
    """Return (cpu_tasks, gpu_tasks, cpu_exec_ms, gpu_exec_ms, nworkers) from StarPU's
    'Worker stats:' block.  Worker header lines are the worker name at column 0 ("CPU 3",
    "CUDA 0.0 (NVIDIA H200 139.8 GiB 00:1a.0)", "OpenCL 0 ..."), followed by indented lines
    "\tN task(s)" and, with STARPU_PROFILING=1, "\ttime split: total T ms = executing: E ms ..."."""
    cpu_t = gpu_t = 0
    cpu_e = gpu_e = 0.0
    n = 0
    kind = None
    inside = False
    for line in text.splitlines():
        if line.startswith("Worker stats:"):
            inside = True
            continue
        if not inside:
            continue
        if line.startswith("Global time split") or line.startswith("#----"):
            if n:
                inside = False
            continue
        if line and not line[0].isspace():
            name = line.strip()
            n += 1
            kind = "gpu" if re.match(r"(CUDA|OpenCL|HIP)\b", name) else "cpu"
            continue
        m = re.match(r"\s+(\d+) task\(s\)", line)
        if m and kind:
            if kind == "gpu":
                gpu_t += int(m.group(1))
            else:
                cpu_t += int(m.group(1))
            continue
        m = re.match(r"\s+time split: total [\d.]+ ms = executing: ([\d.]+) ms", line)
        if m and kind:
            if kind == "gpu":
                gpu_e += float(m.group(1))
            else:
                cpu_e += float(m.group(1))
    return cpu_t, gpu_t, cpu_e, gpu_e, n


def cmd_workerstats(path):
    with open(path, errors="replace") as f:
        cpu_t, gpu_t, cpu_e, gpu_e, n = parse_workerstats(f.read())
    print(f"{cpu_t} {gpu_t} {cpu_e:.2f} {gpu_e:.2f} {n}")


def cmd_table(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        return
    w = [max(len(r[i]) if i < len(r) else 0 for r in rows) for i in range(len(rows[0]))]
    for j, r in enumerate(rows):
        print("  ".join(c.rjust(w[i]) for i, c in enumerate(r)))
        if j == 0:
            print("  ".join("-" * x for x in w))


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    cmd, args = argv[1], argv[2:]
    fn = {"field": cmd_field, "dp": cmd_dp, "count": cmd_count,
          "workerstats": cmd_workerstats, "table": cmd_table}.get(cmd)
    if fn is None:
        raise SystemExit(__doc__)
    fn(*args)


if __name__ == "__main__":
    main(sys.argv)
