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

    // The reductions stay on the device (on one rank) in the workspace's scalar slots
    // (detail::CgScalars); one transfer per iteration brings wApT and the residual to the host
    do
    {
        const int now = r.nIterations % 2;
        const detail::CgScalars sc{sys.workspace().scalars(), now, normFactor};

        // wA = M^-1 rA;  wT = M^-T rT;  wArT = wA.rT
        M.apply(wA, rA);
        M.applyT(wT, rT);
        sys.gSumInto(detail::Dot{wA, rT}, now, coupling);

        // pA = wA + beta*pA;  pT = wT + beta*pT
        const bool first = (r.nIterations == 0);
        forEach<B>(0, n, detail::UpdateSearchDirections{wA, wT, pA, pT, sc, first});

        // wA = A pA;  wT = A^T pT;  wApT = wA.pT
        sys.amul(wA, pA, coupling);
        sys.tmul(wT, pT, coupling);
        sys.gSumInto(detail::Dot{wA, pT}, 2, coupling);

        // psi += alpha*pA;  rA -= alpha*wA;  rT -= alpha*wT (nothing where wApT is singular)
        sys.gSumInto(detail::UpdateBiCG{pA, wA, wT, psi, rA, rT, sc}, 3, coupling);
        double wApTAndResidual[2];
        sys.workspace().fetch(2, 2, wApTAndResidual);
        if (detail::isSingular(std::abs(wApTAndResidual[0])/normFactor))
        {
            r.singular = true;
            break;
        }
        r.finalResidual = wApTAndResidual[1]/normFactor;
        if (stopOnNonFinite(r))
        {
            break;
        }
    } while (continueIterating(r, c));
}

} // namespace gpuLdu

#endif
