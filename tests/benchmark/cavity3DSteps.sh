#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Benchmark of the whole time step, for any supported OpenFOAM release (it reads only icoFoam's
# log: the Foundation's releases have no profiling): tutorials/cavity3D (icoFoam, N^3 cells, K
# steps) decomposed once (hierarchical, P blocks), then run on P ranks with p solved by native
# GAMG (GaussSeidel), GAMGGPU with Chebyshev and with GaussSeidel (the ranks of a GPU as one
# hierarchy), and PCGGPU+DIC (one system); U by PBiCGStab+DILU, native or PBiCGStabGPU. Prints one
# table: p solves and iterations, the first step and the steady step (mean of steps 2..K, from
# the master's ExecutionTime: OpenFOAM's ClockTime is whole seconds) and native GAMG's steady
# step over each. The same table goes to
# $OUT/cavity3DSteps-<N>.txt when OUT is set.
# Usage: cavity3DSteps.sh [-n N] [-steps K] [-np P] [-executor gpu|cpu]   (default 50, 4, 1, gpu)
# Needs the run environment: a sourced OpenFOAM release, or . etc/run-env.sh (Debian's v1912).
set -euo pipefail

n=50
steps=4
np=1
executor=gpu
while [ $# -gt 0 ]; do
    case "$1" in
        -n) n=$2; shift 2 ;;
        -steps) steps=$2; shift 2 ;;
        -np) np=$2; shift 2 ;;
        -executor) executor=$2; shift 2 ;;
        *) echo "Usage: $0 [-n N] [-steps K] [-np P] [-executor gpu|cpu]" >&2; exit 1 ;;
    esac
done
[ "$steps" -ge 2 ] || { echo "need at least 2 steps (the first one is set-up)" >&2; exit 1; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=etc/run-env.sh
. "$here/../../etc/run-env.sh"
# shellcheck source=tests/integration/fvSolutionEdit.sh
. "$here/../integration/fvSolutionEdit.sh"
# shellcheck source=tests/integration/checks.sh
. "$here/../integration/checks.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d "${TMPDIR:-/tmp}/cavity3DSteps.XXXXXX")

# setP <fvSolution> <solver> <smoother or preconditioner line>: p and pFinal's solver
setP()
{
    sed -i "/^\s*p\(Final\)\?\s*$/,/}/ { /^\s*\(preconditioner\|smoother\)\s/d; s/^\(\s*solver\s\+\)\S\+\s*;/\1$2;\n        $3/ }" "$1"
    [ "$(grep -cE "^\s*solver\s+$2\s*;" "$1")" -eq 2 ] || { echo "FAIL: could not set $2 in $1" >&2; exit 1; }
}

# run <case>: icoFoam on the case's ranks; fails with the log's end
run()
{
    local status=0
    echo "cavity3D ${n}^3, $steps steps, $np rank(s): $(basename "$1")" >&2
    if [ "$np" -gt 1 ]; then
        (cd "$1" && mpirun --oversubscribe -np "$np" icoFoam -parallel > log.icoFoam 2>&1) || status=$?
    else
        (cd "$1" && icoFoam > log.icoFoam 2>&1) || status=$?
    fi
    if [ "$status" -ne 0 ] || ! grep -q '^End' "$1/log.icoFoam"; then
        echo "FAIL: $1 (exit $status); kept $work" >&2
        { grep -A 6 'FOAM FATAL' "$1/log.icoFoam" || tail -n 8 "$1/log.icoFoam"; } >&2
        exit 1
    fi
}

# the native run meshes and decomposes (the tutorial's Allrun); the others copy its case
native=$work/nativeGAMG
cp -r "$here/../../tutorials/cavity3D" "$native"
"$native/Allclean" > /dev/null 2>&1 || true
editFvSolution "$native/system/fvSolution" native "" "" > /dev/null
setP "$native/system/fvSolution" GAMG "smoother        GaussSeidel;"
echo "cavity3D ${n}^3, $steps steps, $np rank(s): nativeGAMG (blockMesh, decomposePar, icoFoam)" >&2
(cd "$native" && ./Allrun -n "$n" -steps "$steps" -np "$np") > "$native/log.Allrun" 2>&1 \
    || { echo "FAIL: $native/log.Allrun; kept $work" >&2; tail -n 5 "$native/log.Allrun" >&2; exit 1; }

# plugin <name> <solver> <line>: the native case with the tutorial's GPU solvers and p as given
plugin()
{
    local dir=$work/$1
    copyCase "$native" "$dir"
    cp "$here/../../tutorials/cavity3D/system/fvSolution" "$dir/system/fvSolution"
    editFvSolution "$dir/system/fvSolution" plugin "$executor" "" > /dev/null
    setP "$dir/system/fvSolution" "$2" "$3"
    run "$dir"
}
plugin GAMGGPUChebyshev GAMGGPU "smoother        Chebyshev;"
plugin GAMGGPUGaussSeidel GAMGGPU "smoother        GaussSeidel;"
plugin PCGGPUDIC PCGGPU "preconditioner  DIC;"

# line <case>: "name solves iterations firstStep steadyStep"
line()
{
    local log=$1/log.icoFoam
    awk -v name="$(basename "$1")" '
        /Solving for p,/ { s++; it += $NF }
        /^ExecutionTime = / { c[++k] = $3 }
        END {
            steady = k > 1 ? (c[k] - c[1])/(k - 1) : 0
            print name, s + 0, it + 0, c[1], steady
        }' "$log"
}

table=$( {
    printf 'cavity3D %d^3 = %d cells, %d steps, %d rank(s), executor %s, OpenFOAM %s (%s), %s, %s\n' \
        "$n" $((n*n*n)) "$steps" "$np" "$executor" "${WM_PROJECT_VERSION:-?}" "$WM_PROJECT_DIR" \
        "$(date -u +%FT%TZ)" "$(nvidia-smi -L 2>/dev/null | head -n 1 || hostname)"
    for c in nativeGAMG GAMGGPUChebyshev GAMGGPUGaussSeidel PCGGPUDIC; do line "$work/$c"; done \
        | awk '
            { name[NR] = $1; s[NR] = $2; it[NR] = $3; first[NR] = $4; steady[NR] = $5 }
            END {
                fmt = "%-20s %9s %12s %14s %16s %18s\n"
                printf fmt, "p solver", "p solves", "p iterations", "first step (s)", "steady step (s)", "native GAMG/this"
                for (i = 1; i <= NR; i++)
                    printf fmt, name[i], s[i], it[i], sprintf("%.3g", first[i]), sprintf("%.3g", steady[i]), \
                        (steady[i] > 0 ? sprintf("%.2fx", steady[1]/steady[i]) : "-")
            }'
} )
echo "$table"
[ -z "${OUT:-}" ] || echo "$table" > "$OUT/cavity3DSteps-$n.txt"
[ -n "${CAVITY_KEEP:-}" ] || rm -rf "$work"
