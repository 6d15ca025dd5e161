// SPDX-License-Identifier: GPL-3.0-or-later
// The preconditioners, one entry each (its keywords, whether it is OpenFOAM's, what it is built
// on, its class: in its own file). The one list to extend when adding one (registry/Registry.hpp
// says what an entry carries; a preconditioner class has setup(pivotOf), apply and applyT).
// Every preconditioner table, listing and the checkNative refusal are generated from it.

#ifndef GPULDU_PRECONDITIONERLIST_HPP
#define GPULDU_PRECONDITIONERLIST_HPP

#include "precond/Diagonal.hpp"
#include "precond/DicDilu.hpp"
#include "precond/Ilu0.hpp"
#include "registry/Registry.hpp"

namespace gpuLdu
{

using PreconditionerList = TypeList<
    preconditioners::None,
    preconditioners::Diagonal,
    preconditioners::DicDilu,
    preconditioners::Ilu0
>;

using PreconditionerRegistry = Registry<PreconditionerList>;

static_assert(sameKeyword(PreconditionerRegistry::First::variants[0].name, "none"),
              "Preconditioner's default (id 0) is none: the list's first entry");

} // namespace gpuLdu

#endif
