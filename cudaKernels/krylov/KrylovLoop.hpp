// SPDX-License-Identifier: GPL-3.0-or-later
// What OpenFOAM's Krylov loops (Pcg.hpp, PBiCG.hpp, PBiCGStab.hpp) work with on a backend B,
// and the end of an iteration they share (src/OpenFOAM/matrices/lduMatrix/solvers/PCG/PCG.C and
// its siblings): the operator with its coupled interfaces, the preconditioner, the sums kept on
// the device, the vectors of the solve, normFactor; the convergence, singularity and
// non-finite tests.

#ifndef GPULDU_KRYLOVLOOP_HPP
#define GPULDU_KRYLOVLOOP_HPP

#include "krylov/VectorOps.hpp"
#include "precond/Preconditioners.hpp"

#include <cmath>
#include <deque>
#include <vector>

namespace gpuLdu
{

//- y = A x and y = A^T x on backend vectors, the coupled interfaces included: OpenFOAM's Amul
//  and Tmul
class LinearOperator
{
public:
    virtual ~LinearOperator() = default;
    virtual void amul(double* y, const double* x) = 0;
    virtual void tmul(double* y, const double* x) = 0;
};

//- The sums of a loop over the rows of this system, global over all ranks. Where they stay on the
//  backend (the sums local to this system, or summed with the other systems' there: the
//  owners' NCCL between groups), each part's (rank's) sum goes to its slot among all the
//  systems' parts (LduSystem::setParts, setPartSlots), the slot vectors are summed across the
//  systems (each value in one system's slot, zeros elsewhere: exact) and the total is taken in
//  slot order: the same bits whichever systems hold which parts (one GPU or several), and a
//  sum into a scalar stays on the device, where the next kernels read it (values()). Else the
//  parts' partials go to the host for the coupling's sum (OpenFOAM's reduce) and it comes back.
template<class B>
class DeviceScalars
{
public:
    //- Whether the sums of a system under a coupling stay on the backend (sums local, or
    //  across on the backend): no wait for the host
    static bool stayOnBackend(const Coupling& coupling)
    {
        return coupling.sumsAreLocal() || coupling.exchangesOnBackend(B::executor);
    }

private:
    typename B::Workspace& ws_;
    const Coupling& coupling_;
    //- The parts' row starts (LduSystem::setParts); their partial sums on the host
    const std::vector<int>& starts_;
    std::vector<double> partials_;

    int nParts() const
    {
        return int(starts_.size()) - 1;
    }

    //- Scalars [slot, slot + count) = the sums of fs (count of them) over all the systems'
    //  parts, on the backend
    template<class... F>
    void sumOnBackend(int slot, const F&... fs)
    {
        constexpr int count = int(sizeof...(F));
        if (coupling_.sumsAreLocal())
        {
            ws_.sumParts(fs..., slot);
            return;
        }
        ws_.sumParts(fs..., -1);
        coupling_.sumOnBackend(ws_.slotSums(), count*ws_.nSlots());
        ws_.totalSlots(count, slot);
    }

public:
    DeviceScalars(typename B::Workspace& ws, const Coupling& coupling, const std::vector<int>& starts)
    :
        ws_(ws),
        coupling_(coupling),
        starts_(starts),
        partials_(starts.size() - 1)
    {}

    //- scalar `slot` = sum over all ranks of f(i), i over the rows
    template<class F>
    void sumInto(const F& f, int slot)
    {
        if (stayOnBackend(coupling_))
        {
            sumOnBackend(slot, f);
        }
        else
        {
            ws_.store(slot, gSum(f));
        }
    }

    //- Scalars `slot` and `slot + 1` = the sums over all ranks of f(i) and of g(i): one pass
    //  over the rows (and one sum across) where they stay on the backend
    template<class F, class G>
    void sumInto(const F& f, const G& g, int slot)
    {
        if (stayOnBackend(coupling_))
        {
            sumOnBackend(slot, f, g);
        }
        else
        {
            sumInto(f, slot);
            sumInto(g, slot + 1);
        }
    }

    //- The sum over all ranks of f(i), i over the rows, on the host
    template<class F>
    double gSum(const F& f)
    {
        if (stayOnBackend(coupling_))
        {
            constexpr int slot = B::Workspace::hostScalar;
            sumOnBackend(slot, f);
            double sum = 0;
            ws_.fetch(slot, 1, &sum);
            return sum;
        }
        ws_.partSums(f, partials_.data());
        return coupling_.sum(partials_.data(), nParts());
    }

    //- The number of rows over all ranks (OpenFOAM's reduced size of a field)
    double gCount()
    {
        for (int p = 0; p < nParts(); ++p)
        {
            partials_[p] = starts_[p + 1] - starts_[p];
        }
        return coupling_.sum(partials_.data(), nParts());
    }

    //- The scalars on the device, for the kernels
    const double* values() const
    {
        return ws_.scalars();
    }

    //- Scalars [first, first + count) to the host (one transfer)
    void fetch(int first, int count, double* host)
    {
        ws_.fetch(first, count, host);
    }
};

//- The work vectors of a loop, n values each, allocated on first use and kept for the next solve
//  (a deque: growing it keeps the earlier vectors where they are)
template<class B>
class WorkVectors
{
    int n_;
    std::deque<typename B::template Vector<double>> v_;

public:
    explicit WorkVectors(int n)
    :
        n_(n)
    {}

    double* operator()(std::size_t k)
    {
        if (v_.size() <= k)
        {
            v_.resize(k + 1);
        }
        if (int(v_[k].size()) != n_)
        {
            v_[k].resize(n_);
        }
        return ptr(v_[k]);
    }
};

//- One solve as a loop sees it: psi the initial guess, rA = source - A psi, wA free
template<class B>
struct KrylovSolve
{
    int n;
    LinearOperator& A;
    const Preconditioners<B>& M;
    DeviceScalars<B>& scalars;
    WorkVectors<B>& work;
    double* psi;
    const double* source;
    double* rA;
    double* wA;
    //- OpenFOAM's normFactor of this solve
    double normFactor;
};

// The tests below use quiet comparisons on the host (std::isless): OpenFOAM runs with floating-
// point exceptions trapped, and an ordinary comparison with NaN raises one.

namespace detail
{

//- a < b, quietly false for a NaN on the host
GPULDU_HD inline bool quietLess(double a, double b)
{
#ifdef GPULDU_DEVICE_PASS
    return a < b;
#else
    return std::isless(a, b);
#endif
}

} // namespace detail

//- OpenFOAM's SolverPerformance::checkConvergence (also on the device: CoarsestPcg's team).
GPULDU_HD inline bool isConverged(double finalResidual, double initialResidual, const SolverControls& c)
{
    return detail::quietLess(finalResidual, c.tolerance)
        || (c.relTol > 1e-20 && detail::quietLess(finalResidual, c.relTol*initialResidual));
}

//- A residual that is NaN or infinite ends the loop (counted as an iteration).
inline bool stopOnNonFinite(SolveResult& r)
{
    if (std::isfinite(r.finalResidual))
    {
        return false;
    }
    r.nonFinite = true;
    ++r.nIterations;
    return true;
}

//- OpenFOAM's loop condition: (++nIter < maxIter && !converged) || nIter < minIter, with
//  converged evaluated (and recorded) only when the first part gets to it.
inline bool continueIterating(SolveResult& r, const SolverControls& c)
{
    return (++r.nIterations < c.maxIter
            && !(r.converged = isConverged(r.finalResidual, r.initialResidual, c)))
        || r.nIterations < c.minIter;
}

//- The residual of a step from its sum of |r|; whether the loop stops on it (not finite)
inline bool residualStops(SolveResult& r, double residualSum, double normFactor)
{
    r.finalResidual = residualSum/normFactor;
    return stopOnNonFinite(r);
}

//- The end of a step whose update divides by a sum (PCG, PBiCG: wA.pA; PBiCGStab's half step:
//  rA0.rA): that sum (scalar `divisor`) and the residual sum (the scalar after it) to the host in
//  one transfer; the loop stops as singular where |divisor|/divisorNorm is (OpenFOAM's
//  checkSingularity; the update kernels skipped themselves there), and on a non-finite residual.
template<class B>
bool stepStops(DeviceScalars<B>& scalars, int divisor, double divisorNorm, SolveResult& r, double normFactor)
{
    double divisorAndResidual[2];
    scalars.fetch(divisor, 2, divisorAndResidual);
    if (detail::isSingular(std::abs(divisorAndResidual[0])/divisorNorm))
    {
        r.singular = true;
        return true;
    }
    return residualStops(r, divisorAndResidual[1], normFactor);
}

} // namespace gpuLdu

#endif
