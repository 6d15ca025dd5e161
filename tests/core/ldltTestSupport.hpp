// SPDX-License-Identifier: GPL-3.0-or-later
// What the LDL^T tests share (ldltTest.cpp, ldltDenseBlocksTest.cpp): the suite LdltTest; a
// symmetric matrix as its lower triangle in compressed columns, from an LDU problem, a test
// file or a saddle point; random right-hand sides; the relative residual.

#ifndef GPULDU_LDLTTESTSUPPORT_HPP
#define GPULDU_LDLTTESTSUPPORT_HPP

#include "testSupport.hpp"

#include "direct/LdltImpl.hpp"
#include "gpuLdu/matrixMarket.hpp"

#include <cmath>
#include <complex>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace gpuLdu::test
{

template<class B>
class LdltTest : public ::testing::Test {};

TYPED_TEST_SUITE(LdltTest, Backends);

//- A symmetric matrix as its lower triangle in compressed columns (diagonal first in each
//  column), real or complex (std::complex<double>: complex symmetric)
template<class T>
struct LowerOf
{
    int n = 0;
    std::vector<int> colStart{0};
    std::vector<int> rows;
    std::vector<T> values;

    SymmetricPattern pattern() const
    {
        return {n, colStart.data(), rows.data()};
    }

    //- (A x)_i
    std::vector<T> multiply(const std::vector<T>& x) const
    {
        std::vector<T> y(n, T(0));
        for (int j = 0; j < n; ++j)
        {
            for (int p = colStart[j]; p < colStart[j + 1]; ++p)
            {
                const int i = rows[p];
                y[i] += values[p]*x[j];
                if (i != j)
                {
                    y[j] += values[p]*x[i];
                }
            }
        }
        return y;
    }
};

using Lower = LowerOf<double>;
using ComplexLower = LowerOf<std::complex<double>>;

//- The lower triangle of an LDU matrix (its lower coefficients: A(upper[f], lower[f]))
template<class T>
LowerOf<T> fromLdu(int n, const std::vector<int>& l, const std::vector<int>& u, const std::vector<T>& diag,
                   const std::vector<T>& lowerCoeffs)
{
    std::vector<std::vector<std::pair<int, T>>> cols(n);
    for (int j = 0; j < n; ++j)
    {
        cols[j].push_back({j, diag[j]});
    }
    for (std::size_t f = 0; f < l.size(); ++f)
    {
        cols[l[f]].push_back({u[f], lowerCoeffs[f]});
    }
    LowerOf<T> a;
    a.n = n;
    for (const auto& c : cols)
    {
        for (auto [i, v] : c)
        {
            a.rows.push_back(i);
            a.values.push_back(v);
        }
        a.colStart.push_back(int(a.rows.size()));
    }
    return a;
}

inline Lower fromProblem(const LduProblem& p)
{
    return fromLdu(p.nCells, p.lower, p.upper, p.diag, p.symmetric() ? p.upperCoeffs : p.lowerCoeffs);
}

inline Lower fromFile(const std::string& name)
{
    const LduMatrixData m = gpuLdu::readMatrixMarket(dataFile(name));
    return fromLdu(m.nCells, m.lower, m.upper, m.diag, m.lowerCoeffs);
}

//- A symmetric indefinite saddle-point matrix [K B^T; B 0]: K a 2-D Laplacian of nx x nx cells,
//  B joins each of m constraints to two neighbouring cells (zero diagonal in the last m rows)
inline Lower saddlePoint(int nx, int m)
{
    const LduProblem k = poisson3D(nx, nx, 1, 3, -1);
    std::vector<int> l = k.lower, u = k.upper;
    std::vector<double> diag = k.diag, coeffs = k.upperCoeffs;
    for (int c = 0; c < m; ++c)
    {
        diag.push_back(0.0);
        for (int cell : {2*c, 2*c + 1})
        {
            l.push_back(cell);
            u.push_back(k.nCells + c);
            coeffs.push_back(1.0);
        }
    }
    return fromLdu(k.nCells + m, l, u, diag, coeffs);
}

//- A complex symmetric file's lower triangle (its real and imaginary parts)
inline ComplexLower fromComplexFile(const std::string& name)
{
    const LduMatrixData m = gpuLdu::readMatrixMarket(dataFile(name));
    EXPECT_TRUE(m.complexValues && m.symmetric()) << name;
    std::vector<std::complex<double>> diag(m.nCells), coeffs(m.lower.size());
    for (int c = 0; c < m.nCells; ++c)
    {
        diag[c] = {m.diag[c], m.diagImag[c]};
    }
    for (std::size_t f = 0; f < coeffs.size(); ++f)
    {
        coeffs[f] = {m.lowerCoeffs[f], m.lowerImag[f]};
    }
    return fromLdu(m.nCells, m.lower, m.upper, diag, coeffs);
}

//- The rows and columns of a that have an entry (a principal submatrix)
template<class T>
LowerOf<T> withoutEmptyRows(const LowerOf<T>& a)
{
    std::vector<int> keep(a.n, 0), index(a.n, -1);
    for (int j = 0; j < a.n; ++j)
    {
        for (int p = a.colStart[j]; p < a.colStart[j + 1]; ++p)
        {
            if (a.values[p] != T(0))
            {
                keep[j] = keep[a.rows[p]] = 1;
            }
        }
    }
    LowerOf<T> b;
    for (int j = 0; j < a.n; ++j)
    {
        if (keep[j])
        {
            index[j] = b.n++;
        }
    }
    for (int j = 0; j < a.n; ++j)
    {
        if (!keep[j])
        {
            continue;
        }
        for (int p = a.colStart[j]; p < a.colStart[j + 1]; ++p)
        {
            b.rows.push_back(index[a.rows[p]]);
            b.values.push_back(a.values[p]);
        }
        b.colStart.push_back(int(b.rows.size()));
    }
    return b;
}

inline std::vector<double> randomRhs(int n, unsigned seed)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> d(-1, 1);
    std::vector<double> b(n);
    for (double& v : b)
    {
        v = d(gen);
    }
    return b;
}

inline std::vector<std::complex<double>> randomComplex(int n, unsigned seed)
{
    const std::vector<double> re = randomRhs(n, seed), im = randomRhs(n, seed + 1);
    std::vector<std::complex<double>> v(n);
    for (int i = 0; i < n; ++i)
    {
        v[i] = {re[i], im[i]};
    }
    return v;
}

template<class T>
double relativeResidual(const LowerOf<T>& a, const std::vector<T>& x, const std::vector<T>& b)
{
    const std::vector<T> ax = a.multiply(x);
    double r = 0, nb = 0;
    for (int i = 0; i < a.n; ++i)
    {
        r += std::norm(b[i] - ax[i]);
        nb += std::norm(b[i]);
    }
    return std::sqrt(r/nb);
}

} // namespace gpuLdu::test

#endif
