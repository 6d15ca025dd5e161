#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Fuzz test of the Matrix Market reader and gpuLduSolve (issue 18: hostile input never crashes,
# hangs, eats memory or passes silently). gpuLduFuzzInputs writes mutated copies of small
# matrices of tests/data (a fixed seed: the same cases on every run); each is solved by
# gpuLduSolve (executor cpu, the solver by turns: the default, LDLT, PBiCG, PBiCGStab) under a
# memory limit (as ulimit -v) and a time limit. The cases run through gpuLduFuzzRunner, which
# loads gpuLduSolve's libraries once (a CUDA build maps cuBLAS: seconds a start on a busy
# machine) and runs each case in a forked process of its own, with gpuLduSolve's main, its
# output in its own file, the memory limit on top of what the process has mapped when it starts
# and a time limit of $seconds s (killed: status 137). A case passes when the run ends with an
# exit status of gpuLduSolve's own (0 solved, 1 error, 2 not converged, 3 singular or broken
# down) and a reason on stderr if not 0; it fails on a signal, the time limit, memory
# exhaustion ("out of memory": the reader's checks must refuse first), an "unexpected error",
# a message over 4 KiB (echoed input), a sanitizer's report (tests/integration/sanitizers.sh
# runs it on a sanitized build, without the memory limit: GPULDU_SANITIZED=1), or exit 0 with a
# NaN or infinite residual.
# Usage: fuzz.sh [cpu]. FUZZ_SEED (default 18), FUZZ_CASES (default 3000), FUZZ_JOBS (default
# nproc: runners, each on its share of the cases) change the run. The binaries:
# $GPULDU_FUZZ_RUNNER and $GPULDU_FUZZ_INPUTS, else in the bin folder found as
# tests/integration/driver.sh finds gpuLduSolve ($GPULDU_SOLVE's folder).
# Prints each failing case (its file kept), the cases per mutation kind, and "<P> passed, <F>
# failed" last (one check per case); exit 1 if any failed.
set -uo pipefail

executor=${1:-cpu}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=etc/run-env.sh
. "$here/../../etc/run-env.sh"
solve=${GPULDU_SOLVE:-${GPULDU_LIBDIR:-$GPULDU_ROOT/platforms/lib}/../bin/gpuLduSolve}
inputs=${GPULDU_FUZZ_INPUTS:-$(dirname "$solve")/gpuLduFuzzInputs}
runner=${GPULDU_FUZZ_RUNNER:-$(dirname "$inputs")/gpuLduFuzzRunner}
data=$GPULDU_ROOT/tests/data
seed=${FUZZ_SEED:-18}
cases=${FUZZ_CASES:-3000}
jobs=${FUZZ_JOBS:-$(nproc)}
memoryKiB=350000    # beyond the process's idle mapping (its libraries, 50 MB to 700 MB)
[ -n "${GPULDU_SANITIZED:-}" ] && memoryKiB=0     # no limit: the runner sets none
seconds=20          # a run on these matrices takes well under a second
work=$(mktemp -d "${TMPDIR:-/tmp}/fuzz.XXXXXX")

# small matrices, so that a case costs milliseconds: symmetric and general, real, integer and
# complex (dwg961a), with and without empty rows
matrices=(nos4 gr_30_30 1138_bus sherman1 west0479 openfoam_elbow_p0 orsirr_1 dwg961a)
start=$SECONDS
files=()
for m in "${matrices[@]}"; do
    files+=("$data/$m.mtx.gz")
done
"$inputs" "$seed" "$cases" "$work/cases" "${files[@]}" > "$work/manifest" 2> "$work/inputs.log"
if [ "$(wc -l < "$work/manifest")" -ne "$cases" ]; then
    cat "$work/inputs.log"
    echo "gpuLduFuzzInputs failed: see $work"
    echo "0 passed, 1 failed"
    exit 1
fi

solvers=("" "-solver LDLT" "-solver PBiCG" "-solver PBiCGStab")

# verdict <case number> <exit status> <file> <mutations>: print "PASS" or "FAIL <why>" for a case
# the runner ran, its output in <file>.log
verdict()
{
    local number=$1 status=$2 file=$3 what=$4 log=$3.log why=
    case $status in
        0)
            if grep -qiE '(residual|error).*(nan|inf)' "$log"; then
                why="exit 0 with a non-finite residual"
            fi ;;
        1|2|3)
            grep -q '^gpuLduSolve: ' "$log" || why="exit $status without a message" ;;
        137) why="killed: the time limit of $seconds s" ;;
        *) why="exit status $status (a signal or an abort)" ;;
    esac
    if [ -z "$why" ]; then
        if grep -qE 'out of memory|unexpected error|runtime error:|ERROR: [A-Za-z]+Sanitizer' "$log"; then
            why="$(grep -m1 -E 'out of memory|unexpected error|runtime error:|ERROR: [A-Za-z]+Sanitizer' "$log")"
        elif [ "$(wc -c < "$log")" -gt 4096 ] && [ "$status" != 0 ]; then
            why="a message of $(wc -c < "$log") bytes"
        fi
    fi
    if [ -n "$why" ]; then
        echo "FAIL case $number ($what, ${solvers[number % 4]:-default solver}): $why: $file, its output $log"
    else
        echo "PASS $status $what"
        rm -f "$file" "$log"
    fi
}

# shard <job>: the cases of one shard (every jobs-th of the manifest) through one runner, each
# judged as it ends. The runner's lines: <case number> <log> <gpuLduSolve's arguments>, tab-separated
shard()
{
    local job=$1 number file what status solver
    local -a files=() whats=()
    while IFS=$'\t' read -r number file what; do
        files[number]=$file
        whats[number]=$what
        solver=${solvers[number % 4]}
        printf '%s\t%s\t%s\t-executor\t%s\t-maxIter\t300%s\n' "$number" "$file.log" "$file" "$executor" \
            "${solver:+$'\t'${solver// /$'\t'}}"
    done < <(awk -F '\t' -v job="$job" -v jobs="$jobs" '(NR - 1) % jobs == job { print NR - 1 "\t" $0 }' \
                 "$work/manifest") > "$work/cases.$job"
    "$runner" -seconds "$seconds" -memoryKiB "$memoryKiB" < "$work/cases.$job" 2> "$work/runner.$job" |
    {
        local -A judged=()
        while IFS=$'\t' read -r number status; do
            verdict "$number" "$status" "${files[number]:-}" "${whats[number]:-}"
            judged[$number]=1
        done
        # a runner that stopped early leaves cases without a status: each one fails
        for number in "${!files[@]}"; do
            [ -n "${judged[$number]:-}" ] || echo "FAIL case $number (${whats[number]}): no exit status from" \
                "gpuLduFuzzRunner (its messages: $work/runner.$job): ${files[number]}"
        done
    }
}

# The runner's limits proved on a valid matrix first (negative controls, not counted as cases:
# a harness that applied no limit would pass hostile cases unchecked); each that fails counts as
# a failed case. control <what> <matrix> <expected status> <expected output (ERE) or "">
# <runner options...>
controlsFailed=0
control()
{
    local what=$1 matrix=$2 expected=$3 pattern=$4 log=$work/control.log status
    shift 4
    status=$(printf 'control\t%s\t%s\t-executor\t%s\n' "$log" "$matrix" "$executor" |
             "$runner" "$@" 2> /dev/null | cut -f2)
    if [ "$status" != "$expected" ] || { [ -n "$pattern" ] && ! grep -qE "$pattern" "$log"; }; then
        echo "FAIL runner control: $what: exit status ${status:-none}, expected $expected${pattern:+ and /$pattern/}"
        controlsFailed=$((controlsFailed + 1))
    fi
}
control "a valid matrix solves" "$data/nos4.mtx.gz" 0 "converged +yes" -seconds "$seconds" -memoryKiB "$memoryKiB"
# a named pipe that nobody writes: the case blocks opening it
mkfifo "$work/control.fifo"
control "the time limit kills (SIGKILL: 137)" "$work/control.fifo" 137 "" -seconds 1
[ "$memoryKiB" -gt 0 ] && control "the memory limit holds" "$data/nos4.mtx.gz" 1 "out of memory" -memoryKiB 100

# the cases in $jobs shards, each a runner in the background
for ((job = 0; job < jobs; ++job)); do
    shard "$job" > "$work/results.$job" &
done
wait

cat "$work"/results.* > "$work/results"
grep '^FAIL' "$work/results"
passed=$(grep -c '^PASS' "$work/results")
failed=$(($(grep -c '^FAIL' "$work/results") + controlsFailed))
statuses=$(awk '$1 == "PASS" { n[$2]++ } END { for (s in n) print s ": " n[s] }' "$work/results" | sort | paste -sd ' ')
kinds=$(awk '$1 == "PASS" { split($3, k, ","); for (i in k) n[k[i]]++ } END { for (m in n) print m, n[m] }' \
        "$work/results" | sort | paste -sd ',' | sed 's/,/, /g')
echo "exit statuses of the passed cases (0 solved, 1 error, 2 not converged, 3 singular): $statuses"
echo "passed cases per mutation kind: $kinds"
idle=$(sed -n 's/^gpuLduFuzzRunner: \([0-9]*\) KiB mapped idle$/\1/p' "$work/runner.0")
limit="ulimit -v ${idle:-?} + $memoryKiB KiB"
[ "$memoryKiB" -gt 0 ] || limit="no memory limit"
echo "fuzz: $cases cases (seed $seed) in $((SECONDS - start)) s on $jobs jobs, each a process under $limit and $seconds s"
[ "$failed" -gt 0 ] || rm -rf "$work"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -eq "$cases" ]
