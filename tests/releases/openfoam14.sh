#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The plugin on the Foundation's OpenFOAM-14, as its users have it: the release sourced (its own
# etc/bashrc, nothing of Debian's v1912 in the environment), ./Allwmake building against it into
# $FOAM_USER_LIBBIN, then native against plugin on OpenFOAM-14's own applications, solve by solve
# (executor cpu: every solve line equal; gpu: as the integration tests allow, with checkNative):
#   - icoFoam cavity: p by PCGGPU+DIC, U by PBiCGStabGPU+DILU (native: 1365, 61, 62 iterations)
#   - the cavity's p by GAMGGPU: GaussSeidel; DIC with interpolateCorrection; down to a coarsest
#     level of one cell (OpenFOAM-14's diagonalSolver there)
#   - pitzDaily by foamRun -solver incompressibleFluid: p by GAMGGPU (GaussSeidel), U, k and
#     epsilon by PBiCGStabGPU+DILU
#   - cavity3D 20^3 on 4 ranks (hierarchical 2x2): each rank its own system and the ranks as one
#     system (PCGGPU, PBiCGStabGPU), and as one GAMG hierarchy; the cavity on 4 ranks with each
#     rank its own GAMG hierarchy
#   - laplacianFoam flange (ansysToFoam) with LDLTGPU against native PCG to 1e-12
# The release is OpenFOAM-14 built for Debian 12 (../shared/openfoam/openfoam14-bundle.tar.xz,
# its BUNDLE.md), unpacked once into $GPULDU_DEPS (default ~/.cache/gpuLduSolvers).
# GPULDU_OPENFOAM14_LIBDIR=<dir>: use the plugin and core already built against OpenFOAM-14 in
# <dir> instead of building (the GPU machine, which has no build tools for it).
# Usage: openfoam14.sh [cpu|gpu]   (default cpu). Prints "<P> passed, <F> failed" last.
set -uo pipefail

executor=${1:-cpu}
allow=1
[ "$executor" = gpu ] && allow=2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
integration=$root/tests/integration
tutorials=$root/tutorials
logs=$root/build/logs/openfoam14
work=$(mktemp -d "${TMPDIR:-/tmp}/openfoam14.XXXXXX")
passed=0
failed=0
mkdir -p "$logs"
log=$logs/Allwmake.log

# shellcheck source=tests/integration/checks.sh
. "$integration/checks.sh"
# shellcheck source=tests/suites.sh
. "$root/tests/suites.sh"

# shellcheck source=tests/releases/openfoam14Env.sh
. "$here/openfoam14Env.sh"
if ! openfoam14Env > "$logs/environment.log" 2>&1 || [ -z "${WM_PROJECT_DIR:-}" ]; then
    echo "FAIL the OpenFOAM-14 environment: $(tail -n 3 "$logs/environment.log")"
    echo "0 passed, 1 failed"
    exit 1
fi

# The build, as a user of the release runs it
if [ -n "${GPULDU_OPENFOAM14_LIBDIR:-}" ]; then
    export FOAM_USER_LIBBIN=$GPULDU_OPENFOAM14_LIBDIR GPULDU_LIBDIR=$GPULDU_OPENFOAM14_LIBDIR
    export LD_LIBRARY_PATH=$FOAM_USER_LIBBIN:$LD_LIBRARY_PATH
    echo "(built before: $FOAM_USER_LIBBIN)" > "$log"
    status=0
    expect "the plugin built against OpenFOAM-$WM_PROJECT_VERSION is in $FOAM_USER_LIBBIN" \
        eval 'test -f "$FOAM_USER_LIBBIN/libgpuLduSolvers.so" && test -f "$FOAM_USER_LIBBIN/libgpuLduCore.so"'
else
    "$root/Allwmake" > "$log" 2>&1
    status=$?
    expect "./Allwmake against OpenFOAM-$WM_PROJECT_VERSION: built and installed into \$FOAM_USER_LIBBIN ($FOAM_USER_LIBBIN)" \
        eval 'test $status -eq 0 && test -f "$FOAM_USER_LIBBIN/libgpuLduSolvers.so" && test -f "$FOAM_USER_LIBBIN/libgpuLduCore.so" \
            && grep -q "building against OpenFOAM 14" "$log"'
fi
if [ "$status" -ne 0 ]; then
    tail -n 20 "$log" | sed 's/^/    /'
    echo "$passed passed, $failed failed"
    exit 1
fi
log=$logs/openfoam14.log

# shellcheck source=etc/run-env.sh
. "$root/etc/run-env.sh"
# shellcheck source=tests/integration/fvSolutionEdit.sh
. "$integration/fvSolutionEdit.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
here=$integration
# shellcheck source=tests/integration/gamgChecks.sh
. "$integration/gamgChecks.sh"

# solveLines <log>: the log's solve lines from "Solving for" on (the solver's name differs)
solveLines()
{
    grep 'Solving for' "$1" | sed 's/^.*Solving for/Solving for/'
}

# sameSolves <oracle "field=total ..." or -> <caseDir>: executor cpu: the case run natively and
# with the plugin (its Allrun: the release's application), every solve line equal to the last
# printed digit, native's totals per field the oracle's; executor gpu: compareNative.sh's check
# (the same iterations within $allow, residuals to 5e-2)
sameSolves()
{
    local expected=$1 caseDir=$2 name native plugin dir app logs=() pair total off lines
    [ "$executor" = gpu ] && { check "$expected" "$caseDir"; return; }
    name=$(basename "$caseDir")
    native=$work/$name-native
    plugin=$work/$name-plugin
    for dir in "$native" "$plugin"; do
        rm -rf "$dir"
        cp -r "$caseDir" "$dir"
        "$dir/Allclean" > /dev/null 2>&1 || true
    done
    editFvSolution "$native/system/fvSolution" native "" "" > /dev/null
    editFvSolution "$plugin/system/fvSolution" plugin cpu "" > /dev/null
    for dir in "$native" "$plugin"; do
        (cd "$dir" && ./Allrun > log.Allrun 2>&1)
        app=$(sed -n 's/^\s*application\s\+\(\S\+\)\s*;.*/\1/p' "$dir/system/controlDict")
        [ -f "$dir/log.$app" ] || app=foamRun
        logs+=("$dir/log.$app")
    done
    lines=$(solveLines "${logs[0]}" | grep -c . || true)
    off=$(diff <(solveLines "${logs[0]}") <(solveLines "${logs[1]}") | grep -c '^<' || true)
    for pair in $expected; do
        [ "$pair" = - ] && continue
        total=$(solveLines "${logs[0]}" | awk -v f="${pair%=*}" '$3 == f"," { s += $NF } END { print s + 0 }')
        [ "$total" = "${pair#*=}" ] || off="$off, native's ${pair%=*} $total iterations, not ${pair#*=}"
    done
    if [ "$lines" -gt 0 ] && [ "$off" = 0 ] && grep -qE '^\s*[A-Za-z]*GPU:  Solving for' "${logs[1]}"; then
        passed=$((passed + 1))
        echo "PASS $name executor cpu: $lines solve lines of $(basename "${logs[0]}"), every one native's"
    else
        failed=$((failed + 1))
        echo "FAIL $name executor cpu: $lines solve lines, $off differ (kept $native, $plugin)"
        diff <(solveLines "${logs[0]}") <(solveLines "${logs[1]}") | head -n 4 | sed 's/^/    /'
    fi
}

# icoFoam: the Krylov solvers (the tutorial's p and U solvers as it has them)
cp -r "$tutorials/cavity" "$work/cavity"
sameSolves "p=1365 Ux=61 Uy=62" "$work/cavity"
# GAMG with OpenFOAM-14's V-cycle
sameSolves - "$(gamgCase cavity cavity-p-GaussSeidel 'p|pFinal' GaussSeidel)"
sameSolves - "$(gamgCase cavity cavity-p-DIC-interpolate 'p|pFinal' DIC 'interpolateCorrection yes')"
# down to one cell: OpenFOAM-14 solves a coarsest level without faces by its diagonalSolver
sameSolves - "$(gamgCase cavity cavity-p-oneCellCoarsest 'p|pFinal' GaussSeidel 'nCellsInCoarsestLevel 1')"
# foamRun -solver incompressibleFluid (OpenFOAM-14's simpleFoam)
sameSolves - "$(gamgCase pitzDaily pitzDaily-p p GaussSeidel)"
# suite <name> <command...>: another test script's checks, its totals added to these
suite()
{
    local name=$1 out
    shift
    out=$("$@" 2>&1)
    echo "$out" | grep -E '^(PASS|FAIL|    )'
    addTotals <(echo "$out") || echo "FAIL $name: no totals"
}

# decomposed: the 4 ranks each its own system, and those of a (pretended) device as one system
suite "decomposed.sh cavity3D" env DECOMPOSED_CASES="cavity3D:hierarchical cavity3D:hierarchical:1" \
    bash "$integration/decomposed.sh" "$executor"
# and as one GAMG hierarchy
decomposed "$(gamgCase cavity3D cavity3D-p-decomposed 'p|pFinal' GaussSeidel)" icoFoam one
# each rank its own hierarchy (executor cpu: two pretended devices, their groups with patches to
# each other, directSolveCoarsest): the processor patches of every level through OpenFOAM's
# interface updates (the Foundation's have no add flag: the smoothers' residuals pass the negated
# coefficients of the coupled patches) and OpenFOAM's LU gathering every rank's coarsest level
[ "$executor" = cpu ] && decomposed "$(gamgCase cavity cavity-p-direct-twoGroups-decomposed 'p|pFinal' GaussSeidel 'directSolveCoarsest yes')" icoFoam own 2
# one hierarchy with the direct coarsest solve: its coarsest level by this release's LU
decomposed "$(gamgCase cavity cavity-p-direct-decomposed 'p|pFinal' GaussSeidel 'directSolveCoarsest yes')" icoFoam one
# laplacianFoam: the direct solver against native PCG
suite "ldlt.sh flange" env LDLT_SUITE=flange bash "$integration/ldlt.sh" "$executor"

[ "$failed" -eq 0 ] && rm -rf "$work"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
