// SPDX-License-Identifier: GPL-3.0-or-later
// The supernodal steps of the symbolic LDL^T analysis (Supernodes.hpp): the supernodes and
// their relaxation (CHOLMOD's default rules), their tree, rows and storage, after Davis, "Direct
// Methods for Sparse Linear Systems", ch. 4, and Liu, "The multifrontal method", SIAM Review 1992.

#include "direct/Supernodes.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <string>

namespace gpuLdu
{

namespace
{

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

std::vector<int> detail::supernodeFirsts(const SymbolicLdlt& s, bool relax)
{
    const int n = s.n;
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
    std::vector<int> superFirst;
    for (int f = 0; f < nf; ++f)
    {
        if (!merged[f])
        {
            superFirst.push_back(groupFirst[f]);
        }
    }
    superFirst.push_back(n);
    return superFirst;
}

void detail::linkSupernodes(SymbolicLdlt& s)
{
    const int n = s.n;
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
}

void detail::supernodeRows(SymbolicLdlt& s, const std::vector<int>& adjStart, const std::vector<int>& adjRows)
{
    const int ns = s.nSupernodes();
    // The neighbours of C's column k: inverse[adj of A's column perm[k]]
    const auto forEachNeighbour = [&](int k, auto&& f)
    {
        const int j = s.perm[k];
        for (int p = adjStart[j]; p < adjStart[j + 1]; ++p)
        {
            f(s.inverse[adjRows[p]]);
        }
    };

    // The rows of each supernode: its columns, then the rows below its last column: those of
    // C's columns in it, and of its children's rows, below it. Their number is the last
    // column's count (a check of the whole analysis)
    s.superRowStart.assign(1, 0);
    std::vector<int> mark(s.n, -1);
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
}

void detail::relativeIndices(SymbolicLdlt& s)
{
    const int ns = s.nSupernodes();
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
}

void detail::storageOffsets(SymbolicLdlt& s)
{
    const int ns = s.nSupernodes();
    // Storage offsets of L's blocks and the solve's update vectors
    s.valueStart.assign(1, 0);
    s.vectorStart.assign(1, 0);
    for (int sn = 0; sn < ns; ++sn)
    {
        const long m = s.rows(sn), k = s.cols(sn);
        s.valueStart.push_back(s.valueStart.back() + m*k);
        s.vectorStart.push_back(s.vectorStart.back() + (m - k));
    }
}

void detail::supernodeLevels(SymbolicLdlt& s)
{
    const int ns = s.nSupernodes();
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
}

void detail::placeUpdateMatrices(SymbolicLdlt& s)
{
    const int ns = s.nSupernodes();
    const int nLevels = s.nLevels();
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
}

} // namespace gpuLdu
