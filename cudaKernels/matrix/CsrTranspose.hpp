// SPDX-License-Identifier: GPL-3.0-or-later
// Transpose of a CSR pattern on the backend, by a stable sort: expand the row offsets to one row
// index per entry, stable-sort the entries by column (rows stay ascending within a column),
// compress the sorted columns into row offsets. The permutation it returns maps each entry of
// A^T to the entry of A it comes from, so transposed values are one gather per solve.

#ifndef GPULDU_CSRTRANSPOSE_HPP
#define GPULDU_CSRTRANSPOSE_HPP

#include "backend/Backend.hpp"

#include <thrust/binary_search.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>

namespace gpuLdu
{

namespace detail
{

//- row[k] = i for every entry k of row i
struct ExpandRows
{
    const int* rowStart;
    int* row;

    GPULDU_HD void operator()(int i) const
    {
        for (int k = rowStart[i]; k < rowStart[i + 1]; ++k)
        {
            row[k] = i;
        }
    }
};

} // namespace detail

template<class B>
struct CsrTranspose
{
    typename B::template Vector<int> rowStart;
    typename B::template Vector<int> col;
    //- Entry k of A^T is entry source[k] of A
    typename B::template Vector<int> source;
};

//- The transpose of the nRows x nCols pattern (rowStart, col) of nnz entries.
template<class B>
CsrTranspose<B> csrTranspose(
    int nRows,
    int nCols,
    const typename B::template Vector<int>& rowStart,
    const typename B::template Vector<int>& col
)
{
    const int nnz = int(col.size());
    typename B::template Vector<int> row(nnz);
    forEach<B>(0, nRows, detail::ExpandRows{ptr(rowStart), ptr(row)});

    CsrTranspose<B> t;
    typename B::template Vector<int> sortedCol(col);
    t.source.resize(nnz);
    thrust::sequence(B::policy(), t.source.begin(), t.source.end());
    thrust::stable_sort_by_key(B::policy(), sortedCol.begin(), sortedCol.end(), t.source.begin());

    t.col.resize(nnz);
    forEach<B>(0, nnz, detail::Gather<int>{ptr(t.source), ptr(row), ptr(t.col)});
    t.rowStart.resize(nCols + 1);
    thrust::lower_bound(
        B::policy(),
        sortedCol.begin(), sortedCol.end(),
        thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(nCols + 1),
        t.rowStart.begin()
    );
    return t;
}

} // namespace gpuLdu

#endif
