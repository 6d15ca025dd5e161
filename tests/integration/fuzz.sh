#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Fuzz test of the Matrix Market reader and gpuLduSolve (issue 18: hostile input never crashes,
# hangs, eats memory or passes silently). gpuLduFuzzInputs writes mutated copies of small
# matrices of tests/data (a fixed seed: the same cases on every run); each is solved by
# gpuLduSolve (executor cpu, the solver by turns: the default, LDLT, PBiCG, PBiCGStab) under a
# memory limit (ulimit -v) and a time limit (timeout). A case passes when the run ends with an
# exit status of gpuLduSolve's own (0 solved, 1 error, 2 not converged, 3 singular or broken
# down) and a reason on stderr if not 0; it fails on a signal, the time limit, memory
# exhaustion ("out of memory": the reader's checks must refuse first), an "unexpected error",
# a message over 4 KiB (echoed input), a sanitizer's report (tests/integration/sanitizers.sh
# runs it on a sanitized build, without the memory limit: GPULDU_SANITIZED=1), or exit 0 with a
# NaN or infinite residual.
# Usage: fuzz.sh [cpu]. FUZZ_SEED (default 18), FUZZ_CASES (default 3000), FUZZ_JOBS (default
# nproc) change the run. The binaries: $GPULDU_SOLVE and $GPULDU_FUZZ_INPUTS, else beside each
# other in the bin folder found as tests/integration/driver.sh finds gpuLduSolve.
# Prints each failing case (its file kept), the cases per mutation kind, and "<P> passed, <F>
# failed" last (one check per case); exit 1 if any failed.
set -uo pipefail

executor=${1:-cpu}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=etc/run-env.sh
. "$here/../../etc/run-env.sh"
solve=${GPULDU_SOLVE:-${GPULDU_LIBDIR:-$GPULDU_ROOT/platforms/lib}/../bin/gpuLduSolve}
inputs=${GPULDU_FUZZ_INPUTS:-$(dirname "$solve")/gpuLduFuzzInputs}
data=$GPULDU_ROOT/tests/data
seed=${FUZZ_SEED:-18}
cases=${FUZZ_CASES:-3000}
jobs=${FUZZ_JOBS:-$(nproc)}
memoryKiB=350000    # beyond the binary's idle mapping (idleKiB: its libraries, 50 MB to 700 MB)
# shellcheck source=tests/integration/idleMemory.sh
. "$here/idleMemory.sh"
idle=$(idleKiB "$solve")
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

# check <case number> <file> <mutations>: run one case, print "PASS" or "FAIL <why>" with it
check()
{
    local number=$1 file=$2 what=$3 status log=$2.log
    local solvers=("" "-solver LDLT" "-solver PBiCG" "-solver PBiCGStab")
    # shellcheck disable=SC2086  # the solver option is two words or none
    (
        [ -n "${GPULDU_SANITIZED:-}" ] || ulimit -v "$((idle + memoryKiB))"
        exec timeout -s KILL "$seconds" "$solve" "$file" -executor "$executor" -maxIter 300 ${solvers[number % 4]}
    ) > "$log" 2>&1
    status=$?
    local why=
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

# the cases in $jobs shards, each a background loop
for ((job = 0; job < jobs; ++job)); do
    awk -F '\t' -v job="$job" -v jobs="$jobs" '(NR - 1) % jobs == job { print NR - 1 "\t" $0 }' \
        "$work/manifest" |
    while IFS=$'\t' read -r number file what; do
        check "$number" "$file" "$what"
    done > "$work/results.$job" &
done
wait

cat "$work"/results.* > "$work/results"
grep '^FAIL' "$work/results"
passed=$(grep -c '^PASS' "$work/results")
failed=$(grep -c '^FAIL' "$work/results")
statuses=$(awk '$1 == "PASS" { n[$2]++ } END { for (s in n) print s ": " n[s] }' "$work/results" | sort | paste -sd ' ')
kinds=$(awk '$1 == "PASS" { split($3, k, ","); for (i in k) n[k[i]]++ } END { for (m in n) print m, n[m] }' \
        "$work/results" | sort | paste -sd ',' | sed 's/,/, /g')
echo "exit statuses of the passed cases (0 solved, 1 error, 2 not converged, 3 singular): $statuses"
echo "passed cases per mutation kind: $kinds"
echo "fuzz: $cases cases (seed $seed) in $((SECONDS - start)) s on $jobs jobs, each under ulimit -v $idle + $memoryKiB KiB and $seconds s"
[ "$failed" -gt 0 ] || rm -rf "$work"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -eq "$cases" ]
