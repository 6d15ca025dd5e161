// SPDX-License-Identifier: GPL-3.0-or-later
// OpenFOAM's PBiCG loop (src/OpenFOAM/matrices/lduMatrix/solvers/PBiCG/PBiCG.C): the
// bi-conjugate gradients with a shadow system in A^T (Tmul with the interfaceIntCoeffs,
// preconditionT). On one rank the sums stay on the device; one transfer per iteration.

#ifndef GPULDU_PBICG_HPP
#define GPULDU_PBICG_HPP

#include "krylov/KrylovLoop.hpp"
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
    static void loop(KrylovSolve<B>& s, const SolverControls& c, SolveResult& r)
    {
        using S = detail::CgScalars;
        const int n = s.n;
        double* pA = s.work(0);
        double* rT = s.work(1);
        double* wT = s.work(2);
        double* pT = s.work(3);
        double* psi = s.psi;
        double* rA = s.rA;
        double* wA = s.wA;
        auto& sums = s.scalars;

        // rT = source - A^T psi
        s.A.tmul(wT, psi);
        forEach<B>(0, n, detail::Residual{s.source, wT, rT});

        do
        {
            const int now = S::wArA(r.nIterations);
            auto scalars = [&] { return S::at<B>(sums.values(), now, s.normFactor); };

            // wA = M^-1 rA;  wT = M^-T rT;  wArT = wA.rT
            s.M.apply(wA, rA);
            s.M.applyT(wT, rT);
            sums.sumInto(detail::Dot{wA, rT}, now);

            // pA = wA + beta*pA;  pT = wT + beta*pT
            const bool first = (r.nIterations == 0);
            forEach<B>(0, n, detail::UpdateSearchDirections{wA, wT, pA, pT, scalars(), first});

            // wA = A pA;  wT = A^T pT;  wApT = wA.pT
            s.A.amul(wA, pA);
            s.A.tmul(wT, pT);
            sums.sumInto(detail::Dot{wA, pT}, S::wApA);

            // psi += alpha*pA;  rA -= alpha*wA;  rT -= alpha*wT (nothing where wApT is singular)
            sums.sumInto(detail::UpdateBiCG{pA, wA, wT, psi, rA, rT, scalars()}, S::residualSum);
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
