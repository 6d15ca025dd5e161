// SPDX-License-Identifier: GPL-3.0-or-later
// The AMD ordering: approximate minimum degree (SuiteSparse's amd_order).

#ifndef GPULDU_ORDERINGS_AMD_HPP
#define GPULDU_ORDERINGS_AMD_HPP

#include "direct/orderings/Adjacency.hpp"
#include "registry/Registry.hpp"

#include <amd.h>

#include <string>

namespace gpuLdu
{
namespace orderings
{

struct Amd
{
    static constexpr Variant variants[] = {{"AMD", Takes::both, nullptr}};

    //- Row i of P A P^T is row perm[i] of A
    static std::vector<int> permutation(const Adjacency& adj)
    {
        const int n = adj.n();
        std::vector<int> perm(n);
        const int status = amd_order(n, adj.start.data(), adj.rows.data(), perm.data(), nullptr, nullptr);
        if (status != AMD_OK && status != AMD_OK_BUT_JUMBLED)
        {
            throw Error("gpuLdu: AMD ordering of " + std::to_string(n) + " columns failed (status "
                        + std::to_string(status) + (status == AMD_OUT_OF_MEMORY ? ": out of memory)" : ")"));
        }
        return perm;
    }
};

} // namespace orderings
} // namespace gpuLdu

#endif
