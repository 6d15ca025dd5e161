// SPDX-License-Identifier: GPL-3.0-or-later
// The exchange between groups (gpuLdu/rankGroup.hpp, GroupHalo): the ranks of a decomposed
// problem split into groups, each combined into one system whose processor faces to the other
// groups read a halo that a fake transport fills from the other groups' x (as their owners'
// messages would). Every product, residual, row-sum, magnitude and Jacobi-like sweep of the
// groups is the one system's of all the ranks, bit for bit: the same terms in the same order,
// only read across; their sums on the backend are the one system's; their coarsest levels
// gathered on each (GatheredCoarsest) solve as the one system's.

#include "referenceKrylov.hpp"
#include "gpuLdu/rankGroup.hpp"
#include "multigrid/GatheredCoarsest.hpp"
#include "multigrid/Smoothers.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

namespace gpuLdu::test
{

namespace
{

//- A grid of nx x ny cells (5-point stencil) whose cells a random partition gives to nRanks
//  ranks; each rank's level (its cells in grid order, its faces, its processor patches to the
//  ranks beside it in ascending order, each patch's faces in grid order on both sides) and its
//  values: diag, upper (symmetric), and per patch face the interface coefficient
struct Decomposed
{
    std::vector<RankLevel> ranks;
    std::vector<std::vector<double>> diag, upper, terms;
};

Decomposed decompose(int nx, int ny, int nRanks, unsigned seed)
{
    const int n = nx*ny;
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> pick(0, nRanks - 1);
    std::uniform_real_distribution<double> value(0.5, 1.5);
    std::vector<int> rankOf(n), local(n);
    for (int c = 0; c < n; ++c)
    {
        rankOf[c] = c < nRanks ? c : pick(gen);
    }
    Decomposed d;
    d.ranks.resize(nRanks);
    d.diag.resize(nRanks);
    d.upper.resize(nRanks);
    d.terms.resize(nRanks);
    for (int c = 0; c < n; ++c)
    {
        RankLevel& r = d.ranks[rankOf[c]];
        local[c] = r.nCells++;
        d.diag[rankOf[c]].push_back(4 + value(gen));
    }
    // faces (lower, upper) in ascending order: their coefficient, rank by rank or across
    std::map<std::pair<int, int>, std::vector<std::pair<int, double>>> across;
    for (int c = 0; c < n; ++c)
    {
        for (const int nbr : {c + 1, c + nx})
        {
            if ((nbr == c + 1 && (c + 1) % nx == 0) || nbr >= n)
            {
                continue;
            }
            const double a = -value(gen);
            const int rc = rankOf[c];
            const int rn = rankOf[nbr];
            if (rc == rn)
            {
                d.ranks[rc].lower.push_back(local[c]);
                d.ranks[rc].upper.push_back(local[nbr]);
                d.upper[rc].push_back(a);
            }
            else
            {
                across[{rc, rn}].push_back({local[c], a});
                across[{rn, rc}].push_back({local[nbr], a});
            }
        }
    }
    for (const auto& [pair, faces] : across)
    {
        RankLevel& r = d.ranks[pair.first];
        r.patchNeighbour.push_back(pair.second);
        r.patchCells.emplace_back();
        for (const auto& [cell, a] : faces)
        {
            r.patchCells.back().push_back(cell);
            // OpenFOAM's interface coefficient: y -= coeff*x across, coeff = -a
            d.terms[pair.first].push_back(-a);
        }
    }
    return d;
}

//- One group's system: its ranks' levels (patches to ranks outside it remotePatch), combined,
//  with their values
template<class B>
struct GroupSystem
{
    CombinedLevel level;
    std::unique_ptr<LduSystemImpl<B>> system;
    //- The device couplings' coefficients (of A, which is symmetric)
    std::vector<double> coeffs;
    int owner = 0;

    GroupSystem(const Decomposed& d, const std::vector<int>& members, const std::vector<int>& ownerOf)
    {
        std::vector<RankLevel> ranks;
        std::vector<double> diag, upper, terms;
        for (const int m : members)
        {
            RankLevel r = d.ranks[m];
            for (int& nbr : r.patchNeighbour)
            {
                const auto at = std::find(members.begin(), members.end(), nbr);
                nbr = at != members.end() ? int(at - members.begin()) : remotePatch(nbr);
            }
            ranks.push_back(r);
            diag.insert(diag.end(), d.diag[m].begin(), d.diag[m].end());
            upper.insert(upper.end(), d.upper[m].begin(), d.upper[m].end());
            terms.insert(terms.end(), d.terms[m].begin(), d.terms[m].end());
        }
        GroupWorld world;
        world.rank = members;
        world.ownerOf = ownerOf;
        owner = members.front();
        level = combineRanks(ranks, 1, &world);
        system = std::make_unique<LduSystemImpl<B>>(level.view());
        system->setMatrix(diag.data(), upper.data(), nullptr);
        system->setParts(level.rowStart);
        system->setDeviceCouplings(level.couplings);
        coeffs.resize(level.termSource.size());
        for (std::size_t k = 0; k < coeffs.size(); ++k)
        {
            coeffs[k] = terms[level.termSource[k]];
        }
        system->setDeviceCouplingCoeffs(coeffs.data(), coeffs.data());
    }
};

//- The fake transport: the halo of a group from the other groups' x, as their owners' messages
//  would bring it (each neighbour's values for this group, in its order)
template<class B>
class FakeExchange : public Coupling
{
    const std::vector<GroupSystem<B>>& groups_;
    const std::vector<std::vector<double>>& x_;
    int me_;

public:
    mutable int exchanges = 0;

    const CombinedLevel& level() const
    {
        return groups_[me_].level;
    }

    FakeExchange(const std::vector<GroupSystem<B>>& groups, const std::vector<std::vector<double>>& x, int me)
    :
        groups_(groups), x_(x), me_(me)
    {}

    void exchangeHalo(const double* send, double* halo) const override
    {
        ++exchanges;
        const CombinedLevel& mine = groups_[me_].level;
        const GroupHalo& h = mine.halo;
        // what this group sends is x at its cells haloSend
        for (int i = 0; i < h.nSend(); ++i)
        {
            EXPECT_EQ(send[i], x_[me_][mine.couplings.haloSend[i]]);
        }
        for (std::size_t k = 0; k < h.neighbours.size(); ++k)
        {
            const auto other = std::find_if(groups_.begin(), groups_.end(),
                [&](const GroupSystem<B>& g) { return g.owner == h.neighbours[k]; });
            ASSERT_NE(other, groups_.end());
            const GroupHalo& theirs = other->level.halo;
            const auto at = std::find(theirs.neighbours.begin(), theirs.neighbours.end(), groups_[me_].owner);
            ASSERT_NE(at, theirs.neighbours.end());
            const int m = int(at - theirs.neighbours.begin());
            ASSERT_EQ(theirs.sendStart[m + 1] - theirs.sendStart[m], h.recvStart[k + 1] - h.recvStart[k]);
            for (int i = 0; i < h.recvStart[k + 1] - h.recvStart[k]; ++i)
            {
                halo[h.recvStart[k] + i] =
                    x_[other - groups_.begin()][other->level.couplings.haloSend[theirs.sendStart[m] + i]];
            }
        }
    }
};

//- The same exchange as if on the backend (the owners' NCCL): send and halo on the backend,
//  copied through the host here; the system then neither downloads nor uploads them itself.
//  Its sums on the backend add the other groups' sums (given: `others`, slot by slot).
template<class B>
class FakeBackendExchange : public FakeExchange<B>
{
public:
    using FakeExchange<B>::FakeExchange;
    mutable int onBackend = 0;
    std::vector<double> others;

    bool exchangesOnBackend(Executor) const override
    {
        return true;
    }

    bool sumsAreLocal() const override
    {
        return false;
    }

    void exchangeHaloOnBackend(const double* send, double* halo) const override
    {
        const CombinedLevel& mine = this->level();
        std::vector<double> s(mine.halo.nSend()), h(mine.halo.nHalo());
        B::download(s.data(), send, s.size());
        this->exchangeHalo(s.data(), h.data());
        B::upload(halo, h.data(), h.size());
        ++onBackend;
    }

    void sumOnBackend(double* values, int count) const override
    {
        ASSERT_EQ(std::size_t(count), others.size());
        std::vector<double> v(count);
        B::download(v.data(), values, v.size());
        for (int i = 0; i < count; ++i)
        {
            v[i] += others[i];
        }
        B::upload(values, v.data(), v.size());
    }
};

using ints = std::vector<int>;

//- Six ranks of a randomly split 14 x 11 grid as one system and as three groups of two (owners
//  ranks 0, 2 and 4)
template<class B>
struct ThreeGroups
{
    Decomposed d = decompose(14, 11, 6, 7);
    GroupSystem<B> all{d, {0, 1, 2, 3, 4, 5}, ints(6, 0)};
    std::vector<GroupSystem<B>> groups;

    ThreeGroups()
    {
        const ints ownerOf{0, 0, 2, 2, 4, 4};
        groups.emplace_back(d, ints{0, 1}, ownerOf);
        groups.emplace_back(d, ints{2, 3}, ownerOf);
        groups.emplace_back(d, ints{4, 5}, ownerOf);
    }

    //- v (the one system's rows) cut into the groups' rows
    std::vector<std::vector<double>> split(const std::vector<double>& v) const
    {
        std::vector<std::vector<double>> parts;
        for (const GroupSystem<B>& g : groups)
        {
            const int first = all.level.rowStart[2*int(parts.size())];
            parts.emplace_back(v.begin() + first, v.begin() + first + g.level.nCells());
        }
        return parts;
    }
};

} // namespace


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


//- Three groups' sums on the backend, each its rows' sum summed with the others' (the owners'
//  sum): the one system's (integer values: exact in any order); a halo exchanged on the backend
//  leaves the groups' work on the backend (recordable), one through the host does not
TYPED_TEST(KrylovTest, GroupsSummingOnBackendEqualOneSystem)
{
    using B = TypeParam;
    ThreeGroups<B> t;
    const std::vector<GroupSystem<B>>& groups = t.groups;
    std::vector<std::vector<double>> xs, ys;
    std::vector<std::vector<double>> sums(3, std::vector<double>(2, 0.0));
    double dot = 0, squares = 0;
    for (int g = 0; g < 3; ++g)
    {
        std::vector<double> x = randomVector(groups[g].level.nCells(), 20 + g, -8, 8);
        std::vector<double> y = randomVector(groups[g].level.nCells(), 30 + g, -8, 8);
        for (std::size_t i = 0; i < x.size(); ++i)
        {
            x[i] = std::round(x[i]);
            y[i] = std::round(y[i]);
            sums[g][0] += x[i]*y[i];
            sums[g][1] += x[i]*x[i];
        }
        dot += sums[g][0];
        squares += sums[g][1];
        xs.push_back(x);
        ys.push_back(y);
    }
    for (int g = 0; g < 3; ++g)
    {
        SCOPED_TRACE("group " + std::to_string(g));
        LduSystemImpl<B>& system = *groups[g].system;
        const FakeExchange<B> host(groups, xs, g);
        FakeBackendExchange<B> onB(groups, xs, g);
        onB.others = {dot - sums[g][0], squares - sums[g][1]};
        EXPECT_FALSE(DeviceScalars<B>::stayOnBackend(system.parts(), host));
        EXPECT_FALSE(system.staysOnBackend(host));
        EXPECT_TRUE(DeviceScalars<B>::stayOnBackend(system.parts(), onB));
        EXPECT_TRUE(system.staysOnBackend(onB));

        typename B::template Vector<double> x(xs[g].begin(), xs[g].end()), y(ys[g].begin(), ys[g].end());
        DeviceScalars<B> scalars(system.workspace(), onB, system.parts());
        scalars.sumInto(detail::Dot{ptr(x), ptr(y)}, detail::Dot{ptr(x), ptr(x)}, 0);
        double got[2];
        scalars.fetch(0, 2, got);
        EXPECT_EQ(got[0], dot);
        EXPECT_EQ(got[1], squares);
        onB.others = {dot - sums[g][0]};
        scalars.sumInto(detail::Dot{ptr(x), ptr(y)}, 1);
        scalars.fetch(1, 1, got);
        EXPECT_EQ(got[0], dot);
    }
}


//- The groups' levels gathered on every group (GatheredCoarsest: each group's rows, faces and
//  terms, its halo's columns the rows across, found by sending the rows' numbers through the
//  halo) are the one system's level: the coarsest team's PCG on the gathered level gives each
//  group its rows of the one system's correction in as many iterations, bit for bit, with the
//  source gathered through the host or summed on the backend (each group's rows, zeros
//  elsewhere); pieces that do not match the structure are an error
TYPED_TEST(KrylovTest, GroupsCoarsestGatheredIsTheOneSystemsTeamSolve)
{
    using B = TypeParam;
    ThreeGroups<B> t;
    const std::vector<GroupSystem<B>>& groups = t.groups;
    const LduAddressingView whole = t.all.level.view();
    const int n = whole.nCells;
    const std::vector<int> parts = CoarsestPcg<B>::teamParts(
        n, std::vector<int>(whole.lower, whole.lower + whole.nFaces),
        std::vector<int>(whole.upper, whole.upper + whole.nFaces));
    ASSERT_TRUE(CoarsestPcg<B>::usable(*t.all.system, Coupling(), true, parts));
    CoarsestPcg<B> team;
    team.setMatrix(*t.all.system, parts);
    const std::vector<double> b = randomVector(n, 51);
    SolverControls controls;
    controls.tolerance = 1e-10;
    typename B::template Vector<double> src(b.begin(), b.end()), corr(b.size());
    team.solve(*t.all.system, ptr(src), ptr(corr), controls);
    const std::vector<double> expected = toHost(corr);
    const long iterations = team.iterations();
    ASSERT_GT(iterations, 2);

    std::vector<int> first{0};
    std::vector<std::vector<double>> rowsOf;
    for (const GroupSystem<B>& g : groups)
    {
        rowsOf.emplace_back();
        for (int i = 0; i < g.level.nCells(); ++i)
        {
            rowsOf.back().push_back(first.back() + i);
        }
        first.push_back(first.back() + g.level.nCells());
    }
    std::vector<std::vector<double>> structure, values;
    for (int g = 0; g < 3; ++g)
    {
        const FakeExchange<B> fake(groups, rowsOf, g);
        const DeviceCouplings& c = groups[g].level.couplings;
        ASSERT_GT(c.nHalo, 0);
        structure.push_back(GatheredCoarsest<B>::structurePiece(
            groups[g].level.view(), c, first[g], GatheredCoarsest<B>::haloRows(c, first[g], fake)));
        std::vector<double> ldu(std::size_t(groups[g].level.nCells() + groups[g].level.view().nFaces));
        B::download(ldu.data(), groups[g].system->lduValues(), ldu.size());
        values.push_back(GatheredCoarsest<B>::valuePiece(ldu, groups[g].coeffs));
    }
    const std::vector<std::vector<double>> bs = t.split(b);
    for (int g = 0; g < 3; ++g)
    {
        SCOPED_TRACE("group " + std::to_string(g));
        GatheredCoarsest<B> gathered(structure, g);
        ASSERT_TRUE(gathered.usable());
        EXPECT_EQ(gathered.nGathered(), n);
        EXPECT_EQ(gathered.first(), first[g]);
        EXPECT_EQ(gathered.nCells(), first[g + 1] - first[g]);
        gathered.setMatrix(values);
        const std::vector<double> mine(expected.begin() + first[g], expected.begin() + first[g + 1]);
        for (const bool backend : {false, true})
        {
            SCOPED_TRACE(backend ? "summed on the backend" : "gathered through the host");
            typename B::template Vector<double> groupSrc(bs[g].begin(), bs[g].end()), groupCorr(bs[g].size());
            if (backend)
            {
                FakeBackendExchange<B> sum(groups, rowsOf, g);
                sum.others = b;
                std::fill(sum.others.begin() + first[g], sum.others.begin() + first[g + 1], 0.0);
                sum.sumOnBackend(gathered.placeSource(ptr(groupSrc)), n);
            }
            else
            {
                gathered.uploadSource(bs);
            }
            gathered.solve(ptr(groupCorr), controls);
            EXPECT_EQ(toHost(groupCorr), mine);
        }
        EXPECT_EQ(gathered.iterations(), 2*iterations);
        EXPECT_THROW(gathered.setMatrix({values[0], values[1]}), Error);
        EXPECT_THROW(gathered.uploadSource({bs[0], bs[1]}), Error);
    }
    std::vector<double> cut = structure[1];
    cut.pop_back();
    EXPECT_THROW(GatheredCoarsest<B>(std::vector<std::vector<double>>{structure[0], cut}, 0), Error);
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
