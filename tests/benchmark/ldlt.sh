#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Benchmark: the sparse LDL^T direct solver (gpuLduSolve -solver LDLT) on the 7-point Laplacians
# of K^3 grids (written here as Matrix Market files, 6 on the diagonal, -1 off it) and on any
# matrix files given, with each executor. One table: rows, ordering, nnz(L), flops, tree levels,
# symbolic / numeric / solve / refinement ms, the numeric phase's GFLOP/s, refinement steps and
# the final relative residual ||b - A x||_2/||b||_2 (b = A 1). The same table goes to
# $OUT/ldlt.txt when OUT is set. A run over -limit seconds is shown as such.
# The binary: $GPULDU_SOLVE, else the bin/gpuLduSolve beside the library folder of
# etc/run-env.sh (as tests/integration/driver.sh).
# Usage: ldlt.sh [-k "20 30"] [-executors "cpu gpu"] [-limit S] [matrix.mtx[.gz] ...]
set -uo pipefail

sizes="20 30"
executors="cpu gpu"
limit=300
files=()
while [ $# -gt 0 ]; do
    case "$1" in
        -k) sizes=$2; shift 2 ;;
        -executors) executors=$2; shift 2 ;;
        -limit) limit=$2; shift 2 ;;
        -h|-help) sed -n '3,11p' "$0"; exit 0 ;;
        -*) echo "unknown option $1" >&2; exit 1 ;;
        *) files+=("$1"); shift ;;
    esac
done

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=etc/run-env.sh
. "$here/../../etc/run-env.sh"
solve=${GPULDU_SOLVE:-${GPULDU_LIBDIR:-$GPULDU_ROOT/platforms/lib}/../bin/gpuLduSolve}
work=$(mktemp -d "${TMPDIR:-/tmp}/ldlt.XXXXXX")

# laplacian <K> <file>: the lower triangle of the K^3 grid's 7-point Laplacian, symmetric
laplacian()
{
    awk -v k="$1" 'BEGIN {
        n = k*k*k
        print "%%MatrixMarket matrix coordinate real symmetric"
        print n, n, n + 3*k*k*(k - 1)
        for (z = 0; z < k; z++) for (y = 0; y < k; y++) for (x = 0; x < k; x++) {
            i = x + k*(y + k*z) + 1
            print i, i, 6
            if (x + 1 < k) print i + 1, i, -1
            if (y + 1 < k) print i + k, i, -1
            if (z + 1 < k) print i + k*k, i, -1
        }
    }' > "$2"
}

for k in $sizes; do
    laplacian "$k" "$work/lap$k.mtx"
    files+=("$work/lap$k.mtx")
done

table=$(
    printf "%-14s %-8s %8s %-7s %10s %10s %7s %10s %11s %9s %11s %8s %6s %10s\n" matrix executor rows ordering \
        "nnz(L)" flops levels "symbolic" "numeric ms" "GFLOP/s" "solve ms" "refine" steps residual
    for f in "${files[@]}"; do
        for e in $executors; do
            log=$work/$(basename "$f").$e.log
            if timeout "$limit" "$solve" "$f" -solver LDLT -executor "$e" > "$log" 2>&1; then
                awk -v m="$(basename "$f")" -v e="$e" '
                    /^rows /          { rows = $2 }
                    /^ordering /      { ord = $2 }
                    /^nnz\(L\) /      { nnzL = $2 }
                    /^flops /         { fl = $2 }
                    /^tree levels /   { lv = $3 }
                    /^symbolic /      { sy = $2 }
                    /^numeric /       { nu = $2; gf = $4; sub(/\(/, "", gf) }
                    /^solve /         { so = $2 }
                    /^refinement /    { re = $2; st = $4; sub(/\(/, "", st) }
                    /^LDLT:  Solving/ { r = $12; sub(/,/, "", r) }
                    END { printf "%-14s %-8s %8s %-7s %10s %10s %7s %10s %11s %9s %11s %8s %6s %10s\n", \
                          m, e, rows, ord, nnzL, fl, lv, sy, nu, gf, so, re, st, r }' "$log"
            else
                printf "%-14s %-8s failed or over %s s: %s\n" "$(basename "$f")" "$e" "$limit" "$(tail -n 1 "$log")"
            fi
        done
    done
    echo "$(date -u +%FT%TZ), $(hostname)$(nvidia-smi -L 2>/dev/null | head -n 1 | sed 's/^/, /'): gpuLduSolve <matrix> -solver LDLT -executor <executor> (b = A 1, refined to 1e-12)"
)
echo "$table"
[ -n "${OUT:-}" ] && echo "$table" > "$OUT/ldlt.txt"
rm -rf "$work"
