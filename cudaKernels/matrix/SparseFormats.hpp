// SPDX-License-Identifier: GPL-3.0-or-later
// The converted formats of A for the products A x and A^T x (matrix/FormatList.hpp: ELLPACK,
// blocked ELLPACK, HYB (ELL + COO), HEC (ELL + CSR)): each format's file chooses its layout
// (an EllShape, matrix/formats/FormatShape.hpp); here a CSR pattern is converted to any such
// layout on the backend (one pass per row) and multiplied (one thread per row: the row's ELL
// slots, then its tail).
//
// The input is a pattern in summation order: row i's terms are slots rowStart[i] .. rowStart[i+1]
// with column termCol[p], and their values come from entry termSrc[p] of a value array. Every
// format keeps each row's terms in that order and adds them one after another, so y = A x is the
// same in every format, bit for bit. The pattern is converted once; fill() then gathers a value
// array into the format (once per matrix upload).

#ifndef GPULDU_SPARSEFORMATS_HPP
#define GPULDU_SPARSEFORMATS_HPP

#include "matrix/FormatList.hpp"

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>

#include <string>

namespace gpuLdu
{

namespace detail
{

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

    MatrixFormat format;
    int nRows = 0;
    //- The ELL width of every row (without slices)
    int width = 0;
    //- With slices (blockedEll): where slice s (rows 32s .. 32s+31) starts; its width is the
    //  difference / 32
    Vector<int> sliceStart;
    //- Column (-1: padding) and value source of each ELL slot
    Vector<int> ellCol;
    Vector<int> ellSrc;
    //- The tail: in CSR (hec), its offsets per row; in COO (hyb), the row of each entry
    //  (ascending)
    Vector<int> tailStart;
    Vector<int> tailRow;
    Vector<int> tailCol;
    Vector<int> tailSrc;

    //- Slots stored (padding included), for the bandwidth count
    long slots() const
    {
        return long(ellCol.size()) + long(tailCol.size());
    }

    //- Converts the pattern (rowStart, termCol, termSrc) of nRows rows, in summation order, to
    //  the layout the format chooses for it (Error for a format not converted: csr, auto)
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
        EllShape<B> shape = shapeOf(f, PatternRows<B>{n, rowStart, rowLengthStats<B>(n, rowStart)});
        width = shape.width;
        sliceStart.swap(shape.sliceStart);
        const long nEll = sliceStart.empty() ? long(width)*n : long(lastOf<B>(sliceStart));
        ellCol.assign(nEll, -1);
        ellSrc.assign(nEll, -1);
        if (shape.tail != EllTail::none)
        {
            buildTail(rowStart, shape.tail == EllTail::coo);
        }
        forEach<B>(0, n, detail::FillRow{
            ptr(rowStart), ptr(termCol), ptr(termSrc), n, width, ptrOrNull(sliceStart),
            ptr(ellCol), ptr(ellSrc), ptrOrNull(tailStart), ptrOrNull(tailRow),
            ptrOrNull(tailCol), ptrOrNull(tailSrc)});
        if (shape.tail == EllTail::coo)
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

    //- The layout format f's entry chooses for these rows
    static EllShape<B> shapeOf(MatrixFormat f, const PatternRows<B>& rows)
    {
        EllShape<B> shape;
        bool converted = false;
        FormatRegistry::visit(f.id(), [&](auto entry)
        {
            using Entry = decltype(entry);
            if constexpr (Entry::storage == FormatStorage::converted)
            {
                shape = Entry::template shape<B>(rows);
                converted = true;
            }
        });
        if (!converted)
        {
            throw Error("gpuLdu: FormattedPattern of format " + formatName(f));
        }
        return shape;
    }

    //- Tail offsets: a scan of the lengths beyond the ELL width
    void buildTail(const Vector<int>& rowStart, bool coo)
    {
        tailStart.assign(nRows + 1, 0);
        const auto beyond = thrust::make_transform_iterator(
            thrust::counting_iterator<int>(0), detail::TailLength{ptr(rowStart), width});
        thrust::inclusive_scan(B::policy(), beyond, beyond + nRows, tailStart.begin() + 1);
        const int nTail = lastOf<B>(tailStart);
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
