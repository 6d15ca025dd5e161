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
    double rA0rA = 0;
    double alpha = 0;
    double omega = 0;
    do
    {
        const double rA0rAold = rA0rA;
        rA0rA = sys.gSum(detail::Dot{rA0, rA}, coupling);
        if (isSingular(std::abs(rA0rA)))
        {
            r.singular = true;
            break;
        }

        // pA = rA + beta*(pA - omega*AyA)
        const bool first = (r.nIterations == 0);
        if (!first && isSingular(std::abs(omega)))
        {
            r.singular = true;
            break;
        }
        const double beta = first ? 0 : (rA0rA/rA0rAold)*(alpha/omega);
        forEach<B>(0, n, detail::UpdateStabDirection{rA, AyA, pA, beta, omega, first});

        // yA = M^-1 pA;  AyA = A yA;  alpha = rA0.rA/rA0.AyA
        M.apply(yA, pA);
        sys.amul(AyA, yA, coupling);
        const double rA0AyA = sys.gSum(detail::Dot{rA0, AyA}, coupling);
        alpha = rA0rA/rA0AyA;

        // sA = rA - alpha*AyA, and the convergence test at the half step
        r.finalResidual = sys.gSum(detail::HalfStepResidual{rA, AyA, sA, alpha}, coupling)/normFactor;
        if (stopOnNonFinite(r))
        {
            break;
        }
        if (r.nIterations >= c.minIter
         && (r.converged = isConverged(r.finalResidual, r.initialResidual, c)))
        {
            forEach<B>(0, n, detail::AddScaled{yA, psi, alpha});
            ++r.nIterations;
            return;
        }

        // zA = M^-1 sA;  tA = A zA;  omega = tA.sA/tA.tA
        M.apply(zA, sA);
        sys.amul(tA, zA, coupling);
        const double tAtA = sys.gSum(detail::SumSqr{tA}, coupling);
        omega = sys.gSum(detail::Dot{tA, sA}, coupling)/tAtA;

        // psi += alpha*yA + omega*zA;  rA = sA - omega*tA
        r.finalResidual = sys.gSum(detail::UpdateStab{yA, zA, sA, tA, psi, rA, alpha, omega}, coupling)/normFactor;
        if (stopOnNonFinite(r))
        {
            break;
        }
    } while (continueIterating(r, c));
}

} // namespace gpuLdu

#endif
