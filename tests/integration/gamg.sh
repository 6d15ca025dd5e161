#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# GAMGGPU against OpenFOAM's GAMG, solve by solve (compareNative.sh): the tutorials with their
# pressure (or velocity) solver turned into GAMGGPU, each of OpenFOAM's smoothers on at least
# one case, symmetric and asymmetric matrices, the optional steps of the V-cycle. With the cpu
# executor every solve line equals native's. Coupled patches: boxTurb16's cyclics serially, and
# decomposed runs (mpirun; processor patches on every level, with the cyclics on boxTurb16) line
# by line against native GAMG decomposed the same way. The plugin's own smoothers (l1Jacobi,
# Chebyshev), which native GAMG does not have: every solve reaches its tolerance, serially and
# decomposed, and checkNative with them is refused. Usage: gamg.sh [cpu|gpu]   (default cpu)
set -euo pipefail

executor=${1:-cpu}
# the gpu sums (scaling factors, residuals) in another order: pitzDaily's run
# then has a solve 2 V-cycles apart from native (2026-11-24, H100); the cavities, cavity3D and
# the elbow none
allow=1
[ "$executor" = gpu ] && allow=2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/integration/checks.sh
. "$here/checks.sh"
tutorials=$here/../../tutorials
work=$(mktemp -d "${TMPDIR:-/tmp}/gamg.XXXXXX")
passed=0
failed=0

# gamgCase <tutorial> <name> <field regex> <smoother> [extra keyword lines]: a copy of the
# tutorial whose dictionaries of the fields (p and pFinal, or U) solve with GAMGGPU and the
# smoother (their preconditioner and smoother lines dropped), the extra lines (e.g.
# "nPreSweeps 1;") added
gamgCase()
{
    local from=$1 name=$2 fields=$3 smoother=$4 extra=${5:-}
    rm -rf "${work:?}/$name"
    cp -r "$tutorials/$from" "$work/$name"
    awk -v fields="$fields" -v smoother="$smoother" -v extra="$extra" '
        $0 ~ "^    (" fields ")$" { inside = 1 }
        inside && /^    }/ { inside = 0 }
        inside && /^ *(preconditioner|smoother) / { next }
        inside && /^ *solver / {
            print "        solver          GAMGGPU;"
            print "        smoother        " smoother ";"
            n = split(extra, e, ";")
            for (i = 1; i <= n; i++) if (e[i] ~ /[^ ]/) { sub(/^ */, "", e[i]); print "        " e[i] ";" }
            next
        }
        { print }' "$tutorials/$from/system/fvSolution" > "$work/$name/system/fvSolution"
    echo "$work/$name"
}

# check <oracle "field=total" or -> <caseDir>: one compareNative.sh test; an oracle is native's
# total
check()
{
    local expected=$1 caseDir=$2 out pair
    if out=$("$here/compareNative.sh" "$caseDir" --executor "$executor" --allow "$allow" 2>&1); then
        for pair in $expected; do
            [ "$pair" = - ] || [ "$(echo "$out" | grep "field ${pair%=*}: " | grep -o 'iterations [0-9]*' | head -n 1)" \
                = "iterations ${pair#*=}" ] \
                || out="$out
FAIL: iterations of ${pair%=*} differ from the oracle ${pair#*=}"
        done
        if ! echo "$out" | grep -q '^FAIL'; then
            passed=$((passed + 1))
            echo "$out" | sed "s|^|PASS $(basename "$caseDir") |"
            return
        fi
    fi
    failed=$((failed + 1))
    echo "FAIL $(basename "$caseDir")"
    while IFS= read -r line; do echo "    $line"; done <<< "$out"
}

# the cavity's pressure with each of OpenFOAM's smoothers of symmetric matrices
for smoother in GaussSeidel symGaussSeidel DIC FDIC DICGaussSeidel nonBlockingGaussSeidel; do
    check - "$(gamgCase cavity "cavity-p-$smoother" 'p|pFinal' "$smoother")"
done
# the optional steps of the V-cycle: pre-smoothing, interpolation, no scaling
check - "$(gamgCase cavity cavity-p-preInterpolate 'p|pFinal' GaussSeidel 'nPreSweeps 2;interpolateCorrection yes;nPostSweeps 1;nFinestSweeps 3')"
check - "$(gamgCase cavity cavity-p-unscaled 'p|pFinal' DIC 'scaleCorrection no;nCellsInCoarsestLevel 4;mergeLevels 2')"
# the coarsest level by OpenFOAM's LU (directSolveCoarsest), symmetric and asymmetric
check - "$(gamgCase cavity cavity-p-direct 'p|pFinal' GaussSeidel 'directSolveCoarsest yes')"
check - "$(gamgCase cavity cavity-U-direct U DILU 'directSolveCoarsest yes')"
# the cavity's velocity: asymmetric matrices (no scaling by default, PBiCGStab+DILU coarsest)
for smoother in GaussSeidel symGaussSeidel DILU DILUGaussSeidel; do
    check - "$(gamgCase cavity "cavity-U-$smoother" U "$smoother")"
done
check - "$(gamgCase cavity cavity-U-scaled U DILU 'scaleCorrection yes;nPreSweeps 1;interpolateCorrection yes')"
# larger and unstructured meshes; pitzDaily as OpenFOAM ships it (GAMG with GaussSeidel)
check - "$(gamgCase cavity3D cavity3D-p 'p|pFinal' GaussSeidel)"
check - "$(gamgCase elbow elbow-p 'p|pFinal' GaussSeidel)"
check - "$(gamgCase elbow elbow-p-algebraic 'p|pFinal' DICGaussSeidel 'agglomerator algebraicPair')"
check - "$(gamgCase pitzDaily pitzDaily-p p GaussSeidel)"
# cyclic patches on every level (boxTurb16: 6 cyclics)
check - "$(gamgCase boxTurb16 boxTurb16-p 'p' GaussSeidel)"
check - "$(gamgCase boxTurb16 boxTurb16-p-DIC 'p' DIC 'interpolateCorrection yes')"

# ownSmoother <caseDir> <field regex> <tolerance> <relTol of the 1st, 2nd, ... solve of a time
# step>: runs the case with the plugin; passes when it ends and every solve of the fields
# reaches its tolerance (Final residual <= tolerance, or <= relTol * Initial residual)
# shellcheck source=etc/run-env.sh
. "$here/../../etc/run-env.sh"
# shellcheck source=tests/integration/fvSolutionEdit.sh
. "$here/fvSolutionEdit.sh"
ownSmoother()
{
    local caseDir=$1 log=$1/log.icoFoam
    editFvSolution "$caseDir/system/fvSolution" plugin "$executor" "" > /dev/null
    if ! (cd "$caseDir" && ./Allrun > log.Allrun 2>&1) || ! grep -q '^End' "$log"; then
        failed=$((failed + 1))
        echo "FAIL $(basename "$caseDir"): the run failed, kept $log"
        return
    fi
    toTolerance "$log" "${@:2}"
}

# toTolerance <log> <field regex> <tolerance> <relTols>: passes when every GAMGGPU solve of the
# fields in the log reaches its tolerance (ownSmoother)
toTolerance()
{
    local log=$1 fields=$2 tolerance=$3 relTols=$4 out
    if out=$(awk -v fields="^($fields)," -v shown="$fields" -v tol="$tolerance" -v relTols="$relTols" '
        BEGIN { nRel = split(relTols, rel, " ") }
        /^Time = / { k = 0 }
        /^GAMGGPU:  Solving for / && $4 ~ fields {
            initial = $8; final = $12; sub(/,/, "", initial); sub(/,/, "", final)
            r = rel[(k++ % nRel) + 1]; n++
            if (!(final + 0 <= tol || final + 0 <= r*initial)) {
                printf "FAIL: solve %d (%s): Final residual %s above tolerance %s and relTol %s\n", n, $4, final, tol, r
                bad = 1
            }
            its += $15
        }
        END {
            if (n == 0) { print "FAIL: no GAMGGPU solve of " shown; exit 1 }
            printf "%d solves of %s, %d V-cycles, each to its tolerance\n", n, shown, its
            exit bad
        }' "$log" 2>&1); then
        passed=$((passed + 1))
        echo "PASS $(basename "$(dirname "$log")") executor $executor: $out"
    else
        failed=$((failed + 1))
        echo "FAIL $(basename "$(dirname "$log")") executor $executor (kept $log)"
        echo "$out" | sed 's/^/    /'
    fi
}

# the plugin's own smoothers on the cavity's pressure (p: relTol 0.05, pFinal: 0) and velocity
for smoother in l1Jacobi Chebyshev; do
    ownSmoother "$(gamgCase cavity "cavity-p-$smoother" 'p|pFinal' "$smoother")" p 1e-06 "0.05 0"
    ownSmoother "$(gamgCase cavity "cavity-U-$smoother" U "$smoother")" 'Ux|Uy' 1e-05 0
done
ownSmoother "$(gamgCase cavity3D cavity3D-p-Chebyshev 'p|pFinal' Chebyshev)" p 1e-06 "0.05 0"

# decomposedRun <caseDir> <application> [devices]: the case meshed, split hierarchically 2x2 (or
# as SPLIT says: "4 1 1" gives the ranks different numbers of processor patches; "random" each
# cell to a random rank, an irregular split with many patches) and
# run on 4 ranks (boxTurb16: its initial field made by boxTurb first); devices: as if the node had
# that many (GPULDU_PRETEND_DEVICES: a group of ranks per device, with executor cpu too; default
# 1: one group of all 4)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
decomposedRun()
{
    local caseDir=$1 app=$2 pretend method
    pretend=(-x "GPULDU_PRETEND_DEVICES=${3:-1}")
    method="method hierarchical; coeffs { n (${SPLIT:-2 2 1}); }"
    [ "${SPLIT:-}" = random ] && method='method manual; coeffs { dataFile "cellDecomposition"; }'
    printf 'FoamFile { version 2.0; format ascii; class dictionary; object decomposeParDict; }\n%s\n' \
        "numberOfSubdomains 4; $method" > "$caseDir/system/decomposeParDict"
    (cd "$caseDir" && blockMesh > log.blockMesh 2>&1 \
        && { [ ! -f constant/boxTurbDict ] || boxTurb > log.boxTurb 2>&1; } \
        && { [ "${SPLIT:-}" != random ] || cellDecomposition "$(sed -n 's/.*nCells: *\([0-9]*\).*/\1/p' \
            constant/polyMesh/owner | head -n 1)" 4 'int(random()*n)' > constant/cellDecomposition; } \
        && decomposePar > log.decomposePar 2>&1 \
        && mpirun --oversubscribe "${pretend[@]}" -np 4 "$app" -parallel > "log.$app" 2>&1)
}

# decomposed <caseDir> <application> <one|own> [devices]: native GAMG and GAMGGPU on the case
# split 2x2, solve line by solve line. cpu: every solve line (all fields) equals native's. gpu:
# the plugin runs with checkNative (each GAMGGPU system also solved natively from the same
# state): each solve's initial residual is native's and its V-cycles within $allow of native's.
# one: the ranks of a group solve as one hierarchy (their processor patches to each other all
# the coupled patches they have); own: each rank keeps its own (cyclics, patches to another
# group, directSolveCoarsest); the log must say which.
decomposed()
{
    local caseDir=$1 app=$2 hierarchy=$3 devices=${4:-} native plugin lines off shared=own
    rm -rf "$caseDir-native"
    cp -r "$caseDir" "$caseDir-native"
    editFvSolution "$caseDir-native/system/fvSolution" native "" "" > /dev/null
    editFvSolution "$caseDir/system/fvSolution" "$([ "$executor" = gpu ] && echo checkNative || echo plugin)" \
        "$executor" "" > /dev/null
    if ! decomposedRun "$caseDir-native" "$app" || ! decomposedRun "$caseDir" "$app" "$devices"; then
        failed=$((failed + 1))
        echo "FAIL $(basename "$caseDir") decomposed: a run failed, kept $caseDir*"
        return
    fi
    native=$(grep -E 'Solving for ' "$caseDir-native/log.$app" | sed 's/^.*Solving for/Solving for/')
    plugin=$(grep -E 'Solving for ' "$caseDir/log.$app" | sed 's/^.*Solving for/Solving for/')
    lines=$(echo "$native" | grep -c . || true)
    if [ "$executor" = cpu ]; then
        off=$(diff <(echo "$native") <(echo "$plugin") | grep -c '^<' || true)
    else
        off=$(grep '^checkNative: ' "$caseDir/log.$app" | awk -v allow="$allow" \
            '{ d = $6 - $(NF-4); if (d < 0) d = -d; if ($8 != $(NF-2) || d > allow) ++bad; ++n }
             END { print (n > 0 ? bad + 0 : 999) }')
    fi
    grep -q 'one GAMG hierarchy for ranks' "$caseDir/log.$app" && shared=one
    if [ "$lines" -ge 20 ] && [ "$off" = 0 ] && grep -q '^GAMGGPU:  Solving for' "$caseDir/log.$app" \
        && [ "$shared" = "$hierarchy" ]; then
        passed=$((passed + 1))
        echo "PASS $(basename "$caseDir") decomposed ${SPLIT:-2 2 1} executor $executor: $lines solve lines, $off off, hierarchy $shared"
    else
        failed=$((failed + 1))
        echo "FAIL $(basename "$caseDir") decomposed ${SPLIT:-2 2 1} executor $executor: $lines solve lines, $off off, hierarchy $shared (expected $hierarchy; kept $caseDir*)"
        diff <(echo "$native") <(echo "$plugin") | head -n 4 | sed 's/^/    /'
    fi
}

# boxTurbIcoFoam <caseDir>: boxTurb16 for icoFoam (dnsFoam does not run decomposed): 20 steps,
# p's level set in cell 0 (all its patches are cyclic), pFinal as p
boxTurbIcoFoam()
{
    sed -i 's/^endTime .*/endTime         0.5;/' "$1/system/controlDict"
    sed -i 's/^    U$/    pFinal\n    {\n        $p;\n    }\n\n    U/' "$1/system/fvSolution"
    sed -i 's/^\(\s*nNonOrthogonalCorrectors.*\)$/\1\n    pRefCell        0;\n    pRefValue       0;/' "$1/system/fvSolution"
    echo "$1"
}

# processor patches on every level, with and without cyclics; symmetric and asymmetric; the
# optional steps of the V-cycle (pre-smoothing, interpolation) across them; the 4 ranks as one
# hierarchy, or each its own (cyclics; two groups with patches to each other; the direct
# coarsest solve)
decomposed "$(gamgCase cavity cavity-p-decomposed 'p|pFinal' GaussSeidel)" icoFoam one
decomposed "$(gamgCase cavity cavity-p-preInterpolate-decomposed 'p|pFinal' DIC 'nPreSweeps 2;interpolateCorrection yes')" icoFoam one
decomposed "$(gamgCase cavity cavity-U-decomposed U DILUGaussSeidel)" icoFoam one
SPLIT="4 1 1" decomposed "$(gamgCase cavity cavity-U-symGS-decomposed U symGaussSeidel 'nPreSweeps 1;interpolateCorrection yes')" icoFoam one
# (two pretended devices: with executor cpu only; on the GPU the devices are real)
[ "$executor" = cpu ] && decomposed "$(gamgCase cavity cavity-p-twoGroups-decomposed 'p|pFinal' GaussSeidel)" icoFoam own 2
decomposed "$(gamgCase cavity cavity-p-direct-decomposed 'p|pFinal' GaussSeidel 'directSolveCoarsest yes')" icoFoam own
decomposed "$(boxTurbIcoFoam "$(gamgCase boxTurb16 boxTurb16-p-decomposed p DIC 'interpolateCorrection yes')")" icoFoam own
SPLIT=random decomposed "$(gamgCase cavity cavity-p-random-decomposed 'p|pFinal' DIC 'nPreSweeps 1')" icoFoam one
# the plugin's own smoother on the 4 ranks as one hierarchy (its bound a maximum over the ranks)
dir=$(gamgCase cavity cavity-p-Chebyshev-decomposed 'p|pFinal' Chebyshev)
editFvSolution "$dir/system/fvSolution" plugin "$executor" "" > /dev/null
if decomposedRun "$dir" icoFoam && grep -q 'one GAMG hierarchy for ranks' "$dir/log.icoFoam"; then
    toTolerance "$dir/log.icoFoam" p 1e-06 0.05
else
    failed=$((failed + 1))
    echo "FAIL $(basename "$dir"): the run failed or was not one hierarchy, kept $dir"
fi
# the plugin's own smoother across processor and cyclic patches
dir=$(boxTurbIcoFoam "$(gamgCase boxTurb16 boxTurb16-p-Chebyshev-decomposed p Chebyshev)")
editFvSolution "$dir/system/fvSolution" plugin "$executor" "" > /dev/null
if decomposedRun "$dir" icoFoam; then
    toTolerance "$dir/log.icoFoam" p 1e-06 0
else
    failed=$((failed + 1))
    echo "FAIL $(basename "$dir"): the run failed, kept $dir"
fi

# processorAgglomerator (the coarse levels of several ranks onto fewer): each rank keeps its own
# levels in GAMGGPU, so it is a FatalIOError that says so
dir=$(gamgCase cavity cavity-p-processorAgglomerator 'p|pFinal' GaussSeidel 'processorAgglomerator masterCoarsest')
editFvSolution "$dir/system/fvSolution" plugin "$executor" "" > /dev/null
decomposedRun "$dir" icoFoam || true
if grep -q 'FOAM FATAL IO ERROR' "$dir/log.icoFoam" \
    && grep -q 'processorAgglomerator for field p (solver GAMGGPU) is not available' "$dir/log.icoFoam"; then
    passed=$((passed + 1))
    echo "PASS processorAgglomerator is a FatalIOError"
else
    failed=$((failed + 1))
    echo "FAIL processorAgglomerator is not refused (kept $dir/log.icoFoam)"
fi

# checkNative compares with native GAMG, which has no such smoother: a FatalIOError
dir=$(gamgCase cavity cavity-p-checkChebyshev 'p|pFinal' Chebyshev)
editFvSolution "$dir/system/fvSolution" checkNative "$executor" "" > /dev/null
log=$dir/log.icoFoam
(cd "$dir" && ./Allrun > log.Allrun 2>&1) || true
if grep -q 'FOAM FATAL IO ERROR' "$log" && grep -q 'compares with native GAMG, which has no smoother Chebyshev' "$log"; then
    passed=$((passed + 1))
    echo "PASS checkNative with smoother Chebyshev is a FatalIOError"
else
    failed=$((failed + 1))
    echo "FAIL checkNative with smoother Chebyshev is not refused (kept $log)"
fi

[ "$failed" -eq 0 ] && rm -rf "$work"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
