#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The core built once more for the CPU executor with AddressSanitizer and
# UndefinedBehaviorSanitizer (out-of-bounds, use-after-free, leaks, overflow, misaligned or null
# access: any report ends the run with a failure), into build-sanitize; then the core tests,
# tests/integration/driver.sh and a shorter fuzz run (tests/integration/fuzz.sh) with that build.
# The memory limits of driver.sh and fuzz.sh are left out there (GPULDU_SANITIZED=1):
# AddressSanitizer reserves terabytes of address space for its shadow memory, which ulimit -v
# refuses; the time limits stay. Optimised at -O1 (with NDEBUG, as a release build): UBSan's
# instrumentation made the -O3 build 2190 s of CI's 90 minutes, -O1's takes 843; the tests
# still run in a few times their usual time (the core's 125 s against 95 at -O3), not thirty.
# UndefinedBehaviorSanitizer's reports are recoverable at compile time so that ubsan.supp can
# suppress one in Thrust's headers; halt_on_error makes every other report end the run. Usage: sanitizers.sh. FUZZ_CASES (default 300) for the fuzz run.
# Prints "<P> passed, <F> failed" last, over the three; exit 1 if any failed.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build-sanitize
flags="-fsanitize=address,undefined -fno-omit-frame-pointer -g1"
start=$SECONDS

[ -x /usr/local/cuda/bin/nvcc ] && export PATH=$PATH:/usr/local/cuda/bin    # Thrust's headers
mkdir -p "$build"
if ! { cmake -S "$root/cudaKernels" -B "$build" -DGPULDU_CUDA=OFF -DGPULDU_BUILD_TESTS=ON -DCMAKE_BUILD_TYPE=Release \
           "-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG" \
       && cmake --build "$build" -j "$(nproc)" --target gpuLduCoreTests gpuLduSolve gpuLduFuzzInputs gpuLduFuzzRunner
     } > "$build/build.log" 2>&1; then
    tail -20 "$build/build.log"
    echo "sanitizer build failed: see $build/build.log"
    echo "0 passed, 1 failed"
    exit 1
fi
echo "sanitizer build (gpuLduCoreTests, gpuLduSolve, the fuzz programs; executor cpu): $((SECONDS - start)) s"

# a report is an error that ends the process; leaks are reported at exit
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=86:suppressions=$here/ubsan.supp
export GPULDU_SANITIZED=1
passed=0
failed=0
# shellcheck source=tests/suites.sh
. "$here/../suites.sh"
# add <log>: the suite's "N passed, N failed", or one failure if it has none
add()
{
    addTotals "$1" || echo "FAIL no count in $1"
}

logs=$build/logs
mkdir -p "$logs"
step=$SECONDS
# a sanitizer report ends the run before GoogleTest's summary: one failure more (gtestTotals)
gtestTotals "$build/tests/gpuLduCoreTests" > "$logs/core.log" 2>&1
grep -E '^\[  FAILED  \]|ERROR: (Address|Leak)Sanitizer|runtime error:' "$logs/core.log"
echo "core tests under the sanitizers: $(tail -n 1 "$logs/core.log") in $((SECONDS - step)) s"
add "$logs/core.log"

step=$SECONDS
GPULDU_SOLVE=$build/gpuLduSolve GPULDU_LIBDIR=$build bash "$here/driver.sh" cpu > "$logs/driver.log" 2>&1
grep '^FAIL' "$logs/driver.log"
echo "driver.sh under the sanitizers: $(tail -n 1 "$logs/driver.log") in $((SECONDS - step)) s"
add "$logs/driver.log"

step=$SECONDS
FUZZ_CASES=${FUZZ_CASES:-300} GPULDU_SOLVE=$build/gpuLduSolve GPULDU_FUZZ_INPUTS=$build/tests/gpuLduFuzzInputs \
    GPULDU_FUZZ_RUNNER=$build/tests/gpuLduFuzzRunner GPULDU_LIBDIR=$build bash "$here/fuzz.sh" cpu > "$logs/fuzz.log" 2>&1
grep '^FAIL' "$logs/fuzz.log"
echo "fuzz.sh under the sanitizers: $(tail -n 1 "$logs/fuzz.log") in $((SECONDS - step)) s"
add "$logs/fuzz.log"

echo "sanitizers: $((SECONDS - start)) s in all"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
