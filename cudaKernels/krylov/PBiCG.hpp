// SPDX-License-Identifier: GPL-3.0-or-later
// OpenFOAM's PBiCG loop (src/OpenFOAM/matrices/lduMatrix/solvers/PBiCG/PBiCG.C): the
// bi-conjugate gradients with a shadow system in A^T (Tmul with the interfaceIntCoeffs,
// preconditionT). On one rank the sums stay on the device; one transfer per iteration.

#ifndef GPULDU_PBICG_HPP
#define GPULDU_PBICG_HPP

#include "krylov/KrylovSystem.hpp"
#include "registry/Registry.hpp"

namespace gpuLdu
{

namespace krylovMethods
{

//- OpenFOAM's PBiCG, registered for asymmetric matrices (krylov/KrylovMethodList.hpp)
struct PBiCG
{
    static constexpr Variant variants[] = {{"PBiCG", Takes::asymmetric, nullptr}};
    static constexpr bool openFOAMs = true;

    template<class B>
    static void loop(KrylovSystem<B>& sys, const SolverControls& c, SolveResult& r)
    {
        using S = detail::CgScalars;
        const int n = sys.n;
        double* pA = sys.work(0);
        double* rT = sys.work(1);
        double* wT = sys.work(2);
        double* pT = sys.work(3);
        double* psi = sys.psi;
        double* rA = sys.rA;
        double* wA = sys.wA;
        auto& sums = sys.scalars;

        // rT = source - A^T psi
        sys.A.tmul(wT, psi);
        forEach<B>(0, n, detail::Residual{sys.source, wT, rT});

        do
        {
            const int now = S::wArA(r.nIterations);
            auto scalars = [&] { return S::at<B>(sums.values(), now, sys.normFactor); };

            // wA = M^-1 rA;  wT = M^-T rT;  wArT = wA.rT
            sys.M.apply(wA, rA);
            sys.M.applyT(wT, rT);
            sums.sumInto(detail::Dot{wA, rT}, now);

            // pA = wA + beta*pA;  pT = wT + beta*pT
            const bool first = (r.nIterations == 0);
            forEach<B>(0, n, detail::UpdateSearchDirections{wA, wT, pA, pT, scalars(), first});

            // wA = A pA;  wT = A^T pT;  wApT = wA.pT
            sys.A.amul(wA, pA);
            sys.A.tmul(wT, pT);
            sums.sumInto(detail::Dot{wA, pT}, S::wApA);

            // psi += alpha*pA;  rA -= alpha*wA;  rT -= alpha*wT (nothing where wApT is singular)
            sums.sumInto(detail::UpdateBiCG{pA, wA, wT, psi, rA, rT, scalars()}, S::residualSum);
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
