// SPDX-License-Identifier: GPL-3.0-or-later
// Level schedules: every row once, dependencies on earlier levels only, levels minimal.

#include "gamgTestSupport.hpp"
#include "testSupport.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace gpuLdu::test
{

//- Checks a schedule of the graph whose edges are (from -> to): to depends on from.
void checkSchedule(const HostLevelSchedule& s, int n, const std::vector<std::pair<int, int>>& edges)
{
    ASSERT_EQ(int(s.rows.size()), n);
    std::vector<int> level(n, -1);
    for (int l = 0; l < s.nLevels(); ++l)
    {
        ASSERT_LT(s.levelStart[l], s.levelStart[l + 1]) << "empty level " << l;
        for (int k = s.levelStart[l]; k < s.levelStart[l + 1]; ++k)
        {
            ASSERT_EQ(level[s.rows[k]], -1) << "row listed twice";
            level[s.rows[k]] = l;
        }
    }
    for (const auto& [from, to] : edges)
    {
        EXPECT_LT(level[from], level[to]);
    }
    // minimal: a row on level l > 0 has a dependency on level l-1
    std::vector<int> deepest(n, -1);
    for (const auto& [from, to] : edges)
    {
        deepest[to] = std::max(deepest[to], level[from]);
    }
    for (int i = 0; i < n; ++i)
    {
        EXPECT_EQ(level[i], deepest[i] + 1) << "row " << i;
    }
}

TEST(LevelSchedule, LowerAndUpperOfPoissonAreValidAndMinimal)
{
    const LduProblem p = poisson3D(7, 6, 5, 4);
    std::vector<std::pair<int, int>> lowerEdges;
    std::vector<std::pair<int, int>> upperEdges;
    for (int f = 0; f < p.nFaces(); ++f)
    {
        lowerEdges.push_back({p.lower[f], p.upper[f]});
        upperEdges.push_back({p.upper[f], p.lower[f]});
    }
    const HostLevelSchedule lower = lowerLevelSchedule(p.addressing());
    const HostLevelSchedule upper = upperLevelSchedule(p.addressing());
    checkSchedule(lower, p.nCells, lowerEdges);
    checkSchedule(upper, p.nCells, upperEdges);
    // a lexicographic nx*ny*nz grid has (nx-1)+(ny-1)+(nz-1)+1 levels
    EXPECT_EQ(lower.nLevels(), 6 + 5 + 4 + 1);
    EXPECT_EQ(upper.nLevels(), 6 + 5 + 4 + 1);
}

TEST(LevelSchedule, MatrixMarketGraph)
{
    const LduProblem p = readMatrixMarket(dataFile("1138_bus.mtx.gz"));
    std::vector<std::pair<int, int>> edges;
    for (int f = 0; f < p.nFaces(); ++f)
    {
        edges.push_back({p.lower[f], p.upper[f]});
    }
    checkSchedule(lowerLevelSchedule(p.addressing()), p.nCells, edges);
}

//- Runs a sweep's rows on the host as the GPU's warps may meet them: level by level, each
//  level's rows in reverse order, and before each level every row of the next level once, too
//  early: such a row depends on a row of this level (levels are minimal), so it must find a value
//  missing, throw SweepValueNotReady and leave its output as it was (notReady). Returns the
//  number of early tries refused.
template<class F>
int sweepOutOfOrder(const HostLevelSchedule& h, const F& f, const std::vector<double>& out)
{
    int refused = 0;
    for (int l = 0; l < h.nLevels(); ++l)
    {
        if (l + 1 < h.nLevels())
        {
            for (int k = h.levelStart[l + 1]; k < h.levelStart[l + 2]; ++k)
            {
                try
                {
                    f(k);
                    ADD_FAILURE() << "row " << h.rows[k] << " of level " << l + 1 << " finished before level " << l;
                }
                catch (const SweepValueNotReady&)
                {
                    ++refused;
                }
                EXPECT_FALSE(isReady(out[h.rows[k]])) << "row " << h.rows[k] << " written too early";
            }
        }
        for (int k = h.levelStart[l + 1] - 1; k >= h.levelStart[l]; --k)
        {
            f(k);
        }
    }
    return refused;
}

//- The wait protocol of the triangular sweeps (sweep/WaitProtocol.hpp), driven out of order on
//  the host against the level-by-level sweep and the sequential reference: the DIC factor and
//  both DILU sweeps, the terms packed as wide as the widest row (all in registers), 3 wide and
//  1 wide (the rest read and waited for one by one from the CSR matrix).
TEST(WaitProtocol, RowsOutOfOrderWaitForTheirValues)
{
    using B = CpuBackend;
    for (const LduProblem& p : {asymmetric(9, 8, 7, 5), readMatrixMarket(dataFile("sherman5.mtx.gz"))})
    {
        SCOPED_TRACE(p.nCells);
        const int n = p.nCells;
        const HostLevelSchedule lowerH = lowerLevelSchedule(p.addressing());
        const HostLevelSchedule upperH = upperLevelSchedule(p.addressing());
        const int early = n - (lowerH.levelStart[1] - lowerH.levelStart[0]);
        const int earlyUpper = n - (upperH.levelStart[1] - upperH.levelStart[0]);
        LduSystemImpl<B> sys(p.addressing());
        sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerCoeffs.data());
        const auto& A = sys.matrix();
        auto& M = sys.preconditioners();
        const auto& lower = sys.schedules().lower();

        // the factor: d filled with notReady, rows out of order
        std::vector<double> d(n, notReady());
        std::vector<double> dByLevel(n, notReady());
        const auto factorInto = [&](std::vector<double>& into)
        {
            return detail::DicFactorRow{lower.rows(), ptr(A.rowStart), ptr(A.col), ptr(A.diagPos),
                                        ptr(A.transpose), ptr(A.val), into.data()};
        };
        EXPECT_EQ(sweepOutOfOrder(lowerH, factorInto(d), d), early);
        lower.sweepByLevel(factorInto(dByLevel));
        EXPECT_EQ(d, dByLevel);

        M.setup(Preconditioner::named("DILU"));
        auto& dilu = M.template instance<preconditioners::DicDilu>();
        const std::vector<double> r = randomVector(n, 6);
        const std::vector<double> reference = ReferencePreconditioner(p, Preconditioner::named("DILU")).apply(r);
        for (int width : {8, 3, 1})
        {
            SCOPED_TRACE("packed width " + std::to_string(width));
            dilu.setPackedWidth(width);
            std::vector<double> y(n, notReady());
            std::vector<double> w(n, notReady());
            EXPECT_EQ(sweepOutOfOrder(lowerH, dilu.template forwardSweep<false>(r.data(), y.data()), y), early);
            EXPECT_EQ(sweepOutOfOrder(upperH, dilu.template backwardSweep<false>(y.data(), w.data()), w), earlyUpper);
            std::vector<double> wByLevel(n);
            dilu.apply(wByLevel.data(), r.data());
            EXPECT_EQ(w, wByLevel);
            EXPECT_LT(relativeDifference(w, reference), 1e-13);
        }
    }
}

#ifdef __CUDACC__

//- The GPU's one-launch sweeps (tickets; rows waiting on values for the DILU sweeps, chunks
//  waiting on flags for the factors), with the default and with 64 blocks, against their
//  level-by-level twin: the same arithmetic per row, so the same bits. (On the host both are the
//  level-by-level sweep; the host test of the protocol is RowsOutOfOrderWaitForTheirValues.)
TEST(SweepOnTheGpu, OneLaunchSweepIsEquivalentToLevelByLevel)
{
    using B = GpuBackend;
    using Vector = B::Vector<double>;
    const auto countNotReady = [](const Vector& v)
    {
        const std::vector<double> h = toHost(v);
        return std::count_if(h.begin(), h.end(), [](double x) { return !isReady(x); });
    };
    for (const LduProblem& p : {asymmetric(60, 50, 40, 5), readMatrixMarket(dataFile("sherman5.mtx.gz"))})
    for (int blocks : {-1, 64})
    {
        SCOPED_TRACE(blocks < 0 ? "default blocks" : "64 blocks");
        LduSystemImpl<B> sys(p.addressing());
        sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerCoeffs.data());
        const auto& A = sys.matrix();
        auto& M = sys.preconditioners();
        sys.schedules().setOneLaunchBlocks(blocks);
        const auto& lower = sys.schedules().lower();
        const auto& upper = sys.schedules().upper();
        const int n = p.nCells;
        Vector d1(n);
        Vector d2(n);
        lower.sweep(detail::DicFactorRow{lower.rows(), ptr(A.rowStart), ptr(A.col), ptr(A.diagPos),
                                         ptr(A.transpose), ptr(A.val), ptr(d1)});
        lower.sweepByLevel(detail::DicFactorRow{lower.rows(), ptr(A.rowStart), ptr(A.col), ptr(A.diagPos),
                                                ptr(A.transpose), ptr(A.val), ptr(d2)});
        EXPECT_EQ(toHost(d1), toHost(d2));

        // DILU sweeps r -> y -> w, each into a vector filled with notReady; the terms packed as
        // wide as the widest row, 3 and 1 wide (the rest from the CSR matrix)
        M.setup(Preconditioner::named("DILU"));
        auto& dilu = M.template instance<preconditioners::DicDilu>();
        const std::vector<double> r = randomVector(n, 6);
        const Vector dr(r.begin(), r.end());
        std::vector<double> wFirst;
        for (int width : {8, 3, 1})
        {
            SCOPED_TRACE("packed width " + std::to_string(width));
            dilu.setPackedWidth(width);
            Vector y1(n, notReady());
            Vector y2(n, notReady());
            Vector w1(n, notReady());
            Vector w2(n, notReady());
            lower.sweep(dilu.template forwardSweep<false>(ptr(dr), ptr(y1)));
            lower.sweepByLevel(dilu.template forwardSweep<false>(ptr(dr), ptr(y2)));
            EXPECT_EQ(toHost(y1), toHost(y2));
            EXPECT_EQ(countNotReady(y1), 0);
            upper.sweep(dilu.template backwardSweep<true>(ptr(y1), ptr(w1)));
            upper.sweepByLevel(dilu.template backwardSweep<true>(ptr(y2), ptr(w2)));
            EXPECT_EQ(toHost(w1), toHost(w2));
            EXPECT_EQ(countNotReady(w1), 0);
            if (dilu.packedWidth() <= 3)
            {
                // row functors of 3 terms (hexahedral meshes): the same bits
                Vector y3(n, notReady());
                Vector w3(n, notReady());
                lower.sweep(dilu.template forwardSweep<false, 3>(ptr(dr), ptr(y3)));
                upper.sweep(dilu.template backwardSweep<true, 3>(ptr(y3), ptr(w3)));
                EXPECT_EQ(toHost(w3), toHost(w1));
            }
            else
            {
                EXPECT_THROW((dilu.template forwardSweep<false, 3>(ptr(dr), ptr(y1))), Error);
            }
            if (wFirst.empty())
            {
                wFirst = toHost(w1);
            }
            EXPECT_EQ(toHost(w1), wFirst);
        }

        Vector lu1(A.val);
        Vector lu2(A.val);
        lower.sweep(detail::Ilu0FactorRow{lower.rows(), ptr(A.rowStart), ptr(A.col), ptr(A.diagPos), ptr(lu1)});
        lower.sweepByLevel(detail::Ilu0FactorRow{lower.rows(), ptr(A.rowStart), ptr(A.col), ptr(A.diagPos), ptr(lu2)});
        EXPECT_EQ(toHost(lu1), toHost(lu2));
        EXPECT_GT(lower.nChunks(), lower.nLevels());
    }
}

#endif

template<class B>
class SweepTest : public ::testing::Test {};
TYPED_TEST_SUITE(SweepTest, Backends);

struct Times
{
    double* x;
    double s;

    GPULDU_HD void operator()(int i) const
    {
        x[i] *= s;
    }
};

//- notReady is a value no arithmetic gives back, even from notReady itself (on either backend)
TYPED_TEST(SweepTest, NotReadyIsNoResultOfArithmetic)
{
    using B = TypeParam;
    EXPECT_FALSE(isReady(notReady()));
    EXPECT_TRUE(isReady(std::numeric_limits<double>::quiet_NaN()));
    EXPECT_TRUE(isReady(0.0));
    typename B::template Vector<double> x(4, notReady());
    forEach<B>(0, 4, Times{ptr(x), 2.0});
    for (double v : toHost(x))
    {
        EXPECT_TRUE(std::isnan(v));
        EXPECT_TRUE(isReady(v));
    }
}

//- The one-launch sweep's chunks: each level's positions cut into pieces of at most `chunk`,
//  and each chunk's dependencies, the chunks holding its rows' dependencies, ascending and each
//  once: as defined, rows visited in level order, against what LevelSchedule built.
template<class B>
void checkChunks(const HostLevelSchedule& h)
{
    const LevelSchedule<B> s(h);
    const int nChunks = s.nChunks();
    std::vector<int> begin(nChunks + 1), depStart(nChunks + 1);
    B::download(begin.data(), s.chunkBegin(), nChunks + 1);
    B::download(depStart.data(), s.chunkDepStart(), nChunks + 1);
    std::vector<int> deps(depStart.back());
    B::download(deps.data(), s.chunkDeps(), deps.size());

    std::vector<int> expectBegin, chunkOfPosition(h.rows.size()), position(h.rows.size());
    for (int l = 0; l < h.nLevels(); ++l)
    {
        for (int k = h.levelStart[l]; k < h.levelStart[l + 1]; ++k)
        {
            if (k == h.levelStart[l] || k - expectBegin.back() == LevelSchedule<B>::chunk)
            {
                expectBegin.push_back(k);
            }
            chunkOfPosition[k] = int(expectBegin.size()) - 1;
            position[h.rows[k]] = k;
        }
    }
    expectBegin.push_back(int(h.rows.size()));
    ASSERT_EQ(begin, expectBegin);
    // each row's dependencies (to[f] reads from[f])
    std::vector<std::vector<int>> rowDeps(h.rows.size());
    for (int f = 0; f < h.nFaces; ++f)
    {
        rowDeps[h.to[f]].push_back(h.from[f]);
    }
    for (int c = 0; c < nChunks; ++c)
    {
        std::vector<int> expect;
        for (int k = begin[c]; k < begin[c + 1]; ++k)
        {
            for (const int d : rowDeps[h.rows[k]])
            {
                expect.push_back(chunkOfPosition[position[d]]);
            }
        }
        std::sort(expect.begin(), expect.end());
        expect.erase(std::unique(expect.begin(), expect.end()), expect.end());
        ASSERT_EQ(std::vector<int>(deps.begin() + depStart[c], deps.begin() + depStart[c + 1]), expect)
            << "chunk " << c;
    }
}

template<class B>
class ChunkTest : public ::testing::Test {};
TYPED_TEST_SUITE(ChunkTest, Backends);

TYPED_TEST(ChunkTest, DependenciesAreTheChunksOfTheRowsDependencies)
{
    // levels wider than a chunk (a 40x40 plane), and an unstructured graph
    const std::vector<LduProblem> problems{poisson3D(40, 40, 6, 3), readMatrixMarket(dataFile("sherman5.mtx.gz"))};
    for (const LduProblem& p : problems)
    {
        SCOPED_TRACE(p.nCells);
        checkChunks<TypeParam>(lowerLevelSchedule(p.addressing()));
        checkChunks<TypeParam>(upperLevelSchedule(p.addressing()));
    }
}

//- The schedule a system builds from its CSR pattern on the backend is the host's reference:
//  the same rows, levels, chunks and chunk dependencies, lower and upper, also where the
//  relaxation's passes are cut short and the host finds the levels (passes 1), and on a GAMG
//  coarse level whose faces are not in upper-triangular order
template<class B>
void expectSameSchedule(const LevelSchedule<B>& a, const LevelSchedule<B>& b, int n)
{
    const auto ints = [](const int* at, int size)
    {
        std::vector<int> v(size);
        B::download(v.data(), at, size);
        return v;
    };
    ASSERT_EQ(a.levelStarts(), b.levelStarts());
    EXPECT_EQ(ints(a.rows(), n), ints(b.rows(), n));
    ASSERT_EQ(a.nChunks(), b.nChunks());
    EXPECT_EQ(ints(a.chunkBegin(), a.nChunks() + 1), ints(b.chunkBegin(), b.nChunks() + 1));
    const std::vector<int> depStart = ints(a.chunkDepStart(), a.nChunks() + 1);
    EXPECT_EQ(depStart, ints(b.chunkDepStart(), b.nChunks() + 1));
    EXPECT_EQ(ints(a.chunkDeps(), depStart.back()), ints(b.chunkDeps(), depStart.back()));
}

TYPED_TEST(ChunkTest, BuiltFromTheCsrPatternAsOnTheHost)
{
    std::vector<LduProblem> problems{poisson3D(40, 40, 6, 3), readMatrixMarket(dataFile("sherman5.mtx.gz"))};
    const LduProblem fine = poisson3D(12, 10, 8, 5);
    const TestLevel coarse = agglomerate(fine.addressing(), 9);
    LduProblem c;
    c.nCells = coarse.coarse().nCells;
    c.lower.assign(coarse.coarse().lower, coarse.coarse().lower + coarse.coarse().nFaces);
    c.upper.assign(coarse.coarse().upper, coarse.coarse().upper + coarse.coarse().nFaces);
    problems.push_back(c);
    for (const LduProblem& p : problems)
    {
        SCOPED_TRACE(p.nCells);
        const CsrMatrix<TypeParam> A(p.addressing());
        for (const int passes : {LevelSchedule<TypeParam>::maxPasses, 1})
        {
            expectSameSchedule(LevelSchedule<TypeParam>(A, false, passes),
                               LevelSchedule<TypeParam>(lowerLevelSchedule(p.addressing())), p.nCells);
            expectSameSchedule(LevelSchedule<TypeParam>(A, true, passes),
                               LevelSchedule<TypeParam>(upperLevelSchedule(p.addressing())), p.nCells);
        }
    }
}

TEST(LevelSchedule, RowsWithinALevelAscend)
{
    const HostLevelSchedule s = sortByLevel({2, 0, 1, 0, 2, 1});
    EXPECT_EQ(s.rows, (std::vector<int>{1, 3, 2, 5, 0, 4}));
    EXPECT_EQ(s.levelStart, (std::vector<int>{0, 2, 4, 6}));
}

} // namespace gpuLdu::test
