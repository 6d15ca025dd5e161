// SPDX-License-Identifier: GPL-3.0-or-later
// OpenFOAM's PBiCG loop (v1912, openfoam-api.md c.7): the bi-conjugate gradients with a shadow
// system in A^T (Tmul with the interfaceIntCoeffs, preconditionT).

#ifndef GPULDU_PBICG_HPP
#define GPULDU_PBICG_HPP

namespace gpuLdu
{

template<class B>
void pbicgLoop(
    LduSystemImpl<B>& sys,
    SolveResult& r,
    double normFactor,
    const SolverControls& c,
    const Coupling& coupling,
    const double* source
)
{
    const int n = sys.n();
    double* pA = sys.work(0);
    double* rT = sys.work(1);
    double* wT = sys.work(2);
    double* pT = sys.work(3);
    double* psi = sys.psi();
    double* rA = sys.rA();
    double* wA = sys.wA();
    const auto& M = sys.preconditioners();

    // rT = source - A^T psi
    sys.tmul(wT, psi, coupling);
    forEach<B>(0, n, detail::Residual{source, wT, rT});

    double wArT = 0;
    do
    {
        const double wArTold = wArT;

        // wA = M^-1 rA;  wT = M^-T rT;  wArT = wA.rT
        M.apply(wA, rA);
        M.applyT(wT, rT);
        wArT = sys.gSum(detail::Dot{wA, rT}, coupling);

        // pA = wA + beta*pA;  pT = wT + beta*pT
        const bool first = (r.nIterations == 0);
        forEach<B>(0, n, detail::UpdateSearchDirections{wA, wT, pA, pT, first ? 0 : wArT/wArTold, first});

        // wA = A pA;  wT = A^T pT;  wApT = wA.pT
        sys.amul(wA, pA, coupling);
        sys.tmul(wT, pT, coupling);
        const double wApT = sys.gSum(detail::Dot{wA, pT}, coupling);
        if (isSingular(std::abs(wApT)/normFactor))
        {
            r.singular = true;
            break;
        }

        // psi += alpha*pA;  rA -= alpha*wA;  rT -= alpha*wT
        const double alpha = wArT/wApT;
        r.finalResidual = sys.gSum(detail::UpdateBiCG{pA, wA, wT, psi, rA, rT, alpha}, coupling)/normFactor;
        if (stopOnNonFinite(r))
        {
            break;
        }
    } while (continueIterating(r, c));
}

} // namespace gpuLdu

#endif
