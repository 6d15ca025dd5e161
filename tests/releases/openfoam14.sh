#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The plugin on the Foundation's OpenFOAM-14, as its users have it: the release sourced (its own
# etc/bashrc, nothing of Debian's v1912 in the environment), ./Allwmake building against it into
# $FOAM_USER_LIBBIN, then native against plugin on OpenFOAM-14's own applications, solve by solve
# (executor cpu: every solve line equal; gpu: as the integration tests allow, with checkNative):
#   - icoFoam cavity: p by PCGGPU+DIC, U by PBiCGStabGPU+DILU (native: 1365, 61, 62 iterations)
#   - the cavity's p by GAMGGPU: GaussSeidel; DIC with interpolateCorrection
#   - pitzDaily by foamRun -solver incompressibleFluid: p by GAMGGPU (GaussSeidel), U, k and
#     epsilon by PBiCGStabGPU+DILU
#   - cavity3D 20^3 on 4 ranks (hierarchical 2x2): the ranks as one system (PCGGPU, PBiCGStabGPU)
#     and as one GAMG hierarchy
#   - laplacianFoam flange (ansysToFoam) with LDLTGPU against native PCG to 1e-12
# The release is OpenFOAM-14 built for Debian 12 (../shared/openfoam/openfoam14-bundle.tar.xz,
# its BUNDLE.md), unpacked once into $GPULDU_DEPS (default ~/.cache/gpuLduSolvers).
# Usage: openfoam14.sh [cpu|gpu]   (default cpu). Prints "<P> passed, <F> failed" last.
set -uo pipefail

executor=${1:-cpu}
allow=1
[ "$executor" = gpu ] && allow=2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
integration=$root/tests/integration
tutorials=$root/tutorials
archive=${GPULDU_OPENFOAM14_BUNDLE:-${GPULDU_SHARED:-$root/../shared}/openfoam/openfoam14-bundle.tar.xz}
deps=${GPULDU_DEPS:-$HOME/.cache/gpuLduSolvers}
bundle=$deps/openfoam14-bundle
logs=$root/build/logs/openfoam14
work=$(mktemp -d "${TMPDIR:-/tmp}/openfoam14.XXXXXX")
passed=0
failed=0
mkdir -p "$logs"
log=$logs/Allwmake.log

# shellcheck source=tests/integration/checks.sh
. "$integration/checks.sh"

if [ ! -d "$bundle/OpenFOAM-14" ]; then
    if [ ! -f "$archive" ]; then
        echo "FAIL OpenFOAM-14 bundle missing: $archive (../shared/openfoam, or set GPULDU_SHARED)"
        echo "0 passed, 1 failed"
        exit 1
    fi
    rm -rf "$bundle.partial"
    mkdir -p "$bundle.partial"
    tar -xJf "$archive" -C "$bundle.partial" && mv "$bundle.partial" "$bundle"
fi

# The release's environment and nothing of v1912's: every WM_/FOAM_ variable dropped first
for v in $(env | sed -n 's/^\(WM_[A-Za-z_]*\|FOAM_[A-Za-z_]*\)=.*/\1/p'); do
    unset "$v"
done
export USER=${USER:-$(id -un)}
set +u
# shellcheck source=/dev/null
. "$bundle/OpenFOAM-14/etc/bashrc"
set -u
# run-env.sh (sourced by the integration scripts) keeps this WM_PROJECT_DIR and puts the
# release's $FOAM_USER_LIBBIN first on LD_LIBRARY_PATH
export GPULDU_LIBDIR=$FOAM_USER_LIBBIN

# The build, as a user of the release runs it
"$root/Allwmake" > "$log" 2>&1
status=$?
expect "./Allwmake against OpenFOAM-$WM_PROJECT_VERSION: built and installed into \$FOAM_USER_LIBBIN ($FOAM_USER_LIBBIN)" \
    eval 'test $status -eq 0 && test -f "$FOAM_USER_LIBBIN/libgpuLduSolvers.so" && test -f "$FOAM_USER_LIBBIN/libgpuLduCore.so" \
        && grep -q "building against OpenFOAM 14" "$log"'
if [ "$status" -ne 0 ]; then
    tail -n 20 "$log" | sed 's/^/    /'
    echo "$passed passed, $failed failed"
    exit 1
fi
log=$logs/openfoam14.log

# shellcheck source=etc/run-env.sh
. "$root/etc/run-env.sh"
# shellcheck source=tests/integration/fvSolutionEdit.sh
. "$integration/fvSolutionEdit.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
here=$integration
# shellcheck source=tests/integration/gamgChecks.sh
. "$integration/gamgChecks.sh"

# icoFoam: the Krylov solvers (the tutorial's p and U solvers as it has them)
cp -r "$tutorials/cavity" "$work/cavity"
check "p=1365 Ux=61 Uy=62" "$work/cavity"
# GAMG with OpenFOAM-14's V-cycle
check - "$(gamgCase cavity cavity-p-GaussSeidel 'p|pFinal' GaussSeidel)"
check - "$(gamgCase cavity cavity-p-DIC-interpolate 'p|pFinal' DIC 'interpolateCorrection yes')"
# foamRun -solver incompressibleFluid (OpenFOAM-14's simpleFoam)
check - "$(gamgCase pitzDaily pitzDaily-p p GaussSeidel)"
# decomposed: the 4 ranks of a (pretended) device as one system, and as one GAMG hierarchy
out=$(DECOMPOSED_CASES="cavity3D:hierarchical:1" bash "$integration/decomposed.sh" "$executor" 2>&1)
echo "$out" | grep -E '^(PASS|FAIL|    )'
line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
if [ -n "$line" ]; then
    passed=$((passed + ${line%% passed*}))
    line=${line#*, }
    failed=$((failed + ${line%% failed*}))
else
    failed=$((failed + 1))
    echo "FAIL decomposed.sh cavity3D: no totals"
fi
decomposed "$(gamgCase cavity3D cavity3D-p-decomposed 'p|pFinal' GaussSeidel)" icoFoam one
# laplacianFoam: the direct solver against native PCG
out=$(LDLT_SUITE=flange bash "$integration/ldlt.sh" "$executor" 2>&1)
echo "$out" | grep -E '^(PASS|FAIL|    )'
line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
if [ -n "$line" ]; then
    passed=$((passed + ${line%% passed*}))
    line=${line#*, }
    failed=$((failed + ${line%% failed*}))
else
    failed=$((failed + 1))
    echo "FAIL ldlt.sh flange: no totals"
fi

[ "$failed" -eq 0 ] && rm -rf "$work"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
