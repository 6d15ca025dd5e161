#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The GPU machine's run on the Foundation's OpenFOAM-14 (there: no OpenFOAM, no package registry),
# from the repo root with the ignored folder .gpu carried:
#   .gpu/openfoam14-bundle.tar.xz   a copy of ../shared/openfoam/openfoam14-bundle.tar.xz
#   .gpu/openmpi-runtime.tar.xz     ../shared/tools/pack-openmpi-runtime.sh .gpu
#   .gpu/of14/lib                   libgpuLduSolvers.so and libgpuLduCore.so (CUDA) built here
#                                   against OpenFOAM-14 (tests/releases/openfoam14.sh builds them),
#                                   with the Debian libraries the core links and the machine lacks:
#                                   libamd.so.2 libmetis.so.5 libblas.so.3 libsuitesparseconfig.so.5
#   .gpu/platforms/bin/gpuLduCoreTestsCuda   the core tests of the CUDA build
# Steps (GPU_STEPS, default "abc"): (a) the core tests on the GPU; (b) tests/releases/openfoam14.sh
# gpu (native OpenFOAM-14 against the plugin with executor gpu); (c) tests/benchmark/cavity3DSteps.sh
# on OpenFOAM-14: GPU_BENCH_N^3 cells (100), GPU_BENCH_STEPS steps (4), GPU_BENCH_NP ranks (16).
# Logs go to $OUT (or .gpu/out); a pass/fail table comes last.
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

names=()
results=()
step()   # step <letter> <name> <limit s> <log> <command...>
{
    [[ $steps == *$1* ]] || return 0
    local name=$2 limit=$3 log=$OUT/$4 t0 rc
    shift 4
    echo "== $name (limit ${limit}s, log $log)"
    t0=$(date +%s)
    timeout -k 10 "$limit" "$@" > "$log" 2>&1
    rc=$?
    case $rc in 0) results+=("PASS") ;; 124|137) results+=("TIMEOUT") ;; *) results+=("FAIL($rc)") ;; esac
    names+=("$name $(( $(date +%s) - t0 ))s")
    tail -n 25 "$log"
}

step a "core tests (CUDA build)" "${GPU_LIMIT_A:-120}" coreTestsCuda.log \
    env LD_LIBRARY_PATH="$GPULDU_OPENFOAM14_LIBDIR:$LD_LIBRARY_PATH" .gpu/platforms/bin/gpuLduCoreTestsCuda --gtest_color=no
step b "OpenFOAM-14, executor gpu" "${GPU_LIMIT_B:-420}" openfoam14-gpu.log \
    bash tests/releases/openfoam14.sh gpu
# the benchmark in OpenFOAM-14's environment, the plugin built against it
step c "cavity3D on OpenFOAM-14" "${GPU_LIMIT_C:-540}" cavity3DSteps-openfoam14.log bash -c '
    . tests/releases/openfoam14Env.sh && openfoam14Env > /dev/null &&
    export GPULDU_LIBDIR=$GPULDU_OPENFOAM14_LIBDIR LD_LIBRARY_PATH=$GPULDU_OPENFOAM14_LIBDIR:$LD_LIBRARY_PATH &&
    tests/benchmark/cavity3DSteps.sh -n "${GPU_BENCH_N:-100}" -steps "${GPU_BENCH_STEPS:-4}" -np "${GPU_BENCH_NP:-16}"'

echo
for i in "${!names[@]}"; do
    printf '%-40s %s\n' "${names[$i]}" "${results[$i]}"
done
