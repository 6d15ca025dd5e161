#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs an OpenFOAM case twice, with the native solvers and with the plugin's (every dictionary with
# "solver PCGGPU|PBiCGGPU|PBiCGStabGPU|GAMGGPU;" gets its native twin PCG|PBiCG|PBiCGStab|GAMG in the native
# copy), and checks, for every field that the plugin's solvers solve (Ux, Uy, k, p, ...), that
# both runs have the same number of solves, that every solve takes the same number of iterations
# (within --allow) and that the last initial residual agrees. One summary line per field.
# --precond P sets the preconditioner of every GPU solver dictionary, --precond SOLVER:P of those
# of one GPU solver only (e.g. PBiCGStabGPU:DILU); repeatable. COMPARE_SELFTEST=1 keeps both runs
# native (proves the harness without a plugin).
set -euo pipefail

usage="Usage: $0 <caseDir> [--executor cpu|gpu] [--precond [SOLVER:]P]... [--allow N]
       [--rtol R] [extra Allrun args...]   (P: DIC|FDIC|DILU|diagonal|none; native has no ILU0)"
if [ $# -lt 1 ] || [ ! -d "$1" ]; then
    echo "$usage" >&2
    exit 1
fi
caseDir=$(cd "$1" && pwd)
shift
executor=cpu
precond=
allow=1
rtol=
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --executor) executor=$2; shift 2 ;;
        --precond) precond="$precond $2"; shift 2 ;;
        --allow) allow=$2; shift 2 ;;
        --rtol) rtol=$2; shift 2 ;;
        *) extra+=("$1"); shift ;;
    esac
done
precond=${precond# }
# the cpu executor does OpenFOAM's arithmetic in its order: the same numbers; the gpu sums in
# another order, and the fields drift apart by rounding over a run (pitzDaily, 200 SIMPLE
# iterations with relTol 0.1, same counts on every solve: up to 1.6% in the last residual)
[ -n "$rtol" ] || { [ "$executor" = gpu ] && rtol=5e-2 || rtol=1e-12; }
case "$executor" in cpu|gpu) ;; *) echo "$usage" >&2; exit 1 ;; esac
for p in $precond; do
    case "${p#*GPU:}" in DIC|FDIC|DILU|diagonal|none) ;; *) echo "$usage" >&2; exit 1 ;; esac
done

here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=etc/run-env.sh
. "$here/../../etc/run-env.sh"
# shellcheck source=tests/lib/fvSolutionEdit.sh
. "$here/fvSolutionEdit.sh"
name=$(basename "$caseDir")
work=$(mktemp -d "${TMPDIR:-/tmp}/compareNative.$name.XXXXXX")

# Runs the copy $1 of the case; writes "<field> <iterations> <initial residual> <solver>" for each
# solve by the plugin's solvers or their native twins into $1/solves, the last ExecutionTime
# into $1/time.
runCase()
{
    local dir=$1 app log status=0
    (cd "$dir" && ./Allrun "${extra[@]}") > "$dir/log.Allrun" 2>&1 || status=$?
    app=$(sed -n 's/^\s*application\s\+\(\S\+\)\s*;.*/\1/p' "$dir/system/controlDict")
    log=$dir/log.$app
    # the Foundation's releases run simpleFoam's and pimpleFoam's cases by foamRun
    [ -f "$log" ] || [ ! -f "$dir/log.foamRun" ] || log=$dir/log.foamRun
    [ -f "$log" ] || { echo "FAIL: $dir: no solver log $log (Allrun exit $status)" >&2; return 1; }
    sed -En 's/^([A-Za-z0-9]*(PCG|PBiCG|PBiCGStab|GAMG)(GPU)?):  Solving for (\S+), Initial residual = (\S+), .*No Iterations ([0-9]+)$/\4 \6 \5 \1/p' \
        "$log" > "$dir/solves"
    sed -n 's/^ExecutionTime = \(\S*\) s.*/\1/p' "$log" | tail -n 1 > "$dir/time"
    if [ "$status" -ne 0 ]; then
        echo "FAIL: $dir: Allrun exit $status:" >&2
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
pluginSolver="$gpuSolverRe\$"
if [ "${COMPARE_SELFTEST:-0}" = 1 ]; then
    pluginMode=native
    pluginSolver='(PCG|PBiCG|PBiCGStab|GAMG)$'
fi
ok=1
editFvSolution "$native/system/fvSolution" native "$executor" "$precond" > /dev/null \
    && editFvSolution "$plugin/system/fvSolution" "$pluginMode" "$executor" "$precond" > /dev/null \
    || ok=0
[ "$ok" = 1 ] && runCase "$native" || ok=0
[ "$ok" = 1 ] && runCase "$plugin" || ok=0
if [ "$ok" = 0 ]; then
    echo "case $name executor $executor precond ${precond:-asIs}: FAILED to run, kept $work" >&2
    exit 1
fi

# One summary line per field solved by a plugin solver (in the plugin log, in order of first
# solve); the exit status says whether solves, iterations and last residuals agree.
awk -v name="$name" -v e="$executor" -v p="${precond:-asIs}" -v allow="$allow" -v rtol="$rtol" \
    -v pluginSolver="$pluginSolver" -v tA="$(cat "$native/time")" -v tB="$(cat "$plugin/time")" '
    function abs(x) { return x < 0 ? -x : x }
    { run = FILENAME == ARGV[1] ? 1 : 2 }
    run == 2 && $4 ~ pluginSolver && !($1 in gpu) { gpu[$1] = 1; field[++nf] = $1 }
    { n[run, $1]++; it[run, $1, n[run, $1]] = $2; res[run, $1] = $3; total[run, $1] += $2 }
    END {
        if (nf == 0) { print "FAIL: no solve by a plugin solver in the plugin log" > "/dev/stderr"; exit 1 }
        fail = 0
        for (k = 1; k <= nf; k++) {
            f = field[k]; worst = 0
            for (i = 1; i <= n[1, f] && i <= n[2, f]; i++)
                if (abs(it[1, f, i] - it[2, f, i]) > worst) worst = abs(it[1, f, i] - it[2, f, i])
            rA = res[1, f]; rB = res[2, f]; rel = abs(rA - rB)/(abs(rA) > 0 ? abs(rA) : 1)
            printf "case %s executor %s precond %s field %s: solves %d, native iterations %d, " \
                   "plugin iterations %d, worst per-solve difference %d, last initial residual " \
                   "native %s plugin %s (relative difference %.3g), native time %ss, plugin time %ss\n", \
                   name, e, p, f, n[2, f], total[1, f], total[2, f], worst, rA, rB, rel, tA, tB
            if (n[1, f] != n[2, f]) {
                printf "FAIL: %s: %d native solves, %d plugin solves\n", f, n[1, f], n[2, f] > "/dev/stderr"
                fail = 1
            }
            if (worst > allow) {
                printf "FAIL: %s: a solve differs by %d iterations (allowed %d)\n", f, worst, allow > "/dev/stderr"
                fail = 1
            }
            if (rel > rtol) {
                printf "FAIL: %s: last initial residual differs (limit %g)\n", f, rtol > "/dev/stderr"
                fail = 1
            }
        }
        exit fail
    }' "$native/solves" "$plugin/solves" && status=0 || status=1
if [ "$status" = 0 ]; then rm -rf "$work"; else echo "kept $work" >&2; fi
exit "$status"
