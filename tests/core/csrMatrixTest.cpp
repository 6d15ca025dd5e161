// SPDX-License-Identifier: GPL-3.0-or-later
// LDU -> CSR: the pattern, the permutation of values, the transpose index, input validation.

#include "testSupport.hpp"

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
    sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.symmetric() ? nullptr : p.lowerCoeffs.data());
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

TYPED_TEST(CsrMatrixTest, RejectsInvalidAddressing)
{
    const int n = 4;
    const std::vector<std::pair<std::vector<int>, std::vector<int>>> bad = {
        {{1}, {0}},          // lower > upper
        {{2}, {2}},          // diagonal face
        {{0}, {4}},          // out of range
        {{1, 0}, {2, 3}},    // not upper-triangular order
        {{0, 0}, {2, 2}},    // repeated face
    };
    for (const auto& [l, u] : bad)
    {
        const LduAddressingView a{n, int(l.size()), l.data(), u.data()};
        EXPECT_THROW(LduSystemImpl<TypeParam>{a}, Error);
    }
}

} // namespace gpuLdu::test
