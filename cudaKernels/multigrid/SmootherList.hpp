// SPDX-License-Identifier: GPL-3.0-or-later
// The GAMG smoothers, one entry each (its keywords, whether it is OpenFOAM's, whether the
// V-cycle divides by the diagonal under it, whether its sweeps may be recorded and replayed:
// recordable, false where not said; its class: in its own file under smoothers/). The
// one list to extend when adding one (registry/Registry.hpp and smoothers/SmootherLevel.hpp say
// what an entry and its class carry). Every smoother table and listing and the checkNative
// refusal are generated from it.

#ifndef GPULDU_SMOOTHERLIST_HPP
#define GPULDU_SMOOTHERLIST_HPP

#include "multigrid/smoothers/Chebyshev.hpp"
#include "multigrid/smoothers/GaussSeidel.hpp"
#include "multigrid/smoothers/IncompleteFactor.hpp"
#include "multigrid/smoothers/IncompleteFactorGaussSeidel.hpp"
#include "multigrid/smoothers/L1Jacobi.hpp"
#include "registry/Registry.hpp"

namespace gpuLdu
{

using SmootherList = TypeList<
    smoothers::GaussSeidel,
    smoothers::SymGaussSeidel,
    smoothers::IncompleteFactor,
    smoothers::IncompleteFactorGaussSeidel,
    smoothers::L1Jacobi,
    smoothers::Chebyshev
>;

using SmootherRegistry = Registry<SmootherList>;

static_assert(sameKeyword(SmootherRegistry::First::variants[0].name, "GaussSeidel"),
              "GamgSmoother's default (id 0) is GaussSeidel: the list's first entry");

} // namespace gpuLdu

#endif
