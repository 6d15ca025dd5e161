// SPDX-License-Identifier: GPL-3.0-or-later
// The ranks of a group combined into one level (gpuLdu/rankGroup.hpp): block diagonal
// addressing, the processor faces between the ranks as device coupling terms.

#include "gpuLdu/rankGroup.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace gpuLdu
{

namespace
{

//- The patches of a rank to group rank j, in patch order
std::vector<int> patchesTo(const std::vector<int>& patchNeighbour, int j)
{
    std::vector<int> patches;
    for (int patchi = 0; patchi < int(patchNeighbour.size()); ++patchi)
    {
        if (patchNeighbour[patchi] == j)
        {
            patches.push_back(patchi);
        }
    }
    return patches;
}

//- Whether the q-th patch of rank r to rank j and the q-th of j to r match face for face, for
//  every j and q
bool patchesMatch(const std::vector<RankLevel>& ranks, int r)
{
    for (int j = 0; j < int(ranks.size()); ++j)
    {
        const std::vector<int> mine = patchesTo(ranks[r].patchNeighbour, j);
        const std::vector<int> theirs = patchesTo(ranks[j].patchNeighbour, r);
        if (mine.size() != theirs.size())
        {
            return false;
        }
        for (std::size_t q = 0; q < mine.size(); ++q)
        {
            if (ranks[r].patchCells[mine[q]].size() != ranks[j].patchCells[theirs[q]].size())
            {
                return false;
            }
        }
    }
    return true;
}

//- One device coupling term before sorting: its row, column and coefficient in the ranks' terms
struct Term
{
    int row;
    int col;
    int source;
};

//- Rank r's patches in the system as terms (appended, their coefficients numbered from
//  firstSource on); returns the number after its last; marks the host phases it has. A patch to
//  another group reads the halo from haloStart (column nCells + its place there).
int appendTerms
(
    const std::vector<RankLevel>& ranks,
    int r,
    const std::vector<PatchPlace>& places,
    const std::vector<int>& haloStart,
    CombinedLevel& c,
    int firstSource,
    std::vector<Term>& terms
)
{
    const RankLevel& rank = ranks[r];
    int source = firstSource;
    for (int patchi = 0; patchi < int(rank.patchNeighbour.size()); ++patchi)
    {
        const int j = rank.patchNeighbour[patchi];
        if (j == noPatch)
        {
            continue;
        }
        if (places[patchi] != PatchPlace::inSystem)
        {
            c.hasPhase[int(places[patchi])][r] = true;
            continue;
        }
        if (isRemotePatch(j))
        {
            const int halo = c.nCells() + haloStart[patchi];
            const std::vector<int>& rowCells = rank.patchCells[patchi];
            for (std::size_t f = 0; f < rowCells.size(); ++f)
            {
                terms.push_back({c.rowStart[r] + rowCells[f], halo + int(f), source++});
            }
            continue;
        }
        // the q-th patch to j meets j's q-th patch to r
        const int theirs = patchesTo(ranks[j].patchNeighbour, r)[patchOrdinal(rank.patchNeighbour, patchi)];
        const std::vector<int>& rowCells = rank.patchCells[patchi];
        const std::vector<int>& colCells = ranks[j].patchCells[theirs];
        for (std::size_t f = 0; f < rowCells.size(); ++f)
        {
            terms.push_back({c.rowStart[r] + rowCells[f], c.rowStart[j] + colCells[f], source++});
        }
    }
    return source;
}

//- The terms as DeviceCouplings: rows in order, each row's terms in its patch and face order
void setCouplings(std::vector<Term>& terms, CombinedLevel& c)
{
    std::stable_sort
    (
        terms.begin(), terms.end(), [](const Term& a, const Term& b) { return a.row < b.row; }
    );
    for (const Term& t : terms)
    {
        if (c.couplings.rows.empty() || c.couplings.rows.back() != t.row)
        {
            c.couplings.rows.push_back(t.row);
            c.couplings.start.push_back(c.couplings.start.back());
        }
        c.couplings.cols.push_back(t.col);
        ++c.couplings.start.back();
        c.termSource.push_back(t.source);
    }
}

} // namespace


bool groupPatchesContiguous(const std::vector<int>& patchNeighbour)
{
    // patches without an interface may lie between them
    const auto first = std::find_if(patchNeighbour.begin(), patchNeighbour.end(), processorTerms);
    const auto last =
        std::find_if(patchNeighbour.rbegin(), patchNeighbour.rend(), processorTerms).base();
    return first >= last || std::find(first, last, hostPatch) == last;
}


bool keepsPatchesOnHost(const std::vector<RankLevel>& ranks)
{
    for (int r = 0; r < int(ranks.size()); ++r)
    {
        if
        (
            !ranks[r].inPatchOrder
         || !groupPatchesContiguous(ranks[r].patchNeighbour)
         || !patchesMatch(ranks, r)
        )
        {
            return true;
        }
    }
    return false;
}


std::vector<PatchPlace> patchPlaces(const std::vector<int>& patchNeighbour, bool onHost)
{
    const auto first = std::find_if
    (
        patchNeighbour.begin(), patchNeighbour.end(), processorTerms
    ) - patchNeighbour.begin();
    std::vector<PatchPlace> place(patchNeighbour.size(), PatchPlace::late);
    for (int patchi = 0; patchi < int(patchNeighbour.size()) && !onHost; ++patchi)
    {
        if (processorTerms(patchNeighbour[patchi]))
        {
            place[patchi] = PatchPlace::inSystem;
        }
        else if (patchi < first)
        {
            place[patchi] = PatchPlace::early;
        }
    }
    return place;
}


std::vector<int> hostInterfaceCells(const RankLevel& rank, const std::vector<PatchPlace>& places)
{
    std::vector<int> cells;
    for (std::size_t patchi = 0; patchi < rank.patchNeighbour.size(); ++patchi)
    {
        if (rank.patchNeighbour[patchi] != noPatch && places[patchi] != PatchPlace::inSystem)
        {
            const std::vector<int>& c = rank.patchCells[patchi];
            cells.insert(cells.end(), c.begin(), c.end());
        }
    }
    std::sort(cells.begin(), cells.end());
    cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
    return cells;
}


int systemTermCount(const RankLevel& rank, const std::vector<PatchPlace>& places)
{
    int n = 0;
    for (std::size_t patchi = 0; patchi < places.size(); ++patchi)
    {
        if (places[patchi] == PatchPlace::inSystem)
        {
            n += int(rank.patchCells[patchi].size());
        }
    }
    return n;
}


CombinedLevel combineRanks
(
    const std::vector<RankLevel>& ranks,
    int threads,
    const GroupWorld* world
)
{
    const int n = int(ranks.size());
    CombinedLevel c;
    c.onHost = keepsPatchesOnHost(ranks);
    c.hasPhase[0].assign(n, false);
    c.hasPhase[1].assign(n, false);

    for (const RankLevel& rank : ranks)
    {
        c.rowStart.push_back(c.rowStart.back() + rank.nCells);
        c.faceStart.push_back(c.faceStart.back() + int(rank.lower.size()));
    }
    // sized once and written in place (millions of faces at 8M cells), on huge pages
    for (std::vector<int>* list : {&c.lower, &c.upper})
    {
        reserveOnHugePages(*list, c.faceStart.back());
        list->resize(c.faceStart.back());
    }

    onHostThreads(n, threads, [&](int r)
    {
        const RankLevel& rank = ranks[r];
        const int offset = c.rowStart[r];
        const auto shifted = [offset](int i) { return offset + i; };
        std::transform(rank.lower.begin(), rank.lower.end(), c.lower.begin() + c.faceStart[r], shifted);
        std::transform(rank.upper.begin(), rank.upper.end(), c.upper.begin() + c.faceStart[r], shifted);
    });

    // the patches to other groups: where each reads the halo. The other group's owner exchanges
    // them with this one's, so they cannot be kept on the host (a rank's own interfaces)
    std::vector<std::vector<int>> haloStart(n);
    const GroupWorld none;
    c.halo = planHalo(ranks, c.rowStart, world ? *world : none, c.couplings.haloSend, haloStart);
    c.couplings.nHalo = c.halo.nHalo();
    if (c.onHost && c.halo.nHalo() > 0)
    {
        throw Error
        (
            "gpuLdu: the group's patches must stay on the host (a rank's patches to the group"
            " are not one stretch, do not match face for face, or are updated out of patch"
            " order) but it has processor patches to other groups, which the groups' owners"
            " exchange"
        );
    }

    std::vector<Term> terms;
    for (int r = 0; r < n; ++r)
    {
        const RankLevel& rank = ranks[r];
        const int offset = c.rowStart[r];
        const std::vector<PatchPlace> places = patchPlaces(rank.patchNeighbour, c.onHost);
        c.termStart.push_back
        (
            appendTerms(ranks, r, places, haloStart[r], c, c.termStart.back(), terms)
        );

        for (const int i : hostInterfaceCells(rank, places))
        {
            c.hostCells.push_back(offset + i);
        }
        c.hostCellStart.push_back(int(c.hostCells.size()));
    }
    setCouplings(terms, c);
    return c;
}


GamgLevelView CombinedCoarsening::view(const CombinedLevel& coarse) const
{
    GamgLevelView v;
    v.coarse = coarse.view();
    v.restrictAddressing = restrictAddressing.data();
    v.faceRestrictAddressing = faceRestrictAddressing.data();
    v.faceFlipMap = faceFlipMap.get();
    return v;
}


CombinedCoarsening combineCoarsening
(
    const std::vector<Coarsening>& ranks,
    const CombinedLevel& coarse
)
{
    CombinedCoarsening c;
    std::size_t nFine = 0;
    std::size_t nFineFaces = 0;
    for (const Coarsening& rank : ranks)
    {
        nFine += rank.restrictAddressing.size();
        nFineFaces += rank.faceRestrictAddressing.size();
    }
    // sized once and written in place (tens of millions of fine faces at 8M cells), on huge
    // pages
    reserveOnHugePages(c.restrictAddressing, nFine);
    c.restrictAddressing.resize(nFine);
    reserveOnHugePages(c.faceRestrictAddressing, nFineFaces);
    c.faceRestrictAddressing.resize(nFineFaces);
    c.faceFlipMap.reset(new bool[nFineFaces]);
    adviseHugePages(c.faceFlipMap.get(), nFineFaces);
    std::size_t cell = 0;
    std::size_t face = 0;
    for (std::size_t r = 0; r < ranks.size(); ++r)
    {
        const Coarsening& rank = ranks[r];
        const int cells = coarse.rowStart[r];
        const int faces = coarse.faceStart[r];
        std::transform(rank.restrictAddressing.begin(), rank.restrictAddressing.end(),
                       c.restrictAddressing.begin() + cell, [cells](int i) { return i + cells; });
        // a fine face inside coarse cell i is -1 - i
        std::transform(rank.faceRestrictAddressing.begin(), rank.faceRestrictAddressing.end(),
                       c.faceRestrictAddressing.begin() + face,
                       [cells, faces](int f) { return f >= 0 ? f + faces : -1 - (-1 - f + cells); });
        std::copy(rank.faceFlipMap.begin(), rank.faceFlipMap.end(), c.faceFlipMap.get() + face);
        cell += rank.restrictAddressing.size();
        face += rank.faceRestrictAddressing.size();
    }
    return c;
}


bool HostPhases::any(InterfacePhase phase) const
{
    const std::vector<bool>& h = has[int(phase)];
    return std::find(h.begin(), h.end(), true) != h.end();
}


HostPhases hostPhases(const CombinedLevel& level)
{
    HostPhases h;
    h.cellStart = level.hostCellStart;
    h.has[0] = level.hasPhase[0];
    h.has[1] = level.hasPhase[1];
    h.halo = level.halo;
    return h;
}


bool oneHierarchy(const std::vector<const CombinedLevel*>& levels)
{
    return std::all_of
    (
        levels.begin(), levels.end(),
        [&](const CombinedLevel* c) { return c->onHost == levels.front()->onHost; }
    );
}


std::vector<int> termDestinations(const std::vector<int>& termSource)
{
    const int n = int(termSource.size());
    std::vector<int> dest(n, -1);
    for (int k = 0; k < n; ++k)
    {
        const int s = termSource[k];
        if (s < 0 || s >= n || dest[s] >= 0)
        {
            throw std::runtime_error
            (
                "device coupling term " + std::to_string(k) + " takes the ranks' term "
              + std::to_string(s) + ", of " + std::to_string(n) + " terms each taken once"
            );
        }
        dest[s] = k;
    }
    return dest;
}


PartIndex locatePart(const std::vector<int>& start, int index)
{
    for (int k = 0; k + 1 < int(start.size()); ++k)
    {
        if (index >= start[k] && index < start[k + 1])
        {
            PartIndex p;
            p.part = k;
            p.local = index - start[k];
            return p;
        }
    }
    PartIndex p;
    p.local = index;
    return p;
}

} // namespace gpuLdu
