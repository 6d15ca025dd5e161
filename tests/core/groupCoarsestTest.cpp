// SPDX-License-Identifier: GPL-3.0-or-later
// GAMG's coarsest level of several groups (multigrid/GatheredCoarsest.hpp, GamgCoarsest.hpp): the
// groups' coarsest levels gathered on every group solve as the one system's level by the
// coarsest team, bit for bit, with the source gathered through the host or summed on the
// backend; the groups' owners, each on a thread, agree and gather together.

#include "groupHaloTestSupport.hpp"
#include "multigrid/GamgCoarsest.hpp"

#include <condition_variable>
#include <mutex>
#include <thread>

namespace gpuLdu::test
{

namespace
{

//- The one system's coarsest solve by the team (CoarsestPcg) for a random source, and each
//  group's rows numbered in it: what the groups' gathered coarsest levels must give
template<class B>
struct OneSystemTeamSolve
{
    ThreeGroups<B> t;
    int n = t.all.level.nCells();
    std::vector<double> b = randomVector(n, 51);
    std::vector<std::vector<double>> bs = t.split(b);
    SolverControls controls;
    std::vector<double> expected;
    long iterations = 0;
    //- Each group's first row, and its rows' numbers (the x whose halo is the rows across)
    std::vector<int> first{0};
    std::vector<std::vector<double>> rowsOf;

    OneSystemTeamSolve()
    {
        const LduAddressingView whole = t.all.level.view();
        const std::vector<int> parts = CoarsestPcg<B>::teamParts(
            n, std::vector<int>(whole.lower, whole.lower + whole.nFaces),
            std::vector<int>(whole.upper, whole.upper + whole.nFaces));
        EXPECT_TRUE(CoarsestPcg<B>::usable(*t.all.system, Coupling(), true, parts));
        CoarsestPcg<B> team;
        team.setMatrix(*t.all.system, parts);
        controls.tolerance = 1e-10;
        typename B::template Vector<double> src(b.begin(), b.end()), corr(b.size());
        team.solve(*t.all.system, ptr(src), ptr(corr), controls);
        expected = toHost(corr);
        iterations = team.iterations();
        for (const GroupSystem<B>& g : t.groups)
        {
            rowsOf.emplace_back();
            for (int i = 0; i < g.level.nCells(); ++i)
            {
                rowsOf.back().push_back(first.back() + i);
            }
            first.push_back(first.back() + g.level.nCells());
        }
    }

    //- Group g's rows of the expected correction
    std::vector<double> rowsOfGroup(int g) const
    {
        return {expected.begin() + first[g], expected.begin() + first[g + 1]};
    }
};

} // namespace


//- The groups' levels gathered on every group (GatheredCoarsest: each group's rows, faces and
//  terms, its halo's columns the rows across, found by sending the rows' numbers through the
//  halo) are the one system's level: the coarsest team's PCG on the gathered level gives each
//  group its rows of the one system's correction in as many iterations, bit for bit, with the
//  source gathered through the host or summed on the backend (each group's rows, zeros
//  elsewhere); pieces that do not match the structure are an error
TYPED_TEST(KrylovTest, GroupsCoarsestGatheredIsTheOneSystemsTeamSolve)
{
    using B = TypeParam;
    const OneSystemTeamSolve<B> one;
    const std::vector<GroupSystem<B>>& groups = one.t.groups;
    const int n = one.n;
    const std::vector<int>& first = one.first;
    const std::vector<std::vector<double>>& rowsOf = one.rowsOf;
    const std::vector<double>& b = one.b;
    const std::vector<std::vector<double>>& bs = one.bs;
    const SolverControls& controls = one.controls;
    ASSERT_GT(one.iterations, 2);

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
    for (int g = 0; g < 3; ++g)
    {
        SCOPED_TRACE("group " + std::to_string(g));
        GatheredCoarsest<B> gathered(structure, g);
        ASSERT_TRUE(gathered.usable());
        EXPECT_EQ(gathered.nGathered(), n);
        EXPECT_EQ(gathered.first(), first[g]);
        EXPECT_EQ(gathered.nCells(), first[g + 1] - first[g]);
        gathered.setMatrix(values);
        const std::vector<double> mine = one.rowsOfGroup(g);
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
        EXPECT_EQ(gathered.iterations(), 2*one.iterations);
        EXPECT_THROW(gathered.setMatrix({values[0], values[1]}), Error);
        EXPECT_THROW(gathered.uploadSource({bs[0], bs[1]}), Error);
    }
    std::vector<double> cut = structure[1];
    cut.pop_back();
    EXPECT_THROW(GatheredCoarsest<B>(std::vector<std::vector<double>>{structure[0], cut}, 0), Error);
}


namespace
{

//- Three groups' owners meeting as the plugin's owners do, a thread each: every gather (and the
//  maximum, a gather's) waits for every group; the halo comes as FakeExchange brings it; with
//  backend, the sums on the backend (each group's values, summed in the groups' order)
template<class B>
class MeetingExchange : public FakeExchange<B>
{
public:
    //- Where the owners meet: each one's values, and a barrier (used twice a meeting: all have
    //  written, all have read)
    struct Meeting
    {
        std::mutex mutex;
        std::condition_variable cv;
        int waiting = 0;
        long generation = 0;
        std::vector<std::vector<double>> values = std::vector<std::vector<double>>(3);

        void wait()
        {
            std::unique_lock<std::mutex> lock(mutex);
            const long g = generation;
            if (++waiting == 3)
            {
                waiting = 0;
                ++generation;
                cv.notify_all();
            }
            else
            {
                cv.wait(lock, [&] { return generation != g; });
            }
        }
    };

private:
    Meeting& meeting_;
    int me_;
    bool backend_;

public:
    MeetingExchange(const std::vector<GroupSystem<B>>& groups, const std::vector<std::vector<double>>& x,
                    int me, Meeting& meeting, bool backend)
    :
        FakeExchange<B>(groups, x, me), meeting_(meeting), me_(me), backend_(backend)
    {}

    int nSystems() const override
    {
        return 3;
    }

    int systemIndex() const override
    {
        return me_;
    }

    std::vector<std::vector<double>> gather(const std::vector<double>& mine) const override
    {
        {
            std::lock_guard<std::mutex> lock(meeting_.mutex);
            meeting_.values[me_] = mine;
        }
        meeting_.wait();
        std::vector<std::vector<double>> all;
        {
            std::lock_guard<std::mutex> lock(meeting_.mutex);
            all = meeting_.values;
        }
        meeting_.wait();
        return all;
    }

    double maximum(double local) const override
    {
        double m = local;
        for (const std::vector<double>& v : gather({local}))
        {
            m = std::max(m, v.at(0));
        }
        return m;
    }

    bool exchangesOnBackend(Executor) const override
    {
        return backend_;
    }

    bool sumsAreLocal() const override
    {
        return false;
    }

    void sumOnBackend(double* values, int count) const override
    {
        std::vector<double> v(count);
        B::download(v.data(), values, v.size());
        std::vector<double> sum(count, 0.0);
        for (const std::vector<double>& theirs : gather(v))
        {
            for (int i = 0; i < count; ++i)
            {
                sum[i] += theirs.at(i);
            }
        }
        B::upload(values, sum.data(), sum.size());
    }
};

} // namespace


//- GAMG's coarsest level of three groups (GamgCoarsest), each owner on a thread of its own: the
//  owners agree, gather the groups' levels once and their values every solve, and each corrects
//  its rows as the one system's team does, bit for bit, in as many iterations, the source
//  gathered through the host or summed on the backend; the gathered level's rows are reported.
//  On the host's backend only: the owners are threads of one process here, and the GPU backend's
//  temporaries are a process's, not a thread's (the GPU runs the path in tests/integration/gamg.sh)
TEST(GroupHalo, GamgCoarsestGathersOnEveryOwner)
{
    using B = CpuBackend;
    OneSystemTeamSolve<B> one;
    std::vector<GroupSystem<B>>& groups = one.t.groups;
    for (const bool backend : {false, true})
    {
        SCOPED_TRACE(backend ? "summed on the backend" : "gathered through the host");
        typename MeetingExchange<B>::Meeting meeting;
        std::vector<std::vector<double>> corrections(3);
        std::vector<int> rows(3);
        std::vector<long> iterations(3);
        std::vector<std::thread> owners;
        for (int g = 0; g < 3; ++g)
        {
            owners.emplace_back([&, g]
            {
                const MeetingExchange<B> coupling(groups, one.rowsOf, g, meeting, backend);
                GroupSystem<B>& group = groups[g];
                GamgCoarsest<B> coarsest(group.level.view());
                coarsest.setCouplings(group.level.couplings);
                coarsest.setCouplingCoeffs(group.coeffs.data());
                coarsest.setMatrix(*group.system, false, true, GamgControls(), coupling);
                rows[g] = coarsest.gatheredRows();
                typename B::template Vector<double> src(one.bs[g].begin(), one.bs[g].end()), corr(one.bs[g].size());
                coarsest.solve(*group.system, ptr(src), ptr(corr), one.controls, GamgControls(), coupling, true);
                corrections[g] = toHost(corr);
                iterations[g] = coarsest.backendIterations();
            });
        }
        for (std::thread& owner : owners)
        {
            owner.join();
        }
        for (int g = 0; g < 3; ++g)
        {
            SCOPED_TRACE("group " + std::to_string(g));
            EXPECT_EQ(rows[g], one.n);
            EXPECT_EQ(corrections[g], one.rowsOfGroup(g));
            EXPECT_EQ(iterations[g], one.iterations);
        }
    }
}

} // namespace gpuLdu::test
