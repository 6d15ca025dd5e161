// SPDX-License-Identifier: GPL-3.0-or-later
// The ranks of a group as one system (gpuLdu/rankGroup.hpp): the combined addressing, device
// coupling terms, host cells and fallback decision on small cases checked by hand, and the
// combined coarsening of a GAMG level; their messages: groupMessagesTest.cpp.
// (Plain host data: no backend takes part.)

#include "rankGroupTestSupport.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace gpuLdu::test
{


//- Two chains of two cells, one processor face between cell 1 of rank 0 and cell 0 of rank 1:
//  block diagonal addressing and one term each way
TEST(RankGroup, TwoRanksOneFace)
{
    const CombinedLevel c = combineRanks({chain(2, {1}, {{1}}), chain(2, {0}, {{0}})});
    EXPECT_FALSE(c.onHost);
    EXPECT_EQ(c.rowStart, (ints{0, 2, 4}));
    EXPECT_EQ(c.faceStart, (ints{0, 1, 2}));
    EXPECT_EQ(c.lower, (ints{0, 2}));
    EXPECT_EQ(c.upper, (ints{1, 3}));
    EXPECT_EQ(c.termStart, (ints{0, 1, 2}));
    EXPECT_EQ(c.couplings.rows, (ints{1, 2}));
    EXPECT_EQ(c.couplings.start, (ints{0, 1, 2}));
    EXPECT_EQ(c.couplings.cols, (ints{2, 1}));
    EXPECT_EQ(c.termSource, (ints{0, 1}));
    EXPECT_TRUE(c.hostCells.empty());
    EXPECT_EQ(c.hostCellStart, (ints{0, 0, 0}));
    EXPECT_EQ(c.nCells(), 4);
    EXPECT_EQ(c.nFaces(), 2);
    EXPECT_EQ(c.nRanks(), 2);
}

//- Three ranks: rank 0 with a host patch before its patch to rank 1 (early) and one after
//  (late); ranks 1 and 2 with two patches to each other, the q-th of one meeting the q-th of
//  the other
TEST(RankGroup, ThreeRanksWithHostPatches)
{
    const std::vector<RankLevel> ranks =
    {
        chain(2, {hostPatch, 1, noPatch, hostPatch}, {{0}, {1}, {}, {1, 0}}),
        chain(3, {0, 2, 2}, {{0}, {2}, {1}}),
        chain(2, {1, 1}, {{0}, {1}})
    };
    const CombinedLevel c = combineRanks(ranks);
    EXPECT_FALSE(c.onHost);
    EXPECT_EQ(c.rowStart, (ints{0, 2, 5, 7}));
    EXPECT_EQ(c.faceStart, (ints{0, 1, 3, 4}));
    EXPECT_EQ(c.lower, (ints{0, 2, 3, 5}));
    EXPECT_EQ(c.upper, (ints{1, 3, 4, 6}));
    // terms in rank, patch, face order: (1,2) (2,1) (4,5) (3,6) (5,4) (6,3); then by row
    EXPECT_EQ(c.termStart, (ints{0, 1, 4, 6}));
    EXPECT_EQ(c.couplings.rows, (ints{1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(c.couplings.start, (ints{0, 1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(c.couplings.cols, (ints{2, 1, 6, 5, 4, 3}));
    EXPECT_EQ(c.termSource, (ints{0, 1, 3, 2, 4, 5}));
    EXPECT_EQ(c.hostCells, (ints{0, 1}));
    EXPECT_EQ(c.hostCellStart, (ints{0, 2, 2, 2}));
    EXPECT_EQ(c.hasPhase[int(InterfacePhase::early)], (std::vector<bool>{true, false, false}));
    EXPECT_EQ(c.hasPhase[int(InterfacePhase::late)], (std::vector<bool>{true, false, false}));

    // the ranks' faces copied on threads, a rank each: the same level
    const CombinedLevel onThreads = combineRanks(ranks, 3);
    EXPECT_EQ(onThreads.lower, c.lower);
    EXPECT_EQ(onThreads.upper, c.upper);
    EXPECT_EQ(onThreads.termSource, c.termSource);
    EXPECT_EQ(onThreads.couplings.cols, c.couplings.cols);

    const std::vector<PatchPlace> places = patchPlaces(ranks[0].patchNeighbour, false);
    EXPECT_EQ(places, (std::vector<PatchPlace>{PatchPlace::early, PatchPlace::inSystem,
        PatchPlace::late, PatchPlace::late}));
    EXPECT_EQ(systemTermCount(ranks[0], places), 1);
    EXPECT_EQ(systemTermCount(ranks[1], patchPlaces(ranks[1].patchNeighbour, false)), 3);
    EXPECT_EQ(hostInterfaceCells(ranks[0], places), (ints{0, 1}));
}

//- A cell with two faces to the other rank: its row's terms in patch and face order
TEST(RankGroup, RowTermsKeepPatchOrder)
{
    const CombinedLevel c =
        combineRanks({chain(1, {1, 1}, {{0}, {0}}), chain(2, {0, 0}, {{1}, {0}})});
    EXPECT_FALSE(c.onHost);
    EXPECT_EQ(c.couplings.rows, (ints{0, 1, 2}));
    EXPECT_EQ(c.couplings.start, (ints{0, 2, 3, 4}));
    EXPECT_EQ(c.couplings.cols, (ints{2, 1, 0, 0}));
    EXPECT_EQ(c.termSource, (ints{0, 1, 3, 2}));
    // the ranks' terms' destinations: the inverse permutation
    EXPECT_EQ(termDestinations(c.termSource), (ints{0, 1, 3, 2}));
    EXPECT_EQ(termDestinations({2, 0, 1}), (ints{1, 2, 0}));
    // not a permutation: a term taken twice, or none such
    EXPECT_THROW(termDestinations({0, 0}), std::runtime_error);
    EXPECT_THROW(termDestinations({0, 2}), std::runtime_error);
    EXPECT_THROW(termDestinations({-1}), std::runtime_error);
}

//- Patches without an interface between the patches to the group keep them one stretch
TEST(RankGroup, NoPatchInsideTheStretch)
{
    const std::vector<RankLevel> ranks =
        {chain(2, {1, noPatch, 1}, {{0}, {}, {1}}), chain(2, {0, 0}, {{0}, {1}})};
    EXPECT_FALSE(keepsPatchesOnHost(ranks));
    EXPECT_EQ(patchPlaces(ranks[0].patchNeighbour, false), (std::vector<PatchPlace>{
        PatchPlace::inSystem, PatchPlace::late, PatchPlace::inSystem}));
}

//- A host patch between a rank's patches to the group: every patch of the group on the host
TEST(RankGroup, PatchOrderForcesTheHost)
{
    const std::vector<RankLevel> ranks =
        {chain(2, {1, hostPatch, 1}, {{0}, {1}, {1}}), chain(2, {0, 0}, {{0}, {1}})};
    EXPECT_TRUE(keepsPatchesOnHost(ranks));
    const CombinedLevel c = combineRanks(ranks);
    EXPECT_TRUE(c.onHost);
    EXPECT_EQ(c.couplings.nTerms(), 0);
    EXPECT_TRUE(c.termSource.empty());
    EXPECT_EQ(c.termStart, (ints{0, 0, 0}));
    // every patch late: the ranks' interface cells on the host
    EXPECT_EQ(c.hostCells, (ints{0, 1, 2, 3}));
    EXPECT_EQ(c.hostCellStart, (ints{0, 2, 4}));
    EXPECT_EQ(c.hasPhase[int(InterfacePhase::early)], (std::vector<bool>{false, false}));
    EXPECT_EQ(c.hasPhase[int(InterfacePhase::late)], (std::vector<bool>{true, true}));
    EXPECT_EQ(patchPlaces(ranks[0].patchNeighbour, true), (std::vector<PatchPlace>(3,
        PatchPlace::late)));
    // a hierarchy of such levels is one (every level's patches on the host alike); with a level
    // whose patches are in the system it is not: its ranks' couplings would differ by level
    EXPECT_TRUE(oneHierarchy({&c, &c}));
    const CombinedLevel together = combineRanks({chain(2, {1}, {{1}}), chain(2, {0}, {{0}})});
    EXPECT_FALSE(oneHierarchy({&together, &c}));
    EXPECT_FALSE(oneHierarchy({&c, &together}));
}

//- A patch to a rank of another group (or a cyclic: hostPatch) beside the group's: the group's
//  patch in the system, the other early or late by its place, its cells host cells; the levels
//  one hierarchy
TEST(RankGroup, HostPatchesBesideTheGroupsAreOneHierarchy)
{
    // rank 0: a host patch (cell 0), then its patch to rank 1 (cell 1); rank 1: its patch to
    // rank 0 (cell 0), then a host patch (cell 1)
    const std::vector<RankLevel> ranks =
        {chain(2, {hostPatch, 1}, {{0}, {1}}), chain(2, {0, hostPatch}, {{0}, {1}})};
    EXPECT_FALSE(keepsPatchesOnHost(ranks));
    const CombinedLevel c = combineRanks(ranks);
    EXPECT_FALSE(c.onHost);
    EXPECT_EQ(c.couplings.nTerms(), 2);
    EXPECT_EQ(c.hostCells, (ints{0, 3}));
    EXPECT_EQ(c.hostCellStart, (ints{0, 1, 2}));
    EXPECT_EQ(c.hasPhase[int(InterfacePhase::early)], (std::vector<bool>{true, false}));
    EXPECT_EQ(c.hasPhase[int(InterfacePhase::late)], (std::vector<bool>{false, true}));
    EXPECT_TRUE(oneHierarchy({&c, &c}));
    // what the owner keeps of each level for its requests
    const HostPhases h = hostPhases(c);
    EXPECT_EQ(h.cellStart, c.hostCellStart);
    EXPECT_TRUE(h.any(InterfacePhase::early));
    EXPECT_TRUE(h.any(InterfacePhase::late));
    EXPECT_FALSE(hostPhases(combineRanks({chain(2, {1}, {{1}}), chain(2, {0}, {{0}})}))
        .any(InterfacePhase::early));
}

//- The two sides of a patch with different numbers of faces, different numbers of patches to
//  each other, or a rank out of patch order: on the host
TEST(RankGroup, MismatchesForceTheHost)
{
    EXPECT_TRUE(keepsPatchesOnHost({chain(2, {1}, {{1}}), chain(2, {0}, {{0, 1}})}));
    EXPECT_TRUE(keepsPatchesOnHost({chain(2, {1, 1}, {{0}, {1}}), chain(2, {0}, {{0}})}));
    std::vector<RankLevel> ranks = {chain(2, {1}, {{1}}), chain(2, {0}, {{0}})};
    EXPECT_FALSE(keepsPatchesOnHost(ranks));
    const CombinedLevel together = combineRanks(ranks);
    EXPECT_TRUE(oneHierarchy({&together}));
    ranks[1].inPatchOrder = false;
    EXPECT_TRUE(keepsPatchesOnHost(ranks));
}

//- Two ranks' coarsening steps onto the combined coarse level: cells and faces offset by the
//  rank before, a face inside coarse cell i (-1 - i) by its cells
TEST(RankGroup, CoarseningOffsetByRank)
{
    CombinedLevel coarse;
    coarse.rowStart = {0, 2, 4};
    coarse.faceStart = {0, 1, 2};
    coarse.lower = {0, 2};
    coarse.upper = {1, 3};
    const CombinedCoarsening c = combineCoarsening
    (
        {
            {{0, 0, 1}, {-1, 0}, {false, false}},
            {{1, 0, 0}, {0, -1}, {true, false}}
        },
        coarse
    );
    EXPECT_EQ(c.restrictAddressing, (ints{0, 0, 1, 3, 2, 2}));
    EXPECT_EQ(c.faceRestrictAddressing, (ints{-1, 0, 1, -3}));
    const GamgLevelView v = c.view(coarse);
    EXPECT_EQ(v.coarse.nCells, 4);
    EXPECT_EQ(v.coarse.nFaces, 2);
    EXPECT_EQ(v.restrictAddressing, c.restrictAddressing.data());
    EXPECT_EQ((std::vector<bool>(v.faceFlipMap, v.faceFlipMap + 4)),
        (std::vector<bool>{false, false, true, false}));
}

} // namespace gpuLdu::test
