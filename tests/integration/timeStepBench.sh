#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The whole-time-step benchmark (tests/benchmark/timeStep.sh) as a test, small: cavity3D 12^3 on
# 2 ranks, 3 steps, every run. Checks that the stopwatch library builds and loads (each solve
# timed), that the table has a line of numbers per run, and that the runs that take native's
# iterations do: GAMGGPU GaussSeidel native GAMG's and PCGGPU+DIC native PCG's, solve by solve.
# And that -base runs the other build: with a base whose plugin is not a library, the base run
# (<run>@base, and <run>@base-1gpu with -gpus) fails where OpenFOAM loads the plugin. And that
# -ranksPerSystem writes the plugin's OptimisationSwitch.
# Usage: timeStepBench.sh [cpu|gpu]   (default cpu)
set -uo pipefail

executor=${1:-cpu}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
passed=0
failed=0
# shellcheck source=tests/lib/checks.sh
. "$here/../lib/checks.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/timeStepBench.XXXXXX")
log=$tmp/timeStep.log
mkdir -p "$tmp/out"

OUT=$tmp/out TMPDIR=$tmp CAVITY_KEEP=1 \
    bash "$here/../benchmark/timeStep.sh" -sizes 12 -steps 3 -np 2 -executor "$executor" > "$log" 2>&1
status=$?
expect "timeStep.sh -sizes 12 -steps 3 -np 2 -executor $executor runs" test "$status" -eq 0
table=$tmp/out/timeStep-12.txt
runs="nativeGAMG nativePCG GAMGGPUChebyshev GAMGGPUGaussSeidel PCGGPUDIC"
for r in $runs; do
    expect "the table has a line of numbers for $r" \
        eval "awk -v r=$r '\$1 == r && NF == 13 && \$3 > 0 && \$4 > 0 && \$8 > 0 && (\$13 == \"-\" || \$13 >= 0) { ok = 1 } END { exit !ok }' '$table'"
done

# pIterations <run>: the iterations of its p-solves, one a line
case=$(find "$tmp" -maxdepth 2 -type d -name 12 | head -n 1)
pIterations()
{
    sed -n 's/.*Solving for p,.* No Iterations \([0-9]*\)$/\1/p' "$case/log.$1"
}
for pair in "GAMGGPUGaussSeidel nativeGAMG" "PCGGPUDIC nativePCG"; do
    read -r mine theirs <<< "$pair"
    expect "$mine takes $theirs's p iterations, solve by solve" \
        eval "[ -n \"\$(pIterations $theirs)\" ] && [ \"\$(pIterations $mine)\" = \"\$(pIterations $theirs)\" ]"
done
# -base: the base run takes the base's plugin, with -gpus too
mkdir -p "$tmp/notALibrary"
echo "not a library" > "$tmp/notALibrary/libgpuLduSolvers.so"
for gpus in "" "-gpus 1"; do
    baseLog=$tmp/base${gpus:+-gpus}.log
    # shellcheck disable=SC2086
    OUT=$tmp/out TMPDIR=$tmp bash "$here/../benchmark/timeStep.sh" -sizes 12 -steps 3 -np 2 -executor "$executor" \
        -runs PCGGPUDIC -base "$tmp/notALibrary" $gpus > "$baseLog" 2>&1
    status=$?
    run=PCGGPUDIC@base${gpus:+-1gpu}
    expect "-base ${gpus:-without -gpus}: the plugin's own run passes, $run fails on the base's plugin" \
        eval "[ $status -ne 0 ] && grep -q 'FAIL: $run in ' '$baseLog' && ! grep -q 'FAIL: PCGGPUDIC${gpus:+-1gpu} in ' '$baseLog'"
done
# -ranksPerSystem: the plugin's runs have the OptimisationSwitch gpuLduRanksPerSystem in their
# controlDict (OpenFOAM logs it as overridden); a value that is not a number is refused
mkdir -p "$tmp/ranks"
OUT=$tmp/out TMPDIR=$tmp/ranks CAVITY_KEEP=1 bash "$here/../benchmark/timeStep.sh" -sizes 12 -steps 3 -np 2 \
    -executor "$executor" -runs GAMGGPUGaussSeidel -ranksPerSystem 1 > "$tmp/ranks.log" 2>&1
status=$?
ranksCase=$(find "$tmp/ranks" -maxdepth 2 -type d -name 12 | head -n 1)
expect "-ranksPerSystem 1: the run passes with gpuLduRanksPerSystem among its OptimisationSwitches" \
    eval "[ $status -eq 0 ] && grep -A3 'Overriding OptimisationSwitches' '$ranksCase/log.GAMGGPUGaussSeidel' | grep -q gpuLduRanksPerSystem"
OUT=$tmp/out TMPDIR=$tmp bash "$here/../benchmark/timeStep.sh" -sizes 12 -ranksPerSystem two > "$tmp/ranksBad.log" 2>&1
status=$?
expect "-ranksPerSystem two is refused, naming the option" \
    eval "[ $status -ne 0 ] && grep -q \"ranksPerSystem: 'two' is not a number\" '$tmp/ranksBad.log'"

[ "$failed" -eq 0 ] && rm -rf "$tmp"
echo "$passed passed, $failed failed"
