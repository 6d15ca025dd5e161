// SPDX-License-Identifier: GPL-3.0-or-later
// OpenFOAM's PBiCGStab loop (v1912, openfoam-api.md c.7), including its exit at the half step
// and its singularity tests on rA0.rA and omega (not normalised, as in OpenFOAM).

#ifndef GPULDU_PBICGSTAB_HPP
#define GPULDU_PBICGSTAB_HPP

namespace gpuLdu
{

template<class B>
void pbicgStabLoop(
    LduSystemImpl<B>& sys,
    SolveResult& r,
    double normFactor,
    const SolverControls& c,
    const Coupling& coupling
)
{
    const int n = sys.n();
    double* pA = sys.work(0);
    double* AyA = sys.work(1);
    double* sA = sys.work(2);
    double* zA = sys.work(3);
    double* tA = sys.work(4);
    double* rA0 = sys.work(5);
    double* psi = sys.psi();
    double* rA = sys.rA();
    double* yA = sys.wA();
    const auto& M = sys.preconditioners();

    forEach<B>(0, n, detail::Copy{rA, rA0});
    // The reductions stay on the device (on one rank) in the workspace's scalar slots
    // (detail::StabScalars); two transfers per iteration bring to the host what its tests need:
    // rA0.rA with the half-step residual, and tA.tA, tA.sA (omega) with the final residual.
    auto& ws = sys.workspace();
    double omega = 1;
    do
    {
        const int now = 2*(r.nIterations % 2);
        const detail::StabScalars sc{ws.scalars(), now};
        const bool first = (r.nIterations == 0);
        // OpenFOAM tests rA0.rA first, then omega; both stop the loop as singular, before any
        // update, so omega (known here) is tested first and rA0.rA after the half step
        if (!first && detail::isSingular(std::abs(omega)))
        {
            r.singular = true;
            break;
        }

        // rA0rA = rA0.rA;  pA = rA + beta*(pA - omega*AyA) (nothing where rA0rA is singular)
        sys.gSumInto(detail::Dot{rA0, rA}, now, coupling);
        forEach<B>(0, n, detail::UpdateStabDirection{rA, AyA, pA, sc, first});

        // yA = M^-1 pA;  AyA = A yA;  alpha = rA0.rA/rA0.AyA
        M.apply(yA, pA);
        sys.amul(AyA, yA, coupling);
        sys.gSumInto(detail::Dot{rA0, AyA}, 4, coupling);

        // sA = rA - alpha*AyA, and the convergence test at the half step
        sys.gSumInto(detail::HalfStepResidual{rA, AyA, sA, sc}, now + 1, coupling);
        double rA0rAAndResidual[2];
        ws.fetch(now, 2, rA0rAAndResidual);
        if (detail::isSingular(std::abs(rA0rAAndResidual[0])))
        {
            r.singular = true;
            break;
        }
        r.finalResidual = rA0rAAndResidual[1]/normFactor;
        if (stopOnNonFinite(r))
        {
            break;
        }
        if (r.nIterations >= c.minIter
         && (r.converged = isConverged(r.finalResidual, r.initialResidual, c)))
        {
            forEach<B>(0, n, detail::AddScaled{yA, psi, sc});
            ++r.nIterations;
            return;
        }

        // zA = M^-1 sA;  tA = A zA;  omega = tA.sA/tA.tA
        M.apply(zA, sA);
        sys.amul(tA, zA, coupling);
        sys.gSumInto(detail::SumSqr{tA}, 5, coupling);
        sys.gSumInto(detail::Dot{tA, sA}, 6, coupling);

        // psi += alpha*yA + omega*zA;  rA = sA - omega*tA
        sys.gSumInto(detail::UpdateStab{yA, zA, sA, tA, psi, rA, sc}, 7, coupling);
        double omegaAndResidual[3];
        ws.fetch(5, 3, omegaAndResidual);
        omega = omegaAndResidual[1]/omegaAndResidual[0];
        r.finalResidual = omegaAndResidual[2]/normFactor;
        if (stopOnNonFinite(r))
        {
            break;
        }
    } while (continueIterating(r, c));
}

} // namespace gpuLdu

#endif
