// SPDX-License-Identifier: GPL-3.0-or-later
// The sequential references: OpenFOAM v1912's own face loops for Amul, normFactor and its
// preconditioners (src/OpenFOAM/matrices/lduMatrix/lduMatrix/lduMatrixATmul.C,
// lduMatrixSolver.C, preconditioners/DICPreconditioner/DICPreconditioner.C, ...), written out
// plainly; the Krylov loops on them are referenceKrylov.hpp's.

#ifndef GPULDU_TESTSUPPORT_HPP
#define GPULDU_TESTSUPPORT_HPP

#include "problems.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace gpuLdu::test
{

#ifdef __CUDACC__
using Backends = ::testing::Types<CpuBackend, GpuBackend>;
#else
using Backends = ::testing::Types<CpuBackend>;
#endif

//- OpenFOAM's Amul (face loop), interfaces as updateMatrixInterfaces applies them.
inline std::vector<double> referenceAmul(const LduProblem& p, const std::vector<double>& x)
{
    std::vector<double> y(p.nCells);
    const auto& lo = p.lowerOrUpper();
    for (int c = 0; c < p.nCells; ++c)
    {
        y[c] = p.diag[c]*x[c];
    }
    for (int f = 0; f < p.nFaces(); ++f)
    {
        y[p.upper[f]] += lo[f]*x[p.lower[f]];
        y[p.lower[f]] += p.upperCoeffs[f]*x[p.upper[f]];
    }
    for (std::size_t k = 0; k < p.ifCell.size(); ++k)
    {
        y[p.ifCell[k]] -= p.ifCoeff[k]*x[p.ifNbr[k]];
    }
    return y;
}

//- OpenFOAM's Tmul (face loop): upper and lower swapped; the test problems' interface
//  couplings are symmetric, so A^T has the same ones.
inline std::vector<double> referenceTmul(const LduProblem& p, const std::vector<double>& x)
{
    LduProblem t(p);
    t.upperCoeffs = p.lowerOrUpper();
    t.lowerCoeffs = p.upperCoeffs;
    return referenceAmul(t, x);
}

//- The interface terms of a test problem as DeviceCouplings: rows ascending, each row's terms
//  in the problem's order (as ProblemCoupling applies them); their coefficients in coeffs
inline DeviceCouplings deviceCouplings(const LduProblem& p, std::vector<double>& coeffs)
{
    std::map<int, std::vector<std::size_t>> termsOf;
    for (std::size_t k = 0; k < p.ifCell.size(); ++k)
    {
        termsOf[p.ifCell[k]].push_back(k);
    }
    DeviceCouplings c;
    coeffs.clear();
    for (const auto& [row, terms] : termsOf)
    {
        c.rows.push_back(row);
        for (const std::size_t k : terms)
        {
            c.cols.push_back(p.ifNbr[k]);
            coeffs.push_back(p.ifCoeff[k]);
        }
        c.start.push_back(int(c.cols.size()));
    }
    return c;
}

//- A system takes a test problem whole: its interface terms as the system's device couplings
//  (where it has any: deviceCouplings, the coefficients of A and A^T the same), then its matrix
inline void setCoupledProblem(LduSystem& s, const LduProblem& p)
{
    if (!p.ifCell.empty())
    {
        std::vector<double> coeffs;
        s.setDeviceCouplings(deviceCouplings(p, coeffs));
        s.setDeviceCouplingCoeffs(coeffs.data(), coeffs.data());
    }
    s.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
}

//- The data pointers of arrays, one per level (GamgHierarchy::setDeviceCouplingCoeffs)
inline std::vector<const double*> dataOf(const std::vector<std::vector<double>>& arrays)
{
    std::vector<const double*> data;
    for (const std::vector<double>& a : arrays)
    {
        data.push_back(a.data());
    }
    return data;
}

//- OpenFOAM's preconditioners as written in its sources (face loops, losort order), and a
//  plain sequential ILU(0) on rows held as maps (column -> value).
class ReferencePreconditioner
{
    const LduProblem& p_;
    Preconditioner type_;
    std::vector<double> rD_;
    std::vector<std::map<int, double>> lu_;

public:
    ReferencePreconditioner(const LduProblem& p, Preconditioner type)
    :
        p_(p),
        type_(type),
        rD_(p.diag)
    {
        const auto& lo = p.lowerOrUpper();
        if (type == Preconditioner::named("DIC") || type == Preconditioner::named("DILU"))
        {
            for (int f = 0; f < p.nFaces(); ++f)
            {
                rD_[p.upper[f]] -= p.upperCoeffs[f]*lo[f]/rD_[p.lower[f]];
            }
        }
        for (double& d : rD_)
        {
            d = 1.0/d;
        }
        if (type == Preconditioner::named("ILU0"))
        {
            lu_.resize(p.nCells);
            for (int c = 0; c < p.nCells; ++c)
            {
                lu_[c][c] = p.diag[c];
            }
            for (int f = 0; f < p.nFaces(); ++f)
            {
                lu_[p.lower[f]][p.upper[f]] = p.upperCoeffs[f];
                lu_[p.upper[f]][p.lower[f]] = lo[f];
            }
            for (int i = 0; i < p.nCells; ++i)
            {
                auto& row = lu_[i];
                for (auto k = row.begin(); k != row.end() && k->first < i; ++k)
                {
                    k->second /= lu_[k->first].at(k->first);
                    for (auto j = std::next(k); j != row.end(); ++j)
                    {
                        const auto kj = lu_[k->first].find(j->first);
                        if (kj != lu_[k->first].end())
                        {
                            j->second -= k->second*kj->second;
                        }
                    }
                }
            }
        }
    }

    const std::vector<double>& rD() const
    {
        return rD_;
    }

    //- The ILU0 factors in the order of the CSR entries (rows, columns ascending)
    std::vector<double> luValues() const
    {
        std::vector<double> v;
        for (const auto& row : lu_)
        {
            for (const auto& [j, a] : row)
            {
                v.push_back(a);
            }
        }
        return v;
    }

    //- precondition (transposed = false) or preconditionT (true)
    std::vector<double> apply(const std::vector<double>& r, bool transposed = false) const
    {
        const LduProblem& p = p_;
        std::vector<double> w(r);
        if (type_ == Preconditioner::none)
        {
            return w;
        }
        if (type_ == Preconditioner::named("ILU0"))
        {
            return transposed ? iluT(r) : ilu(r);
        }
        for (int c = 0; c < p.nCells; ++c)
        {
            w[c] = rD_[c]*r[c];
        }
        if (type_ == Preconditioner::named("diagonal"))
        {
            return w;
        }
        // DIC/DILU: lower = upper for DIC. preconditionT swaps their roles.
        const auto& lo = transposed ? p.upperCoeffs : p.lowerOrUpper();
        const auto& up = transposed ? p.lowerOrUpper() : p.upperCoeffs;
        std::vector<int> losort(p.nFaces());
        std::iota(losort.begin(), losort.end(), 0);
        std::stable_sort(losort.begin(), losort.end(), [&](int a, int b) { return p.upper[a] < p.upper[b]; });
        if (!transposed)
        {
            for (int s : losort)
            {
                w[p.upper[s]] -= rD_[p.upper[s]]*lo[s]*w[p.lower[s]];
            }
            for (int f = p.nFaces() - 1; f >= 0; --f)
            {
                w[p.lower[f]] -= rD_[p.lower[f]]*up[f]*w[p.upper[f]];
            }
        }
        else
        {
            for (int f = 0; f < p.nFaces(); ++f)
            {
                w[p.upper[f]] -= rD_[p.upper[f]]*lo[f]*w[p.lower[f]];
            }
            for (auto s = losort.rbegin(); s != losort.rend(); ++s)
            {
                w[p.lower[*s]] -= rD_[p.lower[*s]]*up[*s]*w[p.upper[*s]];
            }
        }
        return w;
    }

private:
    //- (LU)^-1 r: L y = r (unit lower), U x = y
    std::vector<double> ilu(const std::vector<double>& r) const
    {
        const int n = p_.nCells;
        std::vector<double> x(r);
        for (int i = 0; i < n; ++i)
        {
            for (const auto& [j, a] : lu_[i])
            {
                if (j < i)
                {
                    x[i] -= a*x[j];
                }
            }
        }
        for (int i = n - 1; i >= 0; --i)
        {
            for (const auto& [j, a] : lu_[i])
            {
                if (j > i)
                {
                    x[i] -= a*x[j];
                }
            }
            x[i] /= lu_[i].at(i);
        }
        return x;
    }

    //- (LU)^-T r: U^T z = r, L^T w = z, as column sweeps
    std::vector<double> iluT(const std::vector<double>& r) const
    {
        const int n = p_.nCells;
        std::vector<double> z(r);
        for (int i = 0; i < n; ++i)
        {
            z[i] /= lu_[i].at(i);
            for (const auto& [j, a] : lu_[i])
            {
                if (j > i)
                {
                    z[j] -= a*z[i];
                }
            }
        }
        for (int i = n - 1; i >= 0; --i)
        {
            for (const auto& [j, a] : lu_[i])
            {
                if (j < i)
                {
                    z[j] -= a*z[i];
                }
            }
        }
        return z;
    }
};

inline double sumMag(const std::vector<double>& x)
{
    double s = 0;
    for (double v : x)
    {
        s += std::abs(v);
    }
    return s;
}

//- sum|b - A x|: the unnormalised residual OpenFOAM's loops divide by normFactor
inline double referenceResidualSum(const LduProblem& p, const std::vector<double>& b,
                                   const std::vector<double>& x)
{
    std::vector<double> r = referenceAmul(p, x);
    for (int i = 0; i < p.nCells; ++i)
    {
        r[i] = b[i] - r[i];
    }
    return sumMag(r);
}

inline double sumProd(const std::vector<double>& x, const std::vector<double>& y)
{
    double s = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        s += x[i]*y[i];
    }
    return s;
}

//- OpenFOAM's normFactor (lduMatrix::solver::normFactor)
inline double referenceNormFactor(
    const LduProblem& p, const std::vector<double>& psi, const std::vector<double>& Apsi,
    const std::vector<double>& source)
{
    std::vector<double> sumA(p.diag);
    const auto& lo = p.lowerOrUpper();
    for (int f = 0; f < p.nFaces(); ++f)
    {
        sumA[p.upper[f]] += lo[f];
        sumA[p.lower[f]] += p.upperCoeffs[f];
    }
    for (std::size_t k = 0; k < p.ifCell.size(); ++k)
    {
        sumA[p.ifCell[k]] -= p.ifCoeff[k];
    }
    double xRef = 0;
    for (double v : psi)
    {
        xRef += v;
    }
    xRef /= p.nCells;
    double normFactor = 0;
    for (int i = 0; i < p.nCells; ++i)
    {
        normFactor += std::abs(Apsi[i] - sumA[i]*xRef) + std::abs(source[i] - sumA[i]*xRef);
    }
    return normFactor + 1e-20;
}

} // namespace gpuLdu::test

#endif
