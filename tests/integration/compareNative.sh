#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs an OpenFOAM case twice, with native PCG and with the plugin's PCGGPU, and checks that every
# "Solving for p" takes the same number of iterations (within --allow) and that the last initial
# residual agrees. COMPARE_SELFTEST=1 keeps both runs native (proves the harness without a plugin).
set -euo pipefail

usage="Usage: $0 <caseDir> [--executor cpu|gpu] [--precond DIC|FDIC|diagonal|none] [--allow N]
       [--rtol R] [extra Allrun args...]"
if [ $# -lt 1 ] || [ ! -d "$1" ]; then
    echo "$usage" >&2
    exit 1
fi
caseDir=$(cd "$1" && pwd)
shift
executor=cpu
precond=
allow=1
rtol=1e-6
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --executor) executor=$2; shift 2 ;;
        --precond) precond=$2; shift 2 ;;
        --allow) allow=$2; shift 2 ;;
        --rtol) rtol=$2; shift 2 ;;
        *) extra+=("$1"); shift ;;
    esac
done
case "$executor" in cpu|gpu) ;; *) echo "$usage" >&2; exit 1 ;; esac
case "$precond" in ''|DIC|FDIC|diagonal|none) ;; *) echo "$usage" >&2; exit 1 ;; esac

# shellcheck source=etc/run-env.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../etc/run-env.sh"
name=$(basename "$caseDir")
work=$(mktemp -d "${TMPDIR:-/tmp}/compareNative.$name.XXXXXX")

# Rewrites system/fvSolution of case $1 in place. In every solver dictionary that holds
# "solver PCGGPU;": mode native -> "solver PCG;" and no executor entry; mode plugin -> exactly one
# "executor <executor>;". With --precond, the preconditioner word is set in those dictionaries too.
editFvSolution()
{
    local file=$1/system/fvSolution mode=$2 before
    before=$(grep -cE '^\s*solver\s+PCGGPU\s*;' "$file" || true)
    [ "$before" -gt 0 ] || { echo "FAIL: no 'solver PCGGPU;' entry in $file" >&2; return 1; }
    awk -v mode="$mode" -v executor="$executor" -v precond="$precond" '
        { line[NR] = $0 }
        /^[ \t]*solver[ \t]+PCGGPU[ \t]*;/ { isSolver[NR] = 1 }
        /\{/ { stack[++sp] = NR }
        /\}/ {
            # innermost dictionary around each PCGGPU solver line
            for (i = stack[sp]; i <= NR; i++) {
                if (isSolver[i] && !(i in blockEnd)) { blockStart[i] = stack[sp]; blockEnd[i] = NR }
            }
            sp--
        }
        END {
            for (s in blockEnd) for (i = blockStart[s]; i <= blockEnd[s]; i++) inBlock[i] = 1
            for (i = 1; i <= NR; i++) {
                l = line[i]
                if (inBlock[i] && l ~ /^[ \t]*executor[ \t]+[^ \t;]+[ \t]*;/) continue
                if (inBlock[i] && precond != "" && l ~ /^[ \t]*preconditioner[ \t]+[^ \t;]+[ \t]*;/) continue
                if (isSolver[i]) {
                    indent = l; sub(/solver.*/, "", indent)
                    if (mode == "native") sub(/PCGGPU/, "PCG", l)
                    print l
                    if (mode == "plugin") printf "%s%-16s%s;\n", indent, "executor", executor
                    if (precond != "") printf "%s%-16s%s;\n", indent, "preconditioner", precond
                    continue
                }
                print l
            }
        }' "$file" > "$file.new"
    mv "$file.new" "$file"
    if [ "$mode" = native ]; then
        [ "$(grep -cE '^\s*solver\s+PCG\s*;' "$file")" -ge "$before" ] \
            && ! grep -qE 'PCGGPU|^\s*executor' "$file"
    else
        [ "$(grep -cE "^\s*executor\s+$executor\s*;" "$file")" -eq "$before" ]
    fi || { echo "FAIL: could not rewrite $file" >&2; return 1; }
}

# Runs the copy $1 of the case; prints "<iterations> <initial residual>" for each p solve whose
# solver name matches $2 into $1/solves, and the last ExecutionTime into $1/time.
runCase()
{
    local dir=$1 pattern=$2 app log status=0
    (cd "$dir" && ./Allrun "${extra[@]}") > "$dir/log.Allrun" 2>&1 || status=$?
    app=$(sed -n 's/^\s*application\s\+\(\S\+\)\s*;.*/\1/p' "$dir/system/controlDict")
    log=$dir/log.$app
    [ -f "$log" ] || { echo "FAIL: $dir: no solver log $log (Allrun exit $status)" >&2; return 1; }
    sed -n "s/^${pattern}:  Solving for p, Initial residual = \(\S*\), .*No Iterations \([0-9]*\)$/\2 \1/p" \
        "$log" > "$dir/solves"
    sed -n 's/^ExecutionTime = \(\S*\) s.*/\1/p' "$log" | tail -n 1 > "$dir/time"
    if [ "$status" -ne 0 ] || [ ! -s "$dir/solves" ]; then
        echo "FAIL: $dir: Allrun exit $status, $(wc -l < "$dir/solves") '$pattern: Solving for p'" \
             "lines in $log:" >&2
        { grep -A 4 'FOAM FATAL' "$log" || tail -n 5 "$log"; } >&2
        return 1
    fi
}

native=$work/native
plugin=$work/plugin
for dir in "$native" "$plugin"; do
    cp -r "$caseDir" "$dir"
    "$dir/Allclean" > /dev/null
done
pluginMode=plugin
pluginPattern='[A-Za-z]*PCGGPU'
if [ "${COMPARE_SELFTEST:-0}" = 1 ]; then
    pluginMode=native
    pluginPattern='[A-Za-z]*PCG'
fi
ok=1
editFvSolution "$native" native && editFvSolution "$plugin" "$pluginMode" || ok=0
[ "$ok" = 1 ] && runCase "$native" '[A-Za-z]*PCG' || ok=0
[ "$ok" = 1 ] && runCase "$plugin" "$pluginPattern" || ok=0
if [ "$ok" = 0 ]; then
    echo "case $name executor $executor precond ${precond:-asIs}: FAILED to run, kept $work" >&2
    exit 1
fi

# one summary line; exit status says whether solves, iterations and residual agree
paste -d' ' "$native/solves" "$plugin/solves" | awk \
    -v name="$name" -v e="$executor" -v p="${precond:-asIs}" -v allow="$allow" -v rtol="$rtol" \
    -v nA="$(wc -l < "$native/solves")" -v nB="$(wc -l < "$plugin/solves")" \
    -v tA="$(cat "$native/time")" -v tB="$(cat "$plugin/time")" '
    function abs(x) { return x < 0 ? -x : x }
    {
        n++; itA += $1; itB += $3
        d = abs($1 - $3); if (d > worst) worst = d
        rA = $2; rB = $4
    }
    END {
        fail = 0
        if (nA != nB) {
            printf "FAIL: %d native solves, %d plugin solves\n", nA, nB > "/dev/stderr"; fail = 1
        }
        if (worst > allow) {
            printf "FAIL: a solve differs by %d iterations (allowed %d)\n", worst, allow > "/dev/stderr"
            fail = 1
        }
        rel = abs(rA - rB)/(abs(rA) > 0 ? abs(rA) : 1)
        printf "last p solve initial residual: native %s, plugin %s, relative difference %.3g (limit %g)\n", \
            rA, rB, rel, rtol
        if (rel > rtol) { print "FAIL: last initial residual differs" > "/dev/stderr"; fail = 1 }
        printf "case %s executor %s precond %s: solves %d, native iterations %d, plugin iterations %d, " \
               "worst per-solve difference %d, native time %ss, plugin time %ss\n", \
               name, e, p, n, itA, itB, worst, tA, tB
        exit fail
    }' && status=0 || status=1
if [ "$status" = 0 ]; then rm -rf "$work"; else echo "kept $work" >&2; fi
exit "$status"
