#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The plugin on a built OpenFOAM release, as its users have it: the release sourced (its own
# etc/bashrc, nothing of Debian's v1912 in the environment; tests/releases/releaseEnv.sh),
# ./Allwmake building against it into $FOAM_USER_LIBBIN, then native against plugin on the
# release's own applications, solve by solve (executor cpu: every solve line equal to the last
# printed digit; gpu: as the integration tests allow, with checkNative). The releases:
#   openfoam14   the Foundation's OpenFOAM-14     esi2506   ESI's OpenFOAM v2506
# On both:
#   - the build prints no warning of a header it cannot find (wmkdepend's "could not open")
#   - icoFoam cavity: p by PCGGPU+DIC, U by PBiCGStabGPU+DILU (native: 1365, 61, 62 iterations)
#   - the cavity's p by GAMGGPU: GaussSeidel; DIC with interpolateCorrection; down to a coarsest
#     level of one cell (OpenFOAM-14: its diagonalSolver there; ESI: PCG on the one cell)
#   - pitzDaily (ESI: simpleFoam; the Foundation: foamRun -solver incompressibleFluid): p by
#     GAMGGPU (GaussSeidel), U, k and epsilon by PBiCGStabGPU+DILU
#   - cavity3D 20^3 on 4 ranks (hierarchical 2x2) and on 3 (a random split): each rank its own
#     system and the ranks as one system (PCGGPU, PBiCGStabGPU), and as one GAMG hierarchy (2x2
#     and a random 4-way split); the cavity on 4 ranks with each rank its own GAMG hierarchy and
#     with one hierarchy, both with directSolveCoarsest
#   - laplacianFoam flange (ansysToFoam) with LDLTGPU against native PCG to 1e-12
# ESI's own (v2506):
#   - GAMG with nPreSweeps 2 (its residual after pre-smoothing taken row by row)
#   - norm none on PCG, PBiCGStab and GAMG
#   - log 0 (U's solves not printed, by either) and log 2 (p's; native's per-iteration lines are
#     not the plugin's: docs/usage.md)
# The release is one of ../shared/openfoam's bundles (releaseEnv.sh), unpacked once into
# $GPULDU_DEPS (default ~/.cache/gpuLduSolvers).
# GPULDU_RELEASE_BUILDS=<dir>: use the plugin and core already built against the release in
# <dir>/<release>/lib instead of building (the GPU machine, which has no build tools for it).
# Usage: builtRelease.sh <openfoam14|esi2506> [cpu|gpu]   (default cpu). Prints "<P> passed, <F>
# failed" last.
set -uo pipefail

release=${1:?usage: builtRelease.sh <openfoam14|esi2506> [cpu|gpu]}
executor=${2:-cpu}
allow=1
[ "$executor" = gpu ] && allow=2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
integration=$root/tests/integration
tutorials=$root/tutorials
logs=$root/build/logs/$release
work=$(mktemp -d "${TMPDIR:-/tmp}/$release.XXXXXX")
passed=0
failed=0
mkdir -p "$logs"
log=$logs/Allwmake.log

# shellcheck source=tests/lib/checks.sh
. "$root/tests/lib/checks.sh"
# shellcheck source=tests/suites.sh
. "$root/tests/suites.sh"

# shellcheck source=tests/releases/releaseEnv.sh
. "$here/releaseEnv.sh"
if ! releaseEnv "$release" > "$logs/environment.log" 2>&1 || [ -z "${WM_PROJECT_DIR:-}" ]; then
    echo "FAIL the $release environment: $(tail -n 3 "$logs/environment.log")"
    echo "0 passed, 1 failed"
    exit 1
fi
esi=no
[[ $WM_PROJECT_VERSION == v* ]] && esi=yes

# The build, as a user of the release runs it
if [ -n "${GPULDU_RELEASE_BUILDS:-}" ]; then
    export FOAM_USER_LIBBIN=$GPULDU_RELEASE_BUILDS/$release/lib
    export GPULDU_LIBDIR=$FOAM_USER_LIBBIN LD_LIBRARY_PATH=$FOAM_USER_LIBBIN:$LD_LIBRARY_PATH
    echo "(built before: $FOAM_USER_LIBBIN)" > "$log"
    status=0
    expect "the plugin built against OpenFOAM $WM_PROJECT_VERSION is in $FOAM_USER_LIBBIN" \
        eval 'test -f "$FOAM_USER_LIBBIN/libgpuLduSolvers.so" && test -f "$FOAM_USER_LIBBIN/libgpuLduCore.so"'
else
    "$root/Allwmake" > "$log" 2>&1
    status=$?
    expect "./Allwmake against OpenFOAM $WM_PROJECT_VERSION: built and installed into \$FOAM_USER_LIBBIN ($FOAM_USER_LIBBIN)" \
        eval 'test $status -eq 0 && test -f "$FOAM_USER_LIBBIN/libgpuLduSolvers.so" && test -f "$FOAM_USER_LIBBIN/libgpuLduCore.so" \
            && grep -q "building against OpenFOAM $WM_PROJECT_VERSION" "$log"'
    expect "./Allwmake against OpenFOAM $WM_PROJECT_VERSION: no header reported missing" \
        eval '! grep -iE "could not open|No such file" "$log"'
fi
if [ "$status" -ne 0 ]; then
    tail -n 20 "$log" | sed 's/^/    /'
    echo "$passed passed, $failed failed"
    exit 1
fi
log=$logs/$release.log

# shellcheck source=etc/run-env.sh
. "$root/etc/run-env.sh"
# shellcheck source=tests/lib/fvSolutionEdit.sh
. "$root/tests/lib/fvSolutionEdit.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shellcheck source=tests/lib/gamgChecks.sh
. "$root/tests/lib/gamgChecks.sh"

# solveLines <log>: the log's solve lines from "Solving for" on (the solver's name differs)
solveLines()
{
    grep 'Solving for' "$1" | sed 's/^.*Solving for/Solving for/'
}

# withFieldKeywords <caseDir> <field regex> <keyword lines "k v; k v">: the solver dictionaries of
# those fields ('[A-Za-z]+': every one) get the lines after their solver line; prints the case
withFieldKeywords()
{
    awk -v fields="$2" -v extra="$3" '
        $0 ~ "^    (" fields ")$" { inside = 1 }
        inside && /^    }/ { inside = 0 }
        { print }
        inside && /^ *solver / {
            n = split(extra, e, ";")
            for (i = 1; i <= n; i++) if (e[i] ~ /[^ ]/) { sub(/^ */, "", e[i]); print "        " e[i] ";" }
        }' "$1/system/fvSolution" > "$1/system/fvSolution.new" && mv "$1/system/fvSolution.new" "$1/system/fvSolution"
    echo "$1"
}

# tutorialCopy <tutorial> <name>: a copy of the tutorial in the scratch folder; prints it
tutorialCopy()
{
    rm -rf "${work:?}/$2"
    cp -r "$tutorials/$1" "$work/$2"
    echo "$work/$2"
}

# sameSolves <oracle "field=total ..." or -> <caseDir> [what the solve lines must hold]:
# executor cpu: the case run natively and with the plugin (its Allrun: the release's
# application), every solve line equal to the last printed digit (none only in one of them),
# native's totals per field the oracle's, the plugin's log with a GPU solver's line (or, given,
# a line matching the extended regex); executor gpu: compareNative.sh's check (the same
# iterations within $allow, residuals to 5e-2)
sameSolves()
{
    local expected=$1 caseDir=$2 shows=${3:-'^\s*[A-Za-z]*GPU:  Solving for'} name native plugin dir app \
        logs=() pair total off lines
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
    off=$(diff <(solveLines "${logs[0]}") <(solveLines "${logs[1]}") | grep -c '^[<>]' || true)
    for pair in $expected; do
        [ "$pair" = - ] && continue
        total=$(solveLines "${logs[0]}" | awk -v f="${pair%=*}" '$3 == f"," { s += $NF } END { print s + 0 }')
        [ "$total" = "${pair#*=}" ] || off="$off, native's ${pair%=*} $total iterations, not ${pair#*=}"
    done
    if [ "$lines" -gt 0 ] && [ "$off" = 0 ] && grep -qE "$shows" "${logs[1]}"; then
        passed=$((passed + 1))
        echo "PASS $name executor cpu: $lines solve lines of $(basename "${logs[0]}"), every one native's"
    else
        failed=$((failed + 1))
        echo "FAIL $name executor cpu: $lines solve lines, $off differ (kept $native, $plugin)"
        diff <(solveLines "${logs[0]}") <(solveLines "${logs[1]}") | head -n 4 | sed 's/^/    /'
    fi
}

# suite <name> <command...>: another test script's checks, its totals added to these
suite()
{
    local name=$1 out
    shift
    out=$("$@" 2>&1)
    echo "$out" | grep -E '^(PASS|FAIL|    )'
    addTotals <(echo "$out") || echo "FAIL $name: no totals"
}

# icoFoam: the Krylov solvers (the tutorial's p and U solvers as it has them)
sameSolves "p=1365 Ux=61 Uy=62" "$(tutorialCopy cavity cavity)"
# GAMG with the release's V-cycle
sameSolves - "$(gamgCase cavity cavity-p-GaussSeidel 'p|pFinal' GaussSeidel)"
sameSolves - "$(gamgCase cavity cavity-p-DIC-interpolate 'p|pFinal' DIC 'interpolateCorrection yes')"
# down to one cell: OpenFOAM-14 solves a coarsest level without faces by its diagonalSolver
sameSolves - "$(gamgCase cavity cavity-p-oneCellCoarsest 'p|pFinal' GaussSeidel 'nCellsInCoarsestLevel 1')"
# the release's steady incompressible solver
sameSolves - "$(gamgCase pitzDaily pitzDaily-p p GaussSeidel)"
if [ $esi = yes ]; then
    # ESI's residual after pre-smoothing, row by row as lduMatrix::residual
    sameSolves - "$(gamgCase cavity cavity-p-preSweeps2 'p|pFinal' GaussSeidel 'nPreSweeps 2')"
    # norm none: the residuals not normalised, in the Krylov solvers and GAMG
    sameSolves - "$(withFieldKeywords "$(tutorialCopy cavity cavity-normNone)" '[A-Za-z]+' 'norm none')"
    sameSolves - "$(withFieldKeywords "$(gamgCase cavity cavity-p-normNone 'p|pFinal' GaussSeidel)" '[A-Za-z]+' 'norm none')"
    # log 0: U's solves printed by neither; log 2: p's solve lines the same
    sameSolves - "$(withFieldKeywords "$(tutorialCopy cavity cavity-log0)" U 'log 0')" 'GPU:  Solving for p'
    sameSolves - "$(withFieldKeywords "$(tutorialCopy cavity cavity-log2)" 'p|pFinal' 'log 2')"
fi

# decomposed: the ranks each its own system, and those of a (pretended) device as one system
suite "decomposed.sh cavity3D" env \
    DECOMPOSED_CASES="cavity3D:hierarchical cavity3D:hierarchical:1 cavity3D:random cavity3D:random:1" \
    bash "$integration/decomposed.sh" "$executor"
# and as one GAMG hierarchy, split 2x2 and randomly
decomposed "$(gamgCase cavity3D cavity3D-p-decomposed 'p|pFinal' GaussSeidel)" icoFoam one
SPLIT=random decomposed "$(gamgCase cavity3D cavity3D-p-random 'p|pFinal' GaussSeidel)" icoFoam one
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
