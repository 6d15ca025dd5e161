#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The GPU machine's run on the Foundation's OpenFOAM-14 (there: no OpenFOAM, no package registry),
# from the repo root with the ignored folder .gpu carried:
#   .gpu/openfoam14-bundle.tar.xz   a copy of ../shared/openfoam/openfoam14-bundle.tar.xz
#   .gpu/openmpi-runtime.tar.xz     ../shared/tools/pack-openmpi-runtime.sh .gpu
#   .gpu/of14/lib                   libgpuLduSolvers.so and libgpuLduCore.so (CUDA) built here
#                                   against OpenFOAM-14 (tests/releases/openfoam14.sh builds them),
#                                   step c's libgpuLduSolveTimer.so (tests/benchmark/solveTimer, by
#                                   wmake in OpenFOAM-14's environment),
#                                   with the Debian libraries the core links and the machine lacks:
#                                   libamd.so.2 libmetis.so.5 libblas.so.3 libsuitesparseconfig.so.5
#   .gpu/platforms/bin/gpuLduCoreTestsCuda   the core tests of the CUDA build
# Steps (GPU_STEPS, default "abc"): (a) the core tests on the GPU; (b) tests/releases/openfoam14.sh
# gpu (native OpenFOAM-14 against the plugin with executor gpu); (c) tests/benchmark/timeStep.sh
# on OpenFOAM-14: GPU_BENCH_N^3 cells (100), GPU_BENCH_STEPS steps (10), GPU_BENCH_NP ranks (16).
# The suites of a and b: those of tests/suites.list marked openfoam14:<letter>; the step runner and
# the table: tests/gpu/steps.sh. Logs go to $OUT (or .gpu/out); a pass/fail table comes last (exit
# status 1 if a step did not pass).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 1
export OUT=${OUT:-$root/.gpu/out}
mkdir -p "$OUT"
steps=${GPU_STEPS:-abc}
export GPULDU_DEPS=${GPULDU_DEPS:-/tmp/gpuLduDeps}
export GPULDU_OPENFOAM14_BUNDLE=$root/.gpu/openfoam14-bundle.tar.xz
export GPULDU_OPENFOAM14_LIBDIR=$root/.gpu/of14/lib
export GPULDU_TEST_DATA_DIR=$root/tests/data
tar -xJf .gpu/openmpi-runtime.tar.xz -C /tmp && . /tmp/ompi/env.sh || { echo "FAIL: no Open MPI runtime"; exit 1; }
nvidia-smi -L | tee "$OUT/env.log"

start=$(date +%s)
# shellcheck source=tests/gpu/steps.sh
. "$root/tests/gpu/steps.sh"
# the suites of tests/suites.list in steps a and b (bash tests/suites.sh openfoam14 <letter>)
export executor=gpu coreTests=$root/.gpu/platforms/bin/gpuLduCoreTestsCuda

step a "core tests (CUDA build)" "${GPU_LIMIT_A:-120}" coreTestsCuda.log \
    env LD_LIBRARY_PATH="$GPULDU_OPENFOAM14_LIBDIR:$LD_LIBRARY_PATH" bash tests/suites.sh openfoam14 a \
    && tail -n 25 "$OUT/coreTestsCuda.log"
step b "OpenFOAM-14, executor gpu" "${GPU_LIMIT_B:-420}" openfoam14-gpu.log bash tests/suites.sh openfoam14 b \
    && tail -n 25 "$OUT/openfoam14-gpu.log"
# the benchmark in OpenFOAM-14's environment, the plugin built against it
step c "cavity3D on OpenFOAM-14" "${GPU_LIMIT_C:-540}" timeStep-openfoam14.log bash -c '
    . tests/releases/openfoam14Env.sh && openfoam14Env > /dev/null &&
    export GPULDU_LIBDIR=$GPULDU_OPENFOAM14_LIBDIR LD_LIBRARY_PATH=$GPULDU_OPENFOAM14_LIBDIR:$LD_LIBRARY_PATH &&
    tests/benchmark/timeStep.sh -sizes "${GPU_BENCH_N:-100}" -steps "${GPU_BENCH_STEPS:-10}" -np "${GPU_BENCH_NP:-16}"' \
    && tail -n 12 "$OUT/timeStep-openfoam14.log"

stepSummary "$start"
