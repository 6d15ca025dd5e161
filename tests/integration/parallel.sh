#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Processor patches: icoFoam on the boxTurb16 mesh decomposed onto 2 MPI ranks, native PCG and
# PBiCG vs PCGGPU (p) and PBiCGGPU (U) (executor $1, default cpu), solve by solve. Oracle: 160
# p-solves (5439 iterations) and 240 U-solves (728), 400 solves, 6167 iterations in all.
# Prints "<P> passed, <F> failed" last.
set -uo pipefail

executor=${1:-cpu}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=etc/run-env.sh
. "$here/../../etc/run-env.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d "${TMPDIR:-/tmp}/parallel.XXXXXX")

# prepare <dir> <solver lines sed>: boxTurb16 mesh and initial field, icoFoam controls, 2 ranks
prepare()
{
    cp -r "$here/../../tutorials/boxTurb16" "$1"
    cd "$1" || return 1
    sed -i -e 's/^endTime .*/endTime         2;/' system/controlDict
    sed -i -e "$2" \
        -e 's/^\( *nCorrectors .*\)$/\1\n    pRefCell        0;\n    pRefValue       0;/' \
        -e '0,/^    U$/s//    pFinal\n    {\n        $p;\n        relTol          0;\n    }\n\n    U/' \
        system/fvSolution
    cat > system/decomposeParDict <<'EOD'
FoamFile { version 2.0; format ascii; class dictionary; object decomposeParDict; }
numberOfSubdomains 2;
method          simple;
simpleCoeffs    { n (2 1 1); }
EOD
    blockMesh > log.blockMesh 2>&1 && boxTurb > log.boxTurb 2>&1 \
        && decomposePar > log.decomposePar 2>&1 \
        && mpirun -np 2 icoFoam -parallel > log.icoFoam 2>&1
}

iterations()
{
    grep -oE 'Solving for (p|U[xyz]), .*No Iterations [0-9]*' "$1" | sed 's/.*No Iterations //'
}

(prepare "$work/native" 's/GPU;/;/; /executor/d') || echo "native run failed"
(prepare "$work/plugin" "s/executor .*;/executor        $executor;/") || echo "plugin run failed"

native=$(iterations "$work/native/log.icoFoam")
plugin=$(iterations "$work/plugin/log.icoFoam")
total()
{
    echo "$1" | awk '{ s += $1 } END { print s + 0 }'
}
solves=$(echo "$plugin" | grep -c . || true)
worst=$(paste <(echo "$native") <(echo "$plugin") \
    | awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > w) w = d } END { print w + 0 }')
echo "2 MPI ranks, executor $executor: solves $solves, native iterations $(total "$native"), plugin iterations $(total "$plugin"), worst per-solve difference $worst"

if [ "$(total "$native")" = 6167 ] && [ "$solves" = 400 ] && [ "$(echo "$native" | wc -l)" = 400 ] \
    && [ "$worst" -le 1 ] && grep -q 'DICPCGGPU:  Solving for p' "$work/plugin/log.icoFoam" \
    && grep -q 'DILUPBiCGGPU:  Solving for Uz' "$work/plugin/log.icoFoam"; then
    rm -rf "$work"
    echo "1 passed, 0 failed"
else
    echo "FAIL: see $work"
    echo "0 passed, 1 failed"
    exit 1
fi
