// SPDX-License-Identifier: GPL-3.0-or-later
// The symbolic LDL^T factorisation (SymbolicLdlt.hpp). The orderings are SuiteSparse's AMD and
// METIS's nested dissection; the elimination tree (Liu's algorithm with path compression), the
// row subtrees that give L's structure and the levels of the tree are the project's own
// (after Davis, "Direct Methods for Sparse Linear Systems", ch. 4).

#include "direct/SymbolicLdlt.hpp"
#include "gpuLdu/gpuLdu.hpp"

#include <amd.h>
#include <metis.h>

#include <algorithm>

namespace gpuLdu
{

namespace
{

//- The symmetric adjacency of a pattern: both triangles, no diagonal, each column's rows
//  ascending and unique (CSC; also METIS's xadj/adjncy)
struct Adjacency
{
    std::vector<int> start;
    std::vector<int> rows;
};

Adjacency symmetricAdjacency(const SymmetricPattern& a)
{
    const int n = a.n;
    if (n < 0 || (n > 0 && (!a.colStart || !a.rows)) || (n > 0 && a.colStart[0] != 0))
    {
        throw Error("gpuLdu: LDL^T pattern: " + std::to_string(n) + " columns without a valid column start");
    }
    for (int j = 0; j < n; ++j)
    {
        if (a.colStart[j + 1] < a.colStart[j])
        {
            throw Error("gpuLdu: LDL^T pattern: column " + std::to_string(j) + " ends before it starts");
        }
        for (int p = a.colStart[j]; p < a.colStart[j + 1]; ++p)
        {
            if (a.rows[p] < 0 || a.rows[p] >= n)
            {
                throw Error("gpuLdu: LDL^T pattern: row " + std::to_string(a.rows[p]) + " in column "
                            + std::to_string(j) + " is outside 0.." + std::to_string(n - 1));
            }
        }
    }
    // each off-diagonal entry into its column and its mirror's, then sorted and made unique
    std::vector<int> count(n + 1, 0);
    for (int j = 0; j < n; ++j)
    {
        for (int p = a.colStart[j]; p < a.colStart[j + 1]; ++p)
        {
            if (a.rows[p] != j)
            {
                ++count[j + 1];
                ++count[a.rows[p] + 1];
            }
        }
    }
    for (int j = 0; j < n; ++j)
    {
        count[j + 1] += count[j];
    }
    std::vector<int> rows(count[n]);
    std::vector<int> next(count.begin(), count.end() - 1);
    for (int j = 0; j < n; ++j)
    {
        for (int p = a.colStart[j]; p < a.colStart[j + 1]; ++p)
        {
            const int i = a.rows[p];
            if (i != j)
            {
                rows[next[j]++] = i;
                rows[next[i]++] = j;
            }
        }
    }
    Adjacency adj;
    adj.start.assign(1, 0);
    adj.rows.reserve(rows.size());
    for (int j = 0; j < n; ++j)
    {
        const auto first = rows.begin() + count[j];
        const auto last = rows.begin() + count[j + 1];
        std::sort(first, last);
        adj.rows.insert(adj.rows.end(), first, std::unique(first, last));
        adj.start.push_back(int(adj.rows.size()));
    }
    return adj;
}

//- The fill-reducing permutation of an ordering: row i of C is row perm[i] of A
std::vector<int> order(const Adjacency& adj, int n, LdltOrdering ordering)
{
    std::vector<int> perm(n);
    for (int i = 0; i < n; ++i)
    {
        perm[i] = i;
    }
    if (ordering == LdltOrdering::natural || adj.rows.empty())
    {
        return perm;
    }
    if (ordering == LdltOrdering::amd)
    {
        const int status = amd_order(n, adj.start.data(), adj.rows.data(), perm.data(), nullptr, nullptr);
        if (status != AMD_OK && status != AMD_OK_BUT_JUMBLED)
        {
            throw Error("gpuLdu: AMD ordering of " + std::to_string(n) + " columns failed (status "
                        + std::to_string(status) + (status == AMD_OUT_OF_MEMORY ? ": out of memory)" : ")"));
        }
        return perm;
    }
    // METIS takes non-const arrays it does not change
    idx_t nv = n;
    std::vector<idx_t> xadj(adj.start.begin(), adj.start.end());
    std::vector<idx_t> adjncy(adj.rows.begin(), adj.rows.end());
    std::vector<idx_t> p(n), ip(n);
    const int status = METIS_NodeND(&nv, xadj.data(), adjncy.data(), nullptr, nullptr, p.data(), ip.data());
    if (status != METIS_OK)
    {
        throw Error("gpuLdu: METIS nested dissection of " + std::to_string(n) + " columns failed (status "
                    + std::to_string(status) + (status == METIS_ERROR_MEMORY ? ": out of memory)" : ")"));
    }
    perm.assign(p.begin(), p.end());
    return perm;
}

} // namespace

std::string orderingName(LdltOrdering ordering)
{
    switch (ordering)
    {
        case LdltOrdering::natural: return "natural";
        case LdltOrdering::amd: return "AMD";
        case LdltOrdering::metis: return "METIS";
    }
    return "unknown";
}

SymbolicLdlt analyseLdlt(const SymmetricPattern& a, LdltOrdering ordering)
{
    const int n = a.n;
    const Adjacency adj = symmetricAdjacency(a);

    SymbolicLdlt s;
    s.n = n;
    s.ordering = ordering;
    s.nnzALower = long(adj.rows.size())/2 + n;
    s.perm = order(adj, n, ordering);
    s.inverse.assign(n, -1);
    for (int i = 0; i < n; ++i)
    {
        if (s.perm[i] < 0 || s.perm[i] >= n || s.inverse[s.perm[i]] >= 0)
        {
            throw Error("gpuLdu: the " + orderingName(ordering) + " ordering is not a permutation");
        }
        s.inverse[s.perm[i]] = i;
    }

    // The neighbours of C's column k: inverse[adj of A's column perm[k]]
    const auto forEachNeighbour = [&](int k, auto&& f)
    {
        const int j = s.perm[k];
        for (int p = adj.start[j]; p < adj.start[j + 1]; ++p)
        {
            f(s.inverse[adj.rows[p]]);
        }
    };

    // Elimination tree: for each C(i, k) != 0 with i < k, the root of i's current subtree
    // becomes a child of k (ancestor: the path-compressed shortcut to that root)
    s.parent.assign(n, -1);
    std::vector<int> ancestor(n, -1);
    for (int k = 0; k < n; ++k)
    {
        forEachNeighbour(k, [&](int i)
        {
            while (i != -1 && i < k)
            {
                const int next = ancestor[i];
                ancestor[i] = k;
                if (next == -1)
                {
                    s.parent[i] = k;
                }
                i = next;
            }
        });
    }

    // Row k of L is the row subtree of k: from each i < k with C(k, i) != 0 up the tree to the
    // first column already met in this row. Two passes: the column counts, then the rows (each
    // column's rows met in ascending k)
    std::vector<int> mark(n, -1);
    std::vector<long> count(n + 1, 0);
    const auto rowSubtree = [&](int k, auto&& f)
    {
        mark[k] = k;
        forEachNeighbour(k, [&](int i)
        {
            for (; i < k && mark[i] != k; i = s.parent[i])
            {
                mark[i] = k;
                f(i);
            }
        });
    };
    for (int k = 0; k < n; ++k)
    {
        rowSubtree(k, [&](int j) { ++count[j + 1]; });
    }
    for (int j = 0; j < n; ++j)
    {
        const double c = double(count[j + 1]);
        s.flops += c*c + 2*c;
        count[j + 1] += count[j];
    }
    s.lStart = count;
    s.lRows.resize(count[n]);
    std::fill(mark.begin(), mark.end(), -1);
    std::vector<long> next(count.begin(), count.end() - 1);
    for (int k = 0; k < n; ++k)
    {
        rowSubtree(k, [&](int j) { s.lRows[next[j]++] = k; });
    }
    s.nnzL = long(s.lRows.size()) + n;

    // The rows: column j's entries in ascending j give each row's columns ascending
    s.rowStart.assign(n + 1, 0);
    for (const int i : s.lRows)
    {
        ++s.rowStart[i + 1];
    }
    for (int i = 0; i < n; ++i)
    {
        s.rowStart[i + 1] += s.rowStart[i];
    }
    s.rowCols.resize(s.lRows.size());
    s.rowPos.resize(s.lRows.size());
    std::vector<long> at(s.rowStart.begin(), s.rowStart.end() - 1);
    for (int j = 0; j < n; ++j)
    {
        for (long p = s.lStart[j]; p < s.lStart[j + 1]; ++p)
        {
            const long e = at[s.lRows[p]]++;
            s.rowCols[e] = j;
            s.rowPos[e] = p;
        }
    }

    // Levels: a parent is always a later column, so one ascending pass sees every child first
    s.level.assign(n, 0);
    int nLevels = n > 0 ? 1 : 0;
    for (int j = 0; j < n; ++j)
    {
        if (s.parent[j] >= 0)
        {
            s.level[s.parent[j]] = std::max(s.level[s.parent[j]], s.level[j] + 1);
        }
        nLevels = std::max(nLevels, s.level[j] + 1);
    }
    s.levelStart.assign(nLevels + 1, 0);
    for (int j = 0; j < n; ++j)
    {
        ++s.levelStart[s.level[j] + 1];
    }
    for (int l = 0; l < nLevels; ++l)
    {
        s.levelStart[l + 1] += s.levelStart[l];
    }
    s.levelCols.resize(n);
    std::vector<int> fill(s.levelStart.begin(), s.levelStart.end() - 1);
    for (int j = 0; j < n; ++j)
    {
        s.levelCols[fill[s.level[j]]++] = j;
    }
    return s;
}

} // namespace gpuLdu
