#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The test suites and benchmarks of tests/suites.list, run one way for ./Alltest and for the GPU
# machine's scripts (tests/gpu/run.sh, release.sh), and their totals; also for the scripts that
# add up other suites (tests/releases/builtRelease.sh, sanitizers.sh).
# Sourced, it defines:
#   suiteList              the list's entries, one a line: name|kind|executors|limit|GPU
#                          steps|command, trimmed
#   runSuite <name> <kind> <executor> <limit> <command> <log>  runs the command (bash, from
#                          the repository root; executor exported, '-' as empty) under its limit
#                          (LIMIT_<name> overrides it), its output on stdout and in the log; a
#                          test's totals added (addTotals); status 1 if it did not pass (a
#                          benchmark: its command's status)
#   addTotals <log>        adds the log's last "<P> passed, <F> failed" to $passed and $failed;
#                          without one: one failure, and status 1
#   gtestTotals <program> [args]  runs a GoogleTest program, then prints its "<P> passed, <F>
#                          failed" (a run that ends with an error and no failure counted, as a
#                          sanitizer's report does: one failure more); status: the program's
#   stepSuites <script> <letter> [name]  the entries of that step of tests/gpu/<script>.sh, in
#                          order (only the one of that name, where given)
#   stepLimit <script> <letter> [name]   the sum of their limits (s)
# Run, `bash tests/suites.sh <script> <letter> [name]` runs the entries of that step (or the one
# of that name) from the repository
# root with $executor (default gpu; an entry without executors with none) and the variables of
# the calling script, one after the other while they pass, each entry's log in $SUITE_LOGS
# (default $OUT, else build/logs); its status: the first failing one's.

suitesDir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

suiteList()
{
    sed -e '/^\s*#/d' -e '/^\s*$/d' -e 's/\s*|\s*/|/g' -e 's/^\s*//' -e 's/\s*$//' "$suitesDir/suites.list" |
        awk -F '|' 'NF >= 6'
}

addTotals()
{
    local line
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$1" | tail -n 1)
    if [ -z "$line" ]; then
        failed=$((failed + 1))
        return 1
    fi
    passed=$((passed + ${line%% passed*}))
    line=${line#*, }
    failed=$((failed + ${line%% failed*}))
}

gtestTotals()
{
    local out status ok bad
    out=$(mktemp "${TMPDIR:-/tmp}/gtest.XXXXXX")
    "$@" --gtest_color=no 2>&1 | tee "$out"
    status=${PIPESTATUS[0]}
    ok=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\?\..*/\1/p' "$out")
    bad=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) tests\?, listed below:/\1/p' "$out")
    rm -f "$out"
    [ "$status" -ne 0 ] && [ -z "$bad" ] && bad=1
    echo "${ok:-0} passed, ${bad:-0} failed"
    return "$status"
}

runSuite()
{
    local name=$1 kind=$2 limit=$4 command=$5 log=$6 override status
    override=LIMIT_$name
    limit=${!override:-$limit}
    executor=$3
    [ "$executor" != - ] || executor=
    export executor
    # a fresh bash for the command, with this file's functions (gtestTotals), reading nothing
    # (mpirun would read the caller's input); timeout ends it, and what it started, after the limit
    local started=$SECONDS
    timeout -k 10 "$limit" bash -c ". '$suitesDir/suites.sh' && $command" < /dev/null 2>&1 | tee "$log"
    status=${PIPESTATUS[0]}
    # how long it took, after its totals (addTotals reads the last totals line, not the last line)
    echo "TIME $name${executor:+ ($executor)}: $((SECONDS - started)) s of its ${limit} s" | tee -a "$log"
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
        echo "TIMEOUT $name${executor:+ ($executor)} after ${limit}s" | tee -a "$log"
    fi
    if [ "$kind" = benchmark ]; then
        return "$status"
    fi
    addTotals "$log" && [ "$status" -eq 0 ]
}

stepSuites()
{
    local line name steps
    while IFS= read -r line; do
        IFS='|' read -r name _ _ _ steps _ <<< "$line"
        [[ " $steps " == *" $1:$2 "* ]] || continue
        [ -z "${3:-}" ] || [ "$name" = "$3" ] || continue
        echo "$line"
    done < <(suiteList)
}

stepLimit()
{
    local total=0 name limit override
    while IFS='|' read -r name _ _ limit _ _; do
        override=LIMIT_$name
        total=$((total + ${!override:-$limit}))
    done < <(stepSuites "$@")
    echo "$total"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    [ $# -eq 2 ] || [ $# -eq 3 ] || { echo "Usage: suites.sh <GPU script: run, release> <step letter> [name]" >&2; exit 2; }
    cd "$suitesDir/.." || exit 2
    logs=${SUITE_LOGS:-${OUT:-build/logs}}
    mkdir -p "$logs"
    stepExecutor=${executor:-gpu}
    ran=0
    mapfile -t entries < <(stepSuites "$@")
    for entry in "${entries[@]}"; do
        IFS='|' read -r name kind executors limit _ command <<< "$entry"
        run=$stepExecutor suffix=${stepExecutor^}
        [ "$executors" != - ] || run=- suffix=
        echo "== $name${suffix:+ ($run)}: $command"
        passed=0 failed=0
        runSuite "$name" "$kind" "$run" "$limit" "$command" "$logs/$name$suffix.log" || exit 1
        ran=$((ran + 1))
    done
    [ "$ran" -gt 0 ] || { echo "suites.sh: nothing in step $2 of tests/gpu/$1.sh" >&2; exit 2; }
fi
