#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The gpuLduSolve driver on tests/data: in every matrix format the solve takes the iterations of
# the csr one (nos4 and gr_30_30 by PCG+DIC, sherman5 by PBiCGStab+DILU) and A x passes the
# -spmv check against the host product; malformed Matrix Market files fail with exit status 1
# and a message naming the file and line; a bad -format word or a solver that does not take the
# matrix fails with the valid words; hostile files (issue 18) end quickly, in little memory,
# with the exit status that says why: 1 bad input, 2 not converged, 3 singular or broken down.
# Usage: driver.sh [cpu|gpu]   (default cpu)
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

# shellcheck source=tests/lib/checks.sh
. "$here/../lib/checks.sh"

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
malformed tooMany.mtx 4 "more entries than the 1" "${banner}1 1 1\n1 1 1\n1 1 1\n"
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

# 5. exit statuses: 0 converged, 2 not converged, 3 singular or broken down; -maxIter 0 solves
#    nothing, as OpenFOAM's fvMatrix::solve
log=$work/help.log
"$solve" -help > "$log" 2>&1
status=$?
expect "-help exits 0 and lists the exit statuses" \
    eval 'test "$status" = 0 && logHas "Exit status:" && logHas "  2  not converged" \
          && logHas "  3  singular or broken down" && logHas "summed, with a warning"'
run longOption "$data/nos4.mtx.gz" -tolerance "$(printf '%02000d' 1)x"
expect "a bad option value of 2000 characters: exit 1, quoted to 40" \
    eval 'test "$status" = 1 && logHas "bad number '"'"'0000000000000000000000000000000000000000...'"'"' for -tolerance"'
run notConverged "$data/nos4.mtx.gz" -maxIter 2
expect "PCG stopped by -maxIter 2 exits 2, saying so" \
    eval 'test "$status" = 2 && logHas "gpuLduSolve: not converged: residual " && logHas "after 2 iterations (-maxIter 2)"'
run ldltNotConverged "$data/nos4.mtx.gz" -solver LDLT -tolerance 1e-30 -maxIter 1
expect "LDLT refined short of -tolerance 1e-30 exits 2, saying so" \
    eval 'test "$status" = 2 && logHas "converged        no" && logHas "LDLT: not converged: "'
run maxIter0 "$data/nos4.mtx.gz" -maxIter 0 -spmv
expect "-maxIter 0 reads, stores and multiplies, solves nothing, exits 0" \
    eval 'test "$status" = 0 && logHas "solve            none (-maxIter 0)" && grep -q "^A x check .*: ok$" "$log" \
          && ! logHas "Solving for x"'
run dwg961a "$data/dwg961a.mtx.gz" -solver LDLT
expect "LDLT on dwg961a (256 empty rows) exits 3 before the factorisation, naming the first row" \
    eval 'test "$status" = 3 && logHas "dwg961a.mtx.gz: row 706 has no non-zero entry (nor have 255 other rows): the matrix is singular" \
          && ! logHas "numeric"'
# row 2 without entries (symmetric), and with explicit zeros only (asymmetric)
printf '%b' '%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 4\n3 1 -1\n3 3 4\n' > "$work/emptyRow.mtx"
printf '%b' "${banner}3 3 5\n1 1 4\n2 2 0\n2 1 0\n3 1 -1\n3 3 4\n" > "$work/zeroRow.mtx"
for spec in emptyRow:PCG emptyRow:PBiCGStab emptyRow:LDLT zeroRow:PBiCG zeroRow:PBiCGStab; do
    IFS=: read -r file solver <<< "$spec"
    run "$file-$solver" "$work/$file.mtx" -solver "$solver"
    expect "$file.mtx by $solver exits 3: row 2 has no non-zero entry" \
        eval 'test "$status" = 3 && logHas "$file.mtx: row 2 has no non-zero entry: the matrix is singular" \
              && ! logHas "Solving for x"'
done
printf '%b' '%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 1\n2 1 1\n2 2 1\n' > "$work/singular.mtx"
run singularPcg "$work/singular.mtx" -solver PCG
expect "PCG+DIC on the singular [1 1; 1 1] exits 3 (a zero pivot breaks it down)" \
    eval 'test "$status" = 3 && logHas "gpuLduSolve: "'
printf '%b' '%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 4e300\n2 1 -1e300\n2 2 4e300\n3 2 -1e300\n3 3 4e300\n' \
    > "$work/huge.mtx"
for solver in PCG LDLT; do
    run "huge-$solver" "$work/huge.mtx" -solver "$solver"
    expect "values near 1e300 by $solver: converged with a finite true residual, or exit 3; never exit 0 with NaN" \
        eval '! grep -qiE "residual.*(nan|inf)" "$log" && test "$status" = 0 || test "$status" = 3'
done

# 6. hostile files of issue 18: each ends at once, in little memory (ulimit -v), with a short
#    message naming the file and line. limited <seconds> <KiB> <name> <arguments>: run under both
#    (KiB: what the run may map beyond the binary's idle mapping, idleKiB)
#    (the memory limit only with executor cpu and without GPULDU_SANITIZED: CUDA's unified
#    address space and AddressSanitizer's shadow each map terabytes, which ulimit -v refuses)
limited()
{
    local seconds=$1 kiB=$2
    shift 2
    log=$work/$1.log
    shift
    (
        [ -n "${GPULDU_SANITIZED:-}" ] || [ "$executor" = gpu ] || ulimit -v "$((idle + kiB))"
        timeout "$seconds" "$solve" "$@" -executor "$executor"
    ) > "$log" 2>&1
    status=$?
}
# shellcheck source=tests/lib/idleMemory.sh
. "$here/../lib/idleMemory.sh"
idle=$(idleKiB "$solve")   # KiB the binary maps before reading (its libraries)
memory=250000   # KiB on top of that
printf '%b' "${banner}2000000000 2000000000 1\n1 1 4\n" > "$work/rows2e9.mtx"
limited 10 "$memory" rows2e9 "$work/rows2e9.mtx"
expect "2e9 rows and 1 entry: exit 3 at the size line, in bounded memory and time" \
    eval 'test "$status" = 3 && logHas "rows2e9.mtx:2: 2000000000 rows but 1 entries: at least 1999999999 rows have no entry, so the matrix is singular"'
printf '%b' "${banner}1000000 1000000 1000000\n1 1 4\n" > "$work/rows1e6.mtx"
limited 10 "$memory" rows1e6 "$work/rows1e6.mtx"
expect "1e6 rows and entries declared, 1 given: exit 1 at the end of the file, in bounded memory" \
    eval 'test "$status" = 1 && logHas "rows1e6.mtx:4: end of file after 1 of the 1000000 entries"'
printf '%b' "${banner}1000000000 1000000000 1000000000\n1 1 4\n" > "$work/rows1e9.mtx"
limited 10 "$memory" rows1e9 "$work/rows1e9.mtx"
expect "1e9 rows and entries declared: exit 1 before reading them, naming the memory needed" \
    eval 'test "$status" = 1 && logHas "rows1e9.mtx:2: reading 1000000000 rows and 1000000000 entries needs " \
          && logHas "of memory available"'
printf '%b' "${banner}3 3 5\n1 1 4\0\n0\n2 2 4\n3 3 4\n2 1 -1\n3 2 -1\n" > "$work/nul.mtx"
limited 10 "$memory" nul "$work/nul.mtx"
expect "a NUL inside an entry: exit 1 naming line and column (it used to read 40)" \
    eval 'test "$status" = 1 && logHas "nul.mtx:3: control character 0x00 (NUL) at column 6"'
limited 10 "$memory" devZero /dev/zero
expect "/dev/zero: exit 1 at once" \
    eval 'test "$status" = 1 && logHas "/dev/zero:1: control character 0x00 (NUL) at column 1"'
{ printf '%%%%MatrixMarket matrix coordinate real general'; head -c 2000000 /dev/zero | tr '\0' x; printf '\n'; } \
    > "$work/longBanner.mtx"
limited 10 "$memory" longBanner "$work/longBanner.mtx"
expect "a 2 MB banner: exit 1, the message under 300 bytes" \
    eval 'test "$status" = 1 && logHas "longBanner.mtx:1: line longer than 1024 bytes" && test "$(wc -c < "$log")" -lt 300'
{ printf '%b' "${banner}% "; head -c 200000000 /dev/zero | tr '\0' c; printf '%b' "\n1 1 1\n1 1 4\n"; } \
    | gzip -1 > "$work/longComment.mtx.gz"
limited 20 50000 longComment "$work/longComment.mtx.gz"
expect "a gzip file of a 200 MB comment line: read in 50 MB beyond the libraries and solved" \
    eval 'test "$status" = 0 && logHas "converged        yes"'
printf '%b' "${banner}2 2 5\n1 1 2\n2 2 4\n1 1 2\n2 1 -1\n2 1 0\n" > "$work/duplicates.mtx"
run duplicates "$work/duplicates.mtx"
expect "duplicate entries summed with a warning that counts them and names the first" \
    eval 'test "$status" = 0 && logHas "gpuLduSolve: warning: $work/duplicates.mtx:5: 2 entries repeat a row and column of an earlier entry, summed into it (the first here)"'
for value in 1e400 1e-400; do
    printf '%b' "${banner}1 1 1\n1 1 $value\n" > "$work/range$value.mtx"
    run "range$value" "$work/range$value.mtx"
    expect "value $value: exit 1, out of range (overflow and underflow alike)" \
        eval 'test "$status" = 1 && logHas "range$value.mtx:3: value '"'"'$value'"'"' out of range"'
done

[ "$failed" -gt 0 ] || rm -rf "$work"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
