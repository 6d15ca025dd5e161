#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Sums up a kernel timeline (kernelTimeline.cpp's timeline.<pid>.tsv): for each CUDA graph the
process replayed, a replay's nodes, its span (first start to last end), the nodes' busy time and
the gaps between them; then, over the replays of the graphs, each kernel's count and time a
replay and each size of grid's. Usage: kernelTimeline.py timeline.<pid>.tsv [--top N]"""

import argparse
import collections
import re
import shutil
import subprocess


def demangled(names):
    """The names as c++filt writes them (as they are where it is missing)"""
    if not shutil.which("c++filt"):
        return {n: n for n in names}
    names = list(names)
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.split("\n")
    return dict(zip(names, out))


def short(name):
    """A kernel's name without its templates' noise: its function's last name, and the gpuLdu
    functor it runs where it names one (forEachKernel<gpuLdu::detail::SpmvRow> as
    forEachKernel[SpmvRow])"""
    head = re.sub(r"<.*", "", name.split("(")[0]).replace("void ", "").strip().split("::")[-1]
    functors = re.findall(r"gpuLdu::detail::(\w+)", name.split("(")[0])
    return head + ("[" + functors[0] + "]" if functors else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("timeline")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--min-nodes", type=int, default=1, help="only the graphs of at least this many nodes a replay")
    args = parser.parse_args()

    rows = []
    numbered = {}
    with open(args.timeline) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "n":
                numbered[fields[1]] = fields[2]
                continue
            kind, start, end, grid, block, graph, stream, name = fields
            rows.append((kind, int(start), int(end), int(grid), int(block), int(graph), int(stream), numbered[name]))
    names = demangled({r[7] for r in rows if r[0] == "k"})

    # the replays: runs of consecutive records of one graph
    replays = collections.defaultdict(list)
    current = None
    for r in rows:
        if r[5] == 0:
            current = None
            continue
        if current is None or current[0] != r[5]:
            current = (r[5], [])
            replays[r[5]].append(current[1])
        current[1].append(r)

    print(f"{len(rows)} records, {sum(1 for r in rows if r[5])} in graphs, {len(replays)} graphs")
    print("graph  replays  nodes  span_us  busy_us  gaps_us  (means a replay)")
    for graph, runs in sorted(replays.items()):
        spans = [run[-1][2] - run[0][1] for run in runs]
        busy = [sum(r[2] - r[1] for r in run) for run in runs]
        nodes = [len(run) for run in runs]
        n = len(runs)
        print(f"{graph:5d}  {n:7d}  {sum(nodes)/n:5.0f}  {sum(spans)/n/1e3:7.1f}  {sum(busy)/n/1e3:7.1f}"
              f"  {(sum(spans)-sum(busy))/n/1e3:7.1f}")

    # each node's time and the gap before it, by kernel and by grid size, over every replay
    byName = collections.defaultdict(lambda: [0, 0, 0])
    byGrid = collections.defaultdict(lambda: [0, 0, 0])
    for graph in [g for g, runs in replays.items() if len(runs[0]) < args.min_nodes]:
        del replays[graph]
    nReplays = sum(len(runs) for runs in replays.values())
    for runs in replays.values():
        for run in runs:
            previousEnd = run[0][1]
            for r in run:
                label = short(names.get(r[7], r[7])) if r[0] == "k" else r[7]
                threads = r[3]*r[4] if r[0] == "k" else 0
                size = 1 << max(threads - 1, 0).bit_length() if threads else 0
                for table, key in ((byName, label), (byGrid, size)):
                    table[key][0] += 1
                    table[key][1] += r[2] - r[1]
                    table[key][2] += max(r[1] - previousEnd, 0)
                previousEnd = max(previousEnd, r[2])
    if nReplays:
        print(f"\nby kernel (means over {nReplays} replays of all graphs): count, busy us, gaps before it us")
        for label, (count, busy, gap) in sorted(byName.items(), key=lambda kv: -(kv[1][1] + kv[1][2]))[:args.top]:
            print(f"  {count/nReplays:7.1f} {busy/nReplays/1e3:8.1f} {gap/nReplays/1e3:8.1f}  {label[:110]}")
        print("\nby threads launched (rounded up to a power of 2; copies and memsets as 0)")
        for size, (count, busy, gap) in sorted(byGrid.items()):
            print(f"  {size:10d} {count/nReplays:7.1f} {busy/nReplays/1e3:8.1f} {gap/nReplays/1e3:8.1f}")


if __name__ == "__main__":
    main()
