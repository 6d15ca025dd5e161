#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Hostile input (issue 18), under OpenFOAM's default floating-point trapping (trapFpe 1,
# FOAM_SIGFPE unset):
#  - a NaN in a field reaches a solver's source: a FatalError naming the field, the kind of value
#    and the cell, not a SIGFPE and not "the residual became nan"; decomposed, the cell's global
#    number (OpenFOAM's globalIndex: the ranks' cells one after the other) and its processor,
#    with each rank its own system and with the ranks consolidated into one;
#  - a matrix with zero diagonals (laplacianFoam with DT = 0 and a source): a FatalError naming
#    the DIC, ILU0 or diagonal pivot (GAMGGPU: the diagonal its Gauss-Seidel divides by) and
#    the cell, where native PCG stops with SIGFPE (the negative control: the case does trap);
#  - keywords no solver reads (executer, matrixformat, checknative, a smoother in the
#    preconditioner's sub-dictionary): one warning each per run naming the closest valid
#    keyword, and the run goes on with native's iterations; correct dictionaries (PCGGPU,
#    PBiCGStabGPU, GAMGGPU with GAMG's keywords) give no warning;
#  - maxIter 0 skips the solve as natively.
# Usage: badValues.sh [cpu|gpu]   (default cpu). Prints "<P> passed, <F> failed" last; exit 1 if any failed.
set -uo pipefail

executor=${1:-cpu}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=etc/run-env.sh
. "$here/../../etc/run-env.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset FOAM_SIGFPE
work=$(mktemp -d "${TMPDIR:-/tmp}/badValues.XXXXXX")
passed=0
failed=0

# shellcheck source=tests/lib/checks.sh
. "$here/../lib/checks.sh"

# nanField <file> <nCells> <cell>: the volScalarField file with its internal field replaced by
# zeros and a NaN at cell, in binary (OpenFOAM reads no "nan" in ascii)
nanField()
{
    perl -e '
        my ($file, $n, $cell) = @ARGV;
        open(my $in, "<", $file) or die "$file: $!";
        local $/;
        my $s = <$in>;
        close $in;
        my @x = (0) x $n;
        $x[$cell] = unpack("d<", pack("Q<", 0x7ff8000000000000));
        my $bin = pack("d<*", @x);
        $s =~ s/format\s+ascii;/format      binary;\n    arch        "LSB;label=32;scalar=64";/;
        $s =~ s/internalField\s+uniform\s+\S+;/"internalField   nonuniform List<scalar> $n(" . $bin . ");"/e;
        open(my $out, ">", $file) or die "$file: $!";
        binmode $out;
        print $out $s;
        close $out;' "$@"
}

# cavity <name> <NaN cell of p or -> <sed script for system/fvSolution>: a fresh copy of the
# cavity (the executor asked for, 0.05 s) in $dir
cavity()
{
    dir=$work/$1
    cp -r "$here/../../tutorials/cavity" "$dir"
    sed -i -e "s/executor .*gpu;/executor        $executor;/" -e "$3" "$dir/system/fvSolution"
    sed -i -e 's/^endTime .*/endTime         0.05;/' -e 's/^writeFormat .*/writeFormat     binary;/' \
        "$dir/system/controlDict"
    [ "$2" = - ] || nanField "$dir/0/p" 400 "$2"
    (cd "$dir" && blockMesh > log.blockMesh 2>&1)
}

# runIn <dir> <command...>: runs it there (stdout and stderr into log.run), status in $status
runIn()
{
    local dir=$1
    shift
    (cd "$dir" && "$@" > log.run 2>&1) 2> /dev/null
    status=$?
    log=$dir/log.run
}

# trapping on, and no trap taken (OpenFOAM's handler prints its stack)
noSigFpe()
{
    logHas "trapFpe: Floating point exception trapping enabled" && ! logHas "sigFpe::sigHandler"
}

# 1. A NaN in p at cell 0 (the corner): grad(p), and so the source of Ux, is NaN at cells 0, 1
#    and 20; the first is reported
cavity nanSource 0 ''
runIn "$dir" icoFoam
expect "a NaN source is a FatalError naming field, kind and cell, under FPE trapping" \
    eval 'test $status -ne 0 && noSigFpe && logHas "FOAM FATAL ERROR" && logHas "Solving for Ux with DILUPBiCGStabGPU: the source is" && logHas "nan at cell 0" && logHas "3 value(s) of the matrix, source and initial guess are not finite"'
expect "no solve line, no residual message: refused before iterating" \
    eval '! logHas "Solving for Ux," && ! logHas "the residual became"'

# 2. Decomposed in two (x < 0.05 on rank 0, the rest on rank 1; 200 cells each), the NaN at
#    cell 117 (row 5, column 17): Ux's source is NaN at its neighbours 97, 116, 118, 137 too,
#    all on rank 1; the first there is global cell 97, rank 1's local cell 47 (4*10 + 7), whose
#    globalIndex number is 200 + 47
decomposed()
{
    cavity "$1" 117 ''
    cat > "$dir/system/decomposeParDict" <<'EOD'
FoamFile { version 2.0; format ascii; class dictionary; object decomposeParDict; }
numberOfSubdomains 2;
method          simple;
simpleCoeffs    { n (2 1 1); }
EOD
    (cd "$dir" && decomposePar > log.decomposePar 2>&1)
    runIn "$dir" mpirun -np 2 "${@:2}" icoFoam -parallel
}
decomposed nanDecomposed
expect "decomposed: the cell's global number and its processor" \
    eval 'test $status -ne 0 && noSigFpe && logHas "Solving for Ux with DILUPBiCGStabGPU: the source is" && logHas "nan at cell 247 (processor 1, local cell 47)"'
# the two ranks consolidated into one system (one pretended device): its owner, rank 0, finds
# the value in rank 1's rows and names it the same way
decomposed nanConsolidated -x GPULDU_PRETEND_DEVICES=1
expect "consolidated: the owner names the other rank's cell the same way" \
    eval 'test $status -ne 0 && noSigFpe && logHas "Solving for Ux with DILUPBiCGStabGPU: the source is" && logHas "nan at cell 247 (processor 1, local cell 47)"'

# 3. laplacianFoam on the cavity's mesh with DT = 0 (a matrix of zeros: every diagonal 0) and a
#    source of 1 in every cell (fvOptions), steady
laplacian()
{
    dir=$work/$1
    cp -r "$here/../../tutorials/cavity" "$dir"
    rm "$dir/0/U" "$dir/0/p"
    cat > "$dir/0/T" <<'EOF'
FoamFile { version 2.0; format ascii; class volScalarField; object T; }
dimensions [0 0 0 1 0 0 0];
internalField uniform 0;
boundaryField
{
    movingWall { type zeroGradient; }
    fixedWalls { type zeroGradient; }
    frontAndBack { type empty; }
}
EOF
    cat > "$dir/constant/transportProperties" <<'EOF'
FoamFile { version 2.0; format ascii; class dictionary; object transportProperties; }
DT 0;
EOF
    cat > "$dir/system/fvSchemes" <<'EOF'
FoamFile { version 2.0; format ascii; class dictionary; object fvSchemes; }
ddtSchemes { default steadyState; }
gradSchemes { default Gauss linear; }
divSchemes { default none; }
laplacianSchemes { default Gauss linear corrected; }
interpolationSchemes { default linear; }
snGradSchemes { default corrected; }
EOF
    cat > "$dir/system/fvSolution" <<EOF
FoamFile { version 2.0; format ascii; class dictionary; object fvSolution; }
solvers
{
    T { $2 tolerance 1e-06; relTol 0; }
}
SIMPLE { nNonOrthogonalCorrectors 0; }
EOF
    cat > "$dir/system/fvOptions" <<'EOF'
FoamFile { version 2.0; format ascii; class dictionary; object fvOptions; }
heating
{
    type            scalarSemiImplicitSource;
    selectionMode   all;
    volumeMode      absolute;
    injectionRateSuSp { T (1 0); }
}
EOF
    sed -i -e 's/^application .*/application     laplacianFoam;/' -e 's/^endTime .*/endTime         2;/' \
        -e 's/^deltaT .*/deltaT          1;/' -e 's/^writeInterval .*/writeInterval   100;/' "$dir/system/controlDict"
    (cd "$dir" && blockMesh > log.blockMesh 2>&1)
    runIn "$dir" laplacianFoam
}

laplacian zeroNative 'solver PCG; preconditioner DIC;'
expect "negative control: native PCG with DIC stops with SIGFPE on this matrix" \
    eval 'test $status -ne 0 && logHas "sigFpe::sigHandler"'
laplacian zeroDIC "solver PCGGPU; preconditioner DIC; executor $executor;"
expect "a zero DIC pivot is a FatalError naming it and the cell, not a SIGFPE" \
    eval 'test $status -ne 0 && noSigFpe && logHas "Solving for T with DICPCGGPU: the DIC pivot is 0 at cell 0" && logHas "use another preconditioner"'
laplacian zeroDiagonal "solver PCGGPU; preconditioner diagonal; executor $executor;"
expect "a zero diagonal with the diagonal preconditioner: its pivot and cell" \
    eval 'test $status -ne 0 && noSigFpe && logHas "Solving for T with diagonalPCGGPU: the diagonal pivot is 0 at cell 0"'
laplacian zeroILU0 "solver PBiCGStabGPU; preconditioner ILU0; executor $executor;"
expect "a zero ILU0 pivot: its pivot and cell" \
    eval 'test $status -ne 0 && noSigFpe && logHas "Solving for T with ILU0PBiCGStabGPU: the ILU0 pivot is 0 at cell 0"'
laplacian zeroGAMG "solver GAMGGPU; smoother GaussSeidel; executor $executor;"
expect "GAMGGPU: the zero diagonal its Gauss-Seidel smoother divides by" \
    eval 'test $status -ne 0 && noSigFpe && logHas "Solving for T with GAMGGPU: the diagonal pivot is 0 at cell 0" && logHas "use another smoother"'

# 4. Keywords that nothing reads: warned once per field and dictionary, the closest valid one
#    named; the run goes on with the iterations of the correct dictionaries (the misspelt lines
#    change nothing)
pIterations()
{
    awk -F'No Iterations ' '/Solving for p,/ { s += $2 } END { print s + 0 }' "$log"
}
cavity correct - ''
runIn "$dir" icoFoam
expect "correct dictionaries (PCGGPU, PBiCGStabGPU) give no warning" \
    eval 'test $status -eq 0 && logHas "DICPCGGPU:  Solving for p" && ! logHas "FOAM Warning"'
correctIterations=$(pIterations)

cavity keywords - '0,/executor        '"$executor"';/s//executor        '"$executor"';\n        executer        cpu;\n        matrixformat    ell;\n        checknative     true;/; /^    pFinal$/,/}/ s/preconditioner  DIC;/preconditioner  { preconditioner DIC; smoother GaussSeidel; }/'
runIn "$dir" icoFoam
expect "unknown keywords: a warning each, the closest valid keyword named, the run goes on" \
    eval 'test "$status-$(pIterations)" = "0-$correctIterations" && logHas "Keyword executer for field p is read by neither PCGGPU nor OpenFOAM" && logHas "Did you mean executor?" && logHas "Keyword matrixformat for field p" && logHas "Did you mean matrixFormat?" && logHas "Keyword checknative for field p" && logHas "Did you mean checkNative?"'
expect "the preconditioner sub-dictionary is checked too (pFinal's smoother)" \
    eval 'logHas "Keyword smoother for field p is read by neither PCGGPU" && logHas "fvSolution.solvers.pFinal.preconditioner"'
expect "each warning once per run, not per solve (10 time steps, 20 p-solves by each dictionary)" \
    eval 'test "$(grep -c "Keyword executer" "$log")" = 1 && test "$(grep -c "FOAM Warning" "$log")" = 4'

cavity correctGAMG - '/^    p$/,/}/ s/solver .*;/solver GAMGGPU; smoother GaussSeidel; nCellsInCoarsestLevel 10; agglomerator faceAreaPair; mergeLevels 1; cacheAgglomeration true; nPreSweeps 0; nPostSweeps 2; nFinestSweeps 2; scaleCorrection true; directSolveCoarsest false;/'
runIn "$dir" icoFoam
expect "GAMGGPU with GAMG's keywords gives no warning" \
    eval 'test $status -eq 0 && logHas "GAMGGPU:  Solving for p" && ! logHas "FOAM Warning"'

# 5. maxIter 0: fvMatrix::solve returns before it constructs a solver, natively and with the
#    plugin alike: no p solve line, psi untouched, the run goes on
cavity maxIterNative - '/^    p$/,/}/ { s/GPU;/;/; /executor/d; s/relTol .*;/relTol 0.05; maxIter 0;/ }'
runIn "$dir" icoFoam
nativeLines=$(grep -c "Solving for p," "$log")
nativeStatus=$status
cavity maxIterPlugin - '/^    p$/,/}/ s/relTol .*;/relTol 0.05; maxIter 0;/'
runIn "$dir" icoFoam
expect "maxIter 0: p's solves skipped by OpenFOAM as natively (pFinal's only), the run goes on" \
    eval 'test "$status-$nativeStatus" = "0-0" && test "$(grep -c "Solving for p," "$log")" = "$nativeLines" && test "$nativeLines" = 10'

[ "$failed" -gt 0 ] || rm -rf "$work"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
