// SPDX-License-Identifier: GPL-3.0-or-later
// The element-wise steps and reduction terms of the Krylov loops, each OpenFOAM's expression
// (same operands, same order), so that the CPU backend reproduces OpenFOAM's numbers.

#ifndef GPULDU_VECTOROPS_HPP
#define GPULDU_VECTOROPS_HPP

#include "backend/Backend.hpp"

#include <cmath>

namespace gpuLdu
{

namespace detail
{

GPULDU_HD inline double magnitude(double x)
{
    return x < 0 ? -x : x;
}

//- OpenFOAM's SolverPerformance::checkSingularity: below VSMALL (false for a NaN). On the host a
//  quiet comparison (std::isless): OpenFOAM runs with floating-point exceptions trapped, and an
//  ordinary comparison with NaN raises one.
GPULDU_HD inline bool isSingular(double x)
{
#ifdef GPULDU_DEVICE_PASS
    return x < 1e-300;
#else
    return std::isless(x, 1e-300);
#endif
}

//- r = b - Ax
struct Residual
{
    const double* b;
    const double* Ax;
    double* r;

    GPULDU_HD void operator()(int i) const
    {
        r[i] = b[i] - Ax[i];
    }
};

struct Sum
{
    const double* x;

    GPULDU_HD double operator()(int i) const
    {
        return x[i];
    }
};

struct SumMag
{
    const double* x;

    GPULDU_HD double operator()(int i) const
    {
        return x[i] < 0 ? -x[i] : x[i];
    }
};

struct Dot
{
    const double* x;
    const double* y;

    GPULDU_HD double operator()(int i) const
    {
        return x[i]*y[i];
    }
};

//- |Ax - sumA*xRef| + |b - sumA*xRef|, summed for OpenFOAM's normFactor.
struct NormFactorTerm
{
    const double* sumA;
    const double* Ax;
    const double* b;
    double xRef;

    GPULDU_HD double operator()(int i) const
    {
        const double t = sumA[i]*xRef;
        const double a = Ax[i] - t;
        const double c = b[i] - t;
        return (a < 0 ? -a : a) + (c < 0 ? -c : c);
    }
};

//- The sums a Krylov loop's row steps read, as the backend keeps them: on the device each row reads
//  them where they are (the kernels are launched before the host knows them); on the host a step
//  holds their values (held), read once when it is made, so that its loop takes OpenFOAM's
//  quotients once and not at every row (the compiler cannot hoist a value read through a pointer
//  the loop might write through). The same quotients either way, to the bit.
template<int N>
struct HeldScalars
{
    const double* s;
    double held[N];

    GPULDU_HD double operator[](int k) const
    {
        return s ? s[k] : held[k];
    }
};

//- The scalars at s, as a row step on backend B takes them (HeldScalars): read through s on the
//  device, held on the host
template<class B, int N>
HeldScalars<N> scalarsFor(const double* s)
{
    HeldScalars<N> h{};
    if constexpr (B::executor == Executor::cpu)
    {
        for (int k = 0; k < N; ++k)
        {
            h.held[k] = s[k];
        }
    }
    else
    {
        h.s = s;
    }
    return h;
}

//- PCG's and PBiCG's sums as they stay on the device (DeviceScalars, krylov/KrylovLoop.hpp):
//  wA.rA (PBiCG: wA.rT) of iteration k at wArA(k), the previous iteration's at the other of the
//  two, wA.pA (PBiCG: wA.pT) at wApA and the residual sum right after it (stepStops reads the two
//  together). beta and alpha are OpenFOAM's quotients, taken where they are used; a row step
//  takes the scalars as they are when it is made (at).
struct CgScalars
{
    enum Slot : int
    {
        wArAEven,
        wArAOdd,
        wApA,
        residualSum
    };

    GPULDU_HD static constexpr int wArA(int iteration)
    {
        return iteration % 2 == 0 ? wArAEven : wArAOdd;
    }

    HeldScalars<3> s;
    //- wArA(k) of this iteration k
    int now;
    double normFactor;

    template<class B>
    static CgScalars at(const double* s, int now, double normFactor)
    {
        return {scalarsFor<B, 3>(s), now, normFactor};
    }

    GPULDU_HD double beta() const
    {
        return s[now]/s[1 - now];
    }

    GPULDU_HD double alpha() const
    {
        return s[now]/s[wApA];
    }

    //- Where OpenFOAM's loop stops before the update: |wA.pA|/normFactor singular
    GPULDU_HD bool singular() const
    {
        return isSingular(magnitude(s[wApA])/normFactor);
    }
};

//- p = w (first iteration) or p = w + beta*p
struct UpdateSearchDirection
{
    const double* w;
    double* p;
    CgScalars sc;
    bool first;

    GPULDU_HD void operator()(int i) const
    {
        p[i] = first ? w[i] : w[i] + sc.beta()*p[i];
    }
};

//- psi += alpha*p; r -= alpha*w; returns |r| for the residual sum; nothing where wA.pA is
//  singular (OpenFOAM's loop stops before this step). 48 B/row.
struct UpdateSolutionAndResidual
{
    const double* p;
    const double* w;
    double* psi;
    double* r;
    CgScalars sc;

    GPULDU_HD double operator()(int i) const
    {
        if (!sc.singular())
        {
            const double alpha = sc.alpha();
            psi[i] += alpha*p[i];
            r[i] -= alpha*w[i];
        }
        return r[i] < 0 ? -r[i] : r[i];
    }
};

//- pA = wA (first iteration) or wA + beta*pA, and the same for the T vectors (PBiCG).
struct UpdateSearchDirections
{
    const double* wA;
    const double* wT;
    double* pA;
    double* pT;
    CgScalars sc;
    bool first;

    GPULDU_HD void operator()(int i) const
    {
        const double beta = first ? 0 : sc.beta();
        pA[i] = first ? wA[i] : wA[i] + beta*pA[i];
        pT[i] = first ? wT[i] : wT[i] + beta*pT[i];
    }
};

//- psi += alpha*pA; rA -= alpha*wA; rT -= alpha*wT; returns |rA|; nothing where wA.pT is
//  singular (PBiCG).
struct UpdateBiCG
{
    const double* pA;
    const double* wA;
    const double* wT;
    double* psi;
    double* rA;
    double* rT;
    CgScalars sc;

    GPULDU_HD double operator()(int i) const
    {
        if (!sc.singular())
        {
            const double alpha = sc.alpha();
            psi[i] += alpha*pA[i];
            rA[i] -= alpha*wA[i];
            rT[i] -= alpha*wT[i];
        }
        return magnitude(rA[i]);
    }
};

//- PBiCGStab's sums as they stay on the device (DeviceScalars, krylov/KrylovLoop.hpp): rA0.rA
//  of iteration k at rA0rA(k) with that step's half-step residual sum right after it, the
//  previous iteration's pair at the other two; rA0.AyA, tA.tA, tA.sA and the final residual sum.
//  alpha, omega and beta are OpenFOAM's quotients, taken from the scalars where they are used.
struct StabScalars
{
    enum Slot : int
    {
        rA0rAEven,
        halfStepResidualEven,
        rA0rAOdd,
        halfStepResidualOdd,
        rA0AyA,
        tAtA,
        tAsA,
        residualSum
    };

    GPULDU_HD static constexpr int rA0rA(int iteration)
    {
        return iteration % 2 == 0 ? rA0rAEven : rA0rAOdd;
    }

    HeldScalars<7> s;
    //- rA0rA(k) of this iteration k
    int now;

    template<class B>
    static StabScalars at(const double* s, int now)
    {
        return {scalarsFor<B, 7>(s), now};
    }

    GPULDU_HD double alpha() const
    {
        return s[now]/s[rA0AyA];
    }

    GPULDU_HD double omega() const
    {
        return s[tAsA]/s[tAtA];
    }

    //- (rA0rA/rA0rAold)*(alpha/omega), with the previous iteration's alpha and omega (their
    //  scalars are not yet overwritten when the direction is updated)
    GPULDU_HD double beta() const
    {
        const int old = now == rA0rAEven ? rA0rAOdd : rA0rAEven;
        return (s[now]/s[old])*((s[old]/s[rA0AyA])/omega());
    }

    //- Where OpenFOAM's loop stops at the start of an iteration: rA0.rA, or (after the first)
    //  omega, singular
    GPULDU_HD bool singularStart(bool first) const
    {
        return isSingular(magnitude(s[now])) || (!first && isSingular(magnitude(omega())));
    }
};

//- pA = rA (first iteration) or rA + beta*(pA - omega*AyA); nothing where OpenFOAM's loop
//  stops first (StabScalars::singularStart)  (PBiCGStab)
struct UpdateStabDirection
{
    const double* rA;
    const double* AyA;
    double* pA;
    StabScalars sc;
    bool first;

    GPULDU_HD void operator()(int i) const
    {
        if (!sc.singularStart(first))
        {
            pA[i] = first ? rA[i] : rA[i] + sc.beta()*(pA[i] - sc.omega()*AyA[i]);
        }
    }
};

//- sA = rA - alpha*AyA; returns |sA|  (PBiCGStab)
struct HalfStepResidual
{
    const double* rA;
    const double* AyA;
    double* sA;
    StabScalars sc;

    GPULDU_HD double operator()(int i) const
    {
        sA[i] = rA[i] - sc.alpha()*AyA[i];
        return magnitude(sA[i]);
    }
};

//- psi += alpha*yA  (PBiCGStab, converged at the half step)
struct AddScaled
{
    const double* yA;
    double* psi;
    StabScalars sc;

    GPULDU_HD void operator()(int i) const
    {
        psi[i] += sc.alpha()*yA[i];
    }
};

//- psi += alpha*yA + omega*zA; rA = sA - omega*tA; returns |rA|  (PBiCGStab)
struct UpdateStab
{
    const double* yA;
    const double* zA;
    const double* sA;
    const double* tA;
    double* psi;
    double* rA;
    StabScalars sc;

    GPULDU_HD double operator()(int i) const
    {
        const double alpha = sc.alpha();
        const double omega = sc.omega();
        psi[i] += alpha*yA[i] + omega*zA[i];
        rA[i] = sA[i] - omega*tA[i];
        return magnitude(rA[i]);
    }
};

//- x^2
struct SumSqr
{
    const double* x;

    GPULDU_HD double operator()(int i) const
    {
        return x[i]*x[i];
    }
};

} // namespace detail

} // namespace gpuLdu

#endif
