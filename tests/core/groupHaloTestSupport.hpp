// SPDX-License-Identifier: GPL-3.0-or-later
// What the tests of the exchange between groups share (groupHaloTest.cpp, groupCoarsestTest.cpp):
// a randomly decomposed grid, a group's system of some of its ranks, the fake transport that
// fills a group's halo from the other groups' x as their owners' messages would, and the six
// ranks as one system and as three groups of two.

#ifndef GPULDU_GROUPHALOTESTSUPPORT_HPP
#define GPULDU_GROUPHALOTESTSUPPORT_HPP

#include "referenceKrylov.hpp"
#include "gpuLdu/rankGroup.hpp"

#include <algorithm>
#include <map>
#include <random>

namespace gpuLdu::test
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

inline Decomposed decompose(int nx, int ny, int nRanks, unsigned seed)
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
        const int nRanks = int(d.ranks.size());
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
        // each rank's sums in its slot among all the ranks (as the plugin's groups)
        system->setPartSlots(members, nRanks);
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

    //- The groups sum together (through the host here)
    bool sumsAreLocal() const override
    {
        return false;
    }

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
//  Its sums on the backend add the other groups' values (given: `others`, value by value).
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

//- Six ranks of a randomly split grid (14 x 11 unless given) as one system and as three groups
//  of two (owners ranks 0, 2 and 4)
template<class B>
struct ThreeGroups
{
    Decomposed d;
    GroupSystem<B> all;
    std::vector<GroupSystem<B>> groups;

    explicit ThreeGroups(int nx = 14, int ny = 11)
    :
        d(decompose(nx, ny, 6, 7)),
        all(d, {0, 1, 2, 3, 4, 5}, ints(6, 0))
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

} // namespace gpuLdu::test

#endif
