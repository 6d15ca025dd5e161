#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# LDLTGPU, the sparse direct solver, on real cases against native PCG (DIC) solved to 1e-12:
#   flange (tutorials/flange: laplacianFoam, OpenFOAM's basic/laplacianFoam/flange, 600 steps of
#   3 solves with one matrix): every solve converged in one direct solve, the first initial
#   residual native's to the digit, the final T native's to a bound, one factorisation for the
#   whole run (the debug switch LDLTGPU logs each solve's factorisation or reuse), the orderings
#   AMD and natural the same answer;
#   cavity (tutorials/cavity: icoFoam, p by LDLTGPU): the same checks, one factorisation per
#   time step (both PISO correctors have the same matrix), the fields p and U native's to a bound;
#   factorReuse 2 (a factor serves changed values too) still native's answer;
#   the errors: unknown ordering, negative factorReuse (FatalIOErrors listing the valid values),
#   LDLTGPU for the asymmetric U (OpenFOAM's unknown-solver error), a tolerance that cannot be
#   met (refinement stops where it stops gaining, with a warning: never an unconverged answer
#   in silence);
#   decomposed: flange on 2 ranks converges to 1e-12 (the processor interfaces corrected by
#   refinement, block Jacobi: solves take several steps) to native's answer; the cavity's pressure on 4 ranks does not
#   (block Jacobi on a Poisson problem with one reference cell) and stops with the FatalError
#   that names the field, the residual and the iterative solvers.
# Usage: ldlt.sh [cpu|gpu]   (default cpu). Prints "<P> passed, <F> failed" last.
set -uo pipefail

executor=${1:-cpu}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tutorials=$here/../../tutorials
# shellcheck source=etc/run-env.sh
. "$here/../../etc/run-env.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d "${TMPDIR:-/tmp}/ldlt.XXXXXX")
passed=0
failed=0
log=$work

# shellcheck source=tests/lib/checks.sh
. "$here/../lib/checks.sh"

# The bound on max|x - x_native| / max|x_native| over the final fields (T, p, U): native PCG
# stops at a normalised residual below 1e-12 in every solve, LDLTGPU (tolerance 1e-12 too) at
# about 1e-15, each error of native's carried over the run's solves. Measured on the cpu: flange
# 3.1e-11, cavity p 1.3e-12 and U 2.8e-13. Decomposed, LDLTGPU's refinement also stops just
# below 1e-12 (block Jacobi across the processor patch): flange on 2 ranks 2.0e-10.
bound=1e-10
boundDecomposed=1e-9

# fvSolution <caseDir> <solvers entries> <algorithm dictionary>: a fresh system/fvSolution
fvSolution()
{
    {
        echo 'FoamFile { version 2.0; format ascii; class dictionary; object fvSolution; }'
        echo "solvers { $2 }"
        echo "$3"
    } > "$1/system/fvSolution"
}

# prepare <name> <tutorial> <endTime>: a copy with its mesh, 15 digits written, the debug switch
# of LDLTGPU on; prints its directory
prepare()
{
    local dir=$work/$1
    cp -r "$tutorials/$2" "$dir"
    (
        cd "$dir" || exit 1
        case $2 in
            flange) gunzip -kf flange.ans.gz && ansysToFoam flange.ans -scale 0.001 > log.mesh 2>&1 ;;
            *) blockMesh > log.mesh 2>&1 ;;
        esac
    ) || echo "mesh of $1 failed" >&2
    sed -i -e "s/^endTime .*/endTime         $3;/" -e 's/^writePrecision .*/writePrecision  15;/' \
        "$dir/system/controlDict"
    grep -q '^libs' "$dir/system/controlDict" \
        || echo 'libs ("libgpuLduSolvers.so");' >> "$dir/system/controlDict"
    # the debug switch: ESI reads a case's DebugSwitches from system/controlDict, the
    # Foundation's releases from system/configDict
    echo 'DebugSwitches { LDLTGPU 1; }' >> "$dir/system/controlDict"
    printf 'FoamFile { version 2.0; format ascii; class dictionary; object configDict; }\n%s\n' \
        'DebugSwitches { LDLTGPU 1; }' > "$dir/system/configDict"
    echo "$dir"
}

# run <dir> <application> [ranks]: runs it (decomposed on ranks), log in <dir>/log.run; sets
# status and log
run()
{
    if [ -n "${3:-}" ]; then
        printf 'FoamFile { version 2.0; format ascii; class dictionary; object decomposeParDict; }
numberOfSubdomains %s;\nmethod hierarchical;\nhierarchicalCoeffs { n (%s); order xyz; }\n' "$3" \
            "$([ "$3" = 4 ] && echo '2 2 1' || echo "$3 1 1")" > "$1/system/decomposeParDict"
        (cd "$1" && decomposePar > log.decomposePar 2>&1 \
            && mpirun --oversubscribe -np "$3" "$2" -parallel > log.run 2>&1)
    else
        (cd "$1" && "$2" > log.run 2>&1)
    fi
    status=$?
    log=$1/log.run
}

# solveLines <log> <field>
solveLines()
{
    grep -E "Solving for $2," "$1"
}

# allConverged <log> <field> <tolerance> <solves>: that many solve lines, every final residual
# at most the tolerance
allConverged()
{
    solveLines "$1" "$2" | awk -v tol="$3" -v n="$4" -F'Final residual = ' '
        { split($2, a, ","); if (a[1] + 0 > tol + 0) bad++ }
        END { exit !(NR == n && bad == 0) }'
}

# maxSteps <log> <field>: the most refinement steps of a solve
maxSteps()
{
    solveLines "$1" "$2" | awk -F'No Iterations ' '{ if ($2 + 0 > m) m = $2 + 0 } END { print m + 0 }'
}

# firstInitial <log> <field>: the first solve's initial residual as printed
firstInitial()
{
    solveLines "$1" "$2" | sed -n 1p | sed 's/.*Initial residual = \([^,]*\),.*/\1/'
}

# fieldDiff <file> <native file>: max|a - b| / max|b| over the internal field's values (scalars or
# vector components); "mismatch" if the fields differ in size or are not lists
fieldDiff()
{
    awk '
        FNR == 1 { f++; state = 0; n = 0 }
        /^internalField/ { state = 1; next }
        state == 1 && /^\($/ { state = 2; next }
        state == 2 && /^\)/ { state = 0; next }
        state == 2 { gsub(/[()]/, ""); for (i = 1; i <= NF; i++) v[f, ++n] = $i; count[f] = n }
        END {
            if (count[1] != count[2] || count[1] == 0) { print "mismatch"; exit }
            for (i = 1; i <= count[1]; i++) {
                d = v[1, i] - v[2, i]; if (d < 0) d = -d; if (d > dmax) dmax = d
                a = v[2, i]; if (a < 0) a = -a; if (a > amax) amax = a
            }
            printf "%.3g\n", dmax/amax
        }' "$1" "$2"
}

# within <value> <bound>
within()
{
    awk -v x="$1" -v b="$2" 'BEGIN { exit !(x != "mismatch" && x + 0 <= b + 0) }'
}

ldlt="solver LDLTGPU; executor $executor;"

# ---------------------------------------------------------------------------------------------
# flange: laplacianFoam, 600 steps, 3 solves each (nNonOrthogonalCorrectors 2)
simple='SIMPLE { nNonOrthogonalCorrectors 2; }'
flangeNative=$(prepare flangeNative flange 3)
fvSolution "$flangeNative" "T { solver PCG; preconditioner DIC; tolerance 1e-12; relTol 0; }" "$simple"
run "$flangeNative" laplacianFoam
nativeLog=$log
nSolves=$(solveLines "$nativeLog" T | grep -c .)
expect "flange native PCG to 1e-12 ran ($nSolves T solves)" test "$status-$nSolves" = "0-1800"

flange=$(prepare flange flange 3)
fvSolution "$flange" "T { $ldlt tolerance 1e-12; relTol 0; }" "$simple"
run "$flange" laplacianFoam
expect "flange LDLTGPU: all $nSolves T solves converged (final residual <= 1e-12)" \
    eval 'test $status -eq 0 && allConverged "$log" T 1e-12 "$nSolves"'
expect "flange LDLTGPU: one direct solve per solve (at most 1 refinement step)" \
    test "$(maxSteps "$log" T)" = 1
expect "flange LDLTGPU: log line as native (LDLTGPU:  Solving for T, Initial residual = ...)" \
    eval 'solveLines "$log" T | sed -n 1p | grep -qE "^LDLTGPU:  Solving for T, Initial residual = [^,]+, Final residual = [^,]+, No Iterations 1$"'
expect "flange LDLTGPU: first initial residual $(firstInitial "$log" T) is native's $(firstInitial "$nativeLog" T)" \
    test "$(firstInitial "$log" T)" = "$(firstInitial "$nativeLog" T)"
expect "flange LDLTGPU: symbolic analysis once, ordering auto = METIS (5712 cells)" \
    eval 'test "$(grep -c "LDLTGPU: symbolic analysis for T on $executor: 5712 rows, ordering METIS" "$log")" = 1'
iterating=$(solveLines "$log" T | grep -vc 'No Iterations 0$')
factorised=$(grep -c '^LDLTGPU: T: factorised' "$log")
reused=$(grep -c '^LDLTGPU: T: factor reused (values unchanged)' "$log")
expect "flange LDLTGPU: factorised once, the factor reused in the other $reused of $iterating solves that iterate" \
    test "$factorised-$reused" = "1-$((iterating - 1))"
d=$(fieldDiff "$flange/3/T" "$flangeNative/3/T")
expect "flange LDLTGPU: final T agrees with native PCG (1e-12): $d <= $bound (relative to max|T|)" \
    within "$d" "$bound"
if [ "${LDLT_SUITE:-all}" = flange ]; then
    # (the release tests: the flange against native PCG only)
    [ "$failed" -eq 0 ] && rm -rf "$work"
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
fi

# the tutorial's own tolerance: a solve whose initial residual is already below it takes no step
# and no factorisation (as native)
dir=$(prepare flangeShipped flange 3)
fvSolution "$dir" "T { $ldlt tolerance 1e-06; relTol 0; }" "$simple"
run "$dir" laplacianFoam
zero=$(solveLines "$log" T | awk -F'Initial residual = |, Final|No Iterations ' '
    { if (($2 + 0 < 1e-06) != ($4 == 0)) bad++; if ($4 == 0) z++ } END { print (bad ? -1 : z + 0) }')
expect "flange LDLTGPU tolerance 1e-06: all converged, the $zero solves starting below the tolerance took 0 steps, the others 1" \
    eval 'test $status -eq 0 && allConverged "$log" T 1e-06 "$nSolves" && test "$zero" -gt 0 && test "$(maxSteps "$log" T)" = 1'
d=$(fieldDiff "$dir/3/T" "$flangeNative/3/T")
expect "negative control: stopping at 1e-06 leaves T $d from native's at 1e-12, beyond the bound $bound" \
    eval 'test "$d" != mismatch && ! within "$d" "$bound"'

for ordering in AMD natural; do
    dir=$(prepare "flange$ordering" flange 3)
    fvSolution "$dir" "T { $ldlt ordering $ordering; tolerance 1e-12; relTol 0; }" "$simple"
    run "$dir" laplacianFoam
    d=$(fieldDiff "$dir/3/T" "$flangeNative/3/T")
    expect "flange LDLTGPU ordering $ordering: used, all converged, final T within $d of native's" \
        eval 'test $status -eq 0 && logHas "ordering $ordering, nnz(L)" && allConverged "$log" T 1e-12 "$nSolves" && within "$d" "$bound"'
done

# ---------------------------------------------------------------------------------------------
# cavity: icoFoam, 100 steps, 2 pressure solves each; U by native PBiCGStab to 1e-12 in all runs
piso='PISO { nCorrectors 2; nNonOrthogonalCorrectors 0; pRefCell 0; pRefValue 0; }'
U='U { solver PBiCGStab; preconditioner DILU; tolerance 1e-12; relTol 0; }'
cavityNative=$(prepare cavityNative cavity 0.5)
fvSolution "$cavityNative" "p { solver PCG; preconditioner DIC; tolerance 1e-12; relTol 0; }
    pFinal { \$p; } $U" "$piso"
run "$cavityNative" icoFoam
nativeLog=$log
expect "cavity native PCG to 1e-12 ran (200 p solves)" \
    test "$status-$(solveLines "$nativeLog" p | grep -c .)" = "0-200"

# cavityCase <name> <p entries (override the defaults)> [ranks]: the cavity with p by LDLTGPU
# (tolerance 1e-12, so that every solve is solved as native's to 1e-12; relTol 0.05, pFinal 0)
cavityCase()
{
    local dir
    dir=$(prepare "$1" cavity 0.5)
    fvSolution "$dir" "p { $ldlt tolerance 1e-12; relTol 0.05; $2 } pFinal { \$p; relTol 0; } $U" \
        "$piso"
    run "$dir" icoFoam "${3:-}"
    cavity=$dir
}

cavityCase cavity ""
expect "cavity LDLTGPU: all 200 p solves converged (final residual <= 1e-12) in 1 step" \
    eval 'test $status -eq 0 && allConverged "$log" p 1e-12 200 && test "$(maxSteps "$log" p)" = 1'
expect "cavity LDLTGPU: first initial residual $(firstInitial "$log" p) is native's $(firstInitial "$nativeLog" p)" \
    test "$(firstInitial "$log" p)" = "$(firstInitial "$nativeLog" p)"
# each time step's second corrector has the first one's matrix (rAU is the step's): the factor
# is reused; a step may also have the step before's matrix (U steady to the bit)
factorised=$(grep -c '^LDLTGPU: p: factorised' "$log")
reused=$(grep -c '^LDLTGPU: p: factor reused (values unchanged)' "$log")
secondReused=$(grep -E '^LDLTGPU: p: (factorised|factor reused)' "$log" \
    | awk 'NR % 2 == 0 && /factor reused \(values unchanged\)/ { n++ } END { print n + 0 }')
expect "cavity LDLTGPU: $factorised factorisations, $reused reuses (values unchanged), every second corrector's solve ($secondReused of 100) a reuse" \
    test "$((factorised + reused))-$secondReused" = "200-100"
for field in p U; do
    d=$(fieldDiff "$cavity/0.5/$field" "$cavityNative/0.5/$field")
    expect "cavity LDLTGPU: final $field agrees with native's (p by PCG to 1e-12): $d <= $bound" \
        within "$d" "$bound"
done

cavityCase cavityReuse "factorReuse 2;"
changed=$(grep -c '^LDLTGPU: p: factor reused with changed values' "$log")
factorised=$(grep -c '^LDLTGPU: p: factorised' "$log")
d=$(fieldDiff "$cavity/0.5/p" "$cavityNative/0.5/p")
expect "cavity LDLTGPU factorReuse 2: $factorised factorisations, $changed solves on a factor of other values, all converged, final p within $d of native's" \
    eval 'test $status -eq 0 && test "$changed" -gt 0 && test "$factorised" -lt 100 && allConverged "$log" p 1e-12 200 && within "$d" "$bound"'

# ---------------------------------------------------------------------------------------------
# errors
cavityCase badOrdering "ordering RCM;"
expect "unknown ordering is a FatalIOError naming it and the valid ones" \
    eval 'test $status -ne 0 && logHas "FOAM FATAL IO ERROR" && logHas "Unknown ordering RCM for field p (solver LDLTGPU)" && grep -A7 "Valid orderings" "$log" | grep -q METIS && grep -A7 "Valid orderings" "$log" | grep -q auto'

cavityCase badReuse "factorReuse -1;"
expect "negative factorReuse is a FatalIOError naming it and the valid values" \
    eval 'test $status -ne 0 && logHas "FOAM FATAL IO ERROR" && logHas "factorReuse -1 for field p (solver LDLTGPU)" && logHas "Valid values"'

dir=$(prepare asymmetric cavity 0.5)
fvSolution "$dir" "p { solver PCG; preconditioner DIC; tolerance 1e-06; relTol 0; } pFinal { \$p; }
    U { $ldlt tolerance 1e-05; relTol 0; }" "$piso"
run "$dir" icoFoam
expect "LDLTGPU for the asymmetric U gets OpenFOAM's unknown-solver error listing the valid ones" \
    eval 'test $status -ne 0 && logHas "Unknown asymmetric matrix solver type LDLTGPU" && grep -A12 "Valid asymmetric matrix solver" "$log" | grep -q PBiCGStab'

cavityCase unreachable "tolerance 0; relTol 0; maxIter 50;"
expect "tolerance 0 (cannot be met): refinement stops where it stops gaining (fewer than maxIter steps), with a warning naming field and residual, the run goes on" \
    eval 'test $status -eq 0 && logHas "Solving for p with LDLTGPU: the residual is" && logHas "stopped gaining" && ! grep -q "No Iterations 50" "$log" && test "$(grep -c "^LDLTGPU:  Solving for p" "$log")" -gt 0'

# ---------------------------------------------------------------------------------------------
# decomposed: the direct solve covers each rank's matrix, refinement the processor interfaces
dir=$(prepare flangeDecomposed flange 3)
fvSolution "$dir" "T { $ldlt tolerance 1e-12; relTol 0; }" "$simple"
run "$dir" laplacianFoam 2
steps=$(maxSteps "$log" T)
expect "flange on 2 ranks, tolerance 1e-12: all $nSolves T solves converged, up to $steps refinement steps (block Jacobi across the processor patch)" \
    eval 'test $status -eq 0 && allConverged "$log" T 1e-12 "$nSolves" && test "$steps" -gt 1'
(cd "$dir" && reconstructPar -latestTime > log.reconstructPar 2>&1)
d=$(fieldDiff "$dir/3/T" "$flangeNative/3/T")
expect "flange on 2 ranks: final T agrees with native serial PCG (1e-12): $d <= $boundDecomposed" \
    within "$d" "$boundDecomposed"

cavityCase cavityDecomposed "" 4
expect "cavity p on 4 ranks: not converged in maxIter 1000, a FatalError naming field, residual and the iterative solvers" \
    eval 'test $status -ne 0 && logHas "FOAM FATAL ERROR" && logHas "Solving for p with LDLTGPU: the residual is" && logHas "after 1000 refinement steps" && logHas "PCGGPU or GAMGGPU"'

[ "$failed" -gt 0 ] || [ -n "${KEEP:-}" ] || rm -rf "$work"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
