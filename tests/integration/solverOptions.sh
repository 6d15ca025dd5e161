#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The user-facing options of the GPU solvers on the icoFoam cavity: the dictionary form of the
# preconditioner entry, and the errors for bad input (unknown preconditioner, unknown executor,
# executor gpu without a usable GPU, PCGGPU on an asymmetric matrix, a residual that becomes
# NaN, an unknown matrixFormat, checkNative with ILU0) and the log line of matrixFormat auto. U
# is solved by PBiCGStabGPU (DILU) in all of them, as in the tutorial; its executor follows p's.
# Usage: solverOptions.sh
# Prints "<P> passed, <F> failed" last; exit 1 if any failed.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=etc/run-env.sh
. "$here/../../etc/run-env.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/solverOptions.XXXXXX")
passed=0
failed=0

# runCavity <name> <sed script for system/fvSolution> [<sed script for 0/U>]: runs a fresh
# copy, leaves its log in $log
runCavity()
{
    local dir=$work/$1
    cp -r "$here/../../tutorials/cavity" "$dir"
    sed -i -e "$2" "$dir/system/fvSolution"
    [ -z "${3:-}" ] || sed -i -e "$3" "$dir/0/U"
    (cd "$dir" && blockMesh > log.blockMesh 2>&1 && icoFoam > log.icoFoam 2>&1)
    status=$?
    log=$dir/log.icoFoam
}

# shellcheck source=tests/lib/checks.sh
. "$here/../lib/checks.sh"

pIterations()
{
    awk -F'No Iterations ' '/Solving for p,/ { s += $2 } END { print s + 0 }' "$log"
}

# 1. preconditioner { preconditioner DIC; } is the same as preconditioner DIC;
runCavity dictForm 's/executor .*gpu;/executor cpu;/; s/preconditioner  DIC;/preconditioner { preconditioner DIC; }/'
expect "dictionary-form preconditioner gives the native 1365 iterations" \
    test "$status-$(pIterations)" = "0-1365"
expect "log line reads DICPCGGPU" logHas "DICPCGGPU:  Solving for p, Initial residual = "

# 2. an unknown preconditioner stops with the list of valid ones
runCavity badPrecond 's/executor .*gpu;/executor cpu;/; s/preconditioner  DIC;/preconditioner  DILU;/'
expect "unknown preconditioner is a FatalIOError naming it and the valid ones" \
    eval 'test $status -ne 0 && logHas "FOAM FATAL IO ERROR" && logHas "Unknown preconditioner DILU" && logHas "FDIC" && logHas "diagonal"'

# 3. an unknown executor stops with the list of valid ones
runCavity badExecutor 's/executor .*gpu;/executor tpu;/'
expect "unknown executor is a FatalIOError naming it and the valid ones" \
    eval 'test $status -ne 0 && logHas "FOAM FATAL IO ERROR" && logHas "Unknown executor tpu" && grep -A4 "Valid executors" "$log" | grep -q gpu'

# 4. executor gpu: runs where a GPU is usable, otherwise a FatalError that names executor cpu
runCavity gpu 's/executor .*gpu;/executor gpu;/'
if nvidia-smi -L > /dev/null 2>&1; then
    expect "executor gpu runs on this GPU machine with the native 1365 iterations" \
        test "$status-$(pIterations)" = "0-1365"
else
    expect "executor gpu without a usable GPU is a FatalError naming executor cpu" \
        eval 'test $status -ne 0 && logHas "FOAM FATAL ERROR" && logHas "executor gpu selected for field U" && logHas "executor cpu;"'
fi

# 5. PCGGPU is registered for symmetric matrices only (U is asymmetric)
runCavity asymmetric '/^    U$/,/}/ s/solver .*;/solver PCGGPU; preconditioner DIC;/'
expect "PCGGPU on an asymmetric matrix is rejected by OpenFOAM's solver table" \
    eval 'test $status -ne 0 && logHas "Unknown asymmetric matrix solver type PCGGPU"'

# 6. a residual that overflows stops the run at once, naming field and iteration (native
#    PBiCGStab iterates to maxIter on NaN). Floating-point trapping off, or OpenFOAM would trap
#    the overflow itself.
export FOAM_SIGFPE=false
runCavity overflow 's/executor .*gpu;/executor cpu;/' 's/uniform (1 0 0)/uniform (1e+300 0 0)/'
unset FOAM_SIGFPE
expect "a non-finite residual is a FatalError naming the field and the iteration" \
    eval 'test $status -ne 0 && logHas "FOAM FATAL ERROR" && logHas "Solving for Ux with DILUPBiCGStabGPU: the residual became" && logHas "at iteration 1"'

# 7. matrixFormat auto: the format in use is logged once per field, not every solve
runCavity formatAuto 's/executor .*gpu;/executor cpu;/; s/^\(\s*solver .*GPU;\)/\1 matrixFormat auto;/'
expect "matrixFormat auto is logged once per field and keeps the native 1365 iterations" \
    eval 'test "$status-$(pIterations)" = "0-1365" && test "$(grep -c "matrixFormat auto for p: " "$log")" = 1 && test "$(grep -c "matrixFormat auto for Ux: " "$log")" = 1'

# 8. an unknown matrixFormat stops with the list of valid ones
runCavity badFormat 's/executor .*gpu;/executor cpu;/; s/^\(\s*solver .*PCGGPU;\)/\1 matrixFormat coo;/'
expect "unknown matrixFormat is a FatalIOError naming it and the valid ones" \
    eval 'test $status -ne 0 && logHas "FOAM FATAL IO ERROR" && logHas "Unknown matrixFormat coo" && grep -A8 "Valid matrixFormats" "$log" | grep -q blockedEll'

# 9. checkNative compares with native's solver and preconditioners: with ILU0, which native does
#    not have, it stops before the first solve (the solve sequence's checkComparable step)
runCavity checkNativeIlu0 's/executor .*gpu;/executor cpu;/; s/^\(\s*solver .*PCGGPU;\)/\1 checkNative yes;/; s/preconditioner  DIC;/preconditioner  ILU0;/'
expect "checkNative with ILU0 is a FatalIOError: no native counterpart, nothing solved" \
    eval 'test $status -ne 0 && logHas "FOAM FATAL IO ERROR" && logHas "checkNative for field p compares with PCG and OpenFOAM'"'"'s own preconditioners; ILU0 has no native counterpart" && ! grep -q "Solving for p" "$log"'

[ "$failed" -gt 0 ] || rm -rf "$work"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
