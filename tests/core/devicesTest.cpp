// SPDX-License-Identifier: GPL-3.0-or-later
// Which device each rank of a node uses: groups of neighbouring node-local ranks, one per
// device, as even as possible; host memory page-locked where a device is; host memory that the
// processes of a host share; the host's threads
// for a set-up's parts; lists on huge pages.

#include "gpuLdu/gpuLdu.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>

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

//- PageLock: a list's storage page-locked where a device is usable (uploads from it then go
//  straight to the device), else left as it is; a second lock of the same memory refused (left
//  pageable), the first unaffected; a move hands the lock over; unlocked at the end of its life,
//  after which the memory can be locked again
TEST(Devices, PageLockLocksWhereADeviceIs)
{
    std::vector<double> v(std::size_t(1) << 16, 1.0);
    const bool device = visibleDevices() > 0;
    {
        PageLock lock(v.data(), v.size());
        EXPECT_EQ(lock.locked(), device);
        const PageLock again(v.data(), v.size());
        EXPECT_FALSE(again.locked());
        const PageLock moved(std::move(lock));
        EXPECT_EQ(moved.locked(), device);
        EXPECT_FALSE(lock.locked());
    }
    const PageLock later(v.data(), v.size());
    EXPECT_EQ(later.locked(), device);
    EXPECT_FALSE(PageLock(nullptr, 4).locked());
}


// ---------------------------------------------------------------------------------------------
// SharedHostBuffer: what one process writes, another that maps the handle reads, both ways
// ---------------------------------------------------------------------------------------------

namespace
{

//- In a forked child: maps handle, checks that value k is first + k, writes second + k for k < n;
//  the child's exit status says which step failed (0: none)
int childReadsAndWrites(const std::string& handle, std::size_t n, double first, double second)
{
    try
    {
        SharedHostBuffer mapped(handle, n);
        if (mapped.data() == nullptr || mapped.size() != n || !mapped.handle().empty())
        {
            return 1;
        }
        for (std::size_t k = 0; k < n; ++k)
        {
            if (mapped.data()[k] != first + double(k))
            {
                return 2;
            }
            mapped.data()[k] = second + double(k);
        }
        return 0;
    }
    catch (const Error&)
    {
        return 3;
    }
}

void expectSharedBetweenProcesses(Executor executor, std::size_t n = 300000, int threads = 1)
{
    SharedHostBuffer made(executor, n, threads);
    ASSERT_EQ(made.size(), n);
    ASSERT_FALSE(made.handle().empty());
    for (std::size_t k = 0; k < n; ++k)
    {
        ASSERT_EQ(made.data()[k], 0.0) << "value " << k << " of a made buffer";
        made.data()[k] = 1.5 + double(k);
    }
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0)
    {
        _exit(childReadsAndWrites(made.handle(), n, 1.5, -7.0));
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0) << "1: mapping, 2: the maker's values, 3: Error";
    for (std::size_t k = 0; k < n; k += 997)
    {
        EXPECT_EQ(made.data()[k], -7.0 + double(k)) << "the child's value " << k;
    }
}

} // namespace

TEST(SharedHostBuffer, WhatOneProcessWritesTheOtherReads)
{
    expectSharedBetweenProcesses(Executor::cpu);
}

//- A large buffer made on several threads: a file a thread (at least 16 MB each), mapped side by
//  side, so that every value, across the files' boundaries, is the other process's too; a handle
//  one of whose files is none is an Error that names it
TEST(SharedHostBuffer, MadeOfAFileAThreadSideBySide)
{
    const std::size_t n = std::size_t(9) << 20;
    expectSharedBetweenProcesses(Executor::cpu, n, 4);
    SharedHostBuffer made(Executor::cpu, n, 4);
    const std::string handle = made.handle();
    EXPECT_EQ(std::count(handle.begin(), handle.end(), ','), 3) << "four files: " << handle;
    const std::string broken = handle + ",99999";
    try
    {
        SharedHostBuffer mapped(broken, n);
        FAIL() << "mapped a handle with a file that is none";
    }
    catch (const Error& e)
    {
        EXPECT_NE(std::string(e.what()).find(broken), std::string::npos) << e.what();
    }
}

#ifdef __CUDACC__
// the CUDA build's tests run where a GPU is usable
TEST(SharedHostBuffer, PageLockedForTheGpuExecutor)
{
    ASSERT_EQ(gpuUnavailableReason(), "");
    expectSharedBetweenProcesses(Executor::gpu);
    // its pages mapped on threads before it is page-locked: several ranges of pages; several
    // files page-locked as one range
    expectSharedBetweenProcesses(Executor::gpu, std::size_t(5) << 20, 4);
    expectSharedBetweenProcesses(Executor::gpu, std::size_t(9) << 20, 4);
}
#endif

TEST(SharedHostBuffer, AHandleThatIsNoneIsAnError)
{
    try
    {
        SharedHostBuffer mapped("/proc/0/fd/12345", 10);
        FAIL() << "mapped a handle that is none";
    }
    catch (const Error& e)
    {
        EXPECT_NE(std::string(e.what()).find("/proc/0/fd/12345"), std::string::npos) << e.what();
    }
}

TEST(SharedHostBuffer, MovedKeepsItsValuesAndHandle)
{
    SharedHostBuffer made(Executor::cpu, 4);
    made.data()[3] = 2.0;
    const std::string handle = made.handle();
    SharedHostBuffer moved(std::move(made));
    EXPECT_EQ(made.data(), nullptr);
    EXPECT_EQ(moved.data()[3], 2.0);
    EXPECT_EQ(moved.handle(), handle);
}

//- Every index once, on as many threads as asked (at most the host's cores), the calling thread
//  among them; the exception of the least index that threw comes back after every index ran
TEST(HostThreads, EveryIndexOnceAndTheFirstErrorBack)
{
    for (const int threads : {1, 3, 64})
    {
        std::vector<std::atomic<int>> runs(1000);
        onHostThreads(int(runs.size()), threads, [&](int i) { ++runs[i]; });
        EXPECT_TRUE(std::all_of(runs.begin(), runs.end(), [](const std::atomic<int>& r) { return r == 1; }))
            << threads << " threads";

        std::vector<std::atomic<int>> ran(100);
        try
        {
            onHostThreads(int(ran.size()), threads, [&](int i)
            {
                ++ran[i];
                if (i % 30 == 17)
                {
                    throw Error("index " + std::to_string(i));
                }
            });
            ADD_FAILURE() << "no error back";
        }
        catch (const Error& e)
        {
            EXPECT_EQ(std::string(e.what()), "index 17") << threads << " threads";
        }
        EXPECT_TRUE(std::all_of(ran.begin(), ran.end(), [](const std::atomic<int>& r) { return r == 1; }));
    }
    int none = 0;
    onHostThreads(0, 4, [&](int) { ++none; });
    EXPECT_EQ(none, 0);
}

//- The advice on huge pages changes nothing a list holds, whatever its size and alignment
TEST(HostThreads, ListsOnHugePagesHoldTheirValues)
{
    for (const std::size_t n : {std::size_t(0), std::size_t(3), std::size_t(5) << 20})
    {
        std::vector<int> list;
        reserveOnHugePages(list, n);
        EXPECT_GE(list.capacity(), n);
        for (std::size_t k = 0; k < n; ++k)
        {
            list.push_back(int(k));
        }
        EXPECT_EQ(list.size(), n);
        EXPECT_TRUE(n == 0 || (list.front() == 0 && list.back() == int(n - 1)));
    }
    adviseHugePages(nullptr, 1 << 22);
}

} // namespace gpuLdu::test
