#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# GAMGGPU against OpenFOAM's GAMG, solve by solve (compareNative.sh): the tutorials with their
# pressure (or velocity) solver turned into GAMGGPU, each of OpenFOAM's smoothers on at least
# one case, symmetric and asymmetric matrices, the optional steps of the V-cycle. With the cpu
# executor every solve line equals native's. Usage: gamg.sh [cpu|gpu]   (default cpu)
set -euo pipefail

executor=${1:-cpu}
# the gpu sums (scaling factors, residuals) in another order: pitzDaily's run
# then has a solve 2 V-cycles apart from native (2026-11-24, H100); the cavities, cavity3D and
# the elbow none
allow=1
[ "$executor" = gpu ] && allow=2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
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

rm -rf "$work"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
