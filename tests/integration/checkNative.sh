#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The solve-by-solve oracle: runs a case once with PCGGPU and "checkNative true;", which also
# solves every p system with native PCG from the same initial guess, and checks that the two
# iteration counts differ by at most --allow (default 1) on every solve.
# Usage: checkNative.sh <caseDir> [--executor cpu|gpu] [--precond P] [--allow N] [Allrun args...]
# Unlike compareNative.sh, the two solvers always see identical systems, so this holds even where
# a run's trajectory is sensitive to rounding (solves whose initial residual sits at the tolerance).
set -euo pipefail

caseDir=$(cd "$1" && pwd)
shift
executor=cpu
precond=DIC
allow=1
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --executor) executor=$2; shift 2 ;;
        --precond) precond=$2; shift 2 ;;
        --allow) allow=$2; shift 2 ;;
        *) extra+=("$1"); shift ;;
    esac
done

# shellcheck source=etc/run-env.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../etc/run-env.sh"
name=$(basename "$caseDir")
work=$(mktemp -d "${TMPDIR:-/tmp}/checkNative.$name.XXXXXX")
cp -r "$caseDir/." "$work"
sed -i -E "s/^( *)executor .*;/\1executor        $executor;\n\1checkNative     true;/; s/^( *)preconditioner .*;/\1preconditioner  $precond;/" \
    "$work/system/fvSolution"
"$work/Allrun" "${extra[@]}" > "$work/log.Allrun" 2>&1 || true

log=$(ls "$work"/log.*Foam 2>/dev/null | head -n 1)
solves=$(grep -c "PCGGPU:  Solving for p" "$log" || true)
stats=$(grep '^checkNative: p' "$log" \
    | sed -E 's/.* iterations ([0-9]+) initial .* iterations ([0-9]+) initial .*/\1 \2/' \
    | awk '{ n++; a += $1; b += $2; d = $1 - $2; if (d < 0) d = -d; if (d > w) w = d }
           END { printf "%d %d %d %d", n, a, b, w }')
read -r checked native plugin worst <<< "$stats"
echo "case $name executor $executor precond $precond: solves $solves, checked $checked, native iterations $native, plugin iterations $plugin, worst per-solve difference $worst (same inputs)"
if [ "$solves" -gt 0 ] && [ "$checked" = "$solves" ] && [ "$worst" -le "$allow" ]; then
    rm -rf "$work"
else
    echo "FAIL: see $work"
    exit 1
fi
