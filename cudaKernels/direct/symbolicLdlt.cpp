// SPDX-License-Identifier: GPL-3.0-or-later
// The symbolic LDL^T factorisation (SymbolicLdlt.hpp). The orderings are SuiteSparse's AMD and
// METIS's nested dissection; the elimination tree (Liu's algorithm with path compression), its
// postorder, the column counts (row subtrees), the supernodes and their relaxation (CHOLMOD's
// default rules) and the supernodal structure are the project's own (after Davis, "Direct Methods
// for Sparse Linear Systems", ch. 4, and Liu, "The multifrontal method", SIAM Review 1992).

#include "direct/SymbolicLdlt.hpp"
#include "gpuLdu/gpuLdu.hpp"

#include <amd.h>
#include <metis.h>

#include <algorithm>
#include <iterator>
#include <map>

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

//- Whether to merge a child supernode into its parent (CHOLMOD's default relaxation): the merged
//  supernode has `cols` columns and `zeros` explicit zeros among its `entries`
bool relaxedMerge(long cols, double zeros, double entries)
{
    const double z = entries > 0 ? zeros/entries : 0;
    return cols <= 4 || (cols <= 16 && z < 0.8) || (cols <= 48 && z < 0.1) || z < 0.05;
}

//- The entries of the lower trapezoid of a supernode of k columns and m rows
double trapezoid(double k, double m)
{
    return k*m - k*(k - 1)/2;
}

} // namespace

LdltOrdering autoOrdering(int n)
{
    return n < 5000 ? LdltOrdering::amd : LdltOrdering::metis;
}

SymbolicLdlt analyseLdlt(const SymmetricPattern& a, LdltOrdering ordering, bool relax)
{
    const int n = a.n;
    const Adjacency adj = symmetricAdjacency(a);

    SymbolicLdlt s;
    s.n = n;
    s.ordering = ordering;
    s.nnzALower = long(adj.rows.size())/2 + n;
    std::vector<int> perm = order(adj, n, ordering);
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

    // Fundamental supernodes: j + 1 continues j's when it is j's parent and column j's structure
    // is j + 1 and column j + 1's (the counts say so: struct(j) minus j + 1 lies in struct(j + 1))
    std::vector<int> first;
    for (int j = 0; j < n; ++j)
    {
        if (j == 0 || s.parent[j - 1] != j || s.colCount[j - 1] != s.colCount[j] + 1)
        {
            first.push_back(j);
        }
    }
    first.push_back(n);
    const int nf = int(first.size()) - 1;
    std::vector<int> fundamentalOf(n);
    for (int f = 0; f < nf; ++f)
    {
        for (int j = first[f]; j < first[f + 1]; ++j)
        {
            fundamentalOf[j] = f;
        }
    }

    // Relaxation, children before parents: the child whose columns end just before f's
    // (postorder: f's last child) joins f when the explicit zeros allow. A group keeps its
    // first column, columns and zeros at its top supernode
    std::vector<int> groupFirst(first.begin(), first.end() - 1);
    std::vector<double> groupZeros(nf, 0.0);
    std::vector<char> merged(nf, 0);
    for (int f = 0; relax && f < nf; ++f)
    {
        if (first[f] == 0)
        {
            continue;
        }
        const int c = fundamentalOf[first[f] - 1];
        const int cLast = first[c + 1] - 1;
        if (s.parent[cLast] < first[f] || s.parent[cLast] >= first[f + 1])
        {
            continue;   // not f's child
        }
        const double fLast = first[f + 1] - 1;
        const double cCols = first[c + 1] - groupFirst[c];
        const double cRows = cCols + s.colCount[cLast];
        const double fCols = first[f + 1] - first[f];
        const double fRows = fCols + s.colCount[int(fLast)];
        const double cols = cCols + fCols;
        const double entries = trapezoid(cols, cols + s.colCount[int(fLast)]);
        const double zeros = entries - (trapezoid(cCols, cRows) - groupZeros[c]) - trapezoid(fCols, fRows);
        if (relaxedMerge(long(cols), zeros, entries))
        {
            merged[c] = 1;
            groupFirst[f] = groupFirst[c];
            groupZeros[f] = zeros;
        }
    }
    s.superFirst.clear();
    for (int f = 0; f < nf; ++f)
    {
        if (!merged[f])
        {
            s.superFirst.push_back(groupFirst[f]);
        }
    }
    s.superFirst.push_back(n);
    const int ns = s.nSupernodes();
    s.superOf.resize(n);
    for (int sn = 0; sn < ns; ++sn)
    {
        for (int j = s.superFirst[sn]; j < s.superFirst[sn + 1]; ++j)
        {
            s.superOf[j] = sn;
        }
    }
    s.superParent.assign(ns, -1);
    s.childStart.assign(ns + 1, 0);
    for (int sn = 0; sn < ns; ++sn)
    {
        const int p = s.parent[s.superFirst[sn + 1] - 1];
        if (p >= 0)
        {
            s.superParent[sn] = s.superOf[p];
            ++s.childStart[s.superParent[sn] + 1];
        }
    }
    for (int sn = 0; sn < ns; ++sn)
    {
        s.childStart[sn + 1] += s.childStart[sn];
    }
    s.children.resize(s.childStart[ns]);
    {
        std::vector<int> at(s.childStart.begin(), s.childStart.end() - 1);
        for (int sn = 0; sn < ns; ++sn)
        {
            if (s.superParent[sn] >= 0)
            {
                s.children[at[s.superParent[sn]]++] = sn;
            }
        }
    }

    // The rows of each supernode: its columns, then the rows below its last column: those of
    // C's columns in it, and of its children's rows, below it. Their number is the last
    // column's count (a check of the whole analysis)
    s.superRowStart.assign(1, 0);
    std::fill(mark.begin(), mark.end(), -1);
    std::vector<int> below;
    for (int sn = 0; sn < ns; ++sn)
    {
        const int f = s.superFirst[sn], last = s.superFirst[sn + 1] - 1;
        below.clear();
        const auto add = [&](int i)
        {
            if (i > last && mark[i] != sn)
            {
                mark[i] = sn;
                below.push_back(i);
            }
        };
        for (int j = f; j <= last; ++j)
        {
            forEachNeighbour(j, add);
        }
        for (int c = s.childStart[sn]; c < s.childStart[sn + 1]; ++c)
        {
            const int child = s.children[c];
            for (long p = s.superRowStart[child]; p < s.superRowStart[child + 1]; ++p)
            {
                add(s.superRows[p]);
            }
        }
        if (int(below.size()) != s.colCount[last])
        {
            throw Error("gpuLdu: LDL^T symbolic analysis: supernode " + std::to_string(sn) + " has "
                        + std::to_string(below.size()) + " rows below it, its last column "
                        + std::to_string(s.colCount[last]) + " (internal error)");
        }
        std::sort(below.begin(), below.end());
        for (int j = f; j <= last; ++j)
        {
            s.superRows.push_back(j);
        }
        s.superRows.insert(s.superRows.end(), below.begin(), below.end());
        s.superRowStart.push_back(long(s.superRows.size()));
    }

    // Where each child's rows below its columns sit in its parent's rows (both ascending)
    s.relIndex.assign(s.superRows.size(), -1);
    for (int c = 0; c < ns; ++c)
    {
        const int p = s.superParent[c];
        if (p < 0)
        {
            continue;
        }
        long q = s.superRowStart[p];
        for (long t = s.superRowStart[c] + s.cols(c); t < s.superRowStart[c + 1]; ++t)
        {
            while (s.superRows[q] != s.superRows[t])
            {
                ++q;
            }
            s.relIndex[t] = int(q - s.superRowStart[p]);
        }
    }

    // Storage offsets of L's blocks and the solve's update vectors
    s.valueStart.assign(1, 0);
    s.vectorStart.assign(1, 0);
    for (int sn = 0; sn < ns; ++sn)
    {
        const long m = s.rows(sn), k = s.cols(sn);
        s.valueStart.push_back(s.valueStart.back() + m*k);
        s.vectorStart.push_back(s.vectorStart.back() + (m - k));
    }

    // Levels: a parent supernode is always a later one, so one ascending pass sees every
    // child first
    std::vector<int> level(ns, 0);
    int nLevels = ns > 0 ? 1 : 0;
    for (int sn = 0; sn < ns; ++sn)
    {
        if (s.superParent[sn] >= 0)
        {
            level[s.superParent[sn]] = std::max(level[s.superParent[sn]], level[sn] + 1);
        }
        nLevels = std::max(nLevels, level[sn] + 1);
    }
    s.levelStart.assign(nLevels + 1, 0);
    for (int sn = 0; sn < ns; ++sn)
    {
        ++s.levelStart[level[sn] + 1];
    }
    for (int l = 0; l < nLevels; ++l)
    {
        s.levelStart[l + 1] += s.levelStart[l];
    }
    s.levelNodes.resize(ns);
    std::vector<int> at(s.levelStart.begin(), s.levelStart.end() - 1);
    for (int sn = 0; sn < ns; ++sn)
    {
        s.levelNodes[at[level[sn]]++] = sn;
    }

    // The update matrices in one arena, each alive from its own level (its front is assembled
    // into it) to its parent's (whose extend-add reads it): level by level, the level's update
    // matrices placed first-fit, then its children's freed
    s.updateStart.assign(ns, 0);
    std::map<long, long> freeSpace;   // offset -> size
    s.updateArena = 0;
    const auto allocate = [&](long size)
    {
        for (auto it = freeSpace.begin(); it != freeSpace.end(); ++it)
        {
            if (it->second >= size)
            {
                const long at = it->first, left = it->second - size;
                freeSpace.erase(it);
                if (left > 0)
                {
                    freeSpace[at + size] = left;
                }
                return at;
            }
        }
        const long at = s.updateArena;
        s.updateArena += size;
        return at;
    };
    const auto release = [&](long at, long size)
    {
        auto next = freeSpace.lower_bound(at);
        if (next != freeSpace.end() && next->first == at + size)
        {
            size += next->second;
            next = freeSpace.erase(next);
        }
        if (next != freeSpace.begin())
        {
            auto before = std::prev(next);
            if (before->first + before->second == at)
            {
                before->second += size;
                return;
            }
        }
        freeSpace[at] = size;
    };
    const auto updateSize = [&](int sn)
    {
        const long w = s.rows(sn) - s.cols(sn);
        return w*w;
    };
    for (int l = 0; l < nLevels; ++l)
    {
        for (int q = s.levelStart[l]; q < s.levelStart[l + 1]; ++q)
        {
            const int sn = s.levelNodes[q];
            if (updateSize(sn) > 0)
            {
                s.updateStart[sn] = allocate(updateSize(sn));
            }
        }
        for (int q = s.levelStart[l]; q < s.levelStart[l + 1]; ++q)
        {
            const int sn = s.levelNodes[q];
            for (int c = s.childStart[sn]; c < s.childStart[sn + 1]; ++c)
            {
                if (updateSize(s.children[c]) > 0)
                {
                    release(s.updateStart[s.children[c]], updateSize(s.children[c]));
                }
            }
        }
    }
    return s;
}

} // namespace gpuLdu
