#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Two builds on the GPU machine in one call, for a change that must not change speed: the kernel
# benchmark (gpuLduBenchCuda at 100^3 and 200^3) and tests/benchmark/cavity3D.sh's p-solves, each
# run with the old build, then the new, then the old again (the machine's drift shows as the
# difference of the two old runs). Each build folder holds lib/ (libgpuLduCore.so,
# libgpuLduSolvers.so) and bin/gpuLduBenchCuda. The OpenFOAM runtime must be set up (run.sh's
# start, or GPU_OF_RUNTIME's tar.xz unpacked and its env.sh sourced).
# Usage: sideBySide.sh <old build> <new build> [cavity3D N (default 100)]
# Writes $OUT/sideBySide-{kernel,cavity3D}-<old|new>-<k>.txt and prints the rows to compare.
set -uo pipefail

old=$1
new=$2
n=${3:-100}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${OUT:-$root/.gpu/out}
mkdir -p "$OUT"

run() # run <label> <build> <k>
{
    local label=$1 build=$2 k=$3
    LD_LIBRARY_PATH=$build/lib:${LD_LIBRARY_PATH:-} "$build/bin/gpuLduBenchCuda" 100 "$root/tests/data" \
        > "$OUT/sideBySide-kernel-$label-$k.txt" 2>&1
    LD_LIBRARY_PATH=$build/lib:${LD_LIBRARY_PATH:-} "$build/bin/gpuLduBenchCuda" 200 "$root/tests/data" \
        >> "$OUT/sideBySide-kernel-$label-$k.txt" 2>&1
    GPULDU_LIBDIR=$build/lib bash "$root/tests/benchmark/cavity3D.sh" -n "$n" -steps 2 -executor gpu \
        > "$OUT/sideBySide-cavity3D-$label-$k.txt" 2>&1
}

run old "$old" 1
run new "$new" 1
run old "$old" 2
# The kernel rows: name, ms of old 1, new, old 2, and new over the mean of the olds
awk '
    FNR == 1 { k = FILENAME; sub(/.*sideBySide-kernel-/, "", k); sub(/\.txt$/, "", k); size = "" }
    /^[0-9]+\^3 Laplacian/ { size = $1 }
    / ms / && size != "" {
        name = size " " substr($0, 1, 48); sub(/ +$/, "", name)
        for (i = 1; i <= NF; ++i) if ($i == "ms") { ms[name, k] = $(i - 1); break }
        if (!(name in seen)) { seen[name] = 1; order[++n] = name }
    }
    END {
        printf "%-56s %10s %10s %10s %9s\n", "kernel row (ms)", "old 1", "new", "old 2", "new/old"
        for (i = 1; i <= n; ++i) {
            r = order[i]; o = (ms[r, "old-1"] + ms[r, "old-2"])/2
            printf "%-56s %10s %10s %10s %9s\n", r, ms[r, "old-1"], ms[r, "new-1"], ms[r, "old-2"], \
                (o > 0 ? sprintf("%.3f", ms[r, "new-1"]/o) : "-")
        }
    }' "$OUT"/sideBySide-kernel-old-1.txt "$OUT"/sideBySide-kernel-new-1.txt "$OUT"/sideBySide-kernel-old-2.txt \
    | tee "$OUT/sideBySide-kernel.txt"
for f in "$OUT"/sideBySide-cavity3D-*.txt; do
    echo "== $(basename "$f")"
    grep -E 'p-solve|^(GaussSeidel|Chebyshev|l1Jacobi) ' "$f" | cut -c1-200
done
