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
//  consecutive row numbers, numbered in the sweep's direction (a row only depends on rows of its
//  own slab or of slabs with lower numbers), each slab's rows cut into chunks, one per level it
//  has rows in, in level order. The rows of a level are in ascending order in the schedule, so
//  a chunk is a run of consecutive positions: chunkFirst, and its size from chunkBegin.
struct HostSlabs
{
    int nSlabs = 0;
    //- nSlabs + 1 offsets into the chunks
    std::vector<int> slabChunkStart;
    //- nChunks + 1 offsets: chunk c holds chunkBegin[c + 1] - chunkBegin[c] positions
    std::vector<int> chunkBegin;
    //- The first position (of the level-sorted rows array) of each chunk
    std::vector<int> chunkFirst;

    int nChunks() const
    {
        return int(chunkBegin.size()) - 1;
    }
};

inline HostSlabs slabPartition(const HostLevelSchedule& h, int nSlabs)
{
    const int n = int(h.rows.size());
    const int size = std::max(1, (n + std::max(1, nSlabs) - 1)/std::max(1, nSlabs));
    HostSlabs s;
    s.nSlabs = (n + size - 1)/size;
    // the backward sweep's rows depend on higher rows: its slabs are numbered from the top
    bool descending = false;
    for (int i = 0; i < n && !descending; ++i)
    {
        descending = h.depStart[i] < h.depStart[i + 1] && h.deps[h.depStart[i]] > i;
    }
    const int nSlabsAll = s.nSlabs;
    auto slabOf = [=](int row) { return descending ? nSlabsAll - 1 - row/size : row/size; };

    // each slab's runs of positions per level, the slabs in order, a slab's levels ascending
    std::vector<std::vector<std::pair<int, int>>> runs(s.nSlabs);
    for (int l = 0; l < h.nLevels(); ++l)
    {
        for (int k = h.levelStart[l]; k < h.levelStart[l + 1]; ++k)
        {
            auto& r = runs[slabOf(h.rows[k])];
            if (k == h.levelStart[l] || r.empty() || r.back().first + r.back().second != k)
            {
                r.push_back({k, 0});
            }
            ++r.back().second;
        }
    }
    s.slabChunkStart.push_back(0);
    s.chunkBegin.push_back(0);
    for (const auto& slab : runs)
    {
        for (const auto& [first, count] : slab)
        {
            s.chunkFirst.push_back(first);
            s.chunkBegin.push_back(s.chunkBegin.back() + count);
        }
        s.slabChunkStart.push_back(int(s.chunkFirst.size()));
    }
    return s;
}

//- Where the slab sweep finds each packed term's value: a block of `block` threads keeps the
//  values of its slab's last `depth` chunks in shared memory, chunk c's row t (t < block) at
//  (c % depth)*block + t. For term m of position k (the packed layout, m*n + k; count[k] terms,
//  the first width of them packed at columns packedCol), its slot there, or -1: a row of
//  another slab, of a chunk depth or more back, or past the block's width in its chunk.
inline std::vector<int> slabSlots(const HostLevelSchedule& h, const HostSlabs& s, const std::vector<int>& count,
                                  const std::vector<int>& packedCol, int width, int block, int depth)
{
    const int n = int(h.rows.size());
    std::vector<int> chunkOf(n);
    std::vector<int> offset(n);
    std::vector<int> slabOf(s.nChunks());
    for (int b = 0; b < s.nSlabs; ++b)
    {
        for (int c = s.slabChunkStart[b]; c < s.slabChunkStart[b + 1]; ++c)
        {
            slabOf[c] = b;
            for (int t = 0; t < s.chunkBegin[c + 1] - s.chunkBegin[c]; ++t)
            {
                chunkOf[s.chunkFirst[c] + t] = c;
                offset[s.chunkFirst[c] + t] = t;
            }
        }
    }
    std::vector<int> position(n);
    for (int k = 0; k < n; ++k)
    {
        position[h.rows[k]] = k;
    }
    std::vector<int> slot(std::size_t(width)*n, -1);
    for (int k = 0; k < n; ++k)
    {
        const int c = chunkOf[k];
        for (int m = 0; m < std::min(width, count[k]); ++m)
        {
            const int kj = position[packedCol[std::size_t(m)*n + k]];
            const int cj = chunkOf[kj];
            if (slabOf[cj] == slabOf[c] && c - cj < depth && offset[kj] < block)
            {
                slot[std::size_t(m)*n + k] = (cj % depth)*block + offset[kj];
            }
        }
    }
    return slot;
}

//- The chain partition of a schedule (the GPU's chain sweep): the rows cut into chains, each row
//  of a chain a direct dependency of the next one, so that a thread running a chain in order
//  finds one of each row's values already at hand and waits only for the others. A row joins
//  the chain of one of its critical dependencies (one level below it: the last to be ready),
//  the nearest by row number whose chain is still open; rows are served nearest first, so on a
//  structured mesh the chains are the mesh lines of the innermost index, in both sweeps (on an
//  n^3 mesh, 2n hand-overs between threads and n steps within one instead of 3n hand-overs; but
//  a step within a thread measured no cheaper than a hand-over, docs/performance.md). The chains,
//  by the level of their first row, go 32 to a group (a warp), laid out step by step: the s-th
//  row of the group's chain l at slot groupStart[g] + 32*s + l, -1 past the chain's end.
struct HostChains
{
    //- nGroups + 1 offsets into slotRows (multiples of 32)
    std::vector<int> groupStart;
    std::vector<int> slotRows;

    int nGroups() const
    {
        return int(groupStart.size()) - 1;
    }
};

inline HostChains chainPartition(const HostLevelSchedule& h)
{
    const int n = int(h.rows.size());
    std::vector<int> level(n);
    for (int l = 0; l < h.nLevels(); ++l)
    {
        for (int k = h.levelStart[l]; k < h.levelStart[l + 1]; ++k)
        {
            level[h.rows[k]] = l;
        }
    }
    const auto distance = [](int i, int j) { return i > j ? i - j : j - i; };
    // each row's distance to its nearest critical dependency (n: it has none), and the rows
    // in the order of that distance (counting sort)
    std::vector<int> nearest(n, n);
    for (int i = 0; i < n; ++i)
    {
        for (int d = h.depStart[i]; d < h.depStart[i + 1]; ++d)
        {
            if (level[h.deps[d]] + 1 == level[i])
            {
                nearest[i] = std::min(nearest[i], distance(i, h.deps[d]));
            }
        }
    }
    std::vector<int> start(n + 2, 0);
    for (int i = 0; i < n; ++i)
    {
        ++start[nearest[i] + 1];
    }
    for (int d = 0; d <= n; ++d)
    {
        start[d + 1] += start[d];
    }
    std::vector<int> order(n);
    for (int i = 0; i < n; ++i)
    {
        order[start[nearest[i]]++] = i;
    }
    std::vector<int> next(n, -1);
    std::vector<int> previous(n, -1);
    for (const int i : order)
    {
        int best = -1;
        for (int d = h.depStart[i]; d < h.depStart[i + 1]; ++d)
        {
            const int j = h.deps[d];
            if (level[j] + 1 == level[i] && next[j] < 0 && (best < 0 || distance(i, j) < distance(i, best)))
            {
                best = j;
            }
        }
        if (best >= 0)
        {
            next[best] = i;
            previous[i] = best;
        }
    }
    HostChains c;
    c.groupStart.push_back(0);
    std::vector<int> lanes;
    const auto layOut = [&]()
    {
        lanes.resize(32, -1);
        while (std::any_of(lanes.begin(), lanes.end(), [](int r) { return r >= 0; }))
        {
            for (int& r : lanes)
            {
                c.slotRows.push_back(r);
                r = r >= 0 ? next[r] : -1;
            }
        }
        c.groupStart.push_back(int(c.slotRows.size()));
        lanes.clear();
    };
    for (const int i : h.rows)
    {
        if (previous[i] < 0)
        {
            lanes.push_back(i);
            if (lanes.size() == 32)
            {
                layOut();
            }
        }
    }
    if (!lanes.empty())
    {
        layOut();
    }
    return c;
}

//- A schedule with its rows on the backend, and cut into chunks of positions for the
//  one-launch sweep; the level offsets stay on the host too, for the level-by-level sweep.
template<class B>
class LevelSchedule
{
public:
    //- Positions per chunk (threads per block of the one-launch sweep)
    static constexpr int chunk = 128;
    //- Threads per block of the slab sweep, and its chunks kept in shared memory (slabSlots)
    static constexpr int slabBlock = 256;
    static constexpr int slabDepth = 4;
    //- Threads per block of the chain sweep
    static constexpr int chainBlock = 64;

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
    //- The slab partition on the backend (see HostSlabs)
    struct Slabs
    {
        int nSlabs = 0;
        typename B::template Vector<int> slabChunkStart;
        typename B::template Vector<int> chunkBegin;
        typename B::template Vector<int> chunkFirst;
        //- slabSlots of the packed terms, or empty: every value read from memory
        typename B::template Vector<int> slot;

        Slabs(const HostSlabs& h, const std::vector<int>& slots)
        :
            nSlabs(h.nSlabs),
            slabChunkStart(h.slabChunkStart.begin(), h.slabChunkStart.end()),
            chunkBegin(h.chunkBegin.begin(), h.chunkBegin.end()),
            chunkFirst(h.chunkFirst.begin(), h.chunkFirst.end()),
            slot(slots.begin(), slots.end())
        {}
    };

    //- The chain partition on the backend (see HostChains), and each position's slot
    struct Chains
    {
        int nGroups = 0;
        typename B::template Vector<int> groupStart;
        typename B::template Vector<int> slotRows;
        typename B::template Vector<int> slotOf;

        Chains(const HostLevelSchedule& h, const HostChains& c)
        :
            nGroups(c.nGroups()),
            groupStart(c.groupStart.begin(), c.groupStart.end()),
            slotRows(c.slotRows.begin(), c.slotRows.end())
        {
            std::vector<int> slotOfRow(h.rows.size());
            for (int slot = 0; slot < int(c.slotRows.size()); ++slot)
            {
                if (c.slotRows[slot] >= 0)
                {
                    slotOfRow[c.slotRows[slot]] = slot;
                }
            }
            std::vector<int> at(h.rows.size());
            for (std::size_t k = 0; k < h.rows.size(); ++k)
            {
                at[k] = slotOfRow[h.rows[k]];
            }
            slotOf.assign(at.begin(), at.end());
        }
    };

private:
    //- The chain partition of the chain sweep, or none
    std::unique_ptr<Chains> chains_;
    //- The slab partition of the slab sweep; none (the default) means the ticketed one-launch
    //  sweep, or level by level. Measured 1.6-1.9x slower than the ticketed sweep
    //  (docs/performance.md, "Slab sweep, second attempt"): selectable, for that work.
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
    //  turns the slab sweep off (then setOneLaunchBlocks decides). With width > 0, the packed
    //  terms (count, packedCol: host copies of the packed pattern) get their slabSlots.
    void setSlabs(int n, const HostLevelSchedule& h, const std::vector<int>& count = {},
                  const std::vector<int>& packedCol = {}, int width = 0)
    {
        slabs_.reset();
        if (n > 0)
        {
            chains_.reset();
            const HostSlabs s = slabPartition(h, n);
            slabs_ = std::make_unique<Slabs>(
                s, width > 0 ? slabSlots(h, s, count, packedCol, width, slabBlock, slabDepth) : std::vector<int>{});
        }
    }

    //- The GPU sweep of row functors that wait on values by chains (HostChains), h being this
    //  schedule on the host; nullptr turns it off. The row functor's packed terms then follow
    //  the chains' slots (packedRows), and it maps a position k to its slot (slotOf).
    void setChains(const HostLevelSchedule* h)
    {
        chains_.reset();
        slabs_.reset();
        if (h)
        {
            chains_ = std::make_unique<Chains>(*h, chainPartition(*h));
        }
    }

    const Chains* chains() const
    {
        return chains_.get();
    }

    //- The row of each slot of a sweep's packed terms (-1: none), and their number: the rows in
    //  level order, or by chains
    const int* packedRows() const
    {
        return chains_ ? ptr(chains_->slotRows) : ptr(rows_);
    }

    int nPacked() const
    {
        return chains_ ? int(chains_->slotRows.size()) : int(rows_.size());
    }

    //- The slot of each position, or nullptr where they are the same
    const int* slotOf() const
    {
        return chains_ ? ptr(chains_->slotOf) : nullptr;
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
