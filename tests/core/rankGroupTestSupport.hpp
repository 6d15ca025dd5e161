// SPDX-License-Identifier: GPL-3.0-or-later
// What the rank group's tests share (rankGroupTest.cpp, groupMessagesTest.cpp): a rank's level
// made by hand.

#ifndef GPULDU_RANKGROUPTESTSUPPORT_HPP
#define GPULDU_RANKGROUPTESTSUPPORT_HPP

#include "gpuLdu/rankGroup.hpp"

#include <utility>
#include <vector>

namespace gpuLdu::test
{

//- A rank of nCells cells in a chain (faces (0,1), (1,2), ...) with the given patches
inline RankLevel chain(int nCells, std::vector<int> neighbour, std::vector<std::vector<int>> cells)
{
    RankLevel rank;
    rank.nCells = nCells;
    for (int i = 0; i + 1 < nCells; ++i)
    {
        rank.lower.push_back(i);
        rank.upper.push_back(i + 1);
    }
    rank.patchNeighbour = std::move(neighbour);
    rank.patchCells = std::move(cells);
    return rank;
}

using ints = std::vector<int>;

} // namespace gpuLdu::test

#endif
