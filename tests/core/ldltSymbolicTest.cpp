// SPDX-License-Identifier: GPL-3.0-or-later
// The symbolic LDL^T factorisation (direct/SymbolicLdlt.hpp) against a dense symbolic
// elimination of the permuted pattern: the structure of L, the elimination tree, the levels of
// the tree, the counts; the orderings are permutations that reduce fill; malformed patterns
// are errors.

#include "testSupport.hpp"

#include "direct/SymbolicLdlt.hpp"

#include <algorithm>
#include <random>

namespace gpuLdu::test
{

namespace
{

//- A symmetric pattern in compressed columns (what SymmetricPattern views)
struct Pattern
{
    int n = 0;
    std::vector<int> colStart{0};
    std::vector<int> rows;

    SymmetricPattern view() const
    {
        return {n, colStart.data(), rows.data()};
    }
};

//- The pattern of entries (i, j) of a symmetric matrix: lower: the lower triangle only
//  (diagonal included); else both triangles, each entry twice
Pattern fromEntries(int n, const std::vector<std::pair<int, int>>& entries, bool lower)
{
    std::vector<std::vector<int>> cols(n);
    for (int j = 0; j < n; ++j)
    {
        cols[j].push_back(j);
    }
    for (auto [i, j] : entries)
    {
        if (lower)
        {
            cols[std::min(i, j)].push_back(std::max(i, j));
        }
        else
        {
            cols[j].push_back(i);
            cols[i].push_back(j);
            cols[j].push_back(i);
        }
    }
    Pattern p;
    p.n = n;
    for (auto& c : cols)
    {
        std::reverse(c.begin(), c.end());
        p.rows.insert(p.rows.end(), c.begin(), c.end());
        p.colStart.push_back(int(p.rows.size()));
    }
    return p;
}

//- The 7-point stencil's faces of an nx x ny x nz grid (ny = nz = 1: a chain; nz = 1: 2-D)
std::vector<std::pair<int, int>> gridFaces(int nx, int ny, int nz)
{
    std::vector<std::pair<int, int>> faces;
    const auto id = [&](int x, int y, int z) { return x + nx*(y + ny*z); };
    for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
            for (int x = 0; x < nx; ++x)
            {
                if (x + 1 < nx) faces.push_back({id(x, y, z), id(x + 1, y, z)});
                if (y + 1 < ny) faces.push_back({id(x, y, z), id(x, y + 1, z)});
                if (z + 1 < nz) faces.push_back({id(x, y, z), id(x, y, z + 1)});
            }
    return faces;
}

std::vector<std::pair<int, int>> randomEntries(int n, int m, unsigned seed)
{
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> cell(0, n - 1);
    std::vector<std::pair<int, int>> e;
    while (int(e.size()) < m)
    {
        const int i = cell(gen), j = cell(gen);
        if (i != j)
        {
            e.push_back({i, j});
        }
    }
    return e;
}

//- Dense symbolic elimination of C = P A P^T: column k's rows below the diagonal join every
//  pair of them. Returns L's strictly lower structure, column by column, rows ascending.
std::vector<std::vector<int>> denseStructure(int n, const std::vector<std::pair<int, int>>& entries,
                                             const std::vector<int>& perm)
{
    std::vector<int> inverse(n);
    for (int i = 0; i < n; ++i)
    {
        inverse[perm[i]] = i;
    }
    std::vector<std::vector<char>> m(n, std::vector<char>(n, 0));
    for (auto [i, j] : entries)
    {
        m[inverse[i]][inverse[j]] = m[inverse[j]][inverse[i]] = 1;
    }
    std::vector<std::vector<int>> l(n);
    for (int k = 0; k < n; ++k)
    {
        for (int i = k + 1; i < n; ++i)
        {
            if (m[i][k])
            {
                l[k].push_back(i);
            }
        }
        for (int a : l[k])
        {
            for (int b : l[k])
            {
                m[a][b] = 1;
            }
        }
    }
    return l;
}

//- A permutation and its inverse
void expectPermutation(int n, const SymbolicLdlt& s)
{
    std::vector<int> sorted = s.perm;
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < n; ++i)
    {
        ASSERT_EQ(sorted[i], i);
        ASSERT_EQ(s.inverse[s.perm[i]], i);
    }
}

//- The tree, the column counts, nnz(L) and the flops of L's structure l
void expectTreeAndCounts(int n, const SymbolicLdlt& s, const std::vector<std::vector<int>>& l)
{
    long nnz = n;
    double flops = 0;
    for (int j = 0; j < n; ++j)
    {
        EXPECT_EQ(s.colCount[j], int(l[j].size())) << "column " << j;
        EXPECT_EQ(s.parent[j], l[j].empty() ? -1 : l[j].front()) << "column " << j;
        nnz += long(l[j].size());
        flops += double(l[j].size())*l[j].size() + 2.0*l[j].size();
    }
    EXPECT_EQ(s.nnzL, nnz);
    EXPECT_EQ(s.flops, flops);
}

//- A postorder: the subtree of j is the columns j - size(j) + 1 .. j
void expectPostorder(int n, const SymbolicLdlt& s)
{
    std::vector<int> size(n, 1);
    for (int j = 0; j < n; ++j)
    {
        if (s.parent[j] >= 0)
        {
            size[s.parent[j]] += size[j];
        }
    }
    for (int j = 0; j < n; ++j)
    {
        for (int i = j - size[j] + 1; i < j; ++i)
        {
            int a = i;
            while (a >= 0 && a < j)
            {
                a = s.parent[a];
            }
            EXPECT_EQ(a, j) << "column " << i << " is not in the subtree of " << j;
        }
    }
}

//- Supernode sn's rows hold every column's structure (exactly without relaxation, where
//  consecutive supernodes could not have been one), its columns a chain of the tree
void expectSupernodeStructure(const SymbolicLdlt& s, const std::vector<std::vector<int>>& l, int sn, bool relax)
{
    const int f = s.superFirst[sn], last = s.superFirst[sn + 1] - 1;
    ASSERT_LE(f, last);
    const std::vector<int> rows(s.superRows.begin() + s.superRowStart[sn], s.superRows.begin() + s.superRowStart[sn + 1]);
    ASSERT_GE(int(rows.size()), last - f + 1);
    for (int c = 0; c <= last - f; ++c)
    {
        EXPECT_EQ(rows[c], f + c);
    }
    for (std::size_t i = 1; i < rows.size(); ++i)
    {
        EXPECT_LT(rows[i - 1], rows[i]);
    }
    EXPECT_EQ(int(rows.size()) - (last - f + 1), s.colCount[last]);
    for (int j = f; j <= last; ++j)
    {
        EXPECT_EQ(s.superOf[j], sn);
        if (j < last && !relax)
        {
            EXPECT_EQ(s.parent[j], j + 1);
        }
        if (j < last && relax)   // a merged child may hang below any column of its parent
        {
            EXPECT_GT(s.parent[j], j);
            EXPECT_LE(s.parent[j], last);
        }
        std::vector<int> below;
        for (const int r : rows)
        {
            if (r > j)
            {
                below.push_back(r);
            }
        }
        if (relax)
        {
            EXPECT_TRUE(std::includes(below.begin(), below.end(), l[j].begin(), l[j].end())) << "column " << j;
        }
        else
        {
            EXPECT_EQ(below, l[j]) << "column " << j;
        }
    }
    if (!relax && sn + 1 < s.nSupernodes())
    {
        EXPECT_FALSE(s.parent[last] == last + 1 && s.colCount[last] == s.colCount[last + 1] + 1)
            << "supernodes " << sn << " and " << sn + 1 << " are one";
    }
}

//- Supernode sn's place in the supernodal tree (its parent, its rows' indices in the parent's,
//  its children) and its storage (values, update matrix, vector part)
void expectSupernodeStorage(const SymbolicLdlt& s, int sn)
{
    const int f = s.superFirst[sn], last = s.superFirst[sn + 1] - 1;
    const std::vector<int> rows(s.superRows.begin() + s.superRowStart[sn], s.superRows.begin() + s.superRowStart[sn + 1]);
    const int p = s.superParent[sn];
    EXPECT_EQ(p, s.parent[last] < 0 ? -1 : s.superOf[s.parent[last]]);
    for (std::size_t t = last - f + 1; p >= 0 && t < rows.size(); ++t)
    {
        const int r = s.relIndex[s.superRowStart[sn] + long(t)];
        ASSERT_GE(r, 0);
        EXPECT_EQ(s.superRows[s.superRowStart[p] + r], rows[t]);
    }
    const long m = long(rows.size()), k = last - f + 1;
    EXPECT_EQ(s.valueStart[sn + 1] - s.valueStart[sn], m*k);
    EXPECT_GE(s.updateStart[sn], 0);
    EXPECT_LE(s.updateStart[sn] + (m - k)*(m - k), s.updateArena);
    EXPECT_EQ(s.vectorStart[sn + 1] - s.vectorStart[sn], m - k);
    for (int q = s.childStart[sn]; q < s.childStart[sn + 1]; ++q)
    {
        EXPECT_EQ(s.superParent[s.children[q]], sn);
    }
}

//- The levels of the supernodal tree: a supernode is one above its highest child; returns each
//  supernode's level
std::vector<int> expectLevels(const SymbolicLdlt& s)
{
    const int ns = s.nSupernodes();
    std::vector<int> level(ns, -1), highestChild(ns, -1);
    for (int lv = 0; lv < s.nLevels(); ++lv)
    {
        EXPECT_LT(s.levelStart[lv], s.levelStart[lv + 1]) << "level " << lv << " is empty";
        for (int q = s.levelStart[lv]; q < s.levelStart[lv + 1]; ++q)
        {
            level[s.levelNodes[q]] = lv;
        }
    }
    for (int sn = 0; sn < ns; ++sn)
    {
        if (s.superParent[sn] >= 0)
        {
            highestChild[s.superParent[sn]] = std::max(highestChild[s.superParent[sn]], level[sn]);
        }
    }
    for (int sn = 0; sn < ns; ++sn)
    {
        EXPECT_EQ(level[sn], highestChild[sn] + 1) << "supernode " << sn;
    }
    return level;
}

//- Update matrices alive together (from their level to their parent's) do not overlap
void expectUpdatesApart(const SymbolicLdlt& s, const std::vector<int>& level)
{
    const int ns = s.nSupernodes();
    const auto life = [&](int sn)
    {
        return std::make_pair(level[sn], s.superParent[sn] < 0 ? level[sn] : level[s.superParent[sn]]);
    };
    const auto updateSize = [&](int sn) { const long w = s.rows(sn) - s.cols(sn); return w*w; };
    for (int x = 0; x < ns; ++x)
    {
        for (int y = x + 1; y < ns; ++y)
        {
            if (updateSize(x) == 0 || updateSize(y) == 0 || life(x).second < life(y).first || life(y).second < life(x).first)
            {
                continue;
            }
            EXPECT_TRUE(s.updateStart[x] + updateSize(x) <= s.updateStart[y]
                        || s.updateStart[y] + updateSize(y) <= s.updateStart[x])
                << "update matrices of supernodes " << x << " and " << y << " overlap";
        }
    }
}

//- Everything analyseLdlt returns, against the dense elimination in its own permutation
void expectSymbolic(int n, const std::vector<std::pair<int, int>>& entries, const SymbolicLdlt& s, bool relax)
{
    ASSERT_EQ(s.n, n);
    ASSERT_NO_FATAL_FAILURE(expectPermutation(n, s));
    const std::vector<std::vector<int>> l = denseStructure(n, entries, s.perm);
    expectTreeAndCounts(n, s, l);
    expectPostorder(n, s);
    ASSERT_EQ(s.superFirst.front(), 0);
    ASSERT_EQ(s.superFirst.back(), n);
    for (int sn = 0; sn < s.nSupernodes(); ++sn)
    {
        ASSERT_NO_FATAL_FAILURE(expectSupernodeStructure(s, l, sn, relax));
        ASSERT_NO_FATAL_FAILURE(expectSupernodeStorage(s, sn));
    }
    expectUpdatesApart(s, expectLevels(s));
}

//- The distinct off-diagonal pairs {i, j} of a list of entries
long uniquePairs(const std::vector<std::pair<int, int>>& entries)
{
    std::vector<std::pair<int, int>> u;
    for (auto [i, j] : entries)
    {
        u.push_back({std::min(i, j), std::max(i, j)});
    }
    std::sort(u.begin(), u.end());
    return long(std::unique(u.begin(), u.end()) - u.begin());
}

} // namespace

//- Random, 2-D and 3-D patterns, given as the lower triangle or as both triangles with repeated
//  entries, in every ordering, with and without relaxed supernodes: the column counts, the
//  tree, its postorder, the supernodes' rows and the levels agree with the dense elimination
TEST(LdltSymbolicTest, StructureIsTheDenseElimination)
{
    struct Case { int n; std::vector<std::pair<int, int>> entries; };
    const std::vector<Case> cases{
        {80, randomEntries(80, 120, 5)},
        {120, gridFaces(12, 10, 1)},
        {120, gridFaces(6, 5, 4)},
        {1, {}},
        {7, {}},
    };
    for (const Case& c : cases)
    {
        for (bool lower : {true, false})
        {
            const Pattern p = fromEntries(c.n, c.entries, lower);
            for (LdltOrdering o : {LdltOrdering::named("natural"), LdltOrdering::named("AMD"), LdltOrdering::named("METIS")})
            {
                SCOPED_TRACE(orderingName(o) + (lower ? ", lower triangle" : ", both triangles") + ", n "
                             + std::to_string(c.n));
                for (bool relax : {false, true})
                {
                    const SymbolicLdlt s = analyseLdlt(p.view(), o, relax);
                    EXPECT_EQ(s.nnzALower, c.n + uniquePairs(c.entries));
                    expectSymbolic(c.n, c.entries, s, relax);
                }
            }
        }
    }
}

//- On a 3-D mesh the fill-reducing orderings cut L well below the natural (banded) order's, and
//  the relaxation merges supernodes
TEST(LdltSymbolicTest, OrderingsReduceFill)
{
    const Pattern p = fromEntries(12*12*12, gridFaces(12, 12, 12), true);
    const long natural = analyseLdlt(p.view(), LdltOrdering::named("natural")).nnzL;
    const long amd = analyseLdlt(p.view(), LdltOrdering::named("AMD")).nnzL;
    const long metis = analyseLdlt(p.view(), LdltOrdering::named("METIS")).nnzL;
    EXPECT_LT(amd, natural*7/10);
    EXPECT_LT(metis, natural*7/10);
    // and the relaxation groups the supernodes into fewer, larger ones
    const int exact = analyseLdlt(p.view(), LdltOrdering::named("METIS"), false).nSupernodes();
    const int relaxed = analyseLdlt(p.view(), LdltOrdering::named("METIS")).nSupernodes();
    EXPECT_LT(relaxed, exact*4/5);
}

//- A row outside the matrix, a column that ends before it starts: errors, not crashes
TEST(LdltSymbolicTest, RejectsMalformedPatterns)
{
    Pattern p = fromEntries(5, {{0, 1}, {2, 3}}, true);
    p.rows[1] = 5;
    EXPECT_THROW(analyseLdlt(p.view(), LdltOrdering::named("AMD")), Error);
    p.rows[1] = -1;
    EXPECT_THROW(analyseLdlt(p.view(), LdltOrdering::named("natural")), Error);
    Pattern q = fromEntries(5, {{0, 1}, {2, 3}}, true);
    std::swap(q.colStart[2], q.colStart[3]);
    EXPECT_THROW(analyseLdlt(q.view(), LdltOrdering::named("METIS")), Error);
}

//- The lower triangle of an LDU pattern by columns, by hand: 4 cells, faces (0,1) (0,3) (1,2)
//  (2,3); column j its diagonal first, then its faces' upper cells in face order, and each
//  entry's value at diag j (j) or face f (nCells + f)
TEST(LduLowerColumns, DiagonalThenFacesInFaceOrder)
{
    const std::vector<int> lower{0, 0, 1, 2};
    const std::vector<int> upper{1, 3, 2, 3};
    const LduLowerColumns c = lduLowerColumns({4, 4, lower.data(), upper.data()});
    EXPECT_EQ(c.colStart, (std::vector<int>{0, 3, 5, 7, 8}));
    EXPECT_EQ(c.rows, (std::vector<int>{0, 1, 3, 1, 2, 2, 3, 3}));
    EXPECT_EQ(c.valueOf, (std::vector<int>{0, 4, 5, 1, 6, 2, 7, 3}));
    const SymmetricPattern p = c.pattern();
    EXPECT_EQ(p.n, 4);
    EXPECT_EQ(p.colStart, c.colStart.data());
    EXPECT_EQ(p.rows, c.rows.data());
    // no faces, no cells
    const LduLowerColumns diagonal = lduLowerColumns({3, 0, nullptr, nullptr});
    EXPECT_EQ(diagonal.colStart, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(diagonal.valueOf, (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(lduLowerColumns({0, 0, nullptr, nullptr}).pattern().n, 0);
}

} // namespace gpuLdu::test
