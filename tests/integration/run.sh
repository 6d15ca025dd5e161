#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Integration tests: every tutorial run with native PCG and with the plugin, iteration by iteration
# (compareNative.sh), plus the native oracle totals. Usage: run.sh [cpu|gpu]   (default cpu)
set -euo pipefail

executor=${1:-cpu}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tutorials=$here/../../tutorials
passed=0
failed=0

# check <expected native total or -> <caseDir> [compareNative args...]
check()
{
    local expected=$1 out
    shift
    if out=$("$here/compareNative.sh" "$@" --executor "$executor" 2>&1); then
        if [ "$expected" = - ] || echo "$out" | grep -q "native iterations $expected,"; then
            passed=$((passed + 1))
            echo "PASS $(echo "$out" | tail -n 1)"
            return
        fi
        out="$out
FAIL: native iterations differ from the oracle $expected"
    fi
    failed=$((failed + 1))
    echo "FAIL $*"
    while IFS= read -r line; do echo "    $line"; done <<< "$out"
}

# Whole runs, native vs plugin, solve by solve. The cpu executor does OpenFOAM's arithmetic in
# OpenFOAM's order, so every trajectory matches. On the gpu, sums are taken in another order;
# the cavity with diagonal or none then reaches solves whose initial residual sits at the
# tolerance (from about solve 90 on), where any change of summation order moves counts by several
# iterations and the trajectories part: there the same-input checks below are the oracle.
check 1606 "$tutorials/cavity" --precond DIC
if [ "$executor" = cpu ]; then
    check 5052 "$tutorials/cavity" --precond diagonal
    check - "$tutorials/cavity" --precond none
fi
check - "$tutorials/cavity3D" --precond DIC -n 20 -steps 5
check 17091 "$tutorials/boxTurb16" --precond DIC

# Same inputs: checkNative solves every system with native PCG too (checkNative.sh).
sameInputs()
{
    local out
    if out=$("$here/checkNative.sh" "$@" --executor "$executor" 2>&1); then
        passed=$((passed + 1))
        echo "PASS $(echo "$out" | tail -n 1)"
    else
        failed=$((failed + 1))
        echo "FAIL $*"
        while IFS= read -r line; do echo "    $line"; done <<< "$out"
    fi
}
for precond in DIC diagonal none; do
    sameInputs "$tutorials/cavity" --precond "$precond"
done
sameInputs "$tutorials/boxTurb16" --precond diagonal

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
