#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The test suites of tests/suites.list and their totals, for ./Alltest, tests/gpu/*.sh and the
# scripts that add up other suites (tests/releases/builtRelease.sh, sanitizers.sh).
# Sourced, it defines:
#   suiteList              the list's suites, one a line: name|executors|GPU steps|command, trimmed
#   addTotals <log>        adds the log's last "<P> passed, <F> failed" to $passed and $failed;
#                          without one: one failure, and status 1
#   gtestTotals <program> [args]  runs a GoogleTest program, then prints its "<P> passed, <F>
#                          failed" (a run that ends with an error and no failure counted, as a
#                          sanitizer's report does: one failure more); status: the program's
#   stepCommands <script> <letter>  the commands of the suites of that GPU step, joined by &&
# Run, `bash tests/suites.sh <script> <letter>` runs the suites of that step of tests/gpu/<script>.sh
# from the repository root (with $executor, default gpu, and $coreTests from the environment),
# one after the other while they pass; its status: the first failing one's.

suitesDir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

suiteList()
{
    sed -e '/^\s*#/d' -e '/^\s*$/d' -e 's/\s*|\s*/|/g' -e 's/^\s*//' -e 's/\s*$//' "$suitesDir/suites.list" |
        awk -F '|' 'NF >= 4'
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

stepCommands()
{
    local steps command joined=
    while IFS='|' read -r _ _ steps command; do
        [[ " $steps " == *" $1:$2 "* ]] && joined+="${joined:+ && }$command"
    done < <(suiteList)
    echo "$joined"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    [ $# -eq 2 ] || { echo "Usage: suites.sh <GPU script: run, release> <step letter>" >&2; exit 2; }
    export executor=${executor:-gpu}
    commands=$(stepCommands "$1" "$2")
    [ -n "$commands" ] || { echo "suites.sh: no suite in step $2 of tests/gpu/$1.sh" >&2; exit 2; }
    echo "== suites of step $2 of tests/gpu/$1.sh: $commands"
    eval "$commands"
fi
