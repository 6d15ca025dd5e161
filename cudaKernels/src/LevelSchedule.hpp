// SPDX-License-Identifier: GPL-3.0-or-later
// Level scheduling ("colouring") of the triangular dependency graphs of an LDU matrix.
// A row's lower level is one more than the highest lower level of its lower neighbours (0 when
// it has none); all rows of one level are independent, so a sweep runs level by level, each
// level one parallel step. Same for the upper graph, from the last row backwards.

#ifndef GPULDU_LEVELSCHEDULE_HPP
#define GPULDU_LEVELSCHEDULE_HPP

#include "backends.hpp"

#include <thrust/fill.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace gpuLdu
{

//- Rows sorted by level (ascending row number within a level), where each level starts, and
//  each row's direct dependencies (the rows it reads), CSR-style.
struct HostLevelSchedule
{
    std::vector<int> rows;
    //- nLevels + 1 offsets into rows.
    std::vector<int> levelStart;
    std::vector<int> depStart;
    std::vector<int> deps;

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

//- Each row's direct dependencies: row to[f] depends on row from[f], for every face f.
inline void setDependencies(HostLevelSchedule& s, int nCells, int nFaces, const int* from, const int* to)
{
    s.depStart.assign(nCells + 1, 0);
    for (int f = 0; f < nFaces; ++f)
    {
        ++s.depStart[to[f] + 1];
    }
    for (int i = 0; i < nCells; ++i)
    {
        s.depStart[i + 1] += s.depStart[i];
    }
    std::vector<int> next(s.depStart.begin(), s.depStart.end() - 1);
    s.deps.resize(nFaces);
    for (int f = 0; f < nFaces; ++f)
    {
        s.deps[next[to[f]]++] = from[f];
    }
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
    HostLevelSchedule s = sortByLevel(level);
    setDependencies(s, a.nCells, a.nFaces, a.lower, a.upper);
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
    setDependencies(s, a.nCells, a.nFaces, a.upper, a.lower);
    return s;
}

//- The slab partition of a schedule (the GPU's slab sweep): the rows cut into nSlabs ranges of
//  consecutive row numbers, each slab's positions in level order and cut into chunks, one per
//  level the slab has rows in. A chunk waits for the chunks of other slabs that hold its rows'
//  dependencies (deps); dependencies inside the slab are met by the slab's own order.
struct HostSlabs
{
    int nSlabs = 0;
    //- nSlabs + 1 offsets into the chunks
    std::vector<int> slabChunkStart;
    //- nChunks + 1 offsets into positions
    std::vector<int> chunkBegin;
    //- Positions of the level-sorted rows array, slab after slab
    std::vector<int> positions;
    std::vector<int> depStart;
    std::vector<int> deps;
    //- 1 where a chunk of another slab waits for this chunk
    std::vector<int> publish;

    int nChunks() const
    {
        return int(chunkBegin.size()) - 1;
    }
};

inline HostSlabs slabPartition(const HostLevelSchedule& h, int nSlabs)
{
    const int n = int(h.rows.size());
    const int size = std::max(1, (n + std::max(1, nSlabs) - 1)/std::max(1, nSlabs));
    auto slabOf = [size](int row) { return row/size; };
    HostSlabs s;
    s.nSlabs = (n + size - 1)/size;

    // positions grouped by slab, in level order within a slab (a stable counting sort)
    std::vector<int> slabStart(s.nSlabs + 1, 0);
    for (int k = 0; k < n; ++k)
    {
        ++slabStart[slabOf(h.rows[k]) + 1];
    }
    for (int b = 0; b < s.nSlabs; ++b)
    {
        slabStart[b + 1] += slabStart[b];
    }
    std::vector<int> next(slabStart.begin(), slabStart.end() - 1);
    s.positions.resize(n);
    for (int k = 0; k < n; ++k)
    {
        s.positions[next[slabOf(h.rows[k])]++] = k;
    }

    // chunks: each slab's positions cut where the level changes
    std::vector<int> levelOf(n);
    for (int l = 0; l < h.nLevels(); ++l)
    {
        std::fill(levelOf.begin() + h.levelStart[l], levelOf.begin() + h.levelStart[l + 1], l);
    }
    std::vector<int> chunkOfRow(n);
    s.slabChunkStart.push_back(0);
    for (int b = 0; b < s.nSlabs; ++b)
    {
        for (int m = slabStart[b]; m < slabStart[b + 1]; ++m)
        {
            if (m == slabStart[b] || levelOf[s.positions[m]] != levelOf[s.positions[m - 1]])
            {
                s.chunkBegin.push_back(m);
            }
            chunkOfRow[h.rows[s.positions[m]]] = int(s.chunkBegin.size()) - 1;
        }
        s.slabChunkStart.push_back(int(s.chunkBegin.size()));
    }
    s.chunkBegin.push_back(n);

    // each chunk's dependencies in other slabs
    s.depStart.push_back(0);
    s.publish.assign(s.nChunks(), 0);
    for (int c = 0; c < s.nChunks(); ++c)
    {
        const std::size_t first = s.deps.size();
        for (int m = s.chunkBegin[c]; m < s.chunkBegin[c + 1]; ++m)
        {
            const int i = h.rows[s.positions[m]];
            for (int d = h.depStart[i]; d < h.depStart[i + 1]; ++d)
            {
                const int j = h.deps[d];
                if (slabOf(j) != slabOf(i))
                {
                    s.deps.push_back(chunkOfRow[j]);
                    s.publish[chunkOfRow[j]] = 1;
                }
            }
        }
        std::sort(s.deps.begin() + first, s.deps.end());
        s.deps.erase(std::unique(s.deps.begin() + first, s.deps.end()), s.deps.end());
        s.depStart.push_back(int(s.deps.size()));
    }
    return s;
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
    //- Whether the one-launch sweep of a row functor that waits on values (WaitsOnValues) does
    //  so, instead of waiting on chunk flags
    bool valueWaits_ = true;

public:
    //- The slab partition on the backend (see HostSlabs), with the epoch flags of its chunks
    struct Slabs
    {
        int nSlabs = 0;
        typename B::template Vector<int> slabChunkStart;
        typename B::template Vector<int> chunkBegin;
        typename B::template Vector<int> positions;
        typename B::template Vector<int> depStart;
        typename B::template Vector<int> deps;
        typename B::template Vector<int> publish;
        mutable typename B::template Vector<int> done;

        explicit Slabs(const HostSlabs& h)
        :
            nSlabs(h.nSlabs),
            slabChunkStart(h.slabChunkStart.begin(), h.slabChunkStart.end()),
            chunkBegin(h.chunkBegin.begin(), h.chunkBegin.end()),
            positions(h.positions.begin(), h.positions.end()),
            depStart(h.depStart.begin(), h.depStart.end()),
            deps(h.deps.begin(), h.deps.end()),
            publish(h.publish.begin(), h.publish.end()),
            done(h.nChunks(), 0)
        {}
    };

private:
    //- The slab partition of the slab sweep; none (the default) means the ticketed one-launch
    //  sweep, or level by level. Measured slower than the ticketed sweep (docs/performance.md,
    //  "Slab sweep"): kept as the base of a pipelined version.
    std::unique_ptr<Slabs> slabs_;

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

        // a chunk depends on the chunks that hold its rows' dependencies
        std::vector<int> position(h.rows.size());
        for (int k = 0; k < int(h.rows.size()); ++k)
        {
            position[h.rows[k]] = k;
        }
        std::vector<int> depStart{0};
        std::vector<int> deps;
        for (int c = 0; c + 1 < int(begin.size()); ++c)
        {
            const std::size_t first = deps.size();
            for (int k = begin[c]; k < begin[c + 1]; ++k)
            {
                const int i = h.rows[k];
                for (int d = h.depStart[i]; d < h.depStart[i + 1]; ++d)
                {
                    deps.push_back(chunkOf[position[h.deps[d]]]);
                }
            }
            std::sort(deps.begin() + first, deps.end());
            deps.erase(std::unique(deps.begin() + first, deps.end()), deps.end());
            depStart.push_back(int(deps.size()));
        }
        chunkBegin_.resize(begin.size());
        chunkDepStart_.resize(depStart.size());
        chunkDeps_.resize(deps.size());
        chunkDone_.resize(begin.size() - 1);
        ticket_.resize(1);
        B::upload(ptr(chunkBegin_), begin.data(), begin.size());
        B::upload(ptr(chunkDepStart_), depStart.data(), depStart.size());
        B::upload(ptr(chunkDeps_), deps.data(), deps.size());
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

    //- The GPU sweep: all levels in one launch of (at most) this many blocks (-1: the
    //  backend's default), or, with 0, one launch per level (docs/performance.md compares)
    void setOneLaunchBlocks(int blocks)
    {
        oneLaunchBlocks_ = blocks;
        slabs_.reset();
    }

    //- The GPU sweep by (about) n slabs, one block each; h is this schedule on the host. n = 0
    //  turns the slab sweep off (then setOneLaunchBlocks decides).
    void setSlabs(int n, const HostLevelSchedule& h)
    {
        slabs_.reset();
        if (n > 0)
        {
            slabs_ = std::make_unique<Slabs>(slabPartition(h, n));
        }
    }

    //- The slab partition in use, or nullptr
    const Slabs* slabs() const
    {
        return slabs_.get();
    }

    int oneLaunchBlocks() const
    {
        return oneLaunchBlocks_;
    }

    //- The GPU one-launch sweep of a functor that waits on values: without flags (true, the
    //  default) or with the chunk flags like every other functor (false)
    void setValueWaits(bool on)
    {
        valueWaits_ = on;
    }

    bool valueWaits() const
    {
        return valueWaits_;
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
