# shellcheck shell=bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by the GPU machine's scripts (run.sh, release.sh): their steps, each a command under
# its own time limit with its output in a log of $OUT, and the pass/fail table at the end. The
# script sets steps (the letters to run, from GPU_STEPS) and OUT. A step's suites of
# tests/suites.list run as `bash tests/suites.sh <script> <letter>`.
#   step <letter> <name> <limit s> <log> <command...>: runs the command if its letter is in
#       $steps (status 1 if not, so that `step ... && <show its log>` shows only what ran)
#   stepSummary <start (date +%s)>: the table of the steps run, also into $OUT/summary.txt;
#       status 1 if one did not pass

stepNames=()
stepResults=()

step()
{
    # shellcheck disable=SC2154  # steps: the caller's
    [[ $steps == *$1* ]] || return 1
    local name=$2 limit=$3 log=$OUT/$4 t0 rc
    shift 4
    echo
    echo "== $name: $* (limit ${limit}s, log $log)"
    t0=$(date +%s)
    timeout -k 10 "$limit" "$@" > "$log" 2>&1
    rc=$?
    case $rc in
        0) stepResults+=("PASS") ;;
        124|137) stepResults+=("TIMEOUT") ;;
        *) stepResults+=("FAIL($rc)") ;;
    esac
    stepNames+=("$name $(( $(date +%s) - t0 ))s")
    return 0
}

stepSummary()
{
    local i r
    {
        echo
        echo "== summary ($(( $(date +%s) - $1 ))s in all; logs in $OUT)"
        for i in "${!stepNames[@]}"; do
            printf '%-9s %s\n' "${stepResults[$i]}" "${stepNames[$i]}"
        done
    } | tee "$OUT/summary.txt"
    for r in "${stepResults[@]}"; do
        [ "$r" = PASS ] || return 1
    done
}
