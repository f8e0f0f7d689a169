# SPDX-License-Identifier: LGPL-2.1-or-later
"""Per force-kernel instantiation: registers, stack and spills (ptxas -v) and the SASS
instructions of its candidate test and pair loops (nvdisasm -c listing), as CSV on stdout.

usage: python3 bench/sass_loops.py PTXAS_LOG SASS_LISTING [NAME_FILTER]

A loop is a backward branch's span.  The candidate test loop is a loop with 8 or more LDS.128
(one a candidate: the tile's positions) and no MUFU; its instructions per candidate are its
length over its LDS.128 count (the body is unrolled).  The pair loop is the innermost loop with a
MUFU.RSQ (the square root of r^2) and 2 to 7 LDS.128 (the neighbour's fields); its static length counts every
branch of it (the rare ones too: a particle's first pair, floating bodies, laminar viscosity),
so it is an upper bound of the instructions a pair costs, comparable between versions.  The
spill columns count the local-memory loads and stores (LDL, STL) in the tile loop (the
innermost loop around a test loop: once a tile of 64 candidates) and in the pair loop."""
import collections
import re
import subprocess
import sys


def demangle(names):
    try:
        out = subprocess.run(['c++filt'], input='\n'.join(names), capture_output=True, text=True,
                             check=True).stdout.split('\n')
        return dict(zip(names, out))
    except (OSError, subprocess.CalledProcessError):
        return {n: n for n in names}


def ptxas_info(path):
    """mangled name -> (registers, stack bytes, spill stores, spill loads)"""
    info, cur = {}, None
    for line in open(path):
        m = re.search(r"Compiling entry function '(\S+)'", line)
        if m:
            cur = m.group(1)
            info[cur] = [0, 0, 0, 0]
            continue
        if cur is None:
            continue
        m = re.search(r'(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads',
                      line)
        if m:
            info[cur][1:] = [int(x) for x in m.groups()]
        m = re.search(r'Used (\d+) registers', line)
        if m:
            info[cur][0] = int(m.group(1))
    return info


def functions(path):
    """mangled name -> [(address, instruction)], labels -> address, per function"""
    funcs, cur, pending = {}, None, []
    for line in open(path):
        m = re.match(r'\s*\.section\s+\.text\.([^,\s]+)', line)
        if m:
            cur = m.group(1)
            funcs[cur] = ([], {})
            pending = []
            continue
        if cur is None:
            continue
        if line.startswith('//----'):
            cur = None
            continue
        m = re.match(r'^(\.L_x_\d+):', line)
        if m:
            pending.append(m.group(1))
            continue
        m = re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;', line)
        if m:
            a = int(m.group(1), 16)
            for p in pending:
                funcs[cur][1][p] = a
            pending = []
            funcs[cur][0].append((a, m.group(2)))
    return funcs


def opcode(t):
    t = re.sub(r'^@!?U?P\w+\s+', '', t)
    return t.split()[0]


def loops(ins, labels):
    out = []
    for a, t in ins:
        m = re.search(r'BRA.*`\((\.L_x_\d+)\)', t)
        if m and labels.get(m.group(1), 1 << 60) <= a:
            s = labels[m.group(1)]
            out.append((s, a, [x for y, x in ins if s <= y <= a]))
    return out


def analyse(ins, labels):
    ls = loops(ins, labels)
    tests = []
    for s, e, body in ls:
        ops = [opcode(t) for t in body]
        n128 = sum(o == 'LDS.128' for o in ops)
        if n128 >= 8 and not any(o.startswith('MUFU') for o in ops):
            tests.append(len(body) / n128)
    def n128(b):
        return sum(opcode(t) == 'LDS.128' for t in b)

    def rsq(b):
        return any(opcode(t) == 'MUFU.RSQ' for t in b)
    # the pair loop: a square root and a few LDS.128 (the tile entry's position, velocity and
    # pressure term) and a find-first-set (the next neighbour of the mask), holding no smaller one
    cand = [(s, e, b) for s, e, b in ls
            if rsq(b) and 2 <= n128(b) < 8 and any(opcode(t).startswith('FLO') for t in b)]
    pair = [(s, e, b) for s, e, b in cand
            if not any(s <= s2 and e2 <= e and (s2, e2) != (s, e) for s2, e2, b2 in cand)]
    # the tile loop: the innermost loop holding a test loop (one tile of candidates)
    test_spans = [(s, e) for s, e, b in ls
                  if n128(b) >= 8 and not any(opcode(t).startswith('MUFU') for t in b)]
    outer = [(s, e, b) for s, e, b in ls
             if any(s <= s2 and e2 <= e and (s2, e2) != (s, e) for s2, e2 in test_spans)]
    tile = [(s, e, b) for s, e, b in outer
            if not any(s <= s2 and e2 <= e and (s2, e2) != (s, e) for s2, e2, b2 in outer)]

    def spills(b):
        return sum(opcode(t).split('.')[0] in ('LDL', 'STL') for t in b)
    return (tests, [len(b) for s, e, b in pair], max([spills(b) for s, e, b in tile] or [0]),
            max([spills(b) for s, e, b in pair] or [0]))


def main():
    info = ptxas_info(sys.argv[1])
    funcs = functions(sys.argv[2])
    filt = sys.argv[3] if len(sys.argv) > 3 else 'forces_'
    names = [n for n in funcs if filt in n]
    dm = demangle(names)
    print('kernel,registers,stack_bytes,spill_stores,spill_loads,instructions,'
          'test_instr_per_candidate,pair_loop_instr,tile_loop_spill_instr,pair_loop_spill_instr')
    for n in names:
        ins, labels = funcs[n]
        tests, pair, tile_sp, pair_sp = analyse(ins, labels)
        r = info.get(n, ['', '', '', ''])
        short = dm[n].split('(')[0].replace(',', ' ')
        print(f'"{short}",{r[0]},{r[1]},{r[2]},{r[3]},{len(ins)},'
              f'{"/".join(f"{t:.2f}" for t in sorted(set(tests)))},'
              f'{"/".join(str(p) for p in sorted(set(pair)))},{tile_sp},{pair_sp}')


if __name__ == '__main__':
    main()
