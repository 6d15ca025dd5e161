// SPDX-License-Identifier: GPL-3.0-or-later
// The symbolic LDL^T factorisation (SymbolicLdlt.hpp). The orderings are in direct/orderings/
// (SuiteSparse's AMD, METIS's nested dissection, natural; direct/OrderingList.hpp); the
// elimination tree (Liu's algorithm with path compression), its
// postorder, the column counts (row subtrees), and, in supernodes.cpp, the supernodes and their
// relaxation (CHOLMOD's default rules) and the supernodal structure are the project's own (after
// Davis, "Direct Methods for Sparse Linear Systems", ch. 4, and Liu, "The multifrontal method",
// SIAM Review 1992).

#include "direct/OrderingList.hpp"
#include "direct/SymbolicLdlt.hpp"
#include "direct/Supernodes.hpp"
#include "gpuLdu/gpuLdu.hpp"

#include <algorithm>
#include <iterator>

namespace gpuLdu
{

namespace
{

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

//- The fill-reducing permutation of an ordering: row i of C is row perm[i] of A (the identity
//  where there is nothing to order)
std::vector<int> order(const Adjacency& adj, LdltOrdering ordering)
{
    if (adj.rows.empty())
    {
        return orderings::Natural::permutation(adj);
    }
    std::vector<int> perm;
    OrderingRegistry::visit(ordering.id(), [&](auto entry) { perm = decltype(entry)::permutation(adj); });
    return perm;
}

//- The elimination tree of C = P A P^T (inverse: A's index to C's): for each C(i, k) != 0 with
//  i < k, the root of i's current subtree becomes a child of k (ancestor: the path-compressed
//  shortcut to that root)
std::vector<int> eliminationTree(const Adjacency& adj, const std::vector<int>& perm, const std::vector<int>& inverse)
{
    const int n = int(perm.size());
    std::vector<int> parent(n, -1), ancestor(n, -1);
    for (int k = 0; k < n; ++k)
    {
        const int j = perm[k];
        for (int p = adj.start[j]; p < adj.start[j + 1]; ++p)
        {
            int i = inverse[adj.rows[p]];
            while (i != -1 && i < k)
            {
                const int next = ancestor[i];
                ancestor[i] = k;
                if (next == -1)
                {
                    parent[i] = k;
                }
                i = next;
            }
        }
    }
    return parent;
}

//- The tree's postorder: post[k] the k-th column visited, children in ascending order
std::vector<int> postorder(const std::vector<int>& parent)
{
    const int n = int(parent.size());
    std::vector<int> head(n, -1), next(n, -1), post, stack;
    post.reserve(n);
    for (int j = n - 1; j >= 0; --j)   // the lists come out ascending
    {
        if (parent[j] >= 0)
        {
            next[j] = head[parent[j]];
            head[parent[j]] = j;
        }
    }
    for (int root = 0; root < n; ++root)
    {
        if (parent[root] >= 0)
        {
            continue;
        }
        stack.push_back(root);
        while (!stack.empty())
        {
            const int j = stack.back();
            if (head[j] >= 0)
            {
                const int child = head[j];
                head[j] = next[child];
                stack.push_back(child);
            }
            else
            {
                stack.pop_back();
                post.push_back(j);
            }
        }
    }
    return post;
}

} // namespace

LdltOrdering autoOrdering(int n)
{
    return LdltOrdering(n < 5000 ? OrderingRegistry::idOf<orderings::Amd>() : OrderingRegistry::idOf<orderings::Metis>());
}

SymbolicLdlt analyseLdlt(const SymmetricPattern& a, LdltOrdering ordering, bool relax)
{
    const int n = a.n;
    const Adjacency adj = symmetricAdjacency(a);

    SymbolicLdlt s;
    s.n = n;
    s.ordering = ordering;
    s.nnzALower = long(adj.rows.size())/2 + n;
    std::vector<int> perm = order(adj, ordering);
    s.inverse.assign(n, -1);
    for (int i = 0; i < n; ++i)
    {
        if (perm[i] < 0 || perm[i] >= n || s.inverse[perm[i]] >= 0)
        {
            throw Error("gpuLdu: the " + orderingName(ordering) + " ordering is not a permutation");
        }
        s.inverse[perm[i]] = i;
    }

    // The ordering followed by the postorder of its tree, and the tree again in that order
    const std::vector<int> post = postorder(eliminationTree(adj, perm, s.inverse));
    s.perm.resize(n);
    for (int k = 0; k < n; ++k)
    {
        s.perm[k] = perm[post[k]];
        s.inverse[s.perm[k]] = k;
    }
    s.parent = eliminationTree(adj, s.perm, s.inverse);

    // The neighbours of C's column k: inverse[adj of A's column perm[k]]
    const auto forEachNeighbour = [&](int k, auto&& f)
    {
        const int j = s.perm[k];
        for (int p = adj.start[j]; p < adj.start[j + 1]; ++p)
        {
            f(s.inverse[adj.rows[p]]);
        }
    };

    // Column counts: row k of L is the row subtree of k, from each i < k with C(k, i) != 0 up
    // the tree to the first column already met in this row
    std::vector<int> mark(n, -1);
    s.colCount.assign(n, 0);
    for (int k = 0; k < n; ++k)
    {
        mark[k] = k;
        forEachNeighbour(k, [&](int i)
        {
            for (; i < k && mark[i] != k; i = s.parent[i])
            {
                mark[i] = k;
                ++s.colCount[i];
            }
        });
    }
    s.nnzL = n;
    for (int j = 0; j < n; ++j)
    {
        const double c = s.colCount[j];
        s.flops += c*c + 2*c;
        s.nnzL += s.colCount[j];
    }

    s.superFirst = detail::supernodeFirsts(s, relax);
    detail::linkSupernodes(s);
    detail::supernodeRows(s, adj.start, adj.rows);
    detail::relativeIndices(s);
    detail::storageOffsets(s);
    detail::supernodeLevels(s);
    detail::placeUpdateMatrices(s);
    return s;
}

} // namespace gpuLdu
