// SPDX-License-Identifier: GPL-3.0-or-later
// The plugin's own GAMG smoother l1Jacobi (not OpenFOAM's: no checkNative), Jacobi-like
// (JacobiLike.hpp): every row from the old values, one pass over the matrix per sweep.
// l1Jacobi: x_i += (b - A x)_i / (|A_ii| + sum_{j != i} |A_ij|) (sign of A_ii), the l1 row
// norm in place of the diagonal: convergent for any symmetric positive (or negative) definite
// A, no parameter to choose.

#ifndef GPULDU_L1JACOBISMOOTHER_HPP
#define GPULDU_L1JACOBISMOOTHER_HPP

#include "multigrid/smoothers/JacobiLike.hpp"
#include "registry/Registry.hpp"

namespace gpuLdu
{

namespace detail
{

//- One l1-Jacobi sweep of row i: xNew_i = x_i + (b - A x)_i/(A_ii +- sum_{j != i} |A_ij|).
//  With coupled interfaces b (or b with the row's terms) holds their terms of the old x (b - A x
//  is then the coupled residual) and interfaceMagnitude their rows' sum |coefficient| (nullptr:
//  none). A's values in V (float: a coarse level's, SweepValues).
template<class V>
struct L1JacobiRow
{
    const int* rowStart;
    const int* col;
    const int* diagPos;
    const V* val;
    const double* interfaceMagnitude;
    const double* b;
    InterfaceRowTerms terms;
    const double* x;
    double* xNew;

    GPULDU_HD void operator()(int i) const
    {
        const RowProduct row(rowStart, col, diagPos, val, x, i);
        const double D = double(val[diagPos[i]]);
        const double offDiagonal = row.offDiagonalMagnitude + (interfaceMagnitude ? interfaceMagnitude[i] : 0.0);
        const double l1 = D < 0 ? D - offDiagonal : D + offDiagonal;
        xNew[i] = x[i] + (terms.source(i, b, x) - row.Ax)/l1;
    }
};

} // namespace detail

//- The sweeps' values A's rounded to float on a coarse level (SweepValues): the l1 norms too
template<class B>
class L1JacobiSmoother
{
    InterfaceMagnitudes<B> interfaceMagnitudes_;
    SweepValues<B> values_;

public:
    void setup(const SmootherLevel<B>& level)
    {
        interfaceMagnitudes_.setup(level);
        values_.setup(level);
    }

    void smooth(const SmootherLevel<B>& level, double* psi, const double* b, int nSweeps) const
    {
        const CsrMatrix<B>& A = level.system.matrix();
        const double* magnitudes = interfaceMagnitudes_.values();
        values_.visit(level, [&](const auto* values)
        {
            jacobiSweeps(level, psi, b, nSweeps, [&](int, const double* bPrime, const detail::InterfaceRowTerms& terms,
                                                     const double* x, double* xNew)
            {
                using V = detail::ValueOf<decltype(values)>;
                return detail::L1JacobiRow<V>{ptr(A.rowStart), ptr(A.col), ptr(A.diagPos), values, magnitudes, bPrime,
                                              terms, x, xNew};
            });
        });
    }
};

namespace smoothers
{

struct L1Jacobi
{
    static constexpr Variant variants[] = {{"l1Jacobi", Takes::both, nullptr}};
    static constexpr bool openFOAMs = false;
    static constexpr bool dividesByDiagonal = true;
    static constexpr bool recordable = true;
    template<class B>
    using Type = L1JacobiSmoother<B>;
};

} // namespace smoothers

} // namespace gpuLdu

#endif
