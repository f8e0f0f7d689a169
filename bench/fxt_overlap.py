#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Per-rank time breakdown and communication/computation overlap of a traced tide run.

Reads the tasks.rec and comms.rec that starpu_fxt_tool writes from a StarPU-MPI FxT trace and
reports, per rank: the traced span, the busy time of its workers per task family grouped as in
the multi-GPU paper's Figs. 8 and 10 (compute: cell_sort, sph_forces, integrate, dt_*;
packing: halo_pack, migrate_pack, migrate_unpack), the workers' idle share, and for the
messages it received the share of their flight time during which at least one of its workers
was computing (the overlap the task graph gives).  Writes a CSV and, with matplotlib, a PNG.

usage: fxt_overlap.py TRACE_DIR OUT_PREFIX
"""
import sys

PACK = {"halo_pack", "migrate_pack", "migrate_unpack"}


def records(path):
    rec = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                if rec:
                    yield rec
                rec = {}
                continue
            k, _, v = line.partition(": ")
            rec[k] = v
    if rec:
        yield rec


def union_length(iv, lo, hi):
    """Length of [lo, hi] covered by the union of the sorted, merged intervals iv."""
    tot = 0.0
    for a, b in iv:
        if b <= lo:
            continue
        if a >= hi:
            break
        tot += min(b, hi) - max(a, lo)
    return tot


def merge(iv):
    out = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    tdir, prefix = sys.argv[1], sys.argv[2]
    ranks = {}
    try:
        for r in records(tdir + "/tasks.rec"):
            if "StartTime" not in r or "EndTime" not in r or "MPIRank" not in r:
                continue
            rk = int(r["MPIRank"])
            d = ranks.setdefault(rk, {"iv": [], "busy": {}, "workers": set(), "t0": 1e300, "t1": 0})
            a, b = float(r["StartTime"]), float(r["EndTime"])
            d["iv"].append((a, b))
            d["workers"].add(r.get("WorkerId", "?"))
            name = r.get("Name", "?")
            d["busy"][name] = d["busy"].get(name, 0.0) + (b - a)
            d["t0"], d["t1"] = min(d["t0"], a), max(d["t1"], b)
    except OSError as e:
        sys.exit(f"fxt_overlap.py: cannot read {tdir}/tasks.rec: {e.strerror}")
    if not ranks:
        sys.exit(f"fxt_overlap.py: {tdir}/tasks.rec holds no executed task")
    comms = []
    try:
        for r in records(tdir + "/comms.rec"):
            if "SendTime" in r and "RecvTime" in r:
                comms.append((int(r["Dst"]), float(r["SendTime"]), float(r["RecvTime"]),
                              int(r.get("Size", 0))))
    except OSError:
        pass
    rows = []
    for rk in sorted(ranks):
        d = ranks[rk]
        span = d["t1"] - d["t0"]
        nw = len(d["workers"])
        pack = sum(v for k, v in d["busy"].items() if k in PACK)
        comp = sum(v for k, v in d["busy"].items() if k not in PACK)
        idle = max(0.0, nw * span - pack - comp)
        iv = merge(d["iv"])
        flight = covered = 0.0
        nmsg = nbytes = 0
        for dst, s, e, size in comms:
            if dst != rk or e <= s:
                continue
            flight += e - s
            covered += union_length(iv, s, e)
            nmsg += 1
            nbytes += size
        overlap = 100.0 * covered / flight if flight > 0 else float("nan")
        rows.append((rk, nw, span, comp, pack, idle, nmsg, nbytes, flight, overlap))
    with open(prefix + ".csv", "w") as f:
        f.write("rank,workers,span_ms,compute_ms,packing_ms,idle_ms,messages_in,bytes_in,"
                "flight_ms,overlap_pct\n")
        for r in rows:
            f.write("%d,%d,%.3f,%.3f,%.3f,%.3f,%d,%d,%.3f,%.1f\n" % r)
    print("rank workers  span ms  compute ms  packing ms  idle ms  msgs in  flight ms  overlap %")
    for r in rows:
        print("%4d %7d %8.1f %11.1f %11.1f %8.1f %8d %10.1f %9.1f" %
              (r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[8], r[9]))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(no matplotlib: no PNG)")
        return
    fig, ax = plt.subplots(figsize=(6, 3.5))
    x = [str(r[0]) for r in rows]
    comp = [r[3] for r in rows]
    pack = [r[4] for r in rows]
    idle = [r[5] for r in rows]
    ax.bar(x, comp, label="compute")
    ax.bar(x, pack, bottom=comp, label="packing")
    ax.bar(x, idle, bottom=[a + b for a, b in zip(comp, pack)], label="idle / waiting")
    for i, r in enumerate(rows):
        ax.text(i, r[3] + r[4] + r[5], "overlap %.0f%%" % r[9], ha="center", va="bottom")
    ax.set_xlabel("rank")
    ax.set_ylabel("worker time [ms]")
    ax.set_title("traced run: time per rank (FxT)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(prefix + ".png", dpi=120)
    print("wrote", prefix + ".csv", prefix + ".png")


if __name__ == "__main__":
    main()
