// SPDX-License-Identifier: GPL-3.0-or-later
// OpenFOAM's DICSmoother, FDICSmoother (the same arithmetic) and DILUSmoother
// (src/OpenFOAM/matrices/lduMatrix/smoothers/): per sweep rA = b - A psi (lduMatrix::residual,
// the interfaces' terms after the rows'), its DIC/DILU sweeps (the level's preconditioner, set
// up for the level), psi += rA.

#ifndef GPULDU_INCOMPLETEFACTORSMOOTHER_HPP
#define GPULDU_INCOMPLETEFACTORSMOOTHER_HPP

#include "multigrid/SmootherRows.hpp"
#include "multigrid/smoothers/SmootherLevel.hpp"
#include "registry/Registry.hpp"

namespace gpuLdu
{

template<class B>
class IncompleteFactorSmoother
{
public:
    //- The level's DIC (symmetric) or DILU factor; a zero or non-finite pivot is a ValueError
    void setup(const SmootherLevel<B>& level)
    {
        level.system.preconditioners().setup(
            Preconditioner(PreconditionerRegistry::idFor<preconditioners::DicDilu>(level.symmetric)));
    }

    void smooth(const SmootherLevel<B>& level, double* psi, const double* b, int nSweeps) const
    {
        LduSystemImpl<B>& system = level.system;
        const CsrMatrix<B>& A = system.matrix();
        const int n = system.n();
        double* rA = level.work[0];
        double* wA = level.work[1];
        *level.sweepLevels += long(nSweeps)*(system.schedules().lower().nLevels() + system.schedules().upper().nLevels());
        for (int sweep = 0; sweep < nSweeps; ++sweep)
        {
            forEach<B>(0, n, detail::ResidualRow{ptr(A.rowStart), ptr(A.col), ptr(A.diagPos), ptr(A.val), b, psi, rA});
            system.addInterfaceResidual(rA, psi, level.coupling);
            system.preconditioners().apply(wA, rA);
            forEach<B>(0, n, detail::AddTo{wA, psi});
        }
    }
};

namespace smoothers
{

struct IncompleteFactor
{
    static constexpr Variant variants[] =
    {
        {"DIC", Takes::symmetric, "FDIC"},
        {"DILU", Takes::asymmetric, nullptr}
    };
    static constexpr bool openFOAMs = true;
    //- Its factorisation checks its pivots: the V-cycle divides by the diagonal only where it
    //  scales or interpolates the correction
    static constexpr bool dividesByDiagonal = false;
    template<class B>
    using Type = IncompleteFactorSmoother<B>;
};

} // namespace smoothers

} // namespace gpuLdu

#endif
