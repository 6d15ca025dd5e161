// SPDX-License-Identifier: GPL-3.0-or-later
// Level scheduling ("colouring") of the triangular dependency graphs of an LDU matrix.
// A row's lower level is one more than the highest lower level of its lower neighbours (0 when
// it has none); all rows of one level are independent, so a sweep runs level by level, each
// level one parallel step. Same for the upper graph, from the last row backwards.

// On the backend: LevelSchedule, built from a system's CSR pattern there (the levels one after
// the other, each from the rows whose dependencies have theirs; the rows sorted by level; each
// level cut into chunks for the one-launch sweep, GpuBackend::sweep), with the level offsets
// kept for the level-by-level twin (sweepByLevel).
// On the host: HostLevelSchedule, the same schedule by one pass over the faces: the reference
// the tests check the backend's against, and the build where the levels would be too many.

#ifndef GPULDU_LEVELSCHEDULE_HPP
#define GPULDU_LEVELSCHEDULE_HPP

#include "backend/Backend.hpp"
#include "backend/MemoryOrder.hpp"
#include "matrix/CsrMatrix.hpp"

#include <thrust/copy.h>
#include <thrust/fill.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/unique.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gpuLdu
{


//- Rows sorted by level (ascending row number within a level), where each level starts, and
//  the dependencies: for every face f, row to[f] reads row from[f] (the addressing's arrays,
//  not copied: valid while the addressing the schedule was built from is).
struct HostLevelSchedule
{
    std::vector<int> rows;
    //- nLevels + 1 offsets into rows.
    std::vector<int> levelStart;
    int nFaces = 0;
    const int* from = nullptr;
    const int* to = nullptr;

    int nLevels() const
    {
        return int(levelStart.size()) - 1;
    }
};

//- Counting sort of the rows by level.
inline HostLevelSchedule sortByLevel(const std::vector<int>& level)
{
    const int nLevels = level.empty() ? 0 : 1 + *std::max_element(level.begin(), level.end());
    HostLevelSchedule s;
    s.levelStart.assign(nLevels + 1, 0);
    for (int l : level)
    {
        ++s.levelStart[l + 1];
    }
    for (int l = 0; l < nLevels; ++l)
    {
        s.levelStart[l + 1] += s.levelStart[l];
    }
    std::vector<int> next(s.levelStart.begin(), s.levelStart.end() - 1);
    s.rows.resize(level.size());
    for (int i = 0; i < int(level.size()); ++i)
    {
        s.rows[next[level[i]]++] = i;
    }
    return s;
}

//- Levels of the lower-triangular graph (forward sweep, factorisation). Faces are
//  sorted by their lower cell, so lower(f)'s level is final when face f is visited.
inline HostLevelSchedule lowerLevelSchedule(const LduAddressingView& a)
{
    std::vector<int> level(a.nCells, 0);
    for (int f = 0; f < a.nFaces; ++f)
    {
        level[a.upper[f]] = std::max(level[a.upper[f]], level[a.lower[f]] + 1);
    }
    HostLevelSchedule s = sortByLevel(level);
    s.nFaces = a.nFaces;
    s.from = a.lower;
    s.to = a.upper;
    return s;
}

//- Levels of the upper-triangular graph (backward sweep), visiting faces backwards.
inline HostLevelSchedule upperLevelSchedule(const LduAddressingView& a)
{
    std::vector<int> level(a.nCells, 0);
    for (int f = a.nFaces - 1; f >= 0; --f)
    {
        level[a.lower[f]] = std::max(level[a.lower[f]], level[a.upper[f]] + 1);
    }
    HostLevelSchedule s = sortByLevel(level);
    s.nFaces = a.nFaces;
    s.from = a.upper;
    s.to = a.lower;
    return s;
}

namespace detail
{

//- A dependent chunk and its dependency as one sortable key; noChunkPair sorts after every key
GPULDU_HD inline std::uint64_t chunkPairKey(int dependent, int dependency)
{
    return (std::uint64_t(dependent) << 32) | std::uint64_t(std::uint32_t(dependency));
}
constexpr std::uint64_t noChunkPair = ~std::uint64_t(0);

//- Whether row r depends on column c: c below r in the lower triangle, above it in the upper
GPULDU_HD inline bool isDependency(int r, int c, bool upper)
{
    return upper ? c > r : c < r;
}

//- Face f's (dependent row's chunk, its dependency's chunk) as one sortable key
struct ChunkPair
{
    const int* chunkOfRow;
    const int* from;
    const int* to;
    std::uint64_t* pairs;

    GPULDU_HD void operator()(int f) const
    {
        pairs[f] = chunkPairKey(chunkOfRow[to[f]], chunkOfRow[from[f]]);
    }
};

//- One pass of the levels' relaxation on a CSR pattern: level[r] = 1 + the highest level of r's
//  dependencies (the columns of its row below r, or with upper above it), 0 where it has none;
//  changed set where a level moved. Rows visited in the graph's order (upper: the last first):
//  one pass on a sequential backend finds every level (the host's pass of findLevels).
struct RelaxLevel
{
    const int* rowStart;
    const int* col;
    int n;
    bool upper;
    int* level;
    int* changed;

    GPULDU_HD void operator()(int i) const
    {
        const int r = upper ? n - 1 - i : i;
        int l = 0;
        for (int k = rowStart[r]; k < rowStart[r + 1]; ++k)
        {
            const int c = col[k];
            if (isDependency(r, c, upper))
            {
                const int lc = level[c] + 1;
                l = lc > l ? lc : l;
            }
        }
        if (l != level[r])
        {
            level[r] = l;
            *changed = 1;
        }
    }
};

//- Row r's number of dependencies
struct CountDependencies
{
    const int* rowStart;
    const int* col;
    bool upper;
    int* count;

    GPULDU_HD void operator()(int r) const
    {
        int c = 0;
        for (int k = rowStart[r]; k < rowStart[r + 1]; ++k)
        {
            c += isDependency(r, col[k], upper) ? 1 : 0;
        }
        count[r] = c;
    }
};

struct IsZero
{
    GPULDU_HD bool operator()(int c) const
    {
        return c == 0;
    }
};

//- Level l's rows (frontier, sizes[l % 3] of them: rows whose dependencies all have lower
//  levels) take level l, and each row that depends on one of them counts one dependency fewer
//  without a level: where none is left, its dependencies' highest level is l, so its level is
//  l + 1: it joins next (sizes[(l + 1) % 3] of them, in no particular order: the rows are
//  sorted by level afterwards). The three counts rotate: index 0 zeroes the one after next,
//  which the step before read and the step after appends to.
struct LevelOfFrontier
{
    const int* rowStart;
    const int* col;
    bool upper;
    int l;
    const int* frontier;
    int* next;
    int* sizes;
    int* count;
    int* level;

    GPULDU_HD void operator()(int j) const
    {
        if (j == 0)
        {
            sizes[(l + 2) % 3] = 0;
        }
        if (j >= sizes[l % 3])
        {
            return;
        }
        const int r = frontier[j];
        level[r] = l;
        for (int k = rowStart[r]; k < rowStart[r + 1]; ++k)
        {
            const int s = col[k];
            if (isDependency(s, r, upper) && fetchAdd(count + s, -1) == 1)
            {
                next[fetchAdd(sizes + (l + 1) % 3, 1)] = s;
            }
        }
    }
};

//- Position k's chunk (in its level, cut into pieces of `chunk` from the level's first
//  position), at the row there
struct ChunkOfPosition
{
    const int* levelStart;
    int nLevels;
    const int* firstChunkOfLevel;
    const int* rows;
    int chunk;
    int* chunkOfRow;

    GPULDU_HD void operator()(int k) const
    {
        int lo = 0, hi = nLevels;
        while (hi - lo > 1)
        {
            const int mid = (lo + hi)/2;
            if (levelStart[mid] <= k)
            {
                lo = mid;
            }
            else
            {
                hi = mid;
            }
        }
        chunkOfRow[rows[k]] = firstChunkOfLevel[lo] + (k - levelStart[lo])/chunk;
    }
};

//- A CSR entry's (dependent row's chunk, its dependency's chunk) as ChunkPair's key, where the
//  entry is a dependency (isDependency); else noChunkPair, dropped after the sort
struct CsrChunkPair
{
    const int* rowStart;
    const int* col;
    bool upper;
    const int* chunkOfRow;
    std::uint64_t* pairs;

    GPULDU_HD void operator()(int r) const
    {
        for (int k = rowStart[r]; k < rowStart[r + 1]; ++k)
        {
            const int c = col[k];
            pairs[k] = isDependency(r, c, upper) ? chunkPairKey(chunkOfRow[r], chunkOfRow[c]) : noChunkPair;
        }
    }
};

//- A key of ChunkPair split into its dependent chunk and its dependency
struct SplitChunkPair
{
    const std::uint64_t* pairs;
    int* dependent;
    int* dependency;

    GPULDU_HD void operator()(int k) const
    {
        dependent[k] = int(pairs[k] >> 32);
        dependency[k] = int(pairs[k] & 0xffffffffu);
    }
};

} // namespace detail

//- A schedule with its rows on the backend, and cut into chunks of positions for the
//  one-launch sweep; the level offsets stay on the host too, for the level-by-level sweep.
template<class B>
class LevelSchedule
{
public:
    //- Positions per chunk (threads per block of the one-launch sweep)
    static constexpr int chunk = 128;

private:
    typename B::template Vector<int> rows_;
    std::vector<int> levelStart_;
    typename B::template Vector<int> chunkBegin_;
    //- The chunks each chunk depends on (those holding its rows' dependencies), CSR-style
    typename B::template Vector<int> chunkDepStart_;
    typename B::template Vector<int> chunkDeps_;
    //- Per chunk: the epoch of the sweep that finished it (scratch of the one-launch sweep)
    mutable typename B::template Vector<int> chunkDone_;
    //- The ticket counter of the one-launch sweep
    mutable typename B::template Vector<int> ticket_;
    mutable int epoch_ = 0;
    //- Blocks of the one-launch sweep: -1 the default, 0 one launch per level
    int oneLaunchBlocks_ = -1;

    //- Each row's level: level by level on the backend (Kahn's: the rows without dependencies,
    //  then those whose dependencies all have levels, LevelOfFrontier), or after `passes` levels
    //  one pass on the host in the graph's order (RelaxLevel: for chains as long as a
    //  one-dimensional mesh's). A step per level over every row (those beyond the level's count
    //  stop at once), the device asked every 16th step whether a level is left: the levels'
    //  relaxation before it took a pass over every row per level or more (33-38 ms a triangle of
    //  the 200^3 mesh, 598 levels)
    static void findLevels(const CsrMatrix<B>& A, bool upper, typename B::template Vector<int>& level, int passes)
    {
        const int n = A.nRows;
        const int askEvery = B::executor == Executor::cpu ? 1 : 16;
        typename B::template Vector<int> count(n);
        typename B::template Vector<int> rows[2] = {typename B::template Vector<int>(n),
                                                    typename B::template Vector<int>(n)};
        forEach<B>(0, n, detail::CountDependencies{ptr(A.rowStart), ptr(A.col), upper, ptr(count)});
        const thrust::counting_iterator<int> first(0);
        const int sizes0[3] = {
            int(thrust::copy_if(B::policy(), first, first + n, count.begin(), rows[0].begin(), detail::IsZero{})
              - rows[0].begin()),
            0, 0};
        typename B::template Vector<int> sizes(3);
        B::upload(ptr(sizes), sizes0, 3);
        int left = sizes0[0];
        for (int l = 0; left > 0 && l < passes; ++l)
        {
            forEach<B>(0, n, detail::LevelOfFrontier{ptr(A.rowStart), ptr(A.col), upper, l, ptr(rows[l % 2]),
                                                     ptr(rows[(l + 1) % 2]), ptr(sizes), ptr(count), ptr(level)});
            if (l % askEvery == askEvery - 1 || l == passes - 1)
            {
                B::download(&left, ptr(sizes) + (l + 1) % 3, 1);
            }
        }
        if (left == 0)
        {
            return;
        }
        std::vector<int> rowStart(n + 1), col(A.nnz()), host(n);
        B::download(rowStart.data(), ptr(A.rowStart), n + 1);
        B::download(col.data(), ptr(A.col), col.size());
        int moved = 0;
        const detail::RelaxLevel relax{rowStart.data(), col.data(), n, upper, host.data(), &moved};
        for (int i = 0; i < n; ++i)
        {
            relax(i);
        }
        B::upload(ptr(level), host.data(), n);
    }

    //- The positions of each level (levelStart, on the backend; levelStart_ its copy) cut into
    //  chunks of at most `chunk`, and each chunk's dependencies: pairsOf(chunkOfRow, pairs)
    //  fills pairs with chunkPairKeys (noChunkPair where none), sorted and made
    //  distinct here (on the GPU milliseconds for the tens of millions of faces of an 8M-row
    //  system, where bucketing them on the host took about a second: every step a cache miss);
    //  each chunk's dependencies come out ascending, each once
    template<class PairsOf>
    void cutIntoChunks(const typename B::template Vector<int>& levelStart, const PairsOf& pairsOf)
    {
        const int nRows = int(rows_.size());
        const int nLevels = int(levelStart_.size()) - 1;
        std::vector<int> begin, firstChunkOfLevel(std::max(nLevels, 1), 0);
        for (int l = 0; l < nLevels; ++l)
        {
            firstChunkOfLevel[l] = int(begin.size());
            for (int k = levelStart_[l]; k < levelStart_[l + 1]; k += chunk)
            {
                begin.push_back(k);
            }
        }
        begin.push_back(nRows);
        const int nChunks = int(begin.size()) - 1;

        typename B::template Vector<std::uint64_t> pairs;
        {
            typename B::template Vector<int> firstChunk(firstChunkOfLevel.size());
            B::upload(ptr(firstChunk), firstChunkOfLevel.data(), firstChunkOfLevel.size());
            typename B::template Vector<int> chunkOfRow(nRows);
            forEach<B>(0, nRows, detail::ChunkOfPosition{ptr(levelStart), nLevels, ptr(firstChunk), ptr(rows_),
                                                        chunk, ptr(chunkOfRow)});
            pairsOf(ptr(chunkOfRow), pairs);
        }
        thrust::sort(B::policy(), pairs.begin(), pairs.end());
        pairs.erase(thrust::unique(B::policy(), pairs.begin(), pairs.end()), pairs.end());
        if (!pairs.empty() && pairs.back() == detail::noChunkPair)
        {
            pairs.pop_back();
        }
        const int nDeps = int(pairs.size());
        chunkDeps_.resize(nDeps);
        typename B::template Vector<int> dependent(nDeps);
        forEach<B>(0, nDeps, detail::SplitChunkPair{ptr(pairs), ptr(dependent), ptr(chunkDeps_)});
        groupStarts<B>(dependent, nChunks, chunkDepStart_);
        chunkBegin_.resize(begin.size());
        chunkDone_.resize(begin.size() - 1);
        ticket_.resize(1);
        B::upload(ptr(chunkBegin_), begin.data(), begin.size());
        thrust::fill(chunkDone_.begin(), chunkDone_.end(), 0);
    }

public:
    //- The levels found on a parallel backend before the rest are found on the host instead
    //  (one pass there, in the graph's order): a step a level, and a one-dimensional mesh has
    //  as many levels as cells (the 200^3 cavity 598)
    static constexpr int maxPasses = 2048;

    //- The schedule of a system's lower (forward sweep: row r after the columns of its row
    //  below it) or upper (backward sweep) triangle, from its CSR pattern on the backend (the
    //  host's one pass over the faces, HostLevelSchedule, gives the same schedule). passes: the
    //  most levels found on the backend (tests: fewer, to take the host's)
    LevelSchedule(const CsrMatrix<B>& A, bool upper, int passes = maxPasses)
    {
        const int n = A.nRows;
        typename B::template Vector<int> level(n);
        findLevels(A, upper, level, passes);

        // rows by level, ascending within one (a stable sort of 0 .. n-1 by level)
        rows_.resize(n);
        thrust::sequence(B::policy(), rows_.begin(), rows_.end());
        thrust::stable_sort_by_key(B::policy(), level.begin(), level.end(), rows_.begin());
        int nLevels = 0;
        if (n > 0)
        {
            B::download(&nLevels, ptr(level) + n - 1, 1);
            ++nLevels;
        }
        typename B::template Vector<int> levelStart;
        groupStarts<B>(level, nLevels, levelStart);
        levelStart_.resize(nLevels + 1);
        B::download(levelStart_.data(), ptr(levelStart), nLevels + 1);

        const auto pairsOf = [&](const int* chunkOfRow, typename B::template Vector<std::uint64_t>& pairs)
        {
            pairs.resize(A.nnz());
            forEach<B>(0, n, detail::CsrChunkPair{ptr(A.rowStart), ptr(A.col), upper, chunkOfRow, ptr(pairs)});
        };
        cutIntoChunks(levelStart, pairsOf);
    }

    //- The schedule built on the host (the reference: tests, benchmarks)
    explicit LevelSchedule(const HostLevelSchedule& h)
    :
        rows_(h.rows.size()),
        levelStart_(h.levelStart)
    {
        B::upload(ptr(rows_), h.rows.data(), h.rows.size());
        typename B::template Vector<int> levelStart(levelStart_.size());
        B::upload(ptr(levelStart), levelStart_.data(), levelStart_.size());
        const auto pairsOf = [&](const int* chunkOfRow, typename B::template Vector<std::uint64_t>& pairs)
        {
            typename B::template Vector<int> from(h.nFaces);
            typename B::template Vector<int> to(h.nFaces);
            B::upload(ptr(from), h.from, h.nFaces);
            B::upload(ptr(to), h.to, h.nFaces);
            pairs.resize(h.nFaces);
            forEach<B>(0, h.nFaces, detail::ChunkPair{chunkOfRow, ptr(from), ptr(to), ptr(pairs)});
        };
        cutIntoChunks(levelStart, pairsOf);
    }

    int nLevels() const
    {
        return int(levelStart_.size()) - 1;
    }

    //- Where each level starts among the rows (nLevels() + 1, on the host)
    const std::vector<int>& levelStarts() const
    {
        return levelStart_;
    }

    int nChunks() const
    {
        return int(chunkBegin_.size()) - 1;
    }

    const int* rows() const
    {
        return ptr(rows_);
    }

    const int* chunkBegin() const
    {
        return ptr(chunkBegin_);
    }

    const int* chunkDepStart() const
    {
        return ptr(chunkDepStart_);
    }

    const int* chunkDeps() const
    {
        return ptr(chunkDeps_);
    }

    int* chunkDone() const
    {
        return ptr(chunkDone_);
    }

    int* ticket() const
    {
        return ptr(ticket_);
    }

    //- A new epoch for the next one-launch sweep (chunk flags from earlier sweeps are stale)
    int nextEpoch() const
    {
        return ++epoch_;
    }

    //- How the GPU sweeps: all levels in one launch of (at most) this many blocks (-1: the
    //  backend's default), or, with 0, one launch per level (the reference twin's way, kept for
    //  comparison)
    void setOneLaunchBlocks(int blocks)
    {
        oneLaunchBlocks_ = blocks;
    }

    int oneLaunchBlocks() const
    {
        return oneLaunchBlocks_;
    }

    //- f(k) for every position k of the rows array, level after level, as the backend does it
    //  (GPU: see setOneLaunchBlocks; CPU: level by level)
    template<class F>
    void sweep(const F& f) const
    {
        B::sweep(*this, f);
    }

    //- The same, one parallel step per level: the reference twin of the one-launch sweep
    template<class F>
    void sweepByLevel(const F& f) const
    {
        for (int l = 0; l < nLevels(); ++l)
        {
            forEach<B>(levelStart_[l], levelStart_[l + 1], f);
        }
    }
};

} // namespace gpuLdu

#endif
