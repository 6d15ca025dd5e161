// SPDX-License-Identifier: GPL-3.0-or-later
// What an LDL^T ordering (direct/OrderingList.hpp) permutes: the symmetric adjacency of a
// pattern.

#ifndef GPULDU_ORDERINGS_ADJACENCY_HPP
#define GPULDU_ORDERINGS_ADJACENCY_HPP

#include <vector>

namespace gpuLdu
{

//- The symmetric adjacency of a pattern of n columns: both triangles, no diagonal, each
//  column's rows ascending and unique (CSC; also METIS's xadj/adjncy)
struct Adjacency
{
    std::vector<int> start;
    std::vector<int> rows;

    int n() const
    {
        return int(start.size()) - 1;
    }
};

} // namespace gpuLdu

#endif
