// SPDX-License-Identifier: GPL-3.0-or-later
// OpenFOAM's GaussSeidelSmoother (nonBlockingGaussSeidel: the same on one rank) and
// symGaussSeidelSmoother (src/OpenFOAM/matrices/lduMatrix/smoothers/): the rows of each sweep in
// the level schedules' order (the dependency graph of DIC), the terms of each row in OpenFOAM's
// face order (multigrid/SmootherRows.hpp), so the results are OpenFOAM's.

#ifndef GPULDU_GAUSSSEIDELSMOOTHER_HPP
#define GPULDU_GAUSSSEIDELSMOOTHER_HPP

#include "multigrid/SmootherRows.hpp"
#include "multigrid/smoothers/SmootherLevel.hpp"
#include "registry/Registry.hpp"

#include <thrust/copy.h>
#include <thrust/fill.h>

namespace gpuLdu
{

//- Each sweep from b' (b and the interfaces' terms of psi), the new values into a work vector
//  (they hold notReady until written), then back into psi; Symmetric: a backward sweep after
//  the forward one
template<class B, bool Symmetric>
class GaussSeidelSmoother
{
public:
    void setup(const SmootherLevel<B>&)
    {}

    void smooth(const SmootherLevel<B>& level, double* psi, const double* source, int nSweeps) const
    {
        const CsrMatrix<B>& A = level.system.matrix();
        const int n = level.system.n();
        double* y = level.work[0];
        double* bPrime = level.work[1];
        const auto& lower = level.system.schedules().lower();
        const auto& upper = level.system.schedules().upper();
        *level.sweepLevels += long(nSweeps)*(lower.nLevels() + (Symmetric ? upper.nLevels() : 0));
        for (int sweep = 0; sweep < nSweeps; ++sweep)
        {
            const double* b = level.sourceWithInterfaces(source, psi);
            thrust::fill_n(B::policy(), y, n, notReady());
            lower.sweep(detail::GaussSeidelRow<false>{
                lower.rows(), ptr(A.rowStart), ptr(A.col),
                ptr(A.diagPos), ptr(A.val), b, psi, y, Symmetric ? bPrime : nullptr});
            if (Symmetric)
            {
                thrust::fill_n(B::policy(), psi, n, notReady());
                upper.sweep(detail::GaussSeidelRow<true>{
                    upper.rows(), ptr(A.rowStart), ptr(A.col),
                    ptr(A.diagPos), ptr(A.val), bPrime, nullptr, psi, nullptr});
            }
            else
            {
                thrust::copy_n(B::policy(), y, n, psi);
            }
        }
    }
};

namespace smoothers
{

//- The registry's first: GamgSmoother's default
struct GaussSeidel
{
    static constexpr Variant variants[] = {{"GaussSeidel", Takes::both, "nonBlockingGaussSeidel"}};
    static constexpr bool openFOAMs = true;
    //- Whether the V-cycle divides by the level's diagonal where this smoother smooths (all
    //  but the incomplete factors, whose factorisation checks its pivots)
    static constexpr bool dividesByDiagonal = true;
    template<class B>
    using Type = GaussSeidelSmoother<B, false>;
};

struct SymGaussSeidel
{
    static constexpr Variant variants[] = {{"symGaussSeidel", Takes::both, nullptr}};
    static constexpr bool openFOAMs = true;
    static constexpr bool dividesByDiagonal = true;
    template<class B>
    using Type = GaussSeidelSmoother<B, true>;
};

} // namespace smoothers

} // namespace gpuLdu

#endif
