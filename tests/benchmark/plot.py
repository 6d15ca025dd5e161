#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
# The main table as a picture: ms per p-solve of the cavity3D benchmark (native PCG and GAMG on
# one core, PCGGPU with DIC and, where the table has it, with diagonal on the GPU) and ms per PCG
# iteration against cuSPARSE IC(0) at 1M and 8M rows.
# Usage: plot.py <cavity3D-100.txt> <step-e.log of tests/gpu/run.sh> <out.png>   (files from tests/gpu/run.sh)
import re
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt


def row(text, label):
    """The numbers of the table row that starts with label."""
    for line in text.splitlines():
        if line.startswith(label):
            return [float(x) for x in re.findall(r"[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?", line[len(label):])]
    raise SystemExit(f"no row '{label}'")


cavity = open(sys.argv[1]).read()
bench = open(sys.argv[2]).read()
title = cavity.splitlines()[0]
perSolve = row(cavity, "ms per p-solve")
nativePcg, nativeGamg, gpu = perSolve[:3]
# the PCGGPU+diagonal column comes after the two ratios
diagonal = perSolve[5] if len(perSolve) > 5 else None
blocks = bench.split("IC(0)/DIC-PCG on the ")[1:]
sizes = [b.split(" ")[0] for b in blocks]
ours = [row(b, "ms per iteration")[0] for b in blocks]
cusparse = [row(b, "ms per iteration")[1] for b in blocks]

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
labels = ["native PCG+DIC\n(1 core)", "native GAMG\n(1 core)", "PCGGPU+DIC\n(GPU)"]
values = [nativePcg, nativeGamg, gpu]
colours = ["#888888", "#bbbbbb", "#2a7ab9"]
if diagonal is not None:
    labels.append("PCGGPU+diagonal\n(GPU)")
    values.append(diagonal)
    colours.append("#5fa8d9")
bars = left.bar(labels, values, color=colours)
left.bar_label(bars, fmt="%.0f")
left.tick_params(axis="x", labelsize=8)
left.set_ylabel("ms per p-solve")
left.set_title("icoFoam 3-D cavity 100^3, p-solve")
x = range(len(sizes))
w = 0.38
b1 = right.bar([i - w/2 for i in x], cusparse, w, label="cuSPARSE IC(0)-PCG", color="#bbbbbb")
b2 = right.bar([i + w/2 for i in x], ours, w, label="PCGGPU+DIC", color="#2a7ab9")
right.bar_label(b1, fmt="%.2f")
right.bar_label(b2, fmt="%.2f")
right.set_xticks(list(x), [f"{s} Laplacian" for s in sizes])
right.set_ylabel("ms per PCG iteration")
right.set_title("per iteration, same matrix and tolerance")
right.legend()
when = re.search(r"\((\d{4}-\d\d-\d\dT[\d:]+Z), [^,]*(?:, GPU 0: ([^(]+))?", title)
fig.suptitle(f"{(when.group(2) or 'no GPU').strip()}, {when.group(1)}: the cavity in one run, native on one core of the same machine",
             fontsize=9)
fig.tight_layout()
fig.savefig(sys.argv[3], dpi=110)
