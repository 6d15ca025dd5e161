// SPDX-License-Identifier: GPL-3.0-or-later
// CSR storage of an LDU matrix. The pattern and the LDU->CSR permutation are built once per
// addressing (on the backend, by a sort); each solve only permutes the uploaded values.
//
// The LDU values travel as one array  ldu = [ diag (nCells) | upper (nFaces) | lower (nFaces) ];
// lduIndex[k] says where CSR entry k comes from. Row i holds, by ascending column: its lower
// neighbours (entries lower[f] of faces with upper(f) = i), the diagonal, its upper neighbours.

#ifndef GPULDU_CSRMATRIX_HPP
#define GPULDU_CSRMATRIX_HPP

#include "matrix/CsrTranspose.hpp"

#include <thrust/binary_search.h>
#include <thrust/scatter.h>
#include <thrust/sort.h>

#include <cstdint>
#include <utility>
#include <string>

namespace gpuLdu
{

//- Validates what the level schedules and the DIC/DILU equivalence rely on.
inline void checkAddressing(const LduAddressingView& a)
{
    if (a.nCells < 0 || a.nFaces < 0 || (a.nFaces > 0 && (!a.lower || !a.upper)))
    {
        throw Error("gpuLdu: invalid LDU addressing sizes");
    }
    for (int f = 0; f < a.nFaces; ++f)
    {
        const int l = a.lower[f];
        const int u = a.upper[f];
        if (l < 0 || u >= a.nCells || l >= u)
        {
            throw Error(
                "gpuLdu: face " + std::to_string(f) + " has lower " + std::to_string(l)
              + " and upper " + std::to_string(u) + " (need 0 <= lower < upper < nCells = "
              + std::to_string(a.nCells) + ")"
            );
        }
        if (f > 0 && (l < a.lower[f - 1] || (l == a.lower[f - 1] && u <= a.upper[f - 1])))
        {
            throw Error(
                "gpuLdu: faces are not in upper-triangular order (or repeat) at face "
              + std::to_string(f) + "; OpenFOAM's DIC/DILU order is defined only for that order"
            );
        }
    }
}

namespace detail
{

//- Entry p of A, or of A^T (through the transpose index, CsrMatrix::transpose).
template<bool Transposed>
GPULDU_HD inline double entry(const double* val, const int* transpose, int p)
{
    return Transposed ? val[transpose[p]] : val[p];
}

//- Coordinates (row, col) of each LDU entry as one sortable 64-bit key, and its source index.
struct LduEntryKey
{
    int nCells;
    int nFaces;
    const int* lower;
    const int* upper;
    std::int64_t* key;
    int* source;

    GPULDU_HD void operator()(int e) const
    {
        std::int64_t row;
        std::int64_t col;
        if (e < nCells)
        {
            row = e;
            col = e;
        }
        else if (e < nCells + nFaces)
        {
            row = lower[e - nCells];
            col = upper[e - nCells];
        }
        else
        {
            row = upper[e - nCells - nFaces];
            col = lower[e - nCells - nFaces];
        }
        key[e] = row*nCells + col;
        source[e] = e;
    }
};

struct SplitKey
{
    int nCells;
    const std::int64_t* key;
    int* row;
    int* col;

    GPULDU_HD void operator()(int k) const
    {
        row[k] = int(key[k]/nCells);
        col[k] = int(key[k]%nCells);
    }
};

//- The diagonal position of each row.
struct DiagonalPosition
{
    int nCells;
    const int* lduIndex;
    int* diagPos;

    GPULDU_HD void operator()(int k) const
    {
        if (lduIndex[k] < nCells)
        {
            diagPos[lduIndex[k]] = k;
        }
    }
};

//- val[k] = ldu[lduIndex[k]]; for a symmetric upload the lower entries read upper.
struct PermuteValues
{
    int lowerStart;
    int nFaces;
    bool symmetric;
    const int* lduIndex;
    const double* ldu;
    double* val;

    GPULDU_HD void operator()(int k) const
    {
        int s = lduIndex[k];
        if (symmetric && s >= lowerStart)
        {
            s -= nFaces;
        }
        val[k] = ldu[s];
    }
};

} // namespace detail

template<class B>
struct CsrMatrix
{
    template<class T>
    using Vector = typename B::template Vector<T>;

    int nRows = 0;
    int nFaces = 0;
    Vector<int> rowStart;
    Vector<int> col;
    Vector<int> diagPos;
    //- Source of each entry in the ldu value array.
    Vector<int> lduIndex;
    //- CSR position of the transposed entry: A[col[k]][row of k] is val[transpose[k]].
    Vector<int> transpose;
    Vector<double> val;

    int nnz() const
    {
        return nRows + 2*nFaces;
    }

    //- The pattern and permutation from an LDU addressing (validated first).
    explicit CsrMatrix(const LduAddressingView& addr)
    :
        nRows(addr.nCells),
        nFaces(addr.nFaces)
    {
        checkAddressing(addr);
        const int n = nnz();

        Vector<int> lower(nFaces);
        Vector<int> upper(nFaces);
        B::upload(ptr(lower), addr.lower, nFaces);
        B::upload(ptr(upper), addr.upper, nFaces);

        Vector<std::int64_t> key(n);
        lduIndex.resize(n);
        forEach<B>(0, n, detail::LduEntryKey{nRows, nFaces, ptr(lower), ptr(upper), ptr(key), ptr(lduIndex)});
        thrust::sort_by_key(B::policy(), key.begin(), key.end(), lduIndex.begin());

        Vector<int> row(n);
        col.resize(n);
        forEach<B>(0, n, detail::SplitKey{nRows, ptr(key), ptr(row), ptr(col)});

        rowStart.resize(nRows + 1);
        thrust::lower_bound(
            B::policy(),
            row.begin(), row.end(),
            thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(nRows + 1),
            rowStart.begin()
        );

        diagPos.resize(nRows);
        forEach<B>(0, n, detail::DiagonalPosition{nRows, ptr(lduIndex), ptr(diagPos)});

        // The pattern is structurally symmetric, so A^T has the same rows and columns and
        // entry k of A^T, A[col[k]][row], is entry transpose[k] of A.
        transpose = std::move(csrTranspose<B>(nRows, nRows, rowStart, col).source);
        val.resize(n);
    }

    //- Fill val from ldu values already on the backend.
    void permute(const double* ldu, bool symmetric)
    {
        forEach<B>(0, nnz(), detail::PermuteValues{nRows + nFaces, nFaces, symmetric, ptr(lduIndex), ldu, ptr(val)});
    }
};

} // namespace gpuLdu

#endif
