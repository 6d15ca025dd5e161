#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Benchmark: the sparse LDL^T direct solver (gpuLduSolve -solver LDLT, each executor) against the
# CPU baselines CHOLMOD (supernodal, threads of the BLAS it loads: all cores with OpenBLAS) and
# UMFPACK (gpuLduDirectBaseline), all in one ordering, on the 7-point Laplacians of K^3 grids
# (written here as Matrix Market files, 6 on the diagonal, -1 off it) and on any matrix files
# given. Table 1: per matrix and solver rows, nnz(L), flops, symbolic / numeric / solve (with
# refinement) / total ms, the numeric phase's GFLOP/s, the final ||b - A x||_2/||b||_2 (b = A 1).
# Table 2: per matrix the speed-ups of LDLT on the first executor over each baseline (numeric,
# total). The baselines' threads follow the environment (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS:
# on the H100 host, 8 BLAS threads without OpenMP ran CHOLMOD fastest, see docs/performance.md). The tables go to $OUT/ldlt.txt when OUT is set. A run over -limit seconds is shown as such.
# The binaries: $GPULDU_SOLVE, else the bin/gpuLduSolve beside the library folder of
# etc/run-env.sh (as tests/integration/driver.sh); $GPULDU_BASELINE, else gpuLduDirectBaseline beside it.
# Usage: ldlt.sh [-k "20 30"] [-executors "gpu cpu"] [-baselines "CHOLMOD UMFPACK"]
#                [-ordering METIS|AMD] [-limit S] [matrix.mtx[.gz] ...]
set -uo pipefail

sizes="20 30"
executors="gpu cpu"
baselines="CHOLMOD UMFPACK"
ordering=METIS
limit=300
files=()
while [ $# -gt 0 ]; do
    case "$1" in
        -k) sizes=$2; shift 2 ;;
        -executors) executors=$2; shift 2 ;;
        -baselines) baselines=$2; shift 2 ;;
        -ordering) ordering=$2; shift 2 ;;
        -limit) limit=$2; shift 2 ;;
        -h|-help) sed -n '3,14p' "$0"; exit 0 ;;
        -*) echo "unknown option $1" >&2; exit 1 ;;
        *) files+=("$1"); shift ;;
    esac
done

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=etc/run-env.sh
. "$here/../../etc/run-env.sh"
solve=${GPULDU_SOLVE:-${GPULDU_LIBDIR:-$GPULDU_ROOT/platforms/lib}/../bin/gpuLduSolve}
baseline=${GPULDU_BASELINE:-$(dirname "$solve")/gpuLduDirectBaseline}
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

# row <matrix> <solver> <log>: one line of table 1 from a gpuLduSolve or baseline log
row()
{
    awk -v m="$1" -v e="$2" '
        /^rows /          { rows = $2 }
        /^nnz\(L\) /      { nnzL = $2 }
        /^flops /         { fl = $2 }
        /^symbolic /      { sy = $2 }
        /^numeric /       { nu = $2; gf = $4; sub(/\(/, "", gf) }
        /^solve /         { so = $2 }
        /^refinement /    { so += $2 }
        /^residual /      { r = $2 }
        /^LDLT:  Solving/ { r = $12; sub(/,/, "", r) }
        END { printf "%-14s %-8s %8s %11s %10s %10s %11s %8s %10s %10s %10s\n", \
              m, e, rows, nnzL, fl, sy, nu, gf, so, sy + nu + so, r }' "$3"
}

table=$(
    printf "%-14s %-8s %8s %11s %10s %10s %11s %8s %10s %10s %10s\n" matrix solver rows "nnz(L)" flops \
        "symbolic" "numeric ms" "GFLOP/s" "solve ms" "total ms" residual
    for f in "${files[@]}"; do
        name=$(basename "$f")
        for e in $executors; do
            log=$work/$name.LDLT-$e.log
            if timeout "$limit" "$solve" "$f" -solver LDLT -executor "$e" -ordering "$ordering" > "$log" 2>&1; then
                row "$name" "LDLT-$e" "$log"
            else
                printf "%-14s %-8s failed or over %s s: %s\n" "$name" "LDLT-$e" "$limit" "$(tail -n 1 "$log")"
            fi
        done
        for b in $baselines; do
            log=$work/$name.$b.log
            if timeout "$limit" "$baseline" -solver "$b" -ordering "$ordering" "$f" > "$log" 2>&1; then
                row "$name" "$b" "$log"
            else
                printf "%-14s %-8s failed or over %s s: %s\n" "$name" "$b" "$limit" "$(tail -n 1 "$log")"
            fi
        done
    done
)
first=$(echo "$executors" | awk '{ print $1 }')
speedups=$(
    echo "$table" | awk -v ours="LDLT-$first" '
        NR == 1 { next }
        NF == 11 { numeric[$1, $2] = $7; total[$1, $2] = $10; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
        END {
            printf "%-14s %-10s %18s %18s\n", "matrix", "baseline", "numeric speed-up", "total speed-up"
            for (i = 1; i <= n; i++) for (key in numeric) {
                split(key, k, SUBSEP)
                if (k[1] != order[i] || k[2] ~ /^LDLT/ || !((k[1], ours) in numeric)) continue
                printf "%-14s %-10s %18.2f %18.2f\n", k[1], k[2], numeric[key]/numeric[k[1], ours], total[key]/total[k[1], ours]
            }
        }'
)
table="$table

speed-ups of LDLT-$first (baseline time / ours):
$speedups
$(date -u +%FT%TZ), $(hostname), $(nproc --all) cores$(nvidia-smi -L 2>/dev/null | head -n 1 | sed 's/^/, /'), ordering $ordering, BLAS of the baselines: $(ldd "$baseline" 2>/dev/null | awk '/libblas/ { print $3 }'), OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-unset}, OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}"
echo "$table"
[ -n "${OUT:-}" ] && echo "$table" > "$OUT/ldlt.txt"
rm -rf "$work"
