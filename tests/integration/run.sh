#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Integration tests: every tutorial run with the native solvers and with the plugin's (PCGGPU,
# PBiCGGPU, PBiCGStabGPU), field by field and iteration by iteration (compareNative.sh), plus the
# native oracle totals per field. Usage: run.sh [cpu|gpu]   (default cpu)
set -euo pipefail

executor=${1:-cpu}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tutorials=$here/../../tutorials
passed=0
failed=0

# check <"field=total ..." or -> <script> <caseDir> [args...]: one test by compareNative.sh or
# checkNative.sh; an oracle is the first iteration total on the field's line (the native one where
# the line has one)
check()
{
    local expected=$1 script=$2 out pair
    shift 2
    if out=$("$here/../lib/$script" "$@" --executor "$executor" 2>&1); then
        for pair in $expected; do
            [ "$pair" = - ] || [ "$(echo "$out" | grep "field ${pair%=*}: " | grep -o 'iterations [0-9]*' \
                | head -n 1)" = "iterations ${pair#*=}" ] \
                || out="$out
FAIL: iterations of ${pair%=*} differ from the oracle ${pair#*=}"
        done
        if ! echo "$out" | grep -q '^FAIL'; then
            passed=$((passed + 1))
            echo "$out" | sed 's/^/PASS /'
            return
        fi
    fi
    failed=$((failed + 1))
    echo "FAIL $script $*"
    while IFS= read -r line; do echo "    $line"; done <<< "$out"
}

# Whole runs, native vs plugin, solve by solve. The cpu executor does OpenFOAM's arithmetic in
# OpenFOAM's order, so every trajectory matches. On the gpu, sums are taken in another order;
# the cavity with diagonal or none then reaches solves whose initial residual sits at the
# tolerance (from about solve 90 on), where any change of summation order moves counts by several
# iterations and the trajectories part: there the same-input checks below are the oracle.
# (The cavity's U, PBiCGStabGPU, takes diagonal or none in the same runs as p.)
# The cavity as OpenFOAM ships it but for p (U by smoothSolver): 1606 iterations with DIC,
# 5052 with diagonal, 4849 with none
shipped=$(mktemp -d "${TMPDIR:-/tmp}/cavityAsShipped.XXXXXX")/cavity
cp -r "$tutorials/cavity" "$shipped"
sed -i '/^    U$/,/}/ { /preconditioner\|executor/d; s/solver .*;/solver          smoothSolver;\n        smoother        symGaussSeidel;/ }' \
    "$shipped/system/fvSolution"
check "p=1606" compareNative.sh "$shipped"
if [ "$executor" = cpu ]; then
    check "p=5052" compareNative.sh "$shipped" --precond diagonal
    check "p=4849" compareNative.sh "$shipped" --precond none
fi

check "p=1365 Ux=61 Uy=62" compareNative.sh "$tutorials/cavity"
if [ "$executor" = cpu ]; then
    check "p=4695 Ux=150 Uy=161" compareNative.sh "$tutorials/cavity" --precond diagonal
    check "p=5146 Ux=148 Uy=171" compareNative.sh "$tutorials/cavity" --precond none
fi
check - compareNative.sh "$tutorials/cavity3D" -n 20 -steps 5
check "p=17092 Ux=1368 Uy=1354 Uz=1379" compareNative.sh "$tutorials/boxTurb16"
check "p=24200 Ux=200 Uy=200" compareNative.sh "$tutorials/elbow"
check "Ux=208 Uy=218 k=200 epsilon=200" compareNative.sh "$tutorials/pitzDaily"

# Every matrixFormat gives the native counts (the cavity: all rows of one length class; the
# elbow's prisms and hexes: rows of 4 to 7 non-zeros)
for format in csr ell blockedEll hyb hec; do
    formatCase=$(mktemp -d "${TMPDIR:-/tmp}/cavityFormat.XXXXXX")/cavity
    cp -r "$tutorials/cavity" "$formatCase"
    sed -i "s/^\(\s*solver .*GPU;\)/\1 matrixFormat $format;/" "$formatCase/system/fvSolution"
    check "p=1365 Ux=61 Uy=62" compareNative.sh "$formatCase"
    rm -rf "$(dirname "$formatCase")"
done
elbowHec=$(mktemp -d "${TMPDIR:-/tmp}/elbowFormat.XXXXXX")/elbow
cp -r "$tutorials/elbow" "$elbowHec"
sed -i "s/^\(\s*solver .*GPU;\)/\1 matrixFormat hec;/" "$elbowHec/system/fvSolution"
check "p=24200 Ux=200 Uy=200" compareNative.sh "$elbowHec"
rm -rf "$(dirname "$elbowHec")"

# Same inputs: checkNative solves every system with the native twin too (checkNative.sh). The
# cavity as it is has DIC for p, DILU for U. Native has no ILU0: that run is plugin-only and checks
# that every solve converged.
check - checkNative.sh "$tutorials/cavity"
for precond in diagonal none; do
    check - checkNative.sh "$tutorials/cavity" --precond "$precond"
done
check - checkNative.sh "$tutorials/boxTurb16" --precond diagonal
check - checkNative.sh "$tutorials/pitzDaily"
# On this mesh ILU0 is DILU (no two neighbours of a cell are neighbours), so on the cpu it takes
# the native DILU counts
ilu0=-
[ "$executor" = cpu ] && ilu0="Ux=61 Uy=62"
check "$ilu0" checkNative.sh "$tutorials/cavity" --precond PBiCGStabGPU:ILU0

rm -rf "$(dirname "$shipped")"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
