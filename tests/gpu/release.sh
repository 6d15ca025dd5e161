#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The GPU machine's run on the built OpenFOAM releases (there: no OpenFOAM, no package registry),
# from the repo root with the ignored folder .gpu carried:
#   .gpu/<release>-bundle.tar.xz    a copy of ../shared/openfoam/<release>-bundle.tar.xz for each
#                                   release of GPU_RELEASES (tests/releases/releaseEnv.sh)
#   .gpu/openmpi-runtime.tar.xz     ../shared/tools/pack-openmpi-runtime.sh .gpu
#   .gpu/releases/<release>/lib     libgpuLduSolvers.so and libgpuLduCore.so (CUDA) built here
#                                   against the release (tests/releases/builtRelease.sh builds
#                                   them), step c's libgpuLduSolveTimer.so (tests/benchmark/solveTimer,
#                                   by wmake in the release's environment), with the Debian
#                                   libraries the core links and the machine lacks: libamd.so.2
#                                   libmetis.so.5 libblas.so.3 libsuitesparseconfig.so.5
#   .gpu/platforms/bin/gpuLduCoreTestsCuda   the core tests of the CUDA build
# Steps (GPU_STEPS, default "abc"): (a) the core tests on the GPU; (b) for each release,
# tests/releases/builtRelease.sh <release> gpu (native against the plugin with executor gpu);
# (c) for each release, tests/benchmark/timeStep.sh in its environment with GPU_TIMESTEP's
# options (default "-sizes 100 -steps 10"; all the host's cores) and GPU_TIMESTEP_RUNS' runs
# (default: all of them).
# GPU_RELEASES: the releases (default "openfoam14 esi2506"; those whose bundle is in .gpu).
# The suites of a and b: those of tests/suites.list marked release:<letter> (step b those named
# as a release of GPU_RELEASES); the step runner and the table: tests/gpu/steps.sh. Logs go to $OUT (or
# .gpu/out); a pass/fail table comes last (exit status 1 if a step did not pass).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 1
export OUT=${OUT:-$root/.gpu/out}
mkdir -p "$OUT"
steps=${GPU_STEPS:-abc}
releases=${GPU_RELEASES:-openfoam14 esi2506}
export GPULDU_DEPS=${GPULDU_DEPS:-/tmp/gpuLduDeps}
export GPULDU_BUNDLES=$root/.gpu
export GPULDU_RELEASE_BUILDS=$root/.gpu/releases
export GPULDU_TEST_DATA_DIR=$root/tests/data
tar -xJf .gpu/openmpi-runtime.tar.xz -C /tmp && . /tmp/ompi/env.sh || { echo "FAIL: no Open MPI runtime"; exit 1; }
nvidia-smi -L | tee "$OUT/env.log"

start=$(date +%s)
# shellcheck source=tests/gpu/steps.sh
. "$root/tests/gpu/steps.sh"
# the suites of tests/suites.list in steps a and b (bash tests/suites.sh release <letter>)
export executor=gpu coreTests=$root/.gpu/platforms/bin/gpuLduCoreTestsCuda
firstLib=$GPULDU_RELEASE_BUILDS/${releases%% *}/lib

# shellcheck source=tests/suites.sh
. "$root/tests/suites.sh"
step a "core tests (CUDA build)" "$(( $(stepLimit release a) + 30 ))" coreTestsCuda.log \
    env LD_LIBRARY_PATH="$firstLib:$LD_LIBRARY_PATH" SUITE_LOGS=/tmp/suite-logs bash tests/suites.sh release a \
    && tail -n 25 "$OUT/coreTestsCuda.log"
# step b: each release's suite, by its name in tests/suites.list (marked release:b)
for release in $releases; do
    step b "$release, executor gpu" "$(( $(stepLimit release b "$release") + 30 ))" "$release-gpu.log" \
        env SUITE_LOGS=/tmp/suite-logs bash tests/suites.sh release b "$release" \
        && grep -E '^(PASS|FAIL)|passed' "$OUT/$release-gpu.log" | cut -c1-300 | tail -n 40
done
# the benchmark in each release's environment, the plugin built against it (the list's
# releaseTimeStep, marked release:c)
for release in $releases; do
    step c "cavity3D on $release" "$(( $(stepLimit release c) + 30 ))" "timeStep-$release.log" \
        env release="$release" SUITE_LOGS=/tmp/suite-logs bash tests/suites.sh release c \
        && tail -n 12 "$OUT/timeStep-$release.log"
done

stepSummary "$start"
