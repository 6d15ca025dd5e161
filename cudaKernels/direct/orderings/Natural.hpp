// SPDX-License-Identifier: GPL-3.0-or-later
// The natural ordering: none (P = I), for tests and for matrices already ordered.

#ifndef GPULDU_ORDERINGS_NATURAL_HPP
#define GPULDU_ORDERINGS_NATURAL_HPP

#include "direct/orderings/Adjacency.hpp"
#include "registry/Registry.hpp"

#include <numeric>

namespace gpuLdu
{
namespace orderings
{

struct Natural
{
    static constexpr Variant variants[] = {{"natural", Takes::both, nullptr}};

    //- perm[i] = i
    static std::vector<int> permutation(const Adjacency& adj)
    {
        std::vector<int> perm(adj.n());
        std::iota(perm.begin(), perm.end(), 0);
        return perm;
    }
};

} // namespace orderings
} // namespace gpuLdu

#endif
