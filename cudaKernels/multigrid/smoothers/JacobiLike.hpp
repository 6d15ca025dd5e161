// SPDX-License-Identifier: GPL-3.0-or-later
// What the plugin's own GAMG smoothers share (L1Jacobi.hpp, Chebyshev.hpp), not OpenFOAM's:
// every row updated at once from the old values (Jacobi-like), so a sweep is one
// bandwidth-bound pass over the matrix with no chain of dependent levels as in Gauss-Seidel.
// Each sweep reads x and writes a new vector (the loop alternates two). Coupled interfaces
// enter as Jacobi terms of the old values, through b' (added by each row where the level holds
// them), and in the row norms through each row's sum of |interface coefficient|. On a coarse
// level the sweeps read A's values rounded to float (SweepValues).

#ifndef GPULDU_JACOBILIKESMOOTHER_HPP
#define GPULDU_JACOBILIKESMOOTHER_HPP

#include "krylov/VectorOps.hpp"
#include "multigrid/smoothers/SmootherLevel.hpp"

#include <thrust/copy.h>
#include <thrust/fill.h>

#include <type_traits>
#include <utility>
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

    //- V: the values' type (double; float where a smoother keeps a float copy of them)
    template<class V>
    GPULDU_HD RowProduct(const int* rowStart, const int* col, const int* diagPos, const V* val, const double* x, int i)
    {
        const int d = diagPos[i];
        double odm = 0;
        Ax = addRowTerms(0.0, rowStart[i], rowStart[i + 1], col, val, ReadAt{x}, [&](int p, V v)
        {
            if (p != d)
            {
                odm += magnitude(v);
            }
        });
        offDiagonalMagnitude = odm;
    }
};

//- to[i] = from[i] rounded to the nearest float
struct RoundToFloat
{
    const double* from;
    float* to;

    GPULDU_HD void operator()(int i) const
    {
        to[i] = float(from[i]);
    }
};

//- The element type of a pointer to values (float or double)
template<class P>
using ValueOf = std::remove_cv_t<std::remove_pointer_t<P>>;

} // namespace detail

//- Each row's sum of |interface coefficient| on a level with coupled interfaces (the l1 norm's
//  and the Gershgorin bound's interface terms), set up per solve; empty where it has none
template<class B>
class InterfaceMagnitudes
{
    typename B::template Vector<double> magnitude_;
    bool has_ = false;

public:
    void setup(const SmootherLevel<B>& level)
    {
        has_ = level.system.hasInterfaces(level.coupling);
        if (has_)
        {
            // kept from solve to solve (an allocation waits for the device)
            const int n = level.system.n();
            magnitude_.resize(n);
            thrust::fill_n(B::policy(), ptr(magnitude_), n, 0.0);
            level.system.addInterfaceMagnitudes(ptr(magnitude_), level.coupling);
        }
    }

    //- nullptr where the level has no interfaces
    const double* values() const
    {
        return has_ ? ptr(magnitude_) : nullptr;
    }
};

//- The matrix values a Jacobi-like smoother's sweeps read: on a coarse level A's values rounded
//  to float, made per solve (the rows' products, sums and divisions stay in double). A sweep is
//  bytes-bound and the values are half its bytes in double. On a coarse level psi is a
//  correction: a smoother of A rounded to float (relative 6e-8 an entry) is still a smoother of
//  A, its fixed point off by 6e-8 of the correction, which vanishes with the residual. The finest
//  level smooths the solution itself, whose fixed point would be A rounded's solution (the
//  V-cycles stall near 1e-8): A's own values there. The V-cycle's residuals, its scaling and the
//  Krylov side take A in double.
template<class B>
class SweepValues
{
    typename B::template Vector<float> rounded_;

public:
    void setup(const SmootherLevel<B>& level)
    {
        if (level.correction)
        {
            // kept from solve to solve (an allocation waits for the device)
            const auto& val = level.system.matrix().val;
            rounded_.resize(val.size());
            forEach<B>(0, int(val.size()), detail::RoundToFloat{ptr(val), ptr(rounded_)});
        }
    }

    //- f(the values: const float* on a coarse level, const double* on the finest)
    template<class F>
    void visit(const SmootherLevel<B>& level, const F& f) const
    {
        if (level.correction)
        {
            f(ptr(rounded_));
        }
        else
        {
            f(ptr(level.system.matrix().val));
        }
    }
};

//- nSweeps Jacobi-like sweeps: rowsOf(sweep, b', terms, x, xNew) is the functor of one sweep's
//  rows; each sweep reads one vector and writes the other of psi and a work vector, the last
//  written is psi's. The level's own interface terms (DeviceCouplings) each row adds to its
//  b itself (terms: the same sum as a pass making b' before the sweep, two passes less: the
//  copy of b and the terms), those that read x across from the halo, exchanged for each
//  sweep's x; where the host evaluates some of the level's interfaces (OpenFOAM's interface
//  updates), b' with all their terms is made before each sweep and terms is empty.
template<class B, class RowsOf>
void jacobiSweeps(const SmootherLevel<B>& level, double* psi, const double* b, int nSweeps, const RowsOf& rowsOf)
{
    const int n = level.system.n();
    const bool termsInRows = !level.system.hostEvaluatesInterfaces(level.coupling);
    const detail::InterfaceRowTerms terms = termsInRows ? level.system.interfaceRowTerms() : detail::InterfaceRowTerms{};
    double* x = psi;
    double* xNew = level.work[0];
    for (int sweep = 0; sweep < nSweeps; ++sweep)
    {
        if (termsInRows)
        {
            level.system.exchangeHalo(x, level.coupling);
        }
        const double* bPrime = termsInRows ? b : level.sourceWithInterfaces(b, x);
        forEach<B>(0, n, rowsOf(sweep, bPrime, terms, x, xNew));
        std::swap(x, xNew);
    }
    if (x != psi)
    {
        thrust::copy_n(B::policy(), x, n, psi);
    }
}


} // namespace gpuLdu

#endif
