// SPDX-License-Identifier: GPL-3.0-or-later
// The Krylov methods, one entry each (its keyword, the matrices OpenFOAM registers it for, its
// loop: in its own file, krylov/<Name>.hpp). The one list to extend when adding one
// (registry/Registry.hpp says what an entry carries; a method's entry has
// template<class B> static void loop(KrylovSolve<B>&, const SolverControls&, SolveResult&),
// run from the start every solve shares, LduSystemImpl::solveResident). Every method table,
// listing and the matrices each takes are generated from it, listed in list order.

#ifndef GPULDU_KRYLOVMETHODLIST_HPP
#define GPULDU_KRYLOVMETHODLIST_HPP

#include "krylov/PBiCG.hpp"
#include "krylov/PBiCGStab.hpp"
#include "krylov/Pcg.hpp"
#include "registry/Registry.hpp"

namespace gpuLdu
{

using KrylovMethodList = TypeList<
    krylovMethods::Pcg,
    krylovMethods::PBiCG,
    krylovMethods::PBiCGStab
>;

using KrylovMethodRegistry = Registry<KrylovMethodList, Listing::inListOrder>;

} // namespace gpuLdu

#endif
