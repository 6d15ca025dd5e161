// SPDX-License-Identifier: GPL-3.0-or-later
// The sequential reference of the Krylov solvers: OpenFOAM v1912's PCG, PBiCG and PBiCGStab
// loops (src/OpenFOAM/matrices/lduMatrix/solvers/PCG/PCG.C, PBiCG/PBiCG.C,
// PBiCGStab/PBiCGStab.C) written out plainly on testSupport.hpp's face loops, with the release
// choices the controls make; the suite KrylovTest.

#ifndef GPULDU_REFERENCEKRYLOV_HPP
#define GPULDU_REFERENCEKRYLOV_HPP

#include "testSupport.hpp"

#include <cmath>
#include <vector>

namespace gpuLdu::test
{

//- OpenFOAM's PCG, PBiCG or PBiCGStab::solve (serial), as written in v1912. The controls'
//  release choices: normalised = false is ESI's "norm none" (normFactor 1 throughout);
//  halfStepCountsItself = true is the Foundation's (12+) PBiCGStab, whose half step counts the
//  iteration before its minIter test and whose loop test does not count again. residuals, where
//  given, gets every residual the loop computes, in order (PBiCGStab: half step, full step).
//  One loop per method; what they share (the start, the loop test, the record) is the class's.
class ReferenceKrylov
{
    const LduProblem& p_;
    const int n_;
    std::vector<double>& psi_;
    const std::vector<double>& source_;
    const SolverControls& c_;
    const Preconditioner type_;
    std::vector<double>* residuals_;
    SolveResult res_;
    double normFactor_ = 1.0;
    // the residual b - A psi
    std::vector<double> rA_;

public:
    ReferenceKrylov(const LduProblem& p, std::vector<double>& psi, const std::vector<double>& source,
                    const SolverControls& c, Preconditioner type, std::vector<double>* residuals)
    :
        p_(p),
        n_(p.nCells),
        psi_(psi),
        source_(source),
        c_(c),
        type_(type),
        residuals_(residuals),
        rA_(p.nCells)
    {}

    SolveResult solve(KrylovMethod method)
    {
        const std::vector<double> wA = referenceAmul(p_, psi_);
        for (int i = 0; i < n_; ++i)
        {
            rA_[i] = source_[i] - wA[i];
        }
        normFactor_ = c_.normalised ? referenceNormFactor(p_, psi_, wA, source_) : 1.0;
        res_.initialResidual = res_.finalResidual = sumMag(rA_)/normFactor_;
        res_.converged = isConverged(res_.finalResidual, res_.initialResidual, c_);
        if (!(c_.minIter > 0 || !res_.converged))
        {
            return res_;
        }
        const ReferencePreconditioner M(p_, type_);
        if (method == KrylovMethod::named("PCG"))
        {
            pcg(M);
        }
        else if (method == KrylovMethod::named("PBiCG"))
        {
            pbicg(M);
        }
        else
        {
            pbicgStab(M);
        }
        return res_;
    }

private:
    //- The residual just computed into residuals
    void record()
    {
        if (residuals_)
        {
            residuals_->push_back(res_.finalResidual);
        }
    }

    //- OpenFOAM's loop test: ++nIterations < maxIter and not converged, or below minIter
    bool loopCondition()
    {
        return (++res_.nIterations < c_.maxIter
                && !(res_.converged = isConverged(res_.finalResidual, res_.initialResidual, c_)))
            || res_.nIterations < c_.minIter;
    }

    //- The Foundation's PBiCGStab loop test (solverPerf.nIterations() < maxIter_, no
    //  increment): its half step has counted the iteration
    bool foundationLoopCondition()
    {
        return (res_.nIterations < c_.maxIter
                && !(res_.converged = isConverged(res_.finalResidual, res_.initialResidual, c_)))
            || res_.nIterations < c_.minIter;
    }

    //- PCG.C's loop
    void pcg(const ReferencePreconditioner& M)
    {
        std::vector<double> pA(n_), wA;
        double wArA = 1e20;
        do
        {
            const double wArAold = wArA;
            wA = M.apply(rA_);
            wArA = sumProd(wA, rA_);
            for (int i = 0; i < n_; ++i)
            {
                pA[i] = res_.nIterations == 0 ? wA[i] : wA[i] + (wArA/wArAold)*pA[i];
            }
            wA = referenceAmul(p_, pA);
            const double wApA = sumProd(wA, pA);
            if (std::abs(wApA)/normFactor_ < 1e-300)
            {
                res_.singular = true;
                break;
            }
            const double alpha = wArA/wApA;
            for (int i = 0; i < n_; ++i)
            {
                psi_[i] += alpha*pA[i];
                rA_[i] -= alpha*wA[i];
            }
            res_.finalResidual = sumMag(rA_)/normFactor_;
            record();
        } while (loopCondition());
    }

    //- PBiCG.C's loop: the transposed residual rT beside rA
    void pbicg(const ReferencePreconditioner& M)
    {
        std::vector<double> pA(n_), wA;
        std::vector<double> pT(n_, 0.0);
        std::vector<double> wT = referenceTmul(p_, psi_);
        std::vector<double> rT(n_);
        for (int i = 0; i < n_; ++i)
        {
            rT[i] = source_[i] - wT[i];
        }
        double wArT = 0;
        do
        {
            const double wArTold = wArT;
            wA = M.apply(rA_);
            wT = M.apply(rT, true);
            wArT = sumProd(wA, rT);
            for (int i = 0; i < n_; ++i)
            {
                pA[i] = res_.nIterations == 0 ? wA[i] : wA[i] + (wArT/wArTold)*pA[i];
                pT[i] = res_.nIterations == 0 ? wT[i] : wT[i] + (wArT/wArTold)*pT[i];
            }
            wA = referenceAmul(p_, pA);
            wT = referenceTmul(p_, pT);
            const double wApT = sumProd(wA, pT);
            if (std::abs(wApT)/normFactor_ < 1e-300)
            {
                res_.singular = true;
                break;
            }
            const double alpha = wArT/wApT;
            for (int i = 0; i < n_; ++i)
            {
                psi_[i] += alpha*pA[i];
                rA_[i] -= alpha*wA[i];
                rT[i] -= alpha*wT[i];
            }
            res_.finalResidual = sumMag(rA_)/normFactor_;
            record();
        } while (loopCondition());
    }

    //- PBiCGStab's half-step exit: converged at s (psi += alpha y), counted as its release
    //  counts it (halfStepCountsItself: the Foundation 12+, ++nIterations >= minIter &&
    //  checkConvergence; else v1912, ESI: the iterations before this one tested, this one
    //  counted on exit)
    bool halfStepConverged(double alpha, const std::vector<double>& yA)
    {
        const bool counted = c_.halfStepCountsItself;
        if ((counted ? ++res_.nIterations : res_.nIterations) >= c_.minIter
         && (res_.converged = isConverged(res_.finalResidual, res_.initialResidual, c_)))
        {
            for (int i = 0; i < n_; ++i)
            {
                psi_[i] += alpha*yA[i];
            }
            if (!counted)
            {
                res_.nIterations++;
            }
            return true;
        }
        return false;
    }

    //- PBiCGStab.C's loop: the half step s = r - alpha A y, then the full step
    void pbicgStab(const ReferencePreconditioner& M)
    {
        std::vector<double> pA(n_), yA, AyA(n_), sA(n_), zA, tA;
        const std::vector<double> rA0(rA_);
        double rA0rA = 0;
        double alpha = 0;
        double omega = 0;
        do
        {
            const double rA0rAold = rA0rA;
            rA0rA = sumProd(rA0, rA_);
            if (std::abs(rA0rA) < 1e-300)
            {
                res_.singular = true;
                break;
            }
            if (res_.nIterations == 0)
            {
                pA = rA_;
            }
            else
            {
                if (std::abs(omega) < 1e-300)
                {
                    res_.singular = true;
                    break;
                }
                const double beta = (rA0rA/rA0rAold)*(alpha/omega);
                for (int i = 0; i < n_; ++i)
                {
                    pA[i] = rA_[i] + beta*(pA[i] - omega*AyA[i]);
                }
            }
            yA = M.apply(pA);
            AyA = referenceAmul(p_, yA);
            alpha = rA0rA/sumProd(rA0, AyA);
            for (int i = 0; i < n_; ++i)
            {
                sA[i] = rA_[i] - alpha*AyA[i];
            }
            res_.finalResidual = sumMag(sA)/normFactor_;
            record();
            if (halfStepConverged(alpha, yA))
            {
                return;
            }
            zA = M.apply(sA);
            tA = referenceAmul(p_, zA);
            double tAtA = 0;
            for (double t : tA)
            {
                tAtA += t*t;
            }
            omega = sumProd(tA, sA)/tAtA;
            for (int i = 0; i < n_; ++i)
            {
                psi_[i] += alpha*yA[i] + omega*zA[i];
                rA_[i] = sA[i] - omega*tA[i];
            }
            res_.finalResidual = sumMag(rA_)/normFactor_;
            record();
        } while (c_.halfStepCountsItself ? foundationLoopCondition() : loopCondition());
    }
};

//- OpenFOAM's loop of the method (ReferenceKrylov) from psi; psi gets the solution
inline SolveResult referenceSolve(
    KrylovMethod method, const LduProblem& p, std::vector<double>& psi,
    const std::vector<double>& source, const SolverControls& c, Preconditioner type,
    std::vector<double>* residuals = nullptr)
{
    return ReferenceKrylov(p, psi, source, c, type, residuals).solve(method);
}

//- The fixture of the Krylov suites (krylovTest.cpp, krylovCouplingTest.cpp)
template<class B>
class KrylovTest : public ::testing::Test {};
TYPED_TEST_SUITE(KrylovTest, Backends);

} // namespace gpuLdu::test

#endif
