// SPDX-License-Identifier: GPL-3.0-or-later
// Level schedules: every row once, dependencies on earlier levels only, levels minimal.

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

//- A slab partition covers every position once; a chunk is a run of one slab's positions of
//  one level, a slab's chunks ascend in level; a dependency in the same slab lies in an earlier
//  chunk of that slab, one in another slab lies in a slab with a lower number (the slab sweep's
//  blocks take slabs by ticket in that order, and wait only for slabs taken before).
void checkSlabs(const HostLevelSchedule& h, int nSlabs)
{
    const HostSlabs s = slabPartition(h, nSlabs);
    const int n = int(h.rows.size());
    EXPECT_LE(s.nSlabs, nSlabs);
    ASSERT_EQ(int(s.slabChunkStart.size()), s.nSlabs + 1);
    ASSERT_EQ(int(s.chunkFirst.size()), s.nChunks());
    std::vector<int> seen(n, 0);
    std::vector<int> levelOf(n);
    for (int l = 0; l < h.nLevels(); ++l)
    {
        for (int k = h.levelStart[l]; k < h.levelStart[l + 1]; ++k)
        {
            levelOf[k] = l;
        }
    }
    std::vector<int> chunkOfRow(n, -1);
    std::vector<int> slabOfRow(n, -1);
    for (int b = 0; b < s.nSlabs; ++b)
    {
        int lastLevel = -1;
        for (int c = s.slabChunkStart[b]; c < s.slabChunkStart[b + 1]; ++c)
        {
            ASSERT_LT(s.chunkBegin[c], s.chunkBegin[c + 1]) << "empty chunk " << c;
            const int level = levelOf[s.chunkFirst[c]];
            EXPECT_GT(level, lastLevel) << "slab " << b << " chunk " << c;
            lastLevel = level;
            for (int k = s.chunkFirst[c]; k < s.chunkFirst[c] + s.chunkBegin[c + 1] - s.chunkBegin[c]; ++k)
            {
                ASSERT_LT(k, n);
                ++seen[k];
                EXPECT_EQ(levelOf[k], level);
                chunkOfRow[h.rows[k]] = c;
                slabOfRow[h.rows[k]] = b;
            }
        }
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), n);
    for (int i = 0; i < n; ++i)
    {
        for (int d = h.depStart[i]; d < h.depStart[i + 1]; ++d)
        {
            const int j = h.deps[d];
            if (slabOfRow[j] == slabOfRow[i])
            {
                EXPECT_LT(chunkOfRow[j], chunkOfRow[i]) << "row " << i << " depends on a later chunk of its slab";
            }
            else
            {
                EXPECT_LT(slabOfRow[j], slabOfRow[i]) << "row " << i << " depends on a later slab";
            }
        }
    }
}

//- The slab sweep's shared-memory slots (slabSlots), walked as the GPU's blocks walk them: per
//  chunk, the writes of its first `block` rows (on the GPU some threads of a step may write
//  before others read), then the reads (a slot must hold the value of the row the term names).
//  A small block and depth exercise the -1 cases.
//  Returns how many terms read shared memory.
int checkSlabSlots(const HostLevelSchedule& h, int nSlabs, int block, int depth)
{
    const HostSlabs s = slabPartition(h, nSlabs);
    const int n = int(h.rows.size());
    const int width = 3;
    std::vector<int> count(n);
    std::vector<int> packedCol(std::size_t(width)*n, -1);
    for (int k = 0; k < n; ++k)
    {
        const int i = h.rows[k];
        count[k] = h.depStart[i + 1] - h.depStart[i];
        for (int m = 0; m < std::min(width, count[k]); ++m)
        {
            packedCol[std::size_t(m)*n + k] = h.deps[h.depStart[i] + m];
        }
    }
    const std::vector<int> slot = slabSlots(h, s, count, packedCol, width, block, depth);
    EXPECT_EQ(slot.size(), packedCol.size());
    int fromShared = 0;
    for (int b = 0; b < s.nSlabs; ++b)
    {
        std::vector<int> own(std::size_t(block)*depth, -1);
        for (int c = s.slabChunkStart[b]; c < s.slabChunkStart[b + 1]; ++c)
        {
            const int size = s.chunkBegin[c + 1] - s.chunkBegin[c];
            for (int t = 0; t < std::min(size, block); ++t)
            {
                own[(c % depth)*block + t] = h.rows[s.chunkFirst[c] + t];
            }
            for (int k = s.chunkFirst[c]; k < s.chunkFirst[c] + size; ++k)
            {
                for (int m = 0; m < std::min(width, count[k]); ++m)
                {
                    const int at = slot[std::size_t(m)*n + k];
                    if (at >= 0)
                    {
                        EXPECT_LT(at, block*depth);
                        if (at >= block*depth)
                        {
                            return -1;
                        }
                        EXPECT_EQ(own[at], packedCol[std::size_t(m)*n + k]) << "position " << k << " term " << m;
                        ++fromShared;
                    }
                }
            }
        }
    }
    return fromShared;
}

TEST(LevelSchedule, SlabPartitions)
{
    const LduProblem cube = poisson3D(12, 11, 10, 1);
    const LduProblem bus = readMatrixMarket(dataFile("1138_bus.mtx.gz"));
    for (const LduProblem* p : {&cube, &bus})
    {
        for (int nSlabs : {1, 7, 132, 5000})
        {
            checkSlabs(lowerLevelSchedule(p->addressing()), nSlabs);
            checkSlabs(upperLevelSchedule(p->addressing()), nSlabs);
            const int small = checkSlabSlots(lowerLevelSchedule(p->addressing()), nSlabs, 4, 2);
            const int large = checkSlabSlots(upperLevelSchedule(p->addressing()), nSlabs, 256, 4);
            checkSlabSlots(lowerLevelSchedule(p->addressing()), nSlabs, 256, 1);
            if (nSlabs <= 7)
            {
                EXPECT_GT(small, 0);
                EXPECT_GT(large, 0);
            }
        }
    }
}

//- A chain partition lays out every row once, 32 chains to a group, each chain's rows one after
//  another in its lane until it ends; each row of a chain is a direct dependency of the next,
//  one level below it; the chains start in level order. Returns the number of chains.
int checkChains(const HostLevelSchedule& h)
{
    const HostChains c = chainPartition(h);
    const int n = int(h.rows.size());
    std::vector<int> level(n);
    for (int l = 0; l < h.nLevels(); ++l)
    {
        for (int k = h.levelStart[l]; k < h.levelStart[l + 1]; ++k)
        {
            level[h.rows[k]] = l;
        }
    }
    std::vector<int> seen(n, 0);
    int chains = 0;
    int lastStart = 0;
    EXPECT_EQ(c.groupStart.front(), 0);
    EXPECT_EQ(c.groupStart.back(), int(c.slotRows.size()));
    for (int g = 0; g < c.nGroups(); ++g)
    {
        EXPECT_EQ((c.groupStart[g + 1] - c.groupStart[g]) % 32, 0);
        for (int lane = 0; lane < 32; ++lane)
        {
            int previous = -1;
            bool ended = false;
            for (int slot = c.groupStart[g] + lane; slot < c.groupStart[g + 1]; slot += 32)
            {
                const int i = c.slotRows[slot];
                if (i < 0)
                {
                    ended = true;
                    continue;
                }
                EXPECT_FALSE(ended) << "a row after the end of its chain, slot " << slot;
                ++seen.at(i);
                if (previous < 0)
                {
                    ++chains;
                    EXPECT_GE(level[i], lastStart) << "chains out of level order";
                    lastStart = level[i];
                }
                else
                {
                    const auto first = h.deps.begin() + h.depStart[i];
                    const auto last = h.deps.begin() + h.depStart[i + 1];
                    EXPECT_NE(std::find(first, last, previous), last) << "row " << i << " after " << previous;
                    EXPECT_EQ(level[i], level[previous] + 1) << "row " << i;
                }
                previous = i;
            }
        }
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), n);
    return chains;
}

TEST(LevelSchedule, ChainPartitions)
{
    // a structured grid: the chains are its x lines, in both sweeps
    const LduProblem cube = poisson3D(12, 11, 10, 1);
    EXPECT_EQ(checkChains(lowerLevelSchedule(cube.addressing())), 11*10);
    EXPECT_EQ(checkChains(upperLevelSchedule(cube.addressing())), 11*10);
    for (const char* name : {"1138_bus.mtx.gz", "sherman5.mtx.gz"})
    {
        SCOPED_TRACE(name);
        const LduProblem p = readMatrixMarket(dataFile(name));
        const int lower = checkChains(lowerLevelSchedule(p.addressing()));
        const int upper = checkChains(upperLevelSchedule(p.addressing()));
        // chains join rows: fewer chains than rows
        EXPECT_LT(lower, p.nCells);
        EXPECT_LT(upper, p.nCells);
    }
}

template<class B>
class SweepTest : public ::testing::Test {};
TYPED_TEST_SUITE(SweepTest, Backends);

//- The one-launch sweeps (GPU: ticketed chunks waiting on values, or on chunk flags; by slabs:
//  7, one per multiprocessor, and slabs of 3 rows, far more than the device holds at once; by
//  chains) against the level-by-level twin: the same arithmetic
//  per row, so the same bits, for the factorisations and both sweeps.
TYPED_TEST(SweepTest, OneLaunchSweepIsEquivalentToLevelByLevel)
{
    using B = TypeParam;
    using Vector = typename B::template Vector<double>;
    const auto countNotReady = [](const Vector& v)
    {
        const std::vector<double> h = toHost(v);
        return std::count_if(h.begin(), h.end(), [](double x) { return !isReady(x); });
    };
    // each problem's DILU result in the first mode: the others, chains included (their terms
    // packed in another order), give the same bits
    std::map<int, std::vector<double>> firstMode;
    for (const LduProblem& p : {asymmetric(60, 50, 40, 5), readMatrixMarket(dataFile("sherman5.mtx.gz"))})
    for (int mode : {0, 1, 2, 3, 4, 5})
    {
        SCOPED_TRACE(mode == 0 ? "chunks waiting on flags" : mode == 1 ? "chunks waiting on values"
                     : mode == 2 ? "7 slabs" : mode == 3 ? "a slab per multiprocessor"
                     : mode == 4 ? "slabs of 3 rows (more than fit on the device at once)" : "chains");
        LduSystemImpl<B> sys(p.addressing());
        sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerCoeffs.data());
        const auto& A = sys.matrix();
        auto& M = sys.preconditioners();
        if (mode < 2)
        {
            M.setOneLaunchBlocks(64);
            M.setValueWaits(mode == 1);
        }
        else if (mode < 5)
        {
            M.setSlabs(mode == 2 ? 7 : mode == 3 ? -1 : p.nCells/3);
        }
        else
        {
            M.setChains(true);
            EXPECT_TRUE(M.chains());
        }
        const auto& lower = M.lowerSchedule();
        const auto& upper = M.upperSchedule();
        const int n = p.nCells;
        Vector d1(n);
        Vector d2(n);
        lower.sweep(detail::DicFactorRow{lower.rows(), ptr(A.rowStart), ptr(A.col), ptr(A.diagPos),
                                         ptr(A.transpose), ptr(A.val), ptr(d1)});
        lower.sweepByLevel(detail::DicFactorRow{lower.rows(), ptr(A.rowStart), ptr(A.col), ptr(A.diagPos),
                                                ptr(A.transpose), ptr(A.val), ptr(d2)});
        EXPECT_EQ(toHost(d1), toHost(d2));

        // DILU sweeps r -> y -> w, each into a vector filled with notReady; the terms packed
        // as wide as the widest row, and 1 wide (the rest from the CSR matrix)
        M.setup(Preconditioner::DILU);
        const std::vector<double> r = randomVector(n, 6);
        const Vector dr(r.begin(), r.end());
        std::vector<double> wPacked;
        for (int width : {8, 3, 1})
        {
            SCOPED_TRACE("packed width " + std::to_string(width));
            M.setPackedWidth(width);
            Vector y1(n, notReady());
            Vector y2(n, notReady());
            Vector w1(n, notReady());
            Vector w2(n, notReady());
            lower.sweep(M.template forwardSweep<false>(ptr(dr), ptr(y1)));
            lower.sweepByLevel(M.template forwardSweep<false>(ptr(dr), ptr(y2)));
            EXPECT_EQ(toHost(y1), toHost(y2));
            EXPECT_EQ(countNotReady(y1), 0);
            upper.sweep(M.template backwardSweep<true>(ptr(y1), ptr(w1)));
            upper.sweepByLevel(M.template backwardSweep<true>(ptr(y2), ptr(w2)));
            EXPECT_EQ(toHost(w1), toHost(w2));
            EXPECT_EQ(countNotReady(w1), 0);
            if (M.packedWidth() <= 3)
            {
                // row functors of 3 terms (hexahedral meshes): the same bits
                Vector y3(n, notReady());
                Vector w3(n, notReady());
                lower.sweep(M.template forwardSweep<false, 3>(ptr(dr), ptr(y3)));
                upper.sweep(M.template backwardSweep<true, 3>(ptr(y3), ptr(w3)));
                EXPECT_EQ(toHost(w3), toHost(w1));
            }
            else
            {
                EXPECT_THROW((M.template forwardSweep<false, 3>(ptr(dr), ptr(y1))), Error);
            }
            if (wPacked.empty())
            {
                wPacked = toHost(w1);
            }
            EXPECT_EQ(toHost(w1), wPacked);
        }
        auto& first = firstMode[n];
        if (first.empty())
        {
            first = wPacked;
        }
        EXPECT_EQ(wPacked, first);

        typename B::template Vector<double> lu1(A.val);
        typename B::template Vector<double> lu2(A.val);
        lower.sweep(detail::Ilu0FactorRow{lower.rows(), ptr(A.rowStart), ptr(A.col), ptr(A.diagPos), ptr(lu1)});
        lower.sweepByLevel(detail::Ilu0FactorRow{lower.rows(), ptr(A.rowStart), ptr(A.col), ptr(A.diagPos), ptr(lu2)});
        EXPECT_EQ(toHost(lu1), toHost(lu2));
        EXPECT_GT(lower.nChunks(), lower.nLevels());
    }
}

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

TEST(LevelSchedule, RowsWithinALevelAscend)
{
    const HostLevelSchedule s = sortByLevel({2, 0, 1, 0, 2, 1});
    EXPECT_EQ(s.rows, (std::vector<int>{1, 3, 2, 5, 0, 4}));
    EXPECT_EQ(s.levelStart, (std::vector<int>{0, 2, 4, 6}));
}

} // namespace gpuLdu::test
