#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The solve-by-solve oracle: runs a case once with the plugin's solvers and "checkNative true;",
# which also solves every system with the native twin (PCG|PBiCG|PBiCGStab) from the same initial
# guess, and checks, for every field that the plugin's solvers solve, that every solve was checked
# and that the two iteration counts differ by at most --allow (default 1). One line per field.
# Usage: checkNative.sh <caseDir> [--executor cpu|gpu] [--precond [SOLVER:]P]... [--allow N]
#        [Allrun args...]   (--precond as in compareNative.sh)
# Unlike compareNative.sh, the two solvers always see identical systems, so this holds even where
# a run's trajectory is sensitive to rounding (solves whose initial residual sits at the tolerance).
# Native has no ILU0: with ILU0 in --precond the run is plugin-only, and every plugin solve must
# instead have converged (final residual below the largest tolerance, or the largest relTol met,
# of the GPU solver dictionaries).
set -euo pipefail

caseDir=$(cd "$1" && pwd)
shift
executor=cpu
precond=
allow=1
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --executor) executor=$2; shift 2 ;;
        --precond) precond="$precond $2"; shift 2 ;;
        --allow) allow=$2; shift 2 ;;
        *) extra+=("$1"); shift ;;
    esac
done
precond=${precond# }

here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=etc/run-env.sh
. "$here/../../etc/run-env.sh"
# shellcheck source=tests/lib/fvSolutionEdit.sh
. "$here/fvSolutionEdit.sh"
name=$(basename "$caseDir")
work=$(mktemp -d "${TMPDIR:-/tmp}/checkNative.$name.XXXXXX")
cp -r "$caseDir/." "$work"
"$work/Allclean" > /dev/null
mode=checkNative
case " $precond" in *[\ :]ILU0*) mode=plugin ;; esac
tolerances=$(editFvSolution "$work/system/fvSolution" "$mode" "$executor" "$precond")
read -r tol relTol <<< "$tolerances"
"$work/Allrun" "${extra[@]}" > "$work/log.Allrun" 2>&1 && ran=1 || ran=0

# "S <field> <iterations> <initial> <final>" per plugin solve, "C <field> <native> <plugin>" per
# checkNative line; one line per field, exit status 0 if all agree
log=$(ls "$work"/log.*Foam 2>/dev/null | head -n 1)
if sed -En -e "s/^[A-Za-z0-9]*$gpuSolverRe:  Solving for (\S+), Initial residual = (\S+), Final residual = (\S+), No Iterations ([0-9]+)$/S \2 \5 \3 \4/p" \
    -e 's/^checkNative: (\S+) native .* iterations ([0-9]+) initial .* iterations ([0-9]+) initial .*/C \1 \2 \3/p' \
    "${log:-/dev/null}" | awk -v name="$name" -v e="$executor" -v p="${precond:-asIs}" -v mode="$mode" \
    -v allow="$allow" -v tol="$tol" -v relTol="$relTol" -v ran="$ran" '
    function abs(x) { return x < 0 ? -x : x }
    $1 == "S" && !($2 in solves) { field[++nf] = $2 }
    $1 == "S" { solves[$2]++; it[$2] += $3; if (!($5 < tol || $5 <= relTol*$4)) bad[$2]++ }
    $1 == "C" { checked[$2]++; a[$2] += $3; b[$2] += $4; if (abs($3 - $4) > w[$2]) w[$2] = abs($3 - $4) }
    END {
        fail = !ran || nf == 0
        if (!ran) print "FAIL: the run failed"
        if (nf == 0) print "FAIL: no solve by a plugin solver in the log"
        for (k = 1; k <= nf; k++) {
            f = field[k]
            if (mode == "plugin") {
                printf "case %s executor %s precond %s field %s: solves %d, plugin iterations %d, unconverged " \
                       "%d (plugin only: tolerance %g, relTol %g)\n", name, e, p, f, solves[f], it[f], bad[f], tol, relTol
                fail = fail || bad[f] > 0
            } else {
                printf "case %s executor %s precond %s field %s: solves %d, checked %d, native iterations %d, " \
                       "plugin iterations %d, worst per-solve difference %d (same inputs)\n", \
                       name, e, p, f, solves[f], checked[f], a[f], b[f], w[f]
                fail = fail || checked[f] != solves[f] || w[f] > allow
            }
        }
        exit fail
    }'; then
    rm -rf "$work"
else
    echo "FAIL: see $work"
    exit 1
fi
