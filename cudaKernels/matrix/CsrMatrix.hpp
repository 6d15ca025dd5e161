// SPDX-License-Identifier: GPL-3.0-or-later
// CSR storage of an LDU matrix. The pattern and the LDU->CSR permutation are built once per
// addressing (on the backend, by a sort); each solve only permutes the uploaded values.
//
// The LDU values travel as one array  ldu = [ diag (nCells) | upper (nFaces) | lower (nFaces) ];
// lduIndex[k] says where CSR entry k comes from. Row i holds its lower neighbours (entries
// lower[f] of faces with upper(f) = i) by ascending column, the diagonal, its upper neighbours
// in face order (by ascending column too where the faces are upper-triangular, as on a mesh).

#ifndef GPULDU_CSRMATRIX_HPP
#define GPULDU_CSRMATRIX_HPP

#include "matrix/CsrTranspose.hpp"

#include <thrust/scatter.h>
#include <thrust/sort.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>
#include <string>

namespace gpuLdu
{

namespace detail
{

//- Whether face f breaks a rule of the addressing that it and the face before it show: 0 <=
//  lower < upper < nCells, faces sorted by their lower cell (OpenFOAM's owner order)
struct FaceOutOfOrder
{
    int nCells;
    const int* lower;
    const int* upper;

    GPULDU_HD bool operator()(int f) const
    {
        const int l = lower[f];
        const int u = upper[f];
        return l < 0 || u >= nCells || l >= u || (f > 0 && l < lower[f - 1]);
    }
};

//- Whether face f, after a face of the same lower cell, has an upper cell not above that
//  face's: the faces are then not in upper-triangular order
struct ColumnsNotAscending
{
    const int* lower;
    const int* upper;

    GPULDU_HD bool operator()(int f) const
    {
        return f > 0 && lower[f] == lower[f - 1] && upper[f] <= upper[f - 1];
    }
};

//- At sorted entry k: where it and the entry before are lower entries of equal keys, the two
//  faces join the same pair of cells, and this is the later of them; otherwise nFaces
struct RepeatedFace
{
    int lowerStart;
    int nFaces;
    const std::int64_t* key;
    const int* source;

    GPULDU_HD int operator()(int k) const
    {
        if (k == 0 || key[k] != key[k - 1] || source[k] < lowerStart || source[k - 1] < lowerStart)
        {
            return nFaces;
        }
        return (source[k] > source[k - 1] ? source[k] : source[k - 1]) - lowerStart;
    }
};

//- Entry p of A, or of A^T (through the transpose index, CsrMatrix::transpose).
template<bool Transposed>
GPULDU_HD inline double entry(const double* val, const int* transpose, int p)
{
    return Transposed ? val[transpose[p]] : val[p];
}

//- Where each LDU entry goes in CSR, as one sortable 64-bit key, and its source index: row
//  first, then the slot in the row: a lower entry (a face with upper(f) = row) its column, the
//  diagonal the row, an upper entry (lower(f) = row) nCells + f. So a row holds its lower
//  entries by ascending column, the diagonal, its upper entries in face order: OpenFOAM's order
//  of a row's terms in every face loop (ascending column where the faces are upper-triangular).
struct LduEntryKey
{
    int nCells;
    int nFaces;
    const int* lower;
    const int* upper;
    std::int64_t* key;
    int* source;
    int* col;

    GPULDU_HD void operator()(int e) const
    {
        std::int64_t row;
        std::int64_t slot;
        if (e < nCells)
        {
            row = e;
            slot = e;
            col[e] = e;
        }
        else if (e < nCells + nFaces)
        {
            const int f = e - nCells;
            row = lower[f];
            slot = nCells + f;
            col[e] = upper[f];
        }
        else
        {
            const int f = e - nCells - nFaces;
            row = upper[f];
            slot = lower[f];
            col[e] = lower[f];
        }
        key[e] = row*(std::int64_t(nCells) + nFaces) + slot;
        source[e] = e;
    }
};

//- The row of each sorted key
struct RowOfKey
{
    std::int64_t rowLength;
    const std::int64_t* key;
    int* row;

    GPULDU_HD void operator()(int k) const
    {
        row[k] = int(key[k]/rowLength);
    }
};

//- The CSR position of each LDU entry (the inverse of lduIndex)
struct PositionOfEntry
{
    const int* lduIndex;
    int* position;

    GPULDU_HD void operator()(int k) const
    {
        position[lduIndex[k]] = k;
    }
};

//- The position of the transposed entry: the diagonal is its own, face f's upper entry
//  (lower(f), upper(f)) and its lower entry (upper(f), lower(f)) are each other's
struct TransposedPosition
{
    int nCells;
    int nFaces;
    const int* lduIndex;
    const int* position;
    int* transpose;

    GPULDU_HD void operator()(int k) const
    {
        const int e = lduIndex[k];
        const int partner = e < nCells ? e : (e < nCells + nFaces ? e + nFaces : e - nFaces);
        transpose[k] = position[partner];
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

//- A level's faces, (lower, upper) cells, on the backend: uploaded once for all that build from
//  them (the level's CSR pattern, the coarsening steps to and from the level)
template<class B>
struct FacesOnBackend
{
    typename B::template Vector<int> lower;
    typename B::template Vector<int> upper;

    explicit FacesOnBackend(const LduAddressingView& addr)
    {
        if (addr.nCells < 0 || addr.nFaces < 0 || (addr.nFaces > 0 && (!addr.lower || !addr.upper)))
        {
            throw Error("gpuLdu: invalid LDU addressing sizes");
        }
        lower.resize(addr.nFaces);
        upper.resize(addr.nFaces);
        B::upload(ptr(lower), addr.lower, addr.nFaces);
        B::upload(ptr(upper), addr.upper, addr.nFaces);
    }
};

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
    //- Whether each row's columns ascend (upper-triangular faces: checkAddressing)
    bool columnsAscending = true;
    Vector<double> val;

    int nnz() const
    {
        return nRows + 2*nFaces;
    }

    //- The pattern and permutation from an LDU addressing, validated as they are built
    //  (checkAddressing)
    explicit CsrMatrix(const LduAddressingView& addr)
    :
        CsrMatrix(addr, FacesOnBackend<B>(addr))
    {}

    //- The same, from the faces already on the backend
    CsrMatrix(const LduAddressingView& addr, const FacesOnBackend<B>& faces)
    :
        nRows(addr.nCells),
        nFaces(addr.nFaces)
    {
        const int n = nnz();
        const Vector<int>& lower = faces.lower;
        const Vector<int>& upper = faces.upper;

        Vector<std::int64_t> key(n);
        Vector<int> colOfEntry(n);
        lduIndex.resize(n);
        forEach<B>(0, n, detail::LduEntryKey{nRows, nFaces, ptr(lower), ptr(upper), ptr(key), ptr(lduIndex), ptr(colOfEntry)});
        thrust::sort_by_key(B::policy(), key.begin(), key.end(), lduIndex.begin());
        checkAddressing(lower, upper, key);

        Vector<int> row(n);
        forEach<B>(0, n, detail::RowOfKey{std::int64_t(nRows) + nFaces, ptr(key), ptr(row)});
        col.resize(n);
        forEach<B>(0, n, detail::Gather<int>{ptr(lduIndex), ptr(colOfEntry), ptr(col)});

        groupStarts<B>(row, nRows, rowStart);

        diagPos.resize(nRows);
        forEach<B>(0, n, detail::DiagonalPosition{nRows, ptr(lduIndex), ptr(diagPos)});

        // A^T has A's pattern (structurally symmetric), and entry k of A^T, A[col[k]][row], is
        // the partner of entry k's LDU value
        Vector<int>& position = row;
        forEach<B>(0, n, detail::PositionOfEntry{ptr(lduIndex), ptr(position)});
        transpose.resize(n);
        forEach<B>(0, n, detail::TransposedPosition{nRows, nFaces, ptr(lduIndex), ptr(position), ptr(transpose)});
        val.resize(n);
    }

    //- The cells of face f, (lower, upper): the row and the column of its upper entry (a
    //  search, for the messages that name a face's cells)
    std::pair<int, int> faceCells(int f) const
    {
        const int k = int(thrust::find(B::policy(), lduIndex.begin(), lduIndex.end(), nRows + f) - lduIndex.begin());
        const int row = int(thrust::upper_bound(B::policy(), rowStart.begin(), rowStart.end(), k) - rowStart.begin()) - 1;
        int upperCell = -1;
        B::download(&upperCell, ptr(col) + k, 1);
        return {row, upperCell};
    }

    //- Fill val from ldu values already on the backend.
    void permute(const double* ldu, bool symmetric)
    {
        forEach<B>(0, nnz(), detail::PermuteValues{nRows + nFaces, nFaces, symmetric, ptr(lduIndex), ldu, ptr(val)});
    }

private:
    //- Validates what the level schedules and the DIC/DILU equivalence rely on, from the faces
    //  (lower, upper) and their entries' keys sorted with lduIndex: 0 <= lower < upper <
    //  nCells, faces sorted by their lower cell (OpenFOAM's owner order), no cell pair twice
    //  (two lower entries of one key). An error names the first face, in face order, that
    //  breaks a rule (the checks in the order written where one face breaks several). A mesh's
    //  faces are also sorted by upper within a lower cell (upper-triangular order); the coarse
    //  levels of OpenFOAM's GAMG agglomeration are not (a coarse cell's faces in the order they
    //  were found): columnsAscending says whether they are (what ILU0 needs).
    void checkAddressing(const Vector<int>& lower, const Vector<int>& upper, const Vector<std::int64_t>& key)
    {
        const int outOfOrder = firstWhere<B>(nFaces, detail::FaceOutOfOrder{nRows, ptr(lower), ptr(upper)});
        const int repeated = leastOf<B>(nnz(), detail::RepeatedFace{nRows + nFaces, nFaces, ptr(key), ptr(lduIndex)}, nFaces);
        const int f = std::min(outOfOrder, repeated);
        if (f < nFaces)
        {
            int l = 0;
            int u = 0;
            B::download(&l, ptr(lower) + f, 1);
            B::download(&u, ptr(upper) + f, 1);
            if (f == repeated && f != outOfOrder)
            {
                throw Error("gpuLdu: cells " + std::to_string(l) + " and " + std::to_string(u)
                            + " share more than one face (face " + std::to_string(f) + ")");
            }
            if (l < 0 || u >= nRows || l >= u)
            {
                throw Error(
                    "gpuLdu: face " + std::to_string(f) + " has lower " + std::to_string(l)
                  + " and upper " + std::to_string(u) + " (need 0 <= lower < upper < nCells = "
                  + std::to_string(nRows) + ")"
                );
            }
            throw Error(
                "gpuLdu: faces are not sorted by their lower cell at face " + std::to_string(f)
              + "; OpenFOAM's DIC/DILU and Gauss-Seidel order is defined only for that order"
            );
        }
        columnsAscending = firstWhere<B>(nFaces, detail::ColumnsNotAscending{ptr(lower), ptr(upper)}) == nFaces;
    }
};

} // namespace gpuLdu

#endif
