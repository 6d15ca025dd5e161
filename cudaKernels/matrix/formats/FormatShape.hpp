// SPDX-License-Identifier: GPL-3.0-or-later
// What the matrix formats (matrix/FormatList.hpp) are made of: where a format's product reads A
// (FormatStorage), the row lengths of a CSR pattern that a format's layout is chosen from
// (PatternRows, rowLengthStats), and the layout of the ELLPACK family that every converted
// format is (EllShape: ELL slots of one width or of one width per 32 rows, and a tail of the
// longer rows' remaining terms). A converted format's file chooses its EllShape; matrix/
// SparseFormats.hpp stores and multiplies every such shape.

#ifndef GPULDU_FORMATSHAPE_HPP
#define GPULDU_FORMATSHAPE_HPP

#include "backend/Backend.hpp"
#include "registry/Registry.hpp"

#include <thrust/binary_search.h>
#include <thrust/count.h>
#include <thrust/extrema.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <limits>
#include <vector>

namespace gpuLdu
{

//- Where a format's product reads A: the system's own CSR arrays (csr), a pattern converted
//  from them once (the ELLPACK family: the entry's shape()), or nowhere, the format standing
//  for another chosen per matrix (auto: the entry's choose())
enum class FormatStorage
{
    systemCsr,
    converted,
    chosen
};

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

struct LongerThan
{
    double length;

    GPULDU_HD bool operator()(int l) const
    {
        return l > length;
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

//- The last value of a backend vector, on the host
template<class B>
int lastOf(const typename B::template Vector<int>& v)
{
    int last = 0;
    B::download(&last, ptr(v) + v.size() - 1, 1);
    return last;
}

//- The rows of a CSR pattern (rowStart of nRows + 1 offsets) as a format's layout looks at them
template<class B>
struct PatternRows
{
    int nRows;
    const typename B::template Vector<int>& rowStart;
    RowLengthStats stats;

    //- atLeast[k] = number of rows at least k long, k = 0..maxLength (sorted lengths, then a
    //  vectorised binary search), on the host
    std::vector<int> rowsAtLeast() const
    {
        const int maxLength = stats.maxLength;
        typename B::template Vector<int> len(nRows);
        thrust::transform(B::policy(), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(nRows),
                          len.begin(), detail::RowLength{ptr(rowStart)});
        thrust::sort(B::policy(), len.begin(), len.end());
        typename B::template Vector<int> shorter(maxLength + 1);
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
};

//- The terms of a row beyond its ELL slots: none (every row fits), in row-sorted COO (the row
//  of each term stored; a row's run found by binary search), or in CSR (offsets per row)
enum class EllTail
{
    none,
    coo,
    csr
};

//- The layout of a converted format: row i's first terms in its ELL slots, slot k at
//  base + k*stride (one width for all rows: base i, stride nRows; per slice of 32 rows:
//  base sliceStart[i/32] + i%32, stride 32, the slice's width), the rest in the tail
template<class B>
struct EllShape
{
    //- The ELL width of every row (without slices)
    int width = 0;
    //- Where slice s (rows 32s .. 32s+31) starts; its width is the difference / 32 (empty: no
    //  slices)
    typename B::template Vector<int> sliceStart;
    EllTail tail = EllTail::none;
};

} // namespace gpuLdu

#endif
