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

//- A schedule with its rows on the backend; the level offsets stay on the host, where the
//  launches are issued.
template<class B>
struct LevelSchedule
{
    typename B::template Vector<int> rows;
    std::vector<int> levelStart;

    explicit LevelSchedule(const HostLevelSchedule& h)
    :
        rows(h.rows.size()),
        levelStart(h.levelStart)
    {
        B::upload(ptr(rows), h.rows.data(), h.rows.size());
    }

    int nLevels() const
    {
        return int(levelStart.size()) - 1;
    }

    //- f(k) for every position k of the rows array, level after level.
    template<class F>
    void sweep(const F& f) const
    {
        for (int l = 0; l < nLevels(); ++l)
        {
            forEach<B>(levelStart[l], levelStart[l + 1], f);
        }
    }
};

} // namespace gpuLdu

#endif
