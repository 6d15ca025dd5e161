// SPDX-License-Identifier: GPL-3.0-or-later
// LDU -> CSR: the pattern, the permutation of values, the transpose index, input validation.

#include "testSupport.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <utility>

namespace gpuLdu::test
{

template<class B>
class CsrMatrixTest : public ::testing::Test {};
TYPED_TEST_SUITE(CsrMatrixTest, Backends);

//- Dense matrix of an LDU problem, and of a CSR matrix.
std::vector<std::vector<double>> denseOf(const LduProblem& p)
{
    std::vector<std::vector<double>> a(p.nCells, std::vector<double>(p.nCells, 0.0));
    for (int i = 0; i < p.nCells; ++i)
    {
        a[i][i] = p.diag[i];
    }
    for (int f = 0; f < p.nFaces(); ++f)
    {
        a[p.lower[f]][p.upper[f]] = p.upperCoeffs[f];
        a[p.upper[f]][p.lower[f]] = p.lowerOrUpper()[f];
    }
    return a;
}

template<class B>
void checkAgainstDense(const LduProblem& p)
{
    LduSystemImpl<B> sys(p.addressing());
    sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
    const auto& A = sys.matrix();
    thrust::host_vector<int> rowStart(A.rowStart);
    thrust::host_vector<int> col(A.col);
    thrust::host_vector<int> diagPos(A.diagPos);
    thrust::host_vector<int> transpose(A.transpose);
    const std::vector<double> val = toHost(A.val);
    const auto dense = denseOf(p);

    ASSERT_EQ(int(rowStart.size()), p.nCells + 1);
    EXPECT_EQ(rowStart[0], 0);
    EXPECT_EQ(rowStart[p.nCells], p.nCells + 2*p.nFaces());
    for (int i = 0; i < p.nCells; ++i)
    {
        EXPECT_EQ(col[diagPos[i]], i);
        for (int k = rowStart[i]; k < rowStart[i + 1]; ++k)
        {
            if (k > rowStart[i])
            {
                EXPECT_LT(col[k - 1], col[k]) << "row " << i;
            }
            EXPECT_EQ(val[k], dense[i][col[k]]) << "row " << i << " col " << col[k];
            // the transpose entry sits in row col[k] at column i
            const int t = transpose[k];
            EXPECT_EQ(col[t], i);
            EXPECT_TRUE(rowStart[col[k]] <= t && t < rowStart[col[k] + 1]);
        }
    }
}

TYPED_TEST(CsrMatrixTest, SymmetricPoissonMatchesDense)
{
    checkAgainstDense<TypeParam>(poisson3D(5, 4, 3, 1));
}

TYPED_TEST(CsrMatrixTest, AsymmetricMatrixMatchesDense)
{
    LduProblem p = poisson3D(6, 5, 4, 2);
    p.lowerCoeffs = randomVector(p.nFaces(), 3);
    checkAgainstDense<TypeParam>(p);
}

TYPED_TEST(CsrMatrixTest, MatrixMarketMatrixMatchesDense)
{
    checkAgainstDense<TypeParam>(readMatrixMarket(dataFile("nos4.mtx.gz")));
}

TYPED_TEST(CsrMatrixTest, EmptyRowsAndNoFaces)
{
    LduProblem p;
    p.nCells = 3;
    p.diag = {1, 2, 3};
    checkAgainstDense<TypeParam>(p);
}

//- A level's faces on the backend are its addressing, whatever their length, and the CSR
//  pattern built from them is the one built from the host's addressing
TYPED_TEST(CsrMatrixTest, FacesOnTheBackendAreTheAddressing)
{
    using B = TypeParam;
    for (const int nFaces : {0, 1000, 1000003})
    {
        std::vector<int> lower(nFaces);
        std::vector<int> upper(nFaces);
        for (int f = 0; f < nFaces; ++f)
        {
            lower[f] = f/3;
            upper[f] = f/3 + 1 + f%3;
        }
        const LduAddressingView addr{nFaces/3 + 3, nFaces, lower.data(), upper.data()};
        const FacesOnBackend<B> faces(addr);
        const thrust::host_vector<int> l(faces.lower);
        const thrust::host_vector<int> u(faces.upper);
        EXPECT_TRUE(std::equal(lower.begin(), lower.end(), l.begin()) && l.size() == lower.size()) << nFaces;
        EXPECT_TRUE(std::equal(upper.begin(), upper.end(), u.begin()) && u.size() == upper.size()) << nFaces;
        if (nFaces <= 1000)
        {
            const CsrMatrix<B> fromHost(addr);
            const CsrMatrix<B> fromFaces(addr, faces);
            EXPECT_TRUE(thrust::host_vector<int>(fromHost.col) == thrust::host_vector<int>(fromFaces.col));
            EXPECT_TRUE(thrust::host_vector<int>(fromHost.lduIndex) == thrust::host_vector<int>(fromFaces.lduIndex));
        }
    }
}

//- The sort-based transpose of a general (rectangular, unsymmetric) pattern against the
//  definition: entry (i, j) of A is entry (j, i) of A^T, rows of A^T by ascending column.
TYPED_TEST(CsrMatrixTest, TransposeOfAGeneralPattern)
{
    const int nRows = 300;
    const int nCols = 217;
    std::mt19937 gen(12);
    std::vector<int> rowStart{0};
    std::vector<int> col;
    for (int i = 0; i < nRows; ++i)
    {
        // rows of 0 to 9 entries, one row long; columns ascending
        const int len = i == 77 ? nCols : int(gen() % 10);
        std::vector<int> cols(nCols);
        std::iota(cols.begin(), cols.end(), 0);
        std::shuffle(cols.begin(), cols.end(), gen);
        cols.resize(len);
        std::sort(cols.begin(), cols.end());
        col.insert(col.end(), cols.begin(), cols.end());
        rowStart.push_back(int(col.size()));
    }
    typename TypeParam::template Vector<int> dRowStart(rowStart.begin(), rowStart.end());
    typename TypeParam::template Vector<int> dCol(col.begin(), col.end());
    const CsrTranspose<TypeParam> t = csrTranspose<TypeParam>(nRows, nCols, dRowStart, dCol);
    thrust::host_vector<int> tRowStart(t.rowStart);
    thrust::host_vector<int> tCol(t.col);
    thrust::host_vector<int> source(t.source);

    // sequential reference: count per column, then fill rows in order
    std::vector<int> refStart(nCols + 1, 0);
    for (int c : col)
    {
        ++refStart[c + 1];
    }
    std::partial_sum(refStart.begin(), refStart.end(), refStart.begin());
    std::vector<int> next(refStart.begin(), refStart.end() - 1);
    std::vector<int> refCol(col.size());
    std::vector<int> refSource(col.size());
    for (int i = 0; i < nRows; ++i)
    {
        for (int k = rowStart[i]; k < rowStart[i + 1]; ++k)
        {
            refCol[next[col[k]]] = i;
            refSource[next[col[k]]++] = k;
        }
    }
    EXPECT_EQ(std::vector<int>(tRowStart.begin(), tRowStart.end()), refStart);
    EXPECT_EQ(std::vector<int>(tCol.begin(), tCol.end()), refCol);
    EXPECT_EQ(std::vector<int>(source.begin(), source.end()), refSource);
}

TYPED_TEST(CsrMatrixTest, RejectsInvalidAddressing)
{
    // each addressing and what its error says: the first face, in face order, that breaks a
    // rule, and the rule (range first, then the order by lower cell, then a repeated cell pair)
    const int n = 5;
    struct Bad
    {
        std::vector<int> lower;
        std::vector<int> upper;
        std::string says;
    };
    const std::vector<Bad> bad = {
        {{1}, {0}, "face 0 has lower 1 and upper 0"},
        {{2}, {2}, "face 0 has lower 2 and upper 2"},
        {{0}, {5}, "face 0 has lower 0 and upper 5 (need 0 <= lower < upper < nCells = 5)"},
        {{-1}, {2}, "face 0 has lower -1 and upper 2"},
        {{1, 0}, {2, 3}, "not sorted by their lower cell at face 1"},
        {{0, 0}, {2, 2}, "cells 0 and 2 share more than one face (face 1)"},
        // not upper-triangular, the pair repeated after another face of its lower cell
        {{0, 0, 0, 1}, {3, 1, 3, 2}, "cells 0 and 3 share more than one face (face 2)"},
        // a repeat before a face out of range, and after it
        {{0, 0, 1, 1}, {1, 1, 2, 7}, "cells 0 and 1 share more than one face (face 1)"},
        {{0, 1, 1, 1}, {7, 2, 3, 2}, "face 0 has lower 0 and upper 7"},
        // a face out of order that also repeats an earlier pair: the order named
        {{1, 0, 0}, {2, 4, 4}, "not sorted by their lower cell at face 1"},
        {{0, 1, 0}, {4, 2, 4}, "not sorted by their lower cell at face 2"},
    };
    for (const Bad& b : bad)
    {
        const LduAddressingView a{n, int(b.lower.size()), b.lower.data(), b.upper.data()};
        try
        {
            LduSystemImpl<TypeParam> sys(a);
            ADD_FAILURE() << "no error for the error: " << b.says;
        }
        catch (const Error& e)
        {
            EXPECT_NE(std::string(e.what()).find(b.says), std::string::npos) << e.what();
        }
    }
}

TYPED_TEST(CsrMatrixTest, NamesTheCellsOfAFace)
{
    const LduProblem p = poisson3D(4, 3, 2, 1);
    CsrMatrix<TypeParam> A(p.addressing());
    EXPECT_TRUE(A.columnsAscending);
    for (int f = 0; f < p.nFaces(); ++f)
    {
        EXPECT_EQ(A.faceCells(f), std::make_pair(p.lower[f], p.upper[f])) << "face " << f;
    }

    // faces of one lower cell in descending upper order: not ascending
    const std::vector<int> lower{0, 0, 1};
    const std::vector<int> upper{2, 1, 2};
    const CsrMatrix<TypeParam> descending(LduAddressingView{3, 3, lower.data(), upper.data()});
    EXPECT_FALSE(descending.columnsAscending);
    EXPECT_EQ(descending.faceCells(1), std::make_pair(0, 1));
}

} // namespace gpuLdu::test
