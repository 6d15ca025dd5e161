#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The gpuLduSolve driver on tests/data: in every matrix format the solve takes the iterations of
# the csr one (nos4 and gr_30_30 by PCG+DIC, sherman5 by PBiCGStab+DILU) and A x passes the
# -spmv check against the host product; malformed Matrix Market files fail with exit status 1
# and a message naming the file and line; a bad -format word or a solver that does not take the
# matrix fails with the valid words. Usage: driver.sh [cpu|gpu]   (default cpu)
# The binary: $GPULDU_SOLVE, else the bin/gpuLduSolve beside the library folder that
# etc/run-env.sh puts on LD_LIBRARY_PATH (platforms/lib, or $GPULDU_LIBDIR): a build tree needs
# both, e.g. GPULDU_SOLVE=build/gpuLduSolve GPULDU_LIBDIR=build.
# Prints "<P> passed, <F> failed" last; exit 1 if any failed.
set -uo pipefail

executor=${1:-cpu}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=etc/run-env.sh
. "$here/../../etc/run-env.sh"
solve=${GPULDU_SOLVE:-${GPULDU_LIBDIR:-$GPULDU_ROOT/platforms/lib}/../bin/gpuLduSolve}
data=$GPULDU_ROOT/tests/data
work=$(mktemp -d "${TMPDIR:-/tmp}/driver.XXXXXX")
passed=0
failed=0

# run <name> <gpuLduSolve arguments...>: runs it on $executor, leaves its output in $log and its
# exit status in $status
run()
{
    log=$work/$1.log
    shift
    "$solve" "$@" -executor "$executor" > "$log" 2>&1
    status=$?
}

# shellcheck source=tests/integration/checks.sh
. "$here/checks.sh"

# logHasWords <word...>: each as a whole word
logHasWords()
{
    local word
    for word in "$@"; do
        grep -qw -- "$word" "$log" || return 1
    done
}

iterations()
{
    sed -n 's/.*Solving for x, .*No Iterations \([0-9]*\)$/\1/p' "$log"
}

# 1. every format: the csr iterations, and A x equal to the host's
for spec in nos4:PCG:DIC gr_30_30:PCG:DIC sherman5:PBiCGStab:DILU; do
    IFS=: read -r matrix solver preconditioner <<< "$spec"
    reference=
    for format in csr ell blockedEll hyb hec auto; do
        run "$matrix-$format" "$data/$matrix.mtx.gz" -format "$format" -spmv \
            -solver "$solver" -preconditioner "$preconditioner"
        [ -n "$reference" ] || reference=$(iterations)
        expect "$matrix $format: $preconditioner$solver in ${reference:-?} iterations as csr, A x check ok" \
            eval 'test "$status-$(iterations)" = "0-$reference" && grep -q "^A x check .*: ok$" "$log" \
                  && logHas "$preconditioner$solver:  Solving for x, Initial residual = "'
    done
done

# 2. malformed files, plain and gzip: exit status 1, "gpuLduSolve: <file>:<line>: <what>"
# malformed <file name> <line> <phrase> <text, printf %b>
malformed()
{
    local file=$work/$1 line=$2 phrase=$3
    if [ "${1%.gz}" != "$1" ]; then
        printf '%b' "$4" | gzip > "$file"
    else
        printf '%b' "$4" > "$file"
    fi
    run "$1" "$file"
    expect "$1 fails naming line $line: $phrase" \
        eval 'test "$status" = 1 && logHas "gpuLduSolve: $file:$line: " && logHas "$phrase"'
}
banner='%%MatrixMarket matrix coordinate real general\n'
malformed badBanner.mtx 1 "bad banner" '%%MatrixMarket matrix coordinate real\n2 2 1\n1 1 1\n'
malformed pattern.mtx 1 "unsupported field 'pattern'" '%%MatrixMarket matrix coordinate pattern general\n'
malformed nonSquare.mtx 3 "non-square matrix" "$banner% comment\n2 3 1\n1 1 1\n"
malformed badValue.mtx 5 "bad value '1.0x'" "$banner% comment\n2 2 2\n1 1 1\n2 1 1.0x\n"
malformed outOfRange.mtx.gz 4 "column index 3 out of range 1..2" "${banner}2 2 2\n1 1 1\n2 3 1\n"
malformed tooFew.mtx.gz 5 "end of file after 2 of the 3 entries" "${banner}2 2 3\n1 1 1\n2 2 1\n"
malformed tooMany.mtx 4 "more entries than the 1" "${banner}2 2 1\n1 1 1\n2 2 1\n"
malformed aboveDiagonal.mtx 4 "entry above the diagonal" \
    '%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1\n1 2 1\n'

# 3. bad words: the valid ones listed
run badFormat "$data/nos4.mtx.gz" -format dense
expect "-format dense fails listing the valid formats" \
    eval 'test "$status" = 1 && logHas "dense" && logHasWords csr ell blockedEll hyb hec auto'
run pcgAsymmetric "$data/sherman5.mtx.gz" -solver PCG
expect "PCG on the asymmetric sherman5 fails as in OpenFOAM" \
    eval 'test "$status" = 1 && logHas "solver PCG is not available for the asymmetric matrix"'

# 4. -solver LDLT: the direct solver refined to 1e-12 on SPD matrices in each ordering; refused
#    for an asymmetric matrix and an unknown ordering
for matrix in nos4 bcsstk13; do
    for ordering in AMD METIS; do
        run "ldlt-$matrix-$ordering" "$data/$matrix.mtx.gz" -solver LDLT -ordering "$ordering"
        expect "LDLT on $matrix ($ordering) converges to 1e-12" \
            eval 'test "$status" = 0 && logHas "converged        yes" && logHas "ordering         $ordering" \
                  && awk "/^LDLT:  Solving for x/ { f = \$12; sub(/,/, \"\", f); exit !(f + 0 <= 1e-12) }" "$log"'
    done
done
run ldltAsymmetric "$data/sherman5.mtx.gz" -solver LDLT
expect "LDLT on the asymmetric sherman5 fails" \
    eval 'test "$status" = 1 && logHas "solver LDLT is for symmetric matrices"'
# complex symmetric files (A = A^T): qc324 to 1e-12; dwg961a (256 empty rows) reported as
# singular; a Hermitian file and an iterative solver on a complex file refused
for ordering in AMD METIS; do
    run "ldlt-qc324-$ordering" "$data/qc324.mtx.gz" -solver LDLT -ordering "$ordering"
    expect "LDLT on the complex symmetric qc324 ($ordering) converges to 1e-12" \
        eval 'test "$status" = 0 && logHas "324 (complex symmetric)" && logHas "converged        yes" \
              && awk "/^LDLT:  Solving for x/ { f = \$12; sub(/,/, \"\", f); exit !(f + 0 <= 1e-12) }" "$log"'
done
run ldltSingularComplex "$data/dwg961a.mtx.gz" -solver LDLT
expect "LDLT on dwg961a (empty rows) fails as singular" \
    eval 'test "$status" -ne 0 && logHas "the matrix is singular"'
printf '%%%%MatrixMarket matrix coordinate complex general\n2 2 4\n1 1 2 0\n2 1 1 1\n1 2 1 -1\n2 2 3 0\n' \
    > "$work/hermitian.mtx"
run ldltHermitian "$work/hermitian.mtx" -solver LDLT
expect "LDLT on a Hermitian matrix fails naming it" \
    eval 'test "$status" = 1 && logHas "is Hermitian (A = A^H, not A^T)"'
run complexPcg "$data/qc324.mtx.gz"
expect "an iterative solver on a complex file fails" \
    eval 'test "$status" = 1 && logHas "only -solver LDLT takes complex"'
run ldltBadOrdering "$data/nos4.mtx.gz" -solver LDLT -ordering RCM
expect "-ordering RCM fails listing the valid orderings" \
    eval 'test "$status" = 1 && logHasWords auto AMD METIS natural'

[ "$failed" -gt 0 ] || rm -rf "$work"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
