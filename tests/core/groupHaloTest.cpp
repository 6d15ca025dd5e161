// SPDX-License-Identifier: GPL-3.0-or-later
// The exchange between groups (gpuLdu/rankGroup.hpp, GroupHalo): the ranks of a decomposed
// problem split into groups, each combined into one system whose processor faces to the other
// groups read a halo that a fake transport fills from the other groups' x (as their owners'
// messages would). Every product, residual, row-sum, magnitude and Jacobi-like sweep of the
// groups is the one system's of all the ranks, bit for bit: the same terms in the same order,
// only read across; their sums on the backend are the one system's. The groups and the fake
// transport: groupHaloTestSupport.hpp.

#include "groupHaloTestSupport.hpp"
#include "multigrid/Smoothers.hpp"

#include <cmath>
#include <functional>
#include <map>

namespace gpuLdu::test
{

//- Six ranks of a randomly split grid as one system and as three groups of two: A x, A^T x, the
//  residual's and the row sums' terms and the magnitudes are the one system's bit for bit
TYPED_TEST(KrylovTest, GroupsExchangingHalosEqualOneSystem)
{
    using B = TypeParam;
    ThreeGroups<B> t;
    const GroupSystem<B>& all = t.all;
    const std::vector<GroupSystem<B>>& groups = t.groups;
    EXPECT_EQ(all.level.halo.nHalo(), 0);
    int nHalo = 0;
    for (const GroupSystem<B>& g : groups)
    {
        EXPECT_GT(g.level.halo.nHalo(), 0);
        EXPECT_EQ(g.level.halo.nHalo(), g.level.halo.nSend());
        nHalo += g.level.halo.nHalo();
    }
    // every term of the one system is a group's: to its own ranks or read across
    EXPECT_EQ(all.level.termSource.size(),
              groups[0].level.termSource.size() + groups[1].level.termSource.size()
            + groups[2].level.termSource.size());
    EXPECT_GT(nHalo, 0);

    const std::vector<double> x = randomVector(all.level.nCells(), 11);
    const std::vector<double> b = randomVector(all.level.nCells(), 12);
    const std::vector<std::vector<double>> xs = t.split(x), bs = t.split(b);

    // each operation on the one system and on the groups, the groups' rows one after the other
    using Op = std::function<void(LduSystemImpl<B>&, double*, const double*, const Coupling&)>;
    const std::vector<std::pair<std::string, Op>> ops{
        {"A x", [](LduSystemImpl<B>& s, double* y, const double* xd, const Coupling& c) { s.amul(y, xd, c); }},
        {"A^T x", [](LduSystemImpl<B>& s, double* y, const double* xd, const Coupling& c) { s.tmul(y, xd, c); }},
        {"residual", [](LduSystemImpl<B>& s, double* y, const double* xd, const Coupling& c) { s.addInterfaceResidual(y, xd, c); }},
        {"magnitudes", [](LduSystemImpl<B>& s, double* y, const double*, const Coupling& c) { s.addInterfaceMagnitudes(y, c); }}};
    for (const auto& [name, op] : ops)
    {
        SCOPED_TRACE(name);
        const Coupling none;
        typename B::template Vector<double> dx(x.begin(), x.end()), dy(b.begin(), b.end());
        op(*all.system, ptr(dy), ptr(dx), none);
        const std::vector<double> expected = toHost(dy);

        // through the host, then on the backend
        for (const bool backend : {false, true})
        {
            SCOPED_TRACE(backend ? "on the backend" : "through the host");
            std::vector<double> got;
            int exchanges = 0, onBackend = 0;
            for (int g = 0; g < 3; ++g)
            {
                const FakeExchange<B> host(groups, xs, g);
                const FakeBackendExchange<B> onB(groups, xs, g);
                const FakeExchange<B>& fake = backend ? onB : host;
                typename B::template Vector<double> gx(xs[g].begin(), xs[g].end()), gy(bs[g].begin(), bs[g].end());
                op(*groups[g].system, ptr(gy), ptr(gx), fake);
                const std::vector<double> y = toHost(gy);
                got.insert(got.end(), y.begin(), y.end());
                exchanges += fake.exchanges;
                onBackend += onB.onBackend;
            }
            EXPECT_EQ(got, expected);
            // the terms that read x exchange once per group; the magnitudes need no x
            EXPECT_EQ(exchanges, name == "magnitudes" ? 0 : 3);
            EXPECT_EQ(onBackend, backend ? exchanges : 0);
        }
    }
}


//- One Jacobi-like sweep (l1Jacobi) of the groups, each reading x across its faces to the others
//  in its halo (through the host or on the backend), is the one system's sweep bit for bit: each
//  group's rows add its terms, those across from the halo, as the one system's rows add its own
//  (one sweep: the fake transport serves the groups' first x)
TYPED_TEST(KrylovTest, GroupsSweepingAcrossEqualOneSystem)
{
    using B = TypeParam;
    ThreeGroups<B> t;
    const std::vector<GroupSystem<B>>& groups = t.groups;
    const std::vector<double> x = randomVector(t.all.level.nCells(), 41);
    const std::vector<double> b = randomVector(t.all.level.nCells(), 42);
    const std::vector<std::vector<double>> xs = t.split(x), bs = t.split(b);
    const GamgSmoother smoother = GamgSmoother::named("l1Jacobi");
    const auto sweep = [&](LduSystemImpl<B>& system, const Coupling& c, const std::vector<double>& x0,
                           const std::vector<double>& b0)
    {
        const std::size_t n = x0.size();
        typename B::template Vector<double> psi(x0.begin(), x0.end()), rhs(b0.begin(), b0.end());
        typename B::template Vector<double> w0(n), w1(n), w2(n), bPrime(n);
        long levels = 0;
        const SmootherLevel<B> level{system, c, {ptr(w0), ptr(w1), ptr(w2)}, ptr(bPrime), true, &levels, false};
        Smoothers<B> smoothers;
        smoothers.setup(smoother, level);
        smoothers.smooth(smoother, level, ptr(psi), ptr(rhs), 1);
        return toHost(psi);
    };
    const Coupling none;
    const std::vector<double> expected = sweep(*t.all.system, none, x, b);
    for (const bool backend : {false, true})
    {
        SCOPED_TRACE(backend ? "on the backend" : "through the host");
        std::vector<double> got;
        int exchanges = 0;
        for (int g = 0; g < 3; ++g)
        {
            const FakeExchange<B> host(groups, xs, g);
            const FakeBackendExchange<B> onB(groups, xs, g);
            const FakeExchange<B>& fake = backend ? onB : host;
            const std::vector<double> y = sweep(*groups[g].system, fake, xs[g], bs[g]);
            got.insert(got.end(), y.begin(), y.end());
            exchanges += fake.exchanges;
        }
        EXPECT_EQ(got, expected);
        EXPECT_EQ(exchanges, 3);
    }
}


//- Three groups' sums on the backend (each rank's sum in its slot, the slots summed across the
//  groups, the total in slot order) are the one system's sums of all six ranks bit for bit,
//  whichever group holds which rank: so one GPU and several take the same steps. Ranks of about
//  2500 rows (several of the GPU's chunks each), values of many magnitudes. A halo exchanged on
//  the backend leaves the groups' work on the backend (recordable), one through the host does
//  not.
TYPED_TEST(KrylovTest, GroupsSummingOnBackendEqualOneSystem)
{
    using B = TypeParam;
    ThreeGroups<B> t(150, 100);
    const std::vector<GroupSystem<B>>& groups = t.groups;
    const auto values = [](int n, unsigned seed)
    {
        std::vector<double> v = randomVector(n, seed, -8, 8);
        std::mt19937 gen(seed);
        std::uniform_int_distribution<int> exponent(-20, 20);
        for (double& x : v)
        {
            x = std::ldexp(x, exponent(gen));
        }
        return v;
    };
    const std::vector<double> x = values(t.all.level.nCells(), 20), y = values(t.all.level.nCells(), 30);
    const std::vector<std::vector<double>> xs = t.split(x), ys = t.split(y);

    // the one system's sums, local (one GPU)
    typename B::template Vector<double> ax(x.begin(), x.end()), ay(y.begin(), y.end());
    const Coupling local;
    DeviceScalars<B> one(t.all.system->workspace(), local, t.all.system->parts());
    one.sumInto(detail::Dot{ptr(ax), ptr(ay)}, detail::Dot{ptr(ax), ptr(ax)}, 0);
    one.sumInto(detail::Sum{ptr(ay)}, 2);
    double expected[3];
    one.fetch(0, 3, expected);
    EXPECT_EQ(one.gSum(detail::Sum{ptr(ay)}), expected[2]);

    // each group's slot sums (the other groups' slots 0), as its sums on the backend leave them
    std::vector<typename B::template Vector<double>> gx, gy;
    std::vector<std::vector<double>> pairSlots, sumSlots;
    for (int g = 0; g < 3; ++g)
    {
        gx.emplace_back(xs[g].begin(), xs[g].end());
        gy.emplace_back(ys[g].begin(), ys[g].end());
        typename B::Workspace& ws = groups[g].system->workspace();
        ASSERT_EQ(ws.nSlots(), 6);
        ws.sumParts(detail::Dot{ptr(gx[g]), ptr(gy[g])}, detail::Dot{ptr(gx[g]), ptr(gx[g])}, -1);
        pairSlots.emplace_back(12);
        B::download(pairSlots.back().data(), ws.slotSums(), 12);
        ws.sumParts(detail::Sum{ptr(gy[g])}, -1);
        sumSlots.emplace_back(6);
        B::download(sumSlots.back().data(), ws.slotSums(), 6);
        for (int slot = 0; slot < 12; ++slot)
        {
            EXPECT_EQ(pairSlots.back()[slot] != 0, slot % 6/2 == g) << "slot " << slot;
        }
    }
    // the other groups' slot sums (each slot one group's: their sum is exact)
    const auto othersThan = [](const std::vector<std::vector<double>>& slots, int g)
    {
        std::vector<double> others(slots[0].size(), 0.0);
        for (int h = 0; h < 3; ++h)
        {
            for (std::size_t i = 0; h != g && i < others.size(); ++i)
            {
                others[i] += slots[h][i];
            }
        }
        return others;
    };
    for (int g = 0; g < 3; ++g)
    {
        SCOPED_TRACE("group " + std::to_string(g));
        LduSystemImpl<B>& system = *groups[g].system;
        const FakeExchange<B> host(groups, xs, g);
        FakeBackendExchange<B> onB(groups, xs, g);
        EXPECT_FALSE(DeviceScalars<B>::stayOnBackend(host));
        EXPECT_FALSE(system.staysOnBackend(host));
        EXPECT_TRUE(DeviceScalars<B>::stayOnBackend(onB));
        EXPECT_TRUE(system.staysOnBackend(onB));

        onB.others = othersThan(pairSlots, g);
        DeviceScalars<B> scalars(system.workspace(), onB, system.parts());
        scalars.sumInto(detail::Dot{ptr(gx[g]), ptr(gy[g])}, detail::Dot{ptr(gx[g]), ptr(gx[g])}, 0);
        onB.others = othersThan(sumSlots, g);
        scalars.sumInto(detail::Sum{ptr(gy[g])}, 2);
        double got[3];
        scalars.fetch(0, 3, got);
        EXPECT_EQ(got[0], expected[0]);
        EXPECT_EQ(got[1], expected[1]);
        EXPECT_EQ(got[2], expected[2]);
        EXPECT_EQ(scalars.gSum(detail::Sum{ptr(gy[g])}), expected[2]);
    }
}


//- The halo's order: a message holds the pairs (sender's rank, receiver's rank, q) ascending, so
//  that two patches between the same ranks and patches of several ranks meet face for face
TEST(GroupHalo, MessagesInPairOrder)
{
    // group {0, 1} (mesh ranks 0 and 1) beside group {2, 3}; rank 0 has two patches to rank 3
    // (q = 0, 1) and one to rank 2, rank 1 one to rank 2
    RankLevel r0;
    r0.nCells = 4;
    r0.patchNeighbour = {1, remotePatch(3), remotePatch(2), remotePatch(3)};
    r0.patchCells = {{0}, {1, 2}, {3}, {0}};
    RankLevel r1;
    r1.nCells = 3;
    r1.patchNeighbour = {0, remotePatch(2)};
    r1.patchCells = {{1}, {2, 0}};
    GroupWorld world;
    world.rank = {0, 1};
    world.ownerOf = {0, 0, 2, 2};
    const CombinedLevel c = combineRanks({r0, r1}, 1, &world);
    EXPECT_FALSE(c.onHost);
    EXPECT_EQ(c.halo.neighbours, (ints{2}));
    // sent: (0, 2, 0) cell 3; (0, 3, 0) cells 1 2; (0, 3, 1) cell 0; (1, 2, 0) cells 4+2, 4+0
    EXPECT_EQ(c.couplings.haloSend, (ints{3, 1, 2, 0, 6, 4}));
    EXPECT_EQ(c.halo.sendStart, (ints{0, 6}));
    // received (theirs, mine, q): (2, 0, 0) 1 value; (2, 1, 0) 2; (3, 0, 0) 2; (3, 0, 1) 1
    EXPECT_EQ(c.halo.recvStart, (ints{0, 6}));
    EXPECT_EQ(c.couplings.nHalo, 6);
    // rank 0's patch 1 (to 3, q 0) reads halo 3 and 4, patch 3 (to 3, q 1) halo 5, patch 2
    // (to 2) halo 0; rank 1's patch 1 (to 2) halo 1, 2: columns 7 + halo
    const int n = 7;
    std::map<int, std::vector<int>> colsOfRow;
    for (std::size_t j = 0; j < c.couplings.rows.size(); ++j)
    {
        for (int k = c.couplings.start[j]; k < c.couplings.start[j + 1]; ++k)
        {
            colsOfRow[c.couplings.rows[j]].push_back(c.couplings.cols[k]);
        }
    }
    EXPECT_EQ(colsOfRow[0], (ints{4 + 1, n + 5}));   // to rank 1's cell 1, then (0, 3, 1)
    EXPECT_EQ(colsOfRow[1], (ints{n + 3}));
    EXPECT_EQ(colsOfRow[2], (ints{n + 4}));
    EXPECT_EQ(colsOfRow[3], (ints{n + 0}));
    EXPECT_EQ(colsOfRow[6], (ints{n + 1}));
    EXPECT_EQ(colsOfRow[4], (ints{n + 2}));
}


//- A patch to another group without the group's world, to a rank the world does not know, or to
//  the group's own rank marked as another group's: errors, never a halo that reads garbage
TEST(GroupHalo, BadWorldsThrow)
{
    RankLevel r0;
    r0.nCells = 2;
    r0.patchNeighbour = {1, remotePatch(2)};
    r0.patchCells = {{0}, {1}};
    RankLevel r1;
    r1.nCells = 2;
    r1.patchNeighbour = {0};
    r1.patchCells = {{1}};
    EXPECT_THROW(combineRanks({r0, r1}), Error);
    GroupWorld world;
    world.rank = {0, 1};
    world.ownerOf = {0, 0};
    EXPECT_THROW(combineRanks({r0, r1}, 1, &world), Error);
    world.ownerOf = {0, 0, 0};
    EXPECT_THROW(combineRanks({r0, r1}, 1, &world), Error);
    world.ownerOf = {0, 0, 2};
    EXPECT_NO_THROW(combineRanks({r0, r1}, 1, &world));
    // a host patch between the processor patches: the group keeps its patches on the host,
    // which a patch to another group cannot be
    r1.patchNeighbour = {0, hostPatch, 0};
    r1.patchCells = {{1}, {0}, {0}};
    r0.patchNeighbour = {1, 1, remotePatch(2)};
    r0.patchCells = {{0}, {0}, {1}};
    EXPECT_THROW(combineRanks({r0, r1}, 1, &world), Error);
}

} // namespace gpuLdu::test
