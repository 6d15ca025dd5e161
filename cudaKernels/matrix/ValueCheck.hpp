// SPDX-License-Identifier: GPL-3.0-or-later
// The checks a solve makes before it iterates (ValueError, gpuLdu.hpp): every uploaded value
// finite, every pivot finite and non-zero.
//
// Why by bit pattern: OpenFOAM traps floating-point exceptions (FE_INVALID, FE_DIVBYZERO,
// FE_OVERFLOW: sigFpe, trapFpe 1 by default), so a check on the host executor must not do a
// floating-point operation that raises on the very values it looks for (a comparison with a NaN
// may raise FE_INVALID, inf - inf does). A double is not finite exactly when its 11 exponent bits
// are all ones, and is zero exactly when all bits but the sign are zero: integer tests, the same
// on host and device, which raise nothing.
//
// Cost: the value check is one fused reduction at upload over diag, upper, lower, source and
// psi (about (2 + 2 nFaces/nCells + 2) x 8 bytes per cell: 64 B on an asymmetric hex mesh), no
// work per iteration. A pivot check is one reduction over the n pivots after the factorisation.

#ifndef GPULDU_VALUECHECK_HPP
#define GPULDU_VALUECHECK_HPP

#include "backend/Backend.hpp"
#include "backend/Bits.hpp"
#include "gpuLdu/errors.hpp"

#include <thrust/count.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform_reduce.h>

#include <cstdint>

namespace gpuLdu
{

constexpr std::uint64_t exponentBits = 0x7ff0'0000'0000'0000ULL;
constexpr std::uint64_t magnitudeBits = 0x7fff'ffff'ffff'ffffULL;

//- Whether v is neither NaN nor +-inf: its exponent is not all ones
GPULDU_HD inline bool isFiniteValue(double v)
{
    return (bitsOf(v) & exponentBits) != exponentBits;
}

//- Whether both parts of a complex value are finite
GPULDU_HD inline bool isFiniteValue(const Complex& v)
{
    return isFiniteValue(v.real()) && isFiniteValue(v.imag());
}

//- Whether a factorisation may divide by v: finite and not +-0
GPULDU_HD inline bool isUsablePivot(double v)
{
    return isFiniteValue(v) && (bitsOf(v) & magnitudeBits) != 0;
}

//- A quiet NaN, made from its bits (0/0 would raise FE_INVALID)
GPULDU_HD inline double quietNaN()
{
    return doubleOfBits(0x7ff8'0000'0000'0000ULL);
}

//- a/pivot, or a quiet NaN where the pivot is zero or not finite: a factorisation meeting a bad
//  pivot carries a NaN on to the rows that depend on it instead of dividing by zero (arithmetic
//  on a quiet NaN raises nothing). Its pivot check then reports the first bad row, the lowest:
//  the rows a bad pivot spoils all lie after it (a lower triangular dependency).
GPULDU_HD inline double quotientOrNaN(double a, double pivot)
{
    return isUsablePivot(pivot) ? a/pivot : quietNaN();
}

namespace detail
{

//- The values of up to 3 arrays as one sequence (segment s holds size[s] values of data[s]):
//  entry k's place where it is not finite, else end (a minimum over them finds the first)
struct NonFiniteEntry
{
    const double* data[3];
    long size[3];
    long end;

    GPULDU_HD double value(long k) const
    {
        const long second = k - size[0];
        const long third = second - size[1];
        return second < 0 ? data[0][k] : (third < 0 ? data[1][second] : data[2][third]);
    }

    GPULDU_HD long operator()(long k) const
    {
        return isFiniteValue(value(k)) ? end : k;
    }
};

//- Whether entry k of a NonFiniteEntry sequence is not finite
struct IsNonFiniteEntry
{
    NonFiniteEntry entry;

    GPULDU_HD bool operator()(long k) const
    {
        return !isFiniteValue(entry.value(k));
    }
};

template<class T>
struct Minimum
{
    GPULDU_HD T operator()(T a, T b) const
    {
        return a < b ? a : b;
    }
};

//- Row i if its pivot (pivot[pos[i]], or pivot[i] without pos) is zero or not finite, else n
struct BadPivotRow
{
    const double* pivot;
    const int* pos;
    int n;

    GPULDU_HD int operator()(int i) const
    {
        return isUsablePivot(pivot[pos ? pos[i] : i]) ? n : i;
    }
};

} // namespace detail

//- The non-finite values of up to 3 backend arrays taken as one sequence: the first one's place
//  in the sequence (one reduction, a minimum; the total size where there is none), and their
//  number (a second pass, only where there is one)
struct NonFiniteCount
{
    long first;
    long count;
};

template<class B>
NonFiniteCount countNonFinite(const double* const data[3], const long size[3])
{
    detail::NonFiniteEntry entry{{data[0], data[1], data[2]}, {size[0], size[1], size[2]}, 0};
    entry.end = size[0] + size[1] + size[2];
    const thrust::counting_iterator<long> begin(0);
    const thrust::counting_iterator<long> end(entry.end);
    NonFiniteCount found{thrust::transform_reduce(B::policy(), begin, end, entry, entry.end, detail::Minimum<long>()), 0};
    if (found.first < entry.end)
    {
        found.count = thrust::count_if(B::policy(), begin, end, detail::IsNonFiniteEntry{entry});
    }
    return found;
}

//- The lowest row of n whose pivot (pivot[pos[i]], or pivot[i] where pos is nullptr) is zero or
//  not finite; -1 where all are usable (one reduction)
template<class B>
int firstBadPivot(const double* pivot, const int* pos, int n)
{
    const int first = thrust::transform_reduce(
        B::policy(), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(n),
        detail::BadPivotRow{pivot, pos, n}, n, detail::Minimum<int>());
    return first < n ? first : -1;
}

//- Throws ValueError for a bad pivot at row i of a factorisation (pivotOf: its name), its
//  value read from the backend (pivot[pos[i]], or pivot[i])
template<class B>
[[noreturn]] void throwBadPivot(const char* pivotOf, const double* pivot, const int* pos, int i)
{
    int p = i;
    if (pos)
    {
        B::download(&p, pos + i, 1);
    }
    BadValue bad;
    bad.kind = ValueKind::pivot;
    bad.pivotOf = pivotOf;
    bad.index = bad.row = bad.col = i;
    B::download(&bad.value, pivot + p, 1);
    bad.count = 1;
    throw ValueError(bad);
}

//- Checks the pivots of a factorisation: throws ValueError naming the first bad one
template<class B>
void checkPivots(const char* pivotOf, const double* pivot, const int* pos, int n)
{
    const int i = firstBadPivot<B>(pivot, pos, n);
    if (i >= 0)
    {
        throwBadPivot<B>(pivotOf, pivot, pos, i);
    }
}

//- Throws ValueError if a value of a system's uploaded values is not finite, naming the first
//  in the order ldu ([diag | upper | lower] of n cells and nF faces, lower where not
//  symmetric), source, psi (arrays on the backend), and how many there are: one reduction over
//  them all. faceCells(f): face f's (lower, upper) cells, the row and column of a bad upper or
//  lower value.
template<class B, class FaceCells>
void checkSystemValues(const double* ldu, const double* source, const double* psi, int n, long nF,
                       bool symmetric, const FaceCells& faceCells)
{
    const double* const data[3] = {ldu, source, psi};
    const long size[3] = {n + (symmetric ? 1 : 2)*nF, n, n};
    const NonFiniteCount found = countNonFinite<B>(data, size);
    if (found.count == 0)
    {
        return;
    }
    BadValue bad;
    bad.count = found.count;
    long k = found.first;
    const double* at = nullptr;
    if (k < size[0])
    {
        at = ldu + k;
        bad.kind = k < n ? ValueKind::diagonal : (k < n + nF ? ValueKind::upper : ValueKind::lower);
        k -= bad.kind == ValueKind::diagonal ? 0 : (bad.kind == ValueKind::upper ? n : n + nF);
    }
    else
    {
        k -= size[0];
        bad.kind = k < n ? ValueKind::source : ValueKind::initialGuess;
        k -= bad.kind == ValueKind::source ? 0 : n;
        at = (bad.kind == ValueKind::source ? source : psi) + k;
    }
    B::download(&bad.value, at, 1);
    bad.index = bad.row = bad.col = int(k);
    if (bad.kind == ValueKind::upper || bad.kind == ValueKind::lower)
    {
        // upper[f] is A[l(f)][u(f)], lower[f] is A[u(f)][l(f)]
        const auto [l, u] = faceCells(int(k));
        bad.row = bad.kind == ValueKind::upper ? l : u;
        bad.col = bad.kind == ValueKind::upper ? u : l;
    }
    throw ValueError(bad);
}

} // namespace gpuLdu

#endif
