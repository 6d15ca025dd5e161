// SPDX-License-Identifier: GPL-3.0-or-later
// OpenFOAM's PCG loop (v1912, openfoam-api.md c.7), step by step. Per iteration about
// 300 B/row: one preconditioner application, one A*p, three reductions, fused updates.

#ifndef GPULDU_PCG_HPP
#define GPULDU_PCG_HPP

namespace gpuLdu
{

template<class B>
void pcgLoop(
    LduSystemImpl<B>& sys,
    SolveResult& r,
    double normFactor,
    const SolverControls& c,
    const Coupling& coupling
)
{
    const int n = sys.n();
    double* pA = sys.work(0);
    double* psi = sys.psi();
    double* rA = sys.rA();
    double* wA = sys.wA();
    const auto& M = sys.preconditioners();

    double wArA = 1e20;
    do
    {
        const double wArAold = wArA;

        // wA = M^-1 rA;  wArA = wA.rA
        M.apply(wA, rA);
        wArA = sys.gSum(detail::Dot{wA, rA}, coupling);

        // pA = wA + beta*pA
        const bool first = (r.nIterations == 0);
        forEach<B>(0, n, detail::UpdateSearchDirection{wA, pA, first ? 0 : wArA/wArAold, first});

        // wA = A pA;  wApA = wA.pA
        sys.amul(wA, pA, coupling);
        const double wApA = sys.gSum(detail::Dot{wA, pA}, coupling);
        if (isSingular(std::abs(wApA)/normFactor))
        {
            r.singular = true;
            break;
        }

        // psi += alpha*pA;  rA -= alpha*wA
        const double alpha = wArA/wApA;
        r.finalResidual = sys.gSum(detail::UpdateSolutionAndResidual{pA, wA, psi, rA, alpha}, coupling)/normFactor;
        if (stopOnNonFinite(r))
        {
            break;
        }
    } while (continueIterating(r, c));
}

} // namespace gpuLdu

#endif
