// SPDX-License-Identifier: GPL-3.0-or-later
// OpenFOAM's PBiCGStab loop (src/OpenFOAM/matrices/lduMatrix/solvers/PBiCGStab/PBiCGStab.C),
// including its exit at the half step and its singularity tests on rA0.rA and omega (not
// normalised, as in OpenFOAM). On one rank the sums stay on the device; two transfers per
// iteration bring to the host what its tests need: rA0.rA with the half-step residual, and
// tA.tA, tA.sA (omega) with the final residual.

#ifndef GPULDU_PBICGSTAB_HPP
#define GPULDU_PBICGSTAB_HPP

#include "krylov/KrylovLoop.hpp"
#include "registry/Registry.hpp"

namespace gpuLdu
{

namespace krylovMethods
{

//- OpenFOAM's PBiCGStab, registered for both kinds of matrix (krylov/KrylovMethodList.hpp)
struct PBiCGStab
{
    static constexpr Variant variants[] = {{"PBiCGStab", Takes::both, nullptr}};
    static constexpr bool openFOAMs = true;

    template<class B>
    static void loop(KrylovSolve<B>& s, const SolverControls& c, SolveResult& r)
    {
        using S = detail::StabScalars;
        const int n = s.n;
        double* pA = s.work(0);
        double* AyA = s.work(1);
        double* sA = s.work(2);
        double* zA = s.work(3);
        double* tA = s.work(4);
        double* rA0 = s.work(5);
        double* psi = s.psi;
        double* rA = s.rA;
        double* yA = s.wA;
        auto& sums = s.scalars;

        forEach<B>(0, n, detail::Copy{rA, rA0});
        double omega = 1;
        do
        {
            const int now = S::rA0rA(r.nIterations);
            auto scalars = [&] { return S::at<B>(sums.values(), now); };
            const bool first = (r.nIterations == 0);
            // OpenFOAM tests rA0.rA first, then omega; both stop the loop as singular, before any
            // update, so omega (known here) is tested first and rA0.rA after the half step
            if (!first && detail::isSingular(std::abs(omega)))
            {
                r.singular = true;
                break;
            }

            // rA0rA = rA0.rA;  pA = rA + beta*(pA - omega*AyA) (nothing where rA0rA is singular)
            sums.sumInto(detail::Dot{rA0, rA}, now);
            forEach<B>(0, n, detail::UpdateStabDirection{rA, AyA, pA, scalars(), first});

            // yA = M^-1 pA;  AyA = A yA;  alpha = rA0.rA/rA0.AyA
            s.M.apply(yA, pA);
            s.A.amul(AyA, yA);
            sums.sumInto(detail::Dot{rA0, AyA}, S::rA0AyA);

            // sA = rA - alpha*AyA, and the convergence test at the half step
            sums.sumInto(detail::HalfStepResidual{rA, AyA, sA, scalars()}, now + 1);
            if (stepStops(sums, now, 1.0, r, s.normFactor))
            {
                break;
            }
            if (r.nIterations + (c.halfStepCountsItself ? 1 : 0) >= c.minIter
             && (r.converged = isConverged(r.finalResidual, r.initialResidual, c)))
            {
                forEach<B>(0, n, detail::AddScaled{yA, psi, scalars()});
                ++r.nIterations;
                return;
            }

            // zA = M^-1 sA;  tA = A zA;  omega = tA.sA/tA.tA
            s.M.apply(zA, sA);
            s.A.amul(tA, zA);
            sums.sumInto(detail::SumSqr{tA}, S::tAtA);
            sums.sumInto(detail::Dot{tA, sA}, S::tAsA);

            // psi += alpha*yA + omega*zA;  rA = sA - omega*tA
            sums.sumInto(detail::UpdateStab{yA, zA, sA, tA, psi, rA, scalars()}, S::residualSum);
            double omegaAndResidual[3];
            sums.fetch(S::tAtA, 3, omegaAndResidual);
            omega = omegaAndResidual[1]/omegaAndResidual[0];
            if (residualStops(r, omegaAndResidual[2], s.normFactor))
            {
                break;
            }
        } while (continueIterating(r, c));
    }
};

} // namespace krylovMethods

} // namespace gpuLdu

#endif
