// SPDX-License-Identifier: GPL-3.0-or-later
// The plugin's own GAMG smoother Chebyshev (not OpenFOAM's: no checkNative), Jacobi-like
// (JacobiLike.hpp): every row from the old values, one pass over the matrix per sweep.
// Chebyshev: the Chebyshev semi-iteration on D^-1 A (D the diagonal), whose eigenvalues lie in
// [0, beta] with beta = max_i sum_j |A_ij| / |A_ii| (Gershgorin's bound, computed per level and
// matrix). nSweeps steps build the polynomial of degree nSweeps that is smallest on the upper
// part [alpha, beta] of the spectrum, alpha = lowerFraction*beta, so the oscillatory error is
// damped and the smooth error is left to the coarse levels. With theta = (beta + alpha)/2,
// delta = (beta - alpha)/2, sigma = theta/delta, rho_0 = 1/sigma (Saad, Iterative Methods for
// Sparse Linear Systems, the Chebyshev acceleration algorithm):
//     r_k = D^-1 (b - A x_k)
//     d_0 = r_0/theta,   d_k = rho_k rho_{k-1} d_{k-1} + (2 rho_k/delta) r_k,
//     rho_k = 1/(2 sigma - rho_{k-1}),   x_{k+1} = x_k + d_k.

#ifndef GPULDU_CHEBYSHEVSMOOTHER_HPP
#define GPULDU_CHEBYSHEVSMOOTHER_HPP

#include "multigrid/smoothers/JacobiLike.hpp"
#include "registry/Registry.hpp"

#include <algorithm>
#include <vector>

namespace gpuLdu
{

namespace detail
{

//- Row i's Gershgorin bound of D^-1 A: sum_j |A_ij| / |A_ii| (with the interfaces' terms of
//  the row, interfaceMagnitude; nullptr: none)
struct GershgorinRow
{
    const int* rowStart;
    const int* col;
    const int* diagPos;
    const double* val;
    const double* interfaceMagnitude;

    GPULDU_HD double operator()(int i) const
    {
        const double D = magnitude(val[diagPos[i]]);
        double s = D + (interfaceMagnitude ? interfaceMagnitude[i] : 0.0);
        for (int p = rowStart[i]; p < rowStart[i + 1]; ++p)
        {
            if (p != diagPos[i])
            {
                s += magnitude(val[p]);
            }
        }
        return s/D;
    }
};

//- One Chebyshev step of row i: r = (b - A x)_i/A_ii, d_i = cd*d_i + cr*r (d_i not read when
//  cd is 0: the first step), xNew_i = x_i + d_i. With coupled interfaces b (or b with the
//  row's terms) holds their terms of the old x. A's values in V (float: the smoother's copy).
template<class V>
struct ChebyshevRow
{
    const int* rowStart;
    const int* col;
    const int* diagPos;
    const V* val;
    const double* b;
    InterfaceRowTerms terms;
    const double* x;
    double* d;
    double* xNew;
    double cd;
    double cr;

    GPULDU_HD void operator()(int i) const
    {
        const RowProduct row(rowStart, col, diagPos, val, x, i);
        const double r = (terms.source(i, b, x) - row.Ax)/double(val[diagPos[i]]);
        const double di = (cd == 0 ? 0.0 : cd*d[i]) + cr*r;
        d[i] = di;
        xNew[i] = x[i] + di;
    }
};

} // namespace detail

//- The coefficients (cd, cr) of the Chebyshev steps 0 .. nSteps-1 for the eigenvalue bound
//  beta of D^-1 A (see the top of this file)
struct ChebyshevCoefficients
{
    //- The lower end of the damped interval, as a fraction of beta
    static constexpr double lowerFraction = 0.3;

    std::vector<double> cd;
    std::vector<double> cr;

    ChebyshevCoefficients(double beta, int nSteps)
    {
        const double alpha = lowerFraction*beta;
        const double theta = (beta + alpha)/2;
        const double delta = (beta - alpha)/2;
        const double sigma = theta/delta;
        double rho = 1/sigma;
        for (int k = 0; k < nSteps; ++k)
        {
            if (k == 0)
            {
                cd.push_back(0);
                cr.push_back(1/theta);
            }
            else
            {
                const double rhoNew = 1/(2*sigma - rho);
                cd.push_back(rhoNew*rho);
                cr.push_back(2*rhoNew/delta);
                rho = rhoNew;
            }
        }
    }
};

//- Per solve the level's Gershgorin bound of D^-1 A (the maximum over all ranks); per smooth
//  the polynomial of degree nSweeps on it, its d in the second work vector; the sweeps' values
//  A's rounded to float on a coarse level (SweepValues), the bound A's in double
template<class B>
class ChebyshevSmoother
{
    InterfaceMagnitudes<B> interfaceMagnitudes_;
    SweepValues<B> values_;
    double bound_ = 0;

public:
    void setup(const SmootherLevel<B>& level)
    {
        interfaceMagnitudes_.setup(level);
        values_.setup(level);
        const CsrMatrix<B>& A = level.system.matrix();
        bound_ = level.coupling.maximum(std::max(0.0, level.system.workspace().maximum(level.system.n(),
            detail::GershgorinRow{ptr(A.rowStart), ptr(A.col), ptr(A.diagPos), ptr(A.val), interfaceMagnitudes_.values()})));
    }

    void smooth(const SmootherLevel<B>& level, double* psi, const double* b, int nSweeps) const
    {
        const CsrMatrix<B>& A = level.system.matrix();
        const ChebyshevCoefficients c(bound_, nSweeps);
        double* d = level.work[1];
        values_.visit(level, [&](const auto* values)
        {
            jacobiSweeps(level, psi, b, nSweeps, [&](int sweep, const double* bPrime,
                                                     const detail::InterfaceRowTerms& terms, const double* x, double* xNew)
            {
                using V = detail::ValueOf<decltype(values)>;
                return detail::ChebyshevRow<V>{ptr(A.rowStart), ptr(A.col), ptr(A.diagPos), values, bPrime, terms, x, d,
                                               xNew, c.cd[sweep], c.cr[sweep]};
            });
        });
    }
};

namespace smoothers
{

struct Chebyshev
{
    static constexpr Variant variants[] = {{"Chebyshev", Takes::both, nullptr}};
    static constexpr bool openFOAMs = false;
    static constexpr bool dividesByDiagonal = true;
    static constexpr bool recordable = true;
    template<class B>
    using Type = ChebyshevSmoother<B>;
};

} // namespace smoothers

} // namespace gpuLdu

#endif
