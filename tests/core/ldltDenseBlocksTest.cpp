// SPDX-License-Identifier: GPL-3.0-or-later
// The LDL^T factor's dense blocks on the backend (cuBLAS on the GPU, BLAS on the host) against
// plain loops: the product C -= A B^T in full and lower-only, y -= A x and A^T x, x = L^-1 x and
// L^-T x, and X = X L^-T. Column-major blocks of leading dimension ld; each step one function.

#include "ldltTestSupport.hpp"

#include <random>
#include <vector>

namespace gpuLdu::test
{

//- The blocks every step reads: A and B (m x k, in ld x k), C (m x n, in ld x n), random in
//  [-1, 1) from one generator in a fixed order (the same numbers in every run)
struct DenseBlocks
{
    const int m = 150, n = 150, k = 37, ld = 160;
    std::mt19937 gen{3};
    std::uniform_real_distribution<double> u{-1, 1};
    std::vector<double> a, b, c;

    DenseBlocks()
    :
        a(std::size_t(ld)*k),
        b(std::size_t(ld)*k),
        c(std::size_t(ld)*n)
    {
        for (double* v : {a.data(), b.data()})
        {
            for (int q = 0; q < ld*k; ++q)
            {
                v[q] = u(gen);
            }
        }
        for (double& v : c)
        {
            v = u(gen);
        }
    }

    //- count values of the generator, in order
    std::vector<double> random(int count)
    {
        std::vector<double> v(count);
        for (double& x : v) x = u(gen);
        return v;
    }

    //- a(i, j) of a block of leading dimension ld
    static double at(const std::vector<double>& block, int ld, int i, int j)
    {
        return block[std::size_t(j)*ld + i];
    }
};

//- C -= A B^T, lowerOnly: the upper triangle left exactly as it was (the update matrices' arena
//  relies on it), as the rows beyond m
template<class B>
void expectProductNT(const DenseBlocks& d, bool lowerOnly)
{
    const typename B::template Vector<double> da(d.a.begin(), d.a.end()), db(d.b.begin(), d.b.end());
    typename B::template Vector<double> dc(d.c.begin(), d.c.end());
    B::subtractProductNT(d.m, d.n, d.k, ptr(da), d.ld, ptr(db), d.ld, ptr(dc), d.ld, lowerOnly);
    std::vector<double> mine(d.c.size());
    B::download(mine.data(), ptr(dc), mine.size());
    for (int j = 0; j < d.n; ++j)
    {
        for (int i = 0; i < d.ld; ++i)
        {
            const std::size_t at = std::size_t(j)*d.ld + i;
            if (i >= d.m || (lowerOnly && i < j))
            {
                ASSERT_EQ(mine[at], d.c[at]) << "(" << i << ", " << j << ") changed";
                continue;
            }
            double want = d.c[at];
            for (int q = 0; q < d.k; ++q)
            {
                want -= DenseBlocks::at(d.a, d.ld, i, q)*DenseBlocks::at(d.b, d.ld, j, q);
            }
            ASSERT_NEAR(mine[at], want, 1e-12) << "(" << i << ", " << j << ")";
        }
    }
}

//- y -= A x (transposed: y -= A^T x), x and y random
template<class B>
void expectMatrixVector(DenseBlocks& d, bool transposed)
{
    const int rows = transposed ? d.k : d.m, inner = transposed ? d.m : d.k;
    const std::vector<double> x = d.random(inner), y = d.random(rows);
    const typename B::template Vector<double> da(d.a.begin(), d.a.end()), dx(x.begin(), x.end());
    typename B::template Vector<double> dy(y.begin(), y.end());
    B::subtractMatrixVector(d.m, d.k, ptr(da), d.ld, ptr(dx), ptr(dy), transposed);
    std::vector<double> mine(rows);
    B::download(mine.data(), ptr(dy), rows);
    for (int i = 0; i < rows; ++i)
    {
        double want = y[i];
        for (int q = 0; q < inner; ++q)
        {
            want -= (transposed ? DenseBlocks::at(d.a, d.ld, q, i) : DenseBlocks::at(d.a, d.ld, i, q))*x[q];
        }
        ASSERT_NEAR(mine[i], want, 1e-12) << (transposed ? "A^T x" : "A x") << " row " << i;
    }
}

//- L, k x k unit lower in ld x k: the diagonal and upper part garbage (1e3), never read
inline std::vector<double> unitLower(DenseBlocks& d)
{
    std::vector<double> l(std::size_t(d.ld)*d.k);
    for (int j = 0; j < d.k; ++j)
    {
        for (int i = 0; i < d.ld; ++i)
        {
            l[std::size_t(j)*d.ld + i] = i > j ? 0.3*d.u(d.gen) : 1e3;
        }
    }
    return l;
}

//- X (m x k, A's values) = X L^-T: X L^T gives back A
template<class B>
void expectRightSolve(const DenseBlocks& d, const std::vector<double>& l)
{
    const typename B::template Vector<double> dl(l.begin(), l.end());
    typename B::template Vector<double> dx(d.a.begin(), d.a.end());
    B::solveUnitLowerTransposedRight(d.m, d.k, ptr(dl), d.ld, ptr(dx), d.ld);
    std::vector<double> x(d.a.size());
    B::download(x.data(), ptr(dx), x.size());
    for (int i = 0; i < d.m; ++i)
    {
        for (int j = 0; j < d.k; ++j)
        {
            double sum = DenseBlocks::at(x, d.ld, i, j);
            for (int q = 0; q < j; ++q)
            {
                sum += DenseBlocks::at(x, d.ld, i, q)*DenseBlocks::at(l, d.ld, j, q);
            }
            ASSERT_NEAR(sum, DenseBlocks::at(d.a, d.ld, i, j), 1e-12) << "(" << i << ", " << j << ")";
        }
    }
}

//- x = L^-1 x (transposed: L^-T x), x random: L x (L^T x) gives back the right-hand side
template<class B>
void expectVectorSolve(DenseBlocks& d, const std::vector<double>& l, bool transposed)
{
    const std::vector<double> rhs = d.random(d.k);
    const typename B::template Vector<double> dl(l.begin(), l.end());
    typename B::template Vector<double> dv(rhs.begin(), rhs.end());
    B::solveUnitLowerVector(d.k, ptr(dl), d.ld, ptr(dv), transposed);
    std::vector<double> v(d.k);
    B::download(v.data(), ptr(dv), d.k);
    for (int i = 0; i < d.k; ++i)
    {
        double sum = v[i];
        for (int q = 0; q < d.k; ++q)
        {
            if (transposed ? q > i : q < i)
            {
                sum += (transposed ? DenseBlocks::at(l, d.ld, q, i) : DenseBlocks::at(l, d.ld, i, q))*v[q];
            }
        }
        ASSERT_NEAR(sum, rhs[i], 1e-12) << (transposed ? "L^T" : "L") << " row " << i;
    }
}

//- The backend's dense blocks (cuBLAS on the GPU, BLAS on the host) against plain loops: the
//  product C -= A B^T in full and lower-only (the upper triangle left exactly as it was: the update
//  matrices' arena relies on it), y -= A x and A^T x, x = L^-1 x and L^-T x, and X = X L^-T
TYPED_TEST(LdltTest, DenseBlocksAreTheReference)
{
    using B = TypeParam;
    DenseBlocks d;
    for (bool lowerOnly : {false, true})
    {
        ASSERT_NO_FATAL_FAILURE(expectProductNT<B>(d, lowerOnly)) << "lower only " << lowerOnly;
    }
    for (bool transposed : {false, true})
    {
        ASSERT_NO_FATAL_FAILURE(expectMatrixVector<B>(d, transposed));
    }
    const std::vector<double> l = unitLower(d);
    ASSERT_NO_FATAL_FAILURE(expectRightSolve<B>(d, l));
    for (bool transposed : {false, true})
    {
        ASSERT_NO_FATAL_FAILURE(expectVectorSolve<B>(d, l, transposed));
    }
}

} // namespace gpuLdu::test
