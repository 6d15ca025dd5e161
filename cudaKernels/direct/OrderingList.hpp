// SPDX-License-Identifier: GPL-3.0-or-later
// The fill-reducing orderings of the sparse LDL^T factorisation, one entry each (its keyword
// and its permutation: in its own file under direct/orderings/). The one list to extend when
// adding one (registry/Registry.hpp says what an entry carries; an ordering has
// static std::vector<int> permutation(const Adjacency&), row i of P A P^T being row perm[i] of
// A, called by analyseLdlt on a pattern with at least one off-diagonal entry). Every ordering
// table and listing is generated from it, in list order. Included by the core's host code only
// (an ordering may include its library's header).

#ifndef GPULDU_ORDERINGLIST_HPP
#define GPULDU_ORDERINGLIST_HPP

#include "direct/orderings/Amd.hpp"
#include "direct/orderings/Metis.hpp"
#include "direct/orderings/Natural.hpp"
#include "registry/Registry.hpp"

namespace gpuLdu
{

using OrderingList = TypeList<
    orderings::Amd,
    orderings::Metis,
    orderings::Natural
>;

using OrderingRegistry = Registry<OrderingList, Listing::inListOrder>;

} // namespace gpuLdu

#endif
