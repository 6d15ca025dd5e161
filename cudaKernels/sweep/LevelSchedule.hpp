// SPDX-License-Identifier: GPL-3.0-or-later
// Level scheduling ("colouring") of the triangular dependency graphs of an LDU matrix.
// A row's lower level is one more than the highest lower level of its lower neighbours (0 when
// it has none); all rows of one level are independent, so a sweep runs level by level, each
// level one parallel step. Same for the upper graph, from the last row backwards.

// On the host: HostLevelSchedule (built once per addressing). On the backend: LevelSchedule, the
// rows in level order cut into chunks for the one-launch sweep (GpuBackend::sweep), with the
// level offsets kept for the level-by-level twin (sweepByLevel).

#ifndef GPULDU_LEVELSCHEDULE_HPP
#define GPULDU_LEVELSCHEDULE_HPP

#include "backend/Backend.hpp"

#include <thrust/fill.h>
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

//- Face f's (dependent row's chunk, its dependency's chunk) as one sortable key
struct ChunkPair
{
    const int* chunkOfRow;
    const int* from;
    const int* to;
    std::uint64_t* pairs;

    GPULDU_HD void operator()(int f) const
    {
        pairs[f] = (std::uint64_t(chunkOfRow[to[f]]) << 32) | std::uint64_t(std::uint32_t(chunkOfRow[from[f]]));
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

public:
    explicit LevelSchedule(const HostLevelSchedule& h)
    :
        rows_(h.rows.size()),
        levelStart_(h.levelStart)
    {
        B::upload(ptr(rows_), h.rows.data(), h.rows.size());

        // chunks: the positions of each level cut into pieces of at most `chunk`
        std::vector<int> begin;
        std::vector<int> chunkOf(h.rows.size());
        for (int l = 0; l < h.nLevels(); ++l)
        {
            for (int k = h.levelStart[l]; k < h.levelStart[l + 1]; k += chunk)
            {
                begin.push_back(k);
                for (int m = k; m < std::min(k + chunk, h.levelStart[l + 1]); ++m)
                {
                    chunkOf[m] = int(begin.size()) - 1;
                }
            }
        }
        begin.push_back(int(h.rows.size()));

        // a chunk depends on the chunks that hold its rows' dependencies: per face the pair
        // (the dependent row's chunk, its dependency's chunk) as one key, sorted and made
        // distinct on the backend (on the GPU milliseconds for the tens of millions of faces of
        // an 8M-row system, where bucketing them on the host took about a second: every step a
        // cache miss); each chunk's dependencies come out ascending, each once
        const int nRows = int(h.rows.size());
        const int nChunks = int(begin.size()) - 1;
        std::vector<int> chunkOfRow(nRows);
        for (int k = 0; k < nRows; ++k)
        {
            chunkOfRow[h.rows[k]] = chunkOf[k];
        }
        typename B::template Vector<std::uint64_t> pairs(h.nFaces);
        {
            typename B::template Vector<int> chunkOfRowB(nRows);
            typename B::template Vector<int> from(h.nFaces);
            typename B::template Vector<int> to(h.nFaces);
            B::upload(ptr(chunkOfRowB), chunkOfRow.data(), nRows);
            B::upload(ptr(from), h.from, h.nFaces);
            B::upload(ptr(to), h.to, h.nFaces);
            forEach<B>(0, h.nFaces, detail::ChunkPair{ptr(chunkOfRowB), ptr(from), ptr(to), ptr(pairs)});
        }
        thrust::sort(B::policy(), pairs.begin(), pairs.end());
        pairs.erase(thrust::unique(B::policy(), pairs.begin(), pairs.end()), pairs.end());
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

    int nLevels() const
    {
        return int(levelStart_.size()) - 1;
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
