// SPDX-License-Identifier: GPL-3.0-or-later
// The plugin's own GAMG smoothers, not OpenFOAM's: every row updated at once from the old
// values (Jacobi-like), so a sweep is one bandwidth-bound pass over the matrix with no chain
// of dependent levels as in Gauss-Seidel. Each sweep reads x and writes a new vector (the
// caller alternates two).
//
// l1Jacobi: x_i += (b - A x)_i / (|A_ii| + sum_{j != i} |A_ij|) (sign of A_ii), the l1 row
// norm in place of the diagonal: convergent for any symmetric positive (or negative) definite
// A, no parameter to choose.
//
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

#ifndef GPULDU_JACOBISMOOTHERS_HPP
#define GPULDU_JACOBISMOOTHERS_HPP

#include "krylov/VectorOps.hpp"

#include <vector>

namespace gpuLdu
{

namespace detail
{

//- (A x)_i and sum_{j != i} |A_ij| of a CSR row
struct RowProduct
{
    double Ax = 0;
    double offDiagonalMagnitude = 0;

    GPULDU_HD RowProduct(const int* rowStart, const int* col, const int* diagPos, const double* val, const double* x, int i)
    {
        const int d = diagPos[i];
        for (int p = rowStart[i]; p < rowStart[i + 1]; ++p)
        {
            Ax += val[p]*x[col[p]];
            if (p != d)
            {
                offDiagonalMagnitude += magnitude(val[p]);
            }
        }
    }
};

//- One l1-Jacobi sweep of row i: xNew_i = x_i + (b - A x)_i/(A_ii +- sum_{j != i} |A_ij|).
//  With coupled interfaces b holds their terms of the old x (b - A x is then the coupled
//  residual) and interfaceMagnitude their rows' sum |coefficient| (nullptr: none).
struct L1JacobiRow
{
    const int* rowStart;
    const int* col;
    const int* diagPos;
    const double* val;
    const double* interfaceMagnitude;
    const double* b;
    const double* x;
    double* xNew;

    GPULDU_HD void operator()(int i) const
    {
        const RowProduct row(rowStart, col, diagPos, val, x, i);
        const double D = val[diagPos[i]];
        const double offDiagonal = row.offDiagonalMagnitude + (interfaceMagnitude ? interfaceMagnitude[i] : 0.0);
        const double l1 = D < 0 ? D - offDiagonal : D + offDiagonal;
        xNew[i] = x[i] + (b[i] - row.Ax)/l1;
    }
};

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
//  cd is 0: the first step), xNew_i = x_i + d_i. With coupled interfaces b holds their terms
//  of the old x.
struct ChebyshevRow
{
    const int* rowStart;
    const int* col;
    const int* diagPos;
    const double* val;
    const double* b;
    const double* x;
    double* d;
    double* xNew;
    double cd;
    double cr;

    GPULDU_HD void operator()(int i) const
    {
        const RowProduct row(rowStart, col, diagPos, val, x, i);
        const double r = (b[i] - row.Ax)/val[diagPos[i]];
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

} // namespace gpuLdu

#endif
