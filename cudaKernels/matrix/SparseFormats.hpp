// SPDX-License-Identifier: GPL-3.0-or-later
// The storage formats of A for the products A x and A^T x: ELLPACK, blocked ELLPACK, HYB (ELL +
// COO) and HEC (ELL + CSR), converted from a CSR pattern on the backend (Thrust sorts, scans and
// reductions plus one pass per row), and an SpMV kernel for each (one thread per row).
//
// The input is a pattern in summation order: row i's terms are slots rowStart[i] .. rowStart[i+1]
// with column termCol[p], and their values come from entry termSrc[p] of a value array. Every
// format keeps each row's terms in that order and adds them one after another, so y = A x is the
// same in every format, bit for bit. The pattern is converted once; fill() then gathers a value
// array into the format (once per matrix upload).

#ifndef GPULDU_SPARSEFORMATS_HPP
#define GPULDU_SPARSEFORMATS_HPP

#include "backend/Backend.hpp"

#include <thrust/binary_search.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/count.h>
#include <thrust/extrema.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

namespace gpuLdu
{

namespace detail
{

struct RowLength
{
    const int* rowStart;

    GPULDU_HD int operator()(int i) const
    {
        return rowStart[i + 1] - rowStart[i];
    }
};

//- The length of row i beyond the first width terms (0 if none)
struct TailLength
{
    const int* rowStart;
    int width;

    GPULDU_HD int operator()(int i) const
    {
        const int beyond = rowStart[i + 1] - rowStart[i] - width;
        return beyond > 0 ? beyond : 0;
    }
};

struct LongerThan
{
    double length;

    GPULDU_HD bool operator()(int l) const
    {
        return l > length;
    }
};

struct SliceOf
{
    GPULDU_HD int operator()(int i) const
    {
        return i/32;
    }
};

struct Times32
{
    GPULDU_HD int operator()(int w) const
    {
        return 32*w;
    }
};

//- Where row i's ELL slots lie: slot k at base + k*stride, k < width. ELL: base i, stride
//  nRows, one width for all rows; blocked ELL: base sliceStart[i/32] + i%32, stride 32, the
//  width of the row's slice.
struct EllRow
{
    int base;
    int stride;
    int width;

    GPULDU_HD EllRow(int i, int nRows, int ellWidth, const int* sliceStart)
    :
        base(i),
        stride(nRows),
        width(ellWidth)
    {
        if (sliceStart)
        {
            base = sliceStart[i/32] + i%32;
            stride = 32;
            width = (sliceStart[i/32 + 1] - sliceStart[i/32])/32;
        }
    }

    GPULDU_HD int slot(int k) const
    {
        return base + k*stride;
    }
};

//- Scatters row i's first terms into its ELL slots (EllRow), the rest to the tail at
//  tailStart[i].
struct FillRow
{
    const int* rowStart;
    const int* termCol;
    const int* termSrc;
    int nRows;
    int width;
    const int* sliceStart;
    int* ellCol;
    int* ellSrc;
    const int* tailStart;
    int* tailRow;
    int* tailCol;
    int* tailSrc;

    GPULDU_HD void operator()(int i) const
    {
        const EllRow slots(i, nRows, width, sliceStart);
        const int len = rowStart[i + 1] - rowStart[i];
        for (int k = 0; k < len; ++k)
        {
            const int p = rowStart[i] + k;
            if (k < slots.width)
            {
                ellCol[slots.slot(k)] = termCol[p];
                ellSrc[slots.slot(k)] = termSrc[p];
            }
            else
            {
                const int q = tailStart[i] + k - slots.width;
                if (tailRow)
                {
                    tailRow[q] = i;
                }
                tailCol[q] = termCol[p];
                tailSrc[q] = termSrc[p];
            }
        }
    }
};

//- to[k] = from[src[k]], 0 where src[k] < 0 (padding)
struct FillValues
{
    const int* src;
    const double* from;
    double* to;

    GPULDU_HD void operator()(int k) const
    {
        to[k] = src[k] < 0 ? 0.0 : from[src[k]];
    }
};

//- y = A x for ELL, blocked ELL, HYB and HEC: row i's ELL slots (stopping at the first padding
//  slot), then its tail terms (HEC: CSR offsets; HYB: its run in the row-sorted COO arrays,
//  found by binary search when the ELL part is full).
struct FormatSpmvRow
{
    int nRows;
    int width;
    const int* sliceStart;
    const int* ellCol;
    const double* ellVal;
    const int* tailStart;
    const int* tailRow;
    int nTail;
    const int* tailCol;
    const double* tailVal;
    const double* x;
    double* y;

    GPULDU_HD void operator()(int i) const
    {
        const EllRow slots(i, nRows, width, sliceStart);
        double yi = 0.0;
        int k = 0;
        for (; k < slots.width; ++k)
        {
            const int c = ellCol[slots.slot(k)];
            if (c < 0)
            {
                break;
            }
            yi += ellVal[slots.slot(k)]*x[c];
        }
        if (k == slots.width && tailStart)
        {
            for (int q = tailStart[i]; q < tailStart[i + 1]; ++q)
            {
                yi += tailVal[q]*x[tailCol[q]];
            }
        }
        else if (k == slots.width && tailRow)
        {
            int lo = 0;
            int hi = nTail;
            while (lo < hi)
            {
                const int mid = lo + (hi - lo)/2;
                if (tailRow[mid] < i)
                {
                    lo = mid + 1;
                }
                else
                {
                    hi = mid;
                }
            }
            for (int q = lo; q < nTail && tailRow[q] == i; ++q)
            {
                yi += tailVal[q]*x[tailCol[q]];
            }
        }
        y[i] = yi;
    }
};

//- Summation order of an LDU-derived CSR row: the diagonal, then the off-diagonals by ascending
//  column (OpenFOAM's Amul order).
struct DiagonalFirstTerms
{
    const int* rowStart;
    const int* col;
    const int* diagPos;
    int* termCol;
    int* termSrc;

    GPULDU_HD void operator()(int i) const
    {
        int p = rowStart[i];
        termCol[p] = i;
        termSrc[p] = diagPos[i];
        for (int q = rowStart[i]; q < rowStart[i + 1]; ++q)
        {
            if (q != diagPos[i])
            {
                ++p;
                termCol[p] = col[q];
                termSrc[p] = q;
            }
        }
    }
};

} // namespace detail

//- The row-length statistics of a CSR pattern, computed on the backend.
template<class B>
RowLengthStats rowLengthStats(int nRows, const typename B::template Vector<int>& rowStart)
{
    RowLengthStats s;
    s.nRows = nRows;
    if (nRows == 0)
    {
        return s;
    }
    const auto len = thrust::make_transform_iterator(
        thrust::counting_iterator<int>(0), detail::RowLength{ptr(rowStart)});
    s.minLength = thrust::reduce(B::policy(), len, len + nRows, std::numeric_limits<int>::max(), thrust::minimum<int>());
    s.maxLength = thrust::reduce(B::policy(), len, len + nRows, 0, thrust::maximum<int>());
    int last = 0;
    B::download(&last, ptr(rowStart) + nRows, 1);
    s.nnz = last;
    s.nLongRows = int(thrust::count_if(B::policy(), len, len + nRows, detail::LongerThan{1.5*s.meanLength()}));
    return s;
}

//- ELL widths of HYB and HEC from the number of rows at least k long, atLeast[k], k = 0..max.
struct SplitWidths
{
    //- Bell and Garland's: the largest K with at least a third of the rows K or more long
    static int hyb(const std::vector<int>& atLeast)
    {
        const int nRows = atLeast.empty() ? 0 : atLeast[0];
        int K = 0;
        for (int k = 1; k < int(atLeast.size()); ++k)
        {
            if (3L*atLeast[k] >= nRows)
            {
                K = k;
            }
        }
        return K;
    }

    //- HEC's: the largest K whose ELL part (nRows x K slots) is more than half non-zero
    static int hec(const std::vector<int>& atLeast)
    {
        const long nRows = atLeast.empty() ? 0 : atLeast[0];
        long stored = 0;
        int K = 0;
        for (int k = 1; k < int(atLeast.size()); ++k)
        {
            stored += atLeast[k];
            if (2*stored > nRows*k)
            {
                K = k;
            }
        }
        return K;
    }
};

//- A pattern converted to one format (not csr: the CSR products use CsrMatrix directly).
template<class B>
class FormattedPattern
{
public:
    template<class T>
    using Vector = typename B::template Vector<T>;

    //- The values of one matrix in this pattern's slots
    struct Values
    {
        Vector<double> ell;
        Vector<double> tail;
    };

    MatrixFormat format = MatrixFormat::ell;
    int nRows = 0;
    //- ell, hyb, hec: the ELL width
    int width = 0;
    //- blockedEll: where slice s (rows 32s .. 32s+31) starts; its width is the difference / 32
    Vector<int> sliceStart;
    //- Column (-1: padding) and value source of each ELL slot
    Vector<int> ellCol;
    Vector<int> ellSrc;
    //- hec: CSR offsets of the tail; hyb: the row of each tail entry (ascending)
    Vector<int> tailStart;
    Vector<int> tailRow;
    Vector<int> tailCol;
    Vector<int> tailSrc;

    //- Slots stored (padding included), for the bandwidth count
    long slots() const
    {
        return long(ellCol.size()) + long(tailCol.size());
    }

    //- Converts the pattern (rowStart, termCol, termSrc) of nRows rows, in summation order.
    FormattedPattern(
        MatrixFormat f,
        int n,
        const Vector<int>& rowStart,
        const Vector<int>& termCol,
        const Vector<int>& termSrc
    )
    :
        format(f),
        nRows(n)
    {
        const RowLengthStats stats = rowLengthStats<B>(n, rowStart);
        switch (f)
        {
            case MatrixFormat::ell:
                width = stats.maxLength;
                checkPadding(stats, long(width)*n);
                break;
            case MatrixFormat::blockedEll:
                buildSlices(rowStart);
                break;
            case MatrixFormat::hyb:
                width = SplitWidths::hyb(rowsAtLeast(rowStart, stats.maxLength));
                break;
            case MatrixFormat::hec:
                width = SplitWidths::hec(rowsAtLeast(rowStart, stats.maxLength));
                break;
            default:
                throw Error("gpuLdu: FormattedPattern of format " + formatName(f));
        }
        const long nEll = sliceStart.empty() ? long(width)*n : long(back(sliceStart));
        ellCol.assign(nEll, -1);
        ellSrc.assign(nEll, -1);
        if (f == MatrixFormat::hyb || f == MatrixFormat::hec)
        {
            buildTail(rowStart, f == MatrixFormat::hyb);
        }
        forEach<B>(0, n, detail::FillRow{
            ptr(rowStart), ptr(termCol), ptr(termSrc), n, width, ptrOrNull(sliceStart),
            ptr(ellCol), ptr(ellSrc), ptrOrNull(tailStart), ptrOrNull(tailRow),
            ptrOrNull(tailCol), ptrOrNull(tailSrc)});
        if (f == MatrixFormat::hyb)
        {
            // COO: the row of each entry replaces the offsets
            tailStart.clear();
            tailStart.shrink_to_fit();
        }
    }

    //- Gathers a value array (the one termSrc indexes) into the format
    void fill(const double* from, Values& v) const
    {
        v.ell.resize(ellSrc.size());
        v.tail.resize(tailSrc.size());
        forEach<B>(0, int(ellSrc.size()), detail::FillValues{ptr(ellSrc), from, ptr(v.ell)});
        forEach<B>(0, int(tailSrc.size()), detail::FillValues{ptr(tailSrc), from, ptr(v.tail)});
    }

    //- y = A x with the values v
    void spmv(const Values& v, const double* x, double* y) const
    {
        forEach<B>(0, nRows, detail::FormatSpmvRow{
            nRows, width, ptrOrNull(sliceStart), ptrOrNull(ellCol), ptrOrNull(v.ell),
            ptrOrNull(tailStart), ptrOrNull(tailRow), int(tailCol.size()),
            ptrOrNull(tailCol), ptrOrNull(v.tail), x, y});
    }

private:
    template<class T>
    static T* ptrOrNull(Vector<T>& v)
    {
        return v.empty() ? nullptr : ptr(v);
    }

    template<class T>
    static const T* ptrOrNull(const Vector<T>& v)
    {
        return v.empty() ? nullptr : ptr(v);
    }

    static int back(const Vector<int>& v)
    {
        int last = 0;
        B::download(&last, ptr(v) + v.size() - 1, 1);
        return last;
    }

    //- Refuse an ELL whose padding would dwarf the matrix (one long row, say)
    void checkPadding(const RowLengthStats& stats, long nSlots) const
    {
        if (nSlots > 8*stats.nnz + 1024)
        {
            throw Error(
                "matrixFormat " + formatName(format) + " would store " + std::to_string(nSlots)
              + " slots for " + std::to_string(stats.nnz) + " non-zeros (rows " + std::to_string(stats.minLength)
              + " to " + std::to_string(stats.maxLength) + " long): use hyb, hec or csr for this matrix"
            );
        }
    }

    //- atLeast[k] = number of rows at least k long, k = 0..maxLength (sorted lengths, then a
    //  vectorised binary search), copied to the host
    std::vector<int> rowsAtLeast(const Vector<int>& rowStart, int maxLength) const
    {
        Vector<int> len(nRows);
        thrust::transform(B::policy(), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(nRows),
                          len.begin(), detail::RowLength{ptr(rowStart)});
        thrust::sort(B::policy(), len.begin(), len.end());
        Vector<int> shorter(maxLength + 1);
        thrust::lower_bound(B::policy(), len.begin(), len.end(),
                            thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(maxLength + 1),
                            shorter.begin());
        std::vector<int> atLeast(maxLength + 1);
        B::download(atLeast.data(), ptr(shorter), atLeast.size());
        for (int& a : atLeast)
        {
            a = nRows - a;
        }
        return atLeast;
    }

    //- Slice widths: the longest row of each 32 (a keyed max-reduction), offsets by a scan
    void buildSlices(const Vector<int>& rowStart)
    {
        const int nSlices = (nRows + 31)/32;
        Vector<int> sliceIds(nSlices);
        Vector<int> sliceWidth(nSlices);
        const auto slice = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), detail::SliceOf());
        const auto len = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), detail::RowLength{ptr(rowStart)});
        thrust::reduce_by_key(B::policy(), slice, slice + nRows, len, sliceIds.begin(), sliceWidth.begin(),
                              thrust::equal_to<int>(), thrust::maximum<int>());
        sliceStart.assign(nSlices + 1, 0);
        const auto slots = thrust::make_transform_iterator(sliceWidth.begin(), detail::Times32());
        thrust::inclusive_scan(B::policy(), slots, slots + nSlices, sliceStart.begin() + 1);
    }

    //- Tail offsets: a scan of the lengths beyond the ELL width
    void buildTail(const Vector<int>& rowStart, bool coo)
    {
        tailStart.assign(nRows + 1, 0);
        const auto beyond = thrust::make_transform_iterator(
            thrust::counting_iterator<int>(0), detail::TailLength{ptr(rowStart), width});
        thrust::inclusive_scan(B::policy(), beyond, beyond + nRows, tailStart.begin() + 1);
        const int nTail = back(tailStart);
        tailCol.resize(nTail);
        tailSrc.resize(nTail);
        if (coo)
        {
            tailRow.resize(nTail);
        }
    }
};

} // namespace gpuLdu

#endif
