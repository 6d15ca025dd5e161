// SPDX-License-Identifier: GPL-3.0-or-later
// OpenFOAM's PCG loop (v1912, openfoam-api.md c.7), step by step. Per iteration about
// 300 B/row: one preconditioner application, one A*p, three reductions, fused updates; one
// value transfer to the host per iteration on one rank.

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

    // The reductions stay on the device (on one rank) in the workspace's scalar slots
    // (detail::CgScalars); one transfer per iteration brings wApA and the residual to the host
    do
    {
        const int now = r.nIterations % 2;
        const detail::CgScalars sc{sys.workspace().scalars(), now, normFactor};

        // wA = M^-1 rA;  wArA = wA.rA
        M.apply(wA, rA);
        sys.gSumInto(detail::Dot{wA, rA}, now, coupling);

        // pA = wA + beta*pA
        const bool first = (r.nIterations == 0);
        forEach<B>(0, n, detail::UpdateSearchDirection{wA, pA, sc, first});

        // wA = A pA;  wApA = wA.pA
        sys.amul(wA, pA, coupling);
        sys.gSumInto(detail::Dot{wA, pA}, 2, coupling);

        // psi += alpha*pA;  rA -= alpha*wA (nothing where wApA is singular)
        sys.gSumInto(detail::UpdateSolutionAndResidual{pA, wA, psi, rA, sc}, 3, coupling);
        double wApAAndResidual[2];
        sys.workspace().fetch(2, 2, wApAAndResidual);
        if (detail::isSingular(std::abs(wApAAndResidual[0])/normFactor))
        {
            r.singular = true;
            break;
        }
        r.finalResidual = wApAAndResidual[1]/normFactor;
        if (stopOnNonFinite(r))
        {
            break;
        }
    } while (continueIterating(r, c));
}

} // namespace gpuLdu

#endif
