// SPDX-License-Identifier: GPL-3.0-or-later
// The METIS ordering: nested dissection (METIS_NodeND): less fill and wider levels than AMD on
// meshes.

#ifndef GPULDU_ORDERINGS_METIS_HPP
#define GPULDU_ORDERINGS_METIS_HPP

#include "direct/orderings/Adjacency.hpp"
#include "registry/Registry.hpp"

#include <metis.h>

#include <string>

namespace gpuLdu
{
namespace orderings
{

struct Metis
{
    static constexpr Variant variants[] = {{"METIS", Takes::both, nullptr}};

    //- Row i of P A P^T is row perm[i] of A
    static std::vector<int> permutation(const Adjacency& adj)
    {
        const int n = adj.n();
        // METIS takes non-const arrays it does not change
        idx_t nv = n;
        std::vector<idx_t> xadj(adj.start.begin(), adj.start.end());
        std::vector<idx_t> adjncy(adj.rows.begin(), adj.rows.end());
        std::vector<idx_t> p(n), ip(n);
        const int status = METIS_NodeND(&nv, xadj.data(), adjncy.data(), nullptr, nullptr, p.data(), ip.data());
        if (status != METIS_OK)
        {
            throw Error("gpuLdu: METIS nested dissection of " + std::to_string(n) + " columns failed (status "
                        + std::to_string(status) + (status == METIS_ERROR_MEMORY ? ": out of memory)" : ")"));
        }
        return std::vector<int>(p.begin(), p.end());
    }
};

} // namespace orderings
} // namespace gpuLdu

#endif
