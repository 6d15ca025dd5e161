// SPDX-License-Identifier: GPL-3.0-or-later
// OpenFOAM's PCG loop (src/OpenFOAM/matrices/lduMatrix/solvers/PCG/PCG.C), step by step. Per
// iteration about 300 B/row: one preconditioner application, one A*p, three reductions, fused
// updates; on one rank the sums stay on the device and one transfer per iteration brings wA.pA
// and the residual to the host.

#ifndef GPULDU_PCG_HPP
#define GPULDU_PCG_HPP

#include "krylov/KrylovSystem.hpp"
#include "registry/Registry.hpp"

namespace gpuLdu
{

namespace krylovMethods
{

//- OpenFOAM's PCG, registered for symmetric matrices (krylov/KrylovMethodList.hpp)
struct Pcg
{
    static constexpr Variant variants[] = {{"PCG", Takes::symmetric, nullptr}};
    static constexpr bool openFOAMs = true;

    template<class B>
    static void loop(KrylovSystem<B>& sys, const SolverControls& c, SolveResult& r)
    {
        using S = detail::CgScalars;
        const int n = sys.n;
        double* pA = sys.work(0);
        double* psi = sys.psi;
        double* rA = sys.rA;
        double* wA = sys.wA;
        auto& sums = sys.scalars;

        do
        {
            const int now = S::wArA(r.nIterations);
            auto scalars = [&] { return S::at<B>(sums.values(), now, sys.normFactor); };

            // wA = M^-1 rA;  wArA = wA.rA
            sys.M.apply(wA, rA);
            sums.sumInto(detail::Dot{wA, rA}, now);

            // pA = wA + beta*pA
            const bool first = (r.nIterations == 0);
            forEach<B>(0, n, detail::UpdateSearchDirection{wA, pA, scalars(), first});

            // wA = A pA;  wApA = wA.pA
            sys.A.amul(wA, pA);
            sums.sumInto(detail::Dot{wA, pA}, S::wApA);

            // psi += alpha*pA;  rA -= alpha*wA (nothing where wApA is singular)
            sums.sumInto(detail::UpdateSolutionAndResidual{pA, wA, psi, rA, scalars()}, S::residualSum);
            if (stepStops(sums, S::wApA, sys.normFactor, r, sys.normFactor))
            {
                break;
            }
        } while (continueIterating(r, c));
    }
};

} // namespace krylovMethods

} // namespace gpuLdu

#endif
