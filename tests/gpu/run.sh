#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Everything for one call on the GPU machine (no OpenFOAM there), from the repo root with the
# ignored folder .gpu carried (openfoam-runtime.tar.xz, platforms/{lib,bin} of the CUDA build):
#   bash tests/gpu/run.sh
# The runtime needs the tutorials' applications beside the default ones (laplacianFoam for step
# h's zero-diagonal cases and step i, ansysToFoam for step i):
#   OF_BINS="icoFoam simpleFoam pimpleFoam pisoFoam blockMesh foamDictionary checkMesh decomposePar
#   reconstructPar renumberMesh potentialFoam dnsFoam boxTurb postProcess fluentMeshToFoam
#   laplacianFoam ansysToFoam" \
#   ../shared/tools/pack-openfoam-runtime.sh .gpu
# Steps: (a) core GoogleTests built with CUDA, (b) tests/integration/run.sh gpu and gamg.sh gpu,
# (c) tests/integration/solverOptions.sh, (d) the cavity3D benchmark, native PCG vs PCGGPU, (e) the
# kernel benchmark (gpuLduBench) and the cuSPARSE IC(0)-PCG baseline at 100^3 and 200^3, (f)
# tests/integration/driver.sh (gpuLduSolve on tests/data), (g) the format benchmark
# (gpuLduFormatBench: SpMV in every format vs cuSPARSE CSR, 100^3, 200^3 and tests/data), (h) the
# MPI runs with executor gpu: tests/integration/parallel.sh, decomposed.sh, devices.sh and
# badValues.sh (needs .gpu/openmpi-runtime.tar.xz of ../shared/tools/pack-openmpi-runtime.sh),
# (i) the direct solver: tests/integration/ldlt.sh and tests/benchmark/ldlt.sh (the runtime needs
# laplacianFoam and ansysToFoam too), (j) the whole time step: tests/benchmark/timeStep.sh (native
# GAMG and PCG against GAMGGPU and PCGGPU on all the host's cores), (k) what an exchange between
# two GPUs costs by each transport (gpuLduExchangeBench on 2 ranks: through the host, NCCL; only
# when named). A step runs the entries of tests/suites.list marked run:<letter>, tests and
# benchmarks, with executor gpu (tests/suites.sh run <letter>), each under the list's time limit
# (LIMIT_<name>=<seconds> overrides one, e.g. LIMIT_timeStep=590); the step runner and the table:
# tests/gpu/steps.sh. Each step's output goes to $OUT/step-<letter>.log ($OUT or .gpu/out); a
# pass/fail table comes last. A failing step does not stop the others; the steps' limits add up
# to more than one 10-minute call: split them with GPU_STEPS, e.g. "ab" then "cdefgh". Overrides
# for a dry run without a GPU, e.g.
#   GPU_EXECUTOR=cpu GPU_BENCH_N=20 GPU_CORE_TESTS=build/tests/gpuLduCoreTests bash tests/gpu/run.sh
#   GPU_EXECUTOR       gpu           executor of the integration tests and the benchmark
#   GPU_BENCH_N        100           cavity3D cells per direction
#   GPU_BENCH_STEPS    2             cavity3D time steps
#   GPU_BENCH_NP       1             cavity3D MPI ranks (every column on them; > 1 needs step h's
#                                    Open MPI runtime)
#   GPU_CORE_TESTS     .gpu/platforms/bin/gpuLduCoreTestsCuda
#   GPULDU_LIBDIR      .gpu/platforms/lib   plugin and core used by OpenFOAM
#   GPU_OF_RUNTIME     .gpu/openfoam-runtime.tar.xz   ("none": use the OpenFOAM already here)
#   GPU_KERNEL_BENCH   .gpu/platforms/bin/gpuLduBenchCuda
#   GPU_CUSPARSE_BASELINE .gpu/platforms/bin/gpuLduCusparseBaseline
#   GPU_SOLVE          .gpu/platforms/bin/gpuLduSolve
#   GPU_FORMAT_BENCH   .gpu/platforms/bin/gpuLduFormatBench
#   GPU_EXCHANGE_BENCH .gpu/platforms/bin/gpuLduExchangeBench   (step k)
#   GPU_MPI_RUNTIME    .gpu/openmpi-runtime.tar.xz
#   GPU_STEPS          abcdefghi     the steps to run (one call may not fit them all; j and k only
#                                    when named)
#   GPU_TIMESTEP       "-sizes 100"  step j's options of timeStep.sh (its sizes, steps; words)
#   GPU_TIMESTEP_RUNS  (all)         step j's runs (timeStep.sh -runs)
#   GPU_TIMESTEP_OPTIONS (none)      step j's -options of timeStep.sh (the lines of its +opt runs)
#   GPU_BLAS_DIR       .gpu/openblas  a multithreaded BLAS (libblas.so.3, liblapack.so.3: Debian's
#                                    libopenblas0-pthread) for step i's CHOLMOD and UMFPACK
#   GPU_LDLT_SIZES     "30 50 80"    step i's K^3 Laplacians
#   GPU_LDLT_MATRICES  "tests/data/bcsstk15.mtx.gz"  step i's other matrices
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 1
export OUT=${OUT:-$root/.gpu/out}
mkdir -p "$OUT"
executor=${GPU_EXECUTOR:-gpu}
benchN=${GPU_BENCH_N:-100}
benchSteps=${GPU_BENCH_STEPS:-2}
benchNp=${GPU_BENCH_NP:-1}
coreTests=${GPU_CORE_TESTS:-$root/.gpu/platforms/bin/gpuLduCoreTestsCuda}
kernelBench=${GPU_KERNEL_BENCH:-$root/.gpu/platforms/bin/gpuLduBenchCuda}
cusparseBaseline=${GPU_CUSPARSE_BASELINE:-$root/.gpu/platforms/bin/gpuLduCusparseBaseline}
solveDriver=${GPU_SOLVE:-$root/.gpu/platforms/bin/gpuLduSolve}
formatBench=${GPU_FORMAT_BENCH:-$root/.gpu/platforms/bin/gpuLduFormatBench}
exchangeBench=${GPU_EXCHANGE_BENCH:-$root/.gpu/platforms/bin/gpuLduExchangeBench}
steps=${GPU_STEPS:-abcdefghi}
blasDir=${GPU_BLAS_DIR:-$root/.gpu/openblas}
ldltSizes=${GPU_LDLT_SIZES:-30 50 80}
ldltMatrices=${GPU_LDLT_MATRICES:-tests/data/bcsstk15.mtx.gz}
mpiRuntime=${GPU_MPI_RUNTIME:-$root/.gpu/openmpi-runtime.tar.xz}
runtime=${GPU_OF_RUNTIME:-$root/.gpu/openfoam-runtime.tar.xz}
export GPULDU_LIBDIR=${GPULDU_LIBDIR:-$root/.gpu/platforms/lib}
export GPULDU_TEST_DATA_DIR=$root/tests/data
start=$(date +%s)

if [ "$runtime" != none ]; then
    if ! tar -xJf "$runtime" -C /tmp; then
        echo "FAIL: cannot unpack the OpenFOAM runtime $runtime"
        exit 1
    fi
    . /tmp/ofrt/env.sh
fi
export LD_LIBRARY_PATH=$GPULDU_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
. "$root/etc/run-env.sh"

{
    echo "== $(date -u +%FT%TZ) $(hostname) $(git -C "$root" rev-parse --short HEAD 2>/dev/null || true)" \
         "$(git -C "$root" status --porcelain 2>/dev/null | grep -q . && echo '(modified)')"
    if command -v nvidia-smi > /dev/null; then nvidia-smi -L 2>&1; else echo "no nvidia-smi"; fi
    echo "WM_PROJECT_DIR=$WM_PROJECT_DIR GPULDU_LIBDIR=$GPULDU_LIBDIR"
    echo "icoFoam: $(command -v icoFoam || echo 'not found')"
    for f in "$GPULDU_LIBDIR"/libgpuLduSolvers.so "$GPULDU_LIBDIR"/libgpuLduCore.so "$coreTests"; do
        echo "ldd $f:"
        ldd "$f" 2>&1 | grep -E 'not found|gpuLdu|cudart|OpenFOAM' | sed 's/^/  /'
    done
} 2>&1 | tee "$OUT/env.log"

# shellcheck source=tests/gpu/steps.sh
. "$root/tests/gpu/steps.sh"
# shellcheck source=tests/suites.sh
. "$root/tests/suites.sh"
# what the list's commands read (tests/suites.list, the entries of run:<letter>)
export executor coreTests GPULDU_SOLVE=$solveDriver benchN benchSteps benchNp kernelBench \
    cusparseBaseline formatBench exchangeBench blasDir ldltSizes ldltMatrices
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

if { [[ $steps == *[hjk]* ]] || { [[ $steps == *d* ]] && [ "$benchNp" -gt 1 ]; }; } \
    && ! command -v mpirun > /dev/null; then
    tar -xJf "$mpiRuntime" -C /tmp && . /tmp/ompi/env.sh
fi

# Each step: its entries of the list one after the other (tests/suites.sh run <letter>, each
# under its own limit), the step's output in $OUT/step-<letter>.log; then what
# it found: the tests' PASS/FAIL lines and totals, a benchmark's table
for letter in a b c d e f g i h j k; do
    names=$(stepSuites run "$letter" | cut -d '|' -f 1 | paste -sd ' ')
    [ -n "$names" ] || continue
    step "$letter" "$letter: $names ($executor)" "$(( $(stepLimit run "$letter") + 30 ))" "step-$letter.log" \
        env SUITE_LOGS=/tmp/suite-logs bash tests/suites.sh run "$letter" || continue
    if stepSuites run "$letter" | cut -d '|' -f 2 | grep -q test; then
        grep -E '^(PASS|FAIL|TIMEOUT)|passed|^\[  (PASSED|FAILED) |^\[==========\] [0-9]+ tests|^    ' \
            "$OUT/step-$letter.log" | cut -c1-300 | tail -n 30
    fi
    if stepSuites run "$letter" | cut -d '|' -f 2 | grep -q benchmark; then
        grep -vE '^cavity3D [0-9]+, ' "$OUT/step-$letter.log" | tail -n 40
    fi
done

stepSummary "$start"
