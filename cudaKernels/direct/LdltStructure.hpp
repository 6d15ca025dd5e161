// SPDX-License-Identifier: GPL-3.0-or-later
// The set-up of the sparse LDL^T solver between its symbolic analysis (SymbolicLdlt.hpp) and its
// numeric phase (LdltImpl.hpp): everything that depends on the pattern only, on the host and on
// the backend B. Done once per pattern and copied as a whole by a solver that shares the
// analysis (LdltSolverImpl's withSameAnalysis). Each step below is one concern:
//   placeEntries     where each input entry adds into the factor's values (slots: distinct places)
//   buildFullCsr     A's full CSR (both triangles) for the refinement's residual
//   scheduleFactor   the fronts of each level (small ones first) and the extend-add rounds
//   scheduleSolves   the supernodes of each level solved by a team, then the long ones
//   upload           the structure to the backend

#ifndef GPULDU_LDLTSTRUCTURE_HPP
#define GPULDU_LDLTSTRUCTURE_HPP

#include "backend/Backend.hpp"
#include "direct/SymbolicLdlt.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace gpuLdu
{

template<class B>
struct LdltStructure
{
    template<class V>
    using Vector = typename B::template Vector<V>;

    //- Fronts of more rows than this are factored in panels through the dense BLAS
    static constexpr int smallFront = 128;

    //- Supernodes of more columns than this are solved through the BLAS (trsv, gemv)
    static constexpr int longSupernode = 32;

    //- Each input entry's row and column (A's), its slot among the distinct places of C's
    //  lower part it adds to, and those places in the factor's values; the entry's places in
    //  A's full CSR (toCsr[0]: itself, toCsr[1]: its mirror, -1 on the diagonal)
    std::vector<int> entryRow, entryCol, entrySlot;
    std::vector<long> slotPos;
    std::vector<int> toCsr[2];

    //- Per level: the fronts (small first, then large: nodes[levelStart .. smallEnd) and
    //  [smallEnd .. levelStart + 1); hostNodes their host copy), and the extend-add rounds
    //  (teams of round r of level l: [rounds[l][r], rounds[l][r + 1]))
    std::vector<int> smallEnd, hostNodes;
    std::vector<std::vector<long>> rounds;
    //- The rows of the largest large front (a panel workspace per side stream: rows x panel)
    long panelRows = 0;
    //- The same for the solves: per level the supernodes of a team, then the long ones; the
    //  most rows below a long supernode (the backward solve's gather)
    std::vector<int> solveTeamEnd, hostSolveNodes;
    long longestBelow = 0;

    //- On the backend: the supernodal structure, the fronts of each level, the extend-add teams,
    //  D's places in the factor, the slots' places, the permutation, A's full CSR
    Vector<int> superFirst, superRows, superParent, relIndex, childStart, children, nodes;
    Vector<long> superRowStart, valueStart, updateStart, vectorStart, diagPos, slotPlaces;
    Vector<int> eaChild, eaColumn, perm;
    Vector<int> solveNodes;
    Vector<int> csrStart, csrCol;

    //- The rows of the largest front factored in panels (0: none is): what the panel
    //  workspace needs, known before anything is allocated
    static long largeFrontRows(const SymbolicLdlt& s)
    {
        long rows = 0;
        for (int sn = 0; sn < s.nSupernodes(); ++sn)
        {
            if (s.rows(sn) > smallFront)
            {
                rows = std::max(rows, long(s.rows(sn)));
            }
        }
        return rows;
    }

    //- Every step, for the pattern `lower` (the lower triangle) analysed as s
    void setUp(const SymbolicLdlt& s, const SymmetricPattern& lower)
    {
        panelRows = largeFrontRows(s);
        placeEntries(s, lower);
        std::vector<int> start, col;
        buildFullCsr(lower, start, col);
        std::vector<int> eaChildren, eaColumns;
        scheduleFactor(s, eaChildren, eaColumns);
        scheduleSolves(s);
        upload(s, start, col, eaChildren, eaColumns);
    }

    //- Each entry's place in C's lower part: C(i', j') with i' = inverse[i], j' = inverse[j]
    //  (swapped into the lower triangle), found among the rows of j's supernode; the distinct
    //  places numbered as slots (duplicated entries share one)
    void placeEntries(const SymbolicLdlt& s, const SymmetricPattern& lower)
    {
        const int n = lower.n;
        const int nnzA = n > 0 ? lower.colStart[n] : 0;
        entryRow.resize(nnzA);
        entryCol.resize(nnzA);
        entrySlot.resize(nnzA);
        std::vector<long> place(nnzA);
        for (int j = 0; j < n; ++j)
        {
            for (int p = lower.colStart[j]; p < lower.colStart[j + 1]; ++p)
            {
                entryRow[p] = lower.rows[p];
                entryCol[p] = j;
                int a = s.inverse[lower.rows[p]], c = s.inverse[j];
                if (a < c)
                {
                    std::swap(a, c);
                }
                const int sn = s.superOf[c];
                const auto first = s.superRows.begin() + s.superRowStart[sn];
                const auto last = s.superRows.begin() + s.superRowStart[sn + 1];
                const long r = std::lower_bound(first, last, a) - first;
                place[p] = s.valueStart[sn] + long(c - s.superFirst[sn])*s.rows(sn) + r;
            }
        }
        std::vector<int> order(nnzA);
        for (int p = 0; p < nnzA; ++p)
        {
            order[p] = p;
        }
        std::sort(order.begin(), order.end(), [&](int x, int y) { return place[x] < place[y]; });
        slotPos.clear();
        for (int q = 0; q < nnzA; ++q)
        {
            if (q == 0 || place[order[q]] != place[order[q - 1]])
            {
                slotPos.push_back(place[order[q]]);
            }
            entrySlot[order[q]] = int(slotPos.size()) - 1;
        }
    }

    //- A's full CSR (start, col): row i holds the entries of column i and their mirrors, in
    //  input order; toCsr, each entry's places in it
    void buildFullCsr(const SymmetricPattern& lower, std::vector<int>& start, std::vector<int>& col)
    {
        const int n = lower.n;
        const int nnzA = n > 0 ? lower.colStart[n] : 0;
        start.assign(n + 1, 0);
        for (int j = 0; j < n; ++j)
        {
            for (int p = lower.colStart[j]; p < lower.colStart[j + 1]; ++p)
            {
                ++start[j + 1];
                if (lower.rows[p] != j)
                {
                    ++start[lower.rows[p] + 1];
                }
            }
        }
        for (int i = 0; i < n; ++i)
        {
            start[i + 1] += start[i];
        }
        col.resize(start[n]);
        std::vector<int> next(start.begin(), start.end() - 1);
        toCsr[0].assign(nnzA, -1);
        toCsr[1].assign(nnzA, -1);
        for (int j = 0; j < n; ++j)
        {
            for (int p = lower.colStart[j]; p < lower.colStart[j + 1]; ++p)
            {
                const int i = lower.rows[p];
                toCsr[0][p] = next[j];
                col[next[j]++] = i;
                if (i != j)
                {
                    toCsr[1][p] = next[i];
                    col[next[i]++] = j;
                }
            }
        }
    }

    //- The fronts of each level, small ones first (hostNodes, smallEnd); the extend-add teams
    //  of each level's rounds (round r: the r-th child of every front of the level that has one;
    //  a team per column of the child's update matrix: eaChild, eaColumn)
    void scheduleFactor(const SymbolicLdlt& s, std::vector<int>& eaChild, std::vector<int>& eaColumn)
    {
        hostNodes.clear();
        smallEnd.assign(s.nLevels(), 0);
        rounds.assign(s.nLevels(), {});
        for (int l = 0; l < s.nLevels(); ++l)
        {
            std::vector<int> level(s.levelNodes.begin() + s.levelStart[l], s.levelNodes.begin() + s.levelStart[l + 1]);
            const auto large = std::stable_partition(level.begin(), level.end(), [&](int sn)
            {
                return s.rows(sn) <= smallFront;
            });
            smallEnd[l] = s.levelStart[l] + int(large - level.begin());
            hostNodes.insert(hostNodes.end(), level.begin(), level.end());
            rounds[l].push_back(long(eaChild.size()));
            for (int r = 0;; ++r)
            {
                bool any = false;
                for (const int p : level)
                {
                    if (s.childStart[p] + r < s.childStart[p + 1])
                    {
                        any = true;
                        const int c = s.children[s.childStart[p] + r];
                        for (int b = 0; b < s.rows(c) - s.cols(c); ++b)
                        {
                            eaChild.push_back(c);
                            eaColumn.push_back(b);
                        }
                    }
                }
                if (!any)
                {
                    break;
                }
                rounds[l].push_back(long(eaChild.size()));
            }
        }
    }

    //- The supernodes of each level for the solves, those of a team first (hostSolveNodes,
    //  solveTeamEnd), and the most rows below a long one (longestBelow)
    void scheduleSolves(const SymbolicLdlt& s)
    {
        hostSolveNodes.clear();
        solveTeamEnd.assign(s.nLevels(), 0);
        longestBelow = 0;
        for (int l = 0; l < s.nLevels(); ++l)
        {
            std::vector<int> level(s.levelNodes.begin() + s.levelStart[l], s.levelNodes.begin() + s.levelStart[l + 1]);
            const auto longOnes = std::stable_partition(level.begin(), level.end(), [&](int sn)
            {
                return s.cols(sn) <= longSupernode;
            });
            solveTeamEnd[l] = s.levelStart[l] + int(longOnes - level.begin());
            for (auto it = longOnes; it != level.end(); ++it)
            {
                longestBelow = std::max(longestBelow, long(s.rows(*it) - s.cols(*it)));
            }
            hostSolveNodes.insert(hostSolveNodes.end(), level.begin(), level.end());
        }
    }

    //- The structure to the backend, with D's places in the factor's values (diagPos)
    void upload(
        const SymbolicLdlt& s,
        const std::vector<int>& start,
        const std::vector<int>& col,
        const std::vector<int>& eaChildren,
        const std::vector<int>& eaColumns
    )
    {
        std::vector<long> diagonal(s.n);
        for (int j = 0; j < s.n; ++j)
        {
            const int sn = s.superOf[j];
            const long c = j - s.superFirst[sn];
            diagonal[j] = s.valueStart[sn] + c*s.rows(sn) + c;
        }
        const auto copy = [](auto& to, const auto& from)
        {
            to.resize(from.size());
            B::upload(ptr(to), from.data(), from.size());
        };
        copy(superFirst, s.superFirst);
        copy(superRowStart, s.superRowStart);
        copy(superRows, s.superRows);
        copy(superParent, s.superParent);
        copy(relIndex, s.relIndex);
        copy(childStart, s.childStart);
        copy(children, s.children);
        copy(valueStart, s.valueStart);
        copy(updateStart, s.updateStart);
        copy(vectorStart, s.vectorStart);
        copy(nodes, hostNodes);
        copy(solveNodes, hostSolveNodes);
        copy(eaChild, eaChildren);
        copy(eaColumn, eaColumns);
        copy(diagPos, diagonal);
        copy(slotPlaces, slotPos);
        copy(perm, s.perm);
        copy(csrStart, start);
        copy(csrCol, col);
    }
};

} // namespace gpuLdu

#endif
