// SPDX-License-Identifier: GPL-3.0-or-later
// Level scheduling ("colouring") of the triangular dependency graphs of an LDU matrix.
// A row's lower level is one more than the highest lower level of its lower neighbours (0 when
// it has none); all rows of one level are independent, so a sweep runs level by level, each
// level one parallel step. Same for the upper graph, from the last row backwards.

#ifndef GPULDU_LEVELSCHEDULE_HPP
#define GPULDU_LEVELSCHEDULE_HPP

#include "backends.hpp"

#include <algorithm>
#include <vector>

namespace gpuLdu
{

//- Rows sorted by level (ascending row number within a level) and where each level starts.
struct HostLevelSchedule
{
    std::vector<int> rows;
    //- nLevels + 1 offsets into rows.
    std::vector<int> levelStart;

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

//- Levels of the lower-triangular graph (forward sweep, factorisation). Faces are in
//  upper-triangular order, so lower(f)'s level is final when face f is visited.
inline HostLevelSchedule lowerLevelSchedule(const LduAddressingView& a)
{
    std::vector<int> level(a.nCells, 0);
    for (int f = 0; f < a.nFaces; ++f)
    {
        level[a.upper[f]] = std::max(level[a.upper[f]], level[a.lower[f]] + 1);
    }
    return sortByLevel(level);
}

//- Levels of the upper-triangular graph (backward sweep), visiting faces backwards.
inline HostLevelSchedule upperLevelSchedule(const LduAddressingView& a)
{
    std::vector<int> level(a.nCells, 0);
    for (int f = a.nFaces - 1; f >= 0; --f)
    {
        level[a.lower[f]] = std::max(level[a.lower[f]], level[a.upper[f]] + 1);
    }
    return sortByLevel(level);
}

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
    typename B::template Vector<int> chunkLevel_;
    typename B::template Vector<int> levelChunks_;
    //- Per level: chunks done; then the ticket (scratch of the one-launch sweep)
    mutable typename B::template Vector<int> counters_;
    //- Blocks of the one-launch sweep: -1 the default, 0 one launch per level
    int oneLaunchBlocks_ = -1;

public:
    explicit LevelSchedule(const HostLevelSchedule& h)
    :
        rows_(h.rows.size()),
        levelStart_(h.levelStart)
    {
        B::upload(ptr(rows_), h.rows.data(), h.rows.size());
        std::vector<int> begin;
        std::vector<int> level;
        std::vector<int> perLevel;
        for (int l = 0; l < h.nLevels(); ++l)
        {
            perLevel.push_back(0);
            for (int k = h.levelStart[l]; k < h.levelStart[l + 1]; k += chunk)
            {
                begin.push_back(k);
                level.push_back(l);
                ++perLevel.back();
            }
        }
        begin.push_back(int(h.rows.size()));
        chunkBegin_.resize(begin.size());
        chunkLevel_.resize(level.size());
        levelChunks_.resize(perLevel.size());
        counters_.resize(perLevel.size() + 1);
        B::upload(ptr(chunkBegin_), begin.data(), begin.size());
        B::upload(ptr(chunkLevel_), level.data(), level.size());
        B::upload(ptr(levelChunks_), perLevel.data(), perLevel.size());
    }

    int nLevels() const
    {
        return int(levelStart_.size()) - 1;
    }

    int nChunks() const
    {
        return int(chunkLevel_.size());
    }

    const int* rows() const
    {
        return ptr(rows_);
    }

    const int* chunkBegin() const
    {
        return ptr(chunkBegin_);
    }

    const int* chunkLevel() const
    {
        return ptr(chunkLevel_);
    }

    const int* levelChunks() const
    {
        return ptr(levelChunks_);
    }

    int* counters() const
    {
        return ptr(counters_);
    }

    //- The GPU sweep: all levels in one launch of (at most) this many blocks (-1: the
    //  backend's default), or, with 0, one launch per level (docs/performance.md compares)
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
