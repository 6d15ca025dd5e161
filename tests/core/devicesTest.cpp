// SPDX-License-Identifier: GPL-3.0-or-later
// Which device each rank of a node uses: groups of neighbouring node-local ranks, one per
// device, as even as possible.

#include "gpuLdu/gpuLdu.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace gpuLdu::test
{

TEST(Devices, NeighbouringRanksShareADevice)
{
    EXPECT_EQ(deviceOfLocalRanks(4, 1), (std::vector<int>{0, 0, 0, 0}));
    EXPECT_EQ(deviceOfLocalRanks(4, 2), (std::vector<int>{0, 0, 1, 1}));
    EXPECT_EQ(deviceOfLocalRanks(5, 2), (std::vector<int>{0, 0, 0, 1, 1}));
    EXPECT_EQ(deviceOfLocalRanks(7, 3), (std::vector<int>{0, 0, 0, 1, 1, 2, 2}));
    // more devices than ranks: one rank each; no device (executor cpu): one group
    EXPECT_EQ(deviceOfLocalRanks(2, 4), (std::vector<int>{0, 1}));
    EXPECT_EQ(deviceOfLocalRanks(3, 0), (std::vector<int>{0, 0, 0}));
    EXPECT_TRUE(deviceOfLocalRanks(0, 2).empty());
}

//- For every size: each device's ranks are contiguous, every group has floor or ceil of
//  nLocal/nGroups ranks, and the devices used are 0 .. nGroups-1
TEST(Devices, GroupsAreContiguousAndEven)
{
    for (int nLocal = 1; nLocal <= 40; ++nLocal)
    {
        for (int nDevices = 1; nDevices <= 9; ++nDevices)
        {
            const std::vector<int> d = deviceOfLocalRanks(nLocal, nDevices);
            const int nGroups = std::min(nLocal, nDevices);
            ASSERT_EQ(int(d.size()), nLocal);
            EXPECT_TRUE(std::is_sorted(d.begin(), d.end()));
            EXPECT_EQ(d.front(), 0);
            EXPECT_EQ(d.back(), nGroups - 1);
            for (int g = 0; g < nGroups; ++g)
            {
                const int size = int(std::count(d.begin(), d.end(), g));
                EXPECT_GE(size, nLocal/nGroups) << nLocal << " ranks, " << nDevices << " devices";
                EXPECT_LE(size, (nLocal + nGroups - 1)/nGroups);
            }
        }
    }
}

} // namespace gpuLdu::test
