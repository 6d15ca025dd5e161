// SPDX-License-Identifier: GPL-3.0-or-later
// What a GAMG smoother works with on one level (GamgHierarchyImpl gives it): the level's system and
// coupling, three work vectors and one for b' (each of the finest level's size, shared by the
// levels), whether the matrix is symmetric, the V-cycle's count of level-schedule steps, and
// whether the level smooths a correction (every level but the finest).
// A smoother class (smoothers/*.hpp, listed in multigrid/SmootherList.hpp) is default
// constructed once per level and has
//   setup(level)                          its numeric part, per solve, from the level's values
//   smooth(level, psi, b, nSweeps)        nSweeps sweeps of psi towards A psi = b

#ifndef GPULDU_SMOOTHERLEVEL_HPP
#define GPULDU_SMOOTHERLEVEL_HPP

#include "krylov/LduSystemImpl.hpp"

#include <thrust/copy.h>

namespace gpuLdu
{

template<class B>
struct SmootherLevel
{
    LduSystemImpl<B>& system;
    const Coupling& coupling;
    double* work[3];
    double* interfaceSource;
    bool symmetric;
    long* sweepLevels;
    //- Whether psi is a correction (a coarse level: b a restricted residual), not the solution
    //  itself (the finest level, b the system's source)
    bool correction;

    //- The source a sweep reads: b itself, or where the level has coupled interfaces b' = b
    //  plus their terms of x (the Gauss-Seidel smoothers' bPrime, OpenFOAM's interface update
    //  with add = false), in interfaceSource
    const double* sourceWithInterfaces(const double* b, const double* x) const
    {
        if (!system.hasInterfaces(coupling))
        {
            return b;
        }
        thrust::copy_n(B::policy(), b, system.n(), interfaceSource);
        system.addInterfaceResidual(interfaceSource, x, coupling);
        return interfaceSource;
    }
};

} // namespace gpuLdu

#endif
