// SPDX-License-Identifier: GPL-3.0-or-later
// A group's exchange with the other groups (gpuLdu/rankGroup.hpp, GroupHalo): which values of a
// level go to which neighbouring group's owner, and where the values that come back sit in the
// halo, both found by the two owners alike from their own ranks' patches.

#include "gpuLdu/rankGroup.hpp"

#include <algorithm>
#include <string>
#include <tuple>

namespace gpuLdu
{

namespace
{

//- A patch of the group to a rank of another group: the pair it joins (mesh ranks: this group's
//  rank, the other group's), which of the patches between them it is (q-th in patch order), and
//  where it is here (group rank, patch index)
struct RemoteFaces
{
    int owner;    //!< the other group's owner
    int mine;     //!< mesh rank of the group's rank
    int theirs;   //!< mesh rank across
    int q;
    int r;
    int patchi;
};

//- The group's patches to other groups, checked against world
std::vector<RemoteFaces> remoteFaces(const std::vector<RankLevel>& ranks, const GroupWorld& world)
{
    std::vector<RemoteFaces> faces;
    for (int r = 0; r < int(ranks.size()); ++r)
    {
        const std::vector<int>& nbr = ranks[r].patchNeighbour;
        for (int patchi = 0; patchi < int(nbr.size()); ++patchi)
        {
            if (!isRemotePatch(nbr[patchi]))
            {
                continue;
            }
            const int theirs = remoteRank(nbr[patchi]);
            if (r >= int(world.rank.size()) || theirs >= int(world.ownerOf.size()))
            {
                throw Error
                (
                    "gpuLdu: group rank " + std::to_string(r) + " has a patch to mesh rank "
                  + std::to_string(theirs) + " of another group, outside the group's world ("
                  + std::to_string(world.rank.size()) + " ranks here of "
                  + std::to_string(world.ownerOf.size()) + ")"
                );
            }
            const int owner = world.ownerOf[theirs];
            if (owner == world.ownerOf[world.rank[r]])
            {
                throw Error
                (
                    "gpuLdu: group rank " + std::to_string(r) + "'s patch " + std::to_string(patchi)
                  + " to mesh rank " + std::to_string(theirs) + " of its own group is marked"
                    " as a patch to another group"
                );
            }
            const int q = patchOrdinal(nbr, patchi);
            faces.push_back({owner, world.rank[r], theirs, q, r, patchi});
        }
    }
    return faces;
}

} // namespace


GroupHalo planHalo
(
    const std::vector<RankLevel>& ranks,
    const std::vector<int>& rowStart,
    const GroupWorld& world,
    std::vector<int>& haloSend,
    std::vector<std::vector<int>>& haloStart
)
{
    std::vector<RemoteFaces> faces = remoteFaces(ranks, world);
    haloSend.clear();
    haloStart.assign(ranks.size(), std::vector<int>());
    for (std::size_t r = 0; r < ranks.size(); ++r)
    {
        haloStart[r].assign(ranks[r].patchNeighbour.size(), -1);
    }

    GroupHalo halo;
    for (const RemoteFaces& f : faces)
    {
        halo.neighbours.push_back(f.owner);
    }
    std::sort(halo.neighbours.begin(), halo.neighbours.end());
    halo.neighbours.erase
    (
        std::unique(halo.neighbours.begin(), halo.neighbours.end()), halo.neighbours.end()
    );

    const auto size = [&](const RemoteFaces& f)
    {
        return int(ranks[f.r].patchCells[f.patchi].size());
    };
    for (const int owner : halo.neighbours)
    {
        // a message holds the pairs (sender's rank, receiver's rank, q) in ascending order:
        // ours to them as (mine, theirs, q), theirs to us as (theirs, mine, q)
        std::vector<RemoteFaces> with;
        std::copy_if(faces.begin(), faces.end(), std::back_inserter(with),
                     [owner](const RemoteFaces& f) { return f.owner == owner; });
        std::sort(with.begin(), with.end(), [](const RemoteFaces& a, const RemoteFaces& b)
        {
            return std::tie(a.mine, a.theirs, a.q) < std::tie(b.mine, b.theirs, b.q);
        });
        for (const RemoteFaces& f : with)
        {
            for (const int cell : ranks[f.r].patchCells[f.patchi])
            {
                haloSend.push_back(rowStart[f.r] + cell);
            }
        }
        halo.sendStart.push_back(int(haloSend.size()));

        std::sort(with.begin(), with.end(), [](const RemoteFaces& a, const RemoteFaces& b)
        {
            return std::tie(a.theirs, a.mine, a.q) < std::tie(b.theirs, b.mine, b.q);
        });
        int at = halo.recvStart.back();
        for (const RemoteFaces& f : with)
        {
            haloStart[f.r][f.patchi] = at;
            at += size(f);
        }
        halo.recvStart.push_back(at);
    }
    return halo;
}

} // namespace gpuLdu
