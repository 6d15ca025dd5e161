// SPDX-License-Identifier: GPL-3.0-or-later
// OpenFOAM's PCG loop (src/OpenFOAM/matrices/lduMatrix/solvers/PCG/PCG.C), step by step. Per
// iteration about 300 B/row: one preconditioner application, one A*p, three reductions, fused
// updates; on one rank the sums stay on the device and one transfer per iteration brings wA.pA
// and the residual to the host.

#ifndef GPULDU_PCG_HPP
#define GPULDU_PCG_HPP

#include "krylov/KrylovLoop.hpp"
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
    static void loop(KrylovSolve<B>& s, const SolverControls& c, SolveResult& r)
    {
        using S = detail::CgScalars;
        const int n = s.n;
        double* pA = s.work(0);
        double* psi = s.psi;
        double* rA = s.rA;
        double* wA = s.wA;
        auto& sums = s.scalars;

        do
        {
            const int now = S::wArA(r.nIterations);
            auto scalars = [&] { return S::at<B>(sums.values(), now, s.normFactor); };

            // wA = M^-1 rA;  wArA = wA.rA
            s.M.apply(wA, rA);
            sums.sumInto(detail::Dot{wA, rA}, now);

            // pA = wA + beta*pA
            const bool first = (r.nIterations == 0);
            forEach<B>(0, n, detail::UpdateSearchDirection{wA, pA, scalars(), first});

            // wA = A pA;  wApA = wA.pA
            s.A.amul(wA, pA);
            sums.sumInto(detail::Dot{wA, pA}, S::wApA);

            // psi += alpha*pA;  rA -= alpha*wA (nothing where wApA is singular)
            sums.sumInto(detail::UpdateSolutionAndResidual{pA, wA, psi, rA, scalars()}, S::residualSum);
            if (stepStops(sums, S::wApA, s.normFactor, r, s.normFactor))
            {
                break;
            }
        } while (continueIterating(r, c));
    }
};

} // namespace krylovMethods

} // namespace gpuLdu

#endif
