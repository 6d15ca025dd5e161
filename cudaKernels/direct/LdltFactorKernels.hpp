// SPDX-License-Identifier: GPL-3.0-or-later
// The kernels of the sparse LDL^T's numeric factorisation (LdltImpl.hpp), as functors over the
// supernodes' dense fronts: the extend-add of the children's update matrices, the elimination of
// a front's pivots by a team (static pivoting), and the scaling of a large front's panel.

#ifndef GPULDU_LDLTFACTORKERNELS_HPP
#define GPULDU_LDLTFACTORKERNELS_HPP

#include "direct/LdltScalar.hpp"
#include "matrix/ValueCheck.hpp"

namespace gpuLdu
{

namespace detail
{

//- The supernodes' storage as the kernels see it (SymbolicLdlt: superFirst, superRowStart,
//  valueStart, updateStart), values of type T
template<class T>
struct LdltFronts
{
    const int* superFirst;
    const long* superRowStart;
    const long* valueStart;
    const long* updateStart;
    T* values;
    T* update;

    //- Entry (i, j), i >= j, of supernode s's front: L's block for j < k, else U
    struct Front
    {
        T* L;
        T* U;
        int m;
        int k;

        GPULDU_HD T& operator()(int i, int j) const
        {
            return j < k ? L[long(j)*m + i] : U[long(j - k)*(m - k) + (i - k)];
        }
    };

    GPULDU_HD int cols(int s) const
    {
        return superFirst[s + 1] - superFirst[s];
    }

    GPULDU_HD int rows(int s) const
    {
        return int(superRowStart[s + 1] - superRowStart[s]);
    }

    GPULDU_HD Front front(int s) const
    {
        return {values + valueStart[s], update + updateStart[s], rows(s), cols(s)};
    }
};

//- The extend-add, one column of one child's update matrix per team: F_parent(rel(a), rel(b))
//  += U_c(a, b) for a >= b (teams[t]: the child, column[t]: b), leaving U_c's place zero (the
//  arena's free space is kept zero; the upper triangles are never written). One child of each
//  parent per launch, so no two teams write one value.
template<class T>
struct LdltExtendAdd
{
    LdltFronts<T> fronts;
    const int* superParent;
    const int* relIndex;
    const int* child;
    const int* column;

    template<class Team>
    GPULDU_HD void operator()(int t, const Team& team) const
    {
        const int c = child[t];
        const int b = column[t];
        const int w = fronts.rows(c) - fronts.cols(c);
        T* u = fronts.update + fronts.updateStart[c] + long(b)*w;
        const int* rel = relIndex + fronts.superRowStart[c] + fronts.cols(c);
        const typename LdltFronts<T>::Front parent = fronts.front(superParent[c]);
        const int jb = rel[b];
        for (int a = b + team.lane(); a < w; a += team.size())
        {
            parent(rel[a], jb) += u[a];
            u[a] = 0;   // free again: zero for the next update matrix placed here
        }
    }
};

//- Pivots c0 .. c1 - 1 of the front of nodes[t], by a team: for each pivot in turn its value
//  (static pivoting: flag[column] 0, 1 replaced or 2 not finite), the rank-one update of the
//  trailing lower triangle up to row rowEnd, then the column divided by the pivot. c1 < 0:
//  all k pivots; rowEnd < 0: all m rows (the whole partial factorisation of a small front).
template<class T>
struct LdltFactorFront
{
    LdltFronts<T> fronts;
    const int* nodes;
    int* flag;
    double floor;
    int c0;
    int c1;
    int rowEnd;

    template<class Team>
    GPULDU_HD void operator()(int t, const Team& team) const
    {
        const int s = nodes[t];
        const typename LdltFronts<T>::Front F = fronts.front(s);
        const int last = c1 < 0 ? F.k : c1;
        const int end = rowEnd < 0 ? F.m : rowEnd;
        for (int c = c0; c < last; ++c)
        {
            if (team.lane() == 0)
            {
                T d = F(c, c);
                int f = 0;
                if (!isFiniteValue(d))
                {
                    f = 2;
                }
                else if (!(modulus(d) >= floor))
                {
                    d = staticPivot(d, floor);
                    f = 1;
                }
                F(c, c) = d;
                flag[fronts.superFirst[s] + c] = f;
            }
            team.sync();
            const T d = F(c, c);
            const int w = end - c - 1;
            // F(i, j) -= F(i, c) F(j, c) / d for c < j <= i < end: lanes along the rows
            for (long e = team.lane(); e < long(w)*w; e += team.size())
            {
                const int j = c + 1 + int(e/w);
                const int i = c + 1 + int(e%w);
                if (i >= j)
                {
                    F(i, j) -= F(i, c)*(F(j, c)/d);
                }
            }
            team.sync();
            for (int i = c + 1 + team.lane(); i < end; i += team.size())
            {
                F(i, c) /= d;
            }
            team.sync();
        }
    }
};

//- After the triangular solve of a large front's panel (X = F21 L11^-T = L21 D1, leading
//  dimension m): W = X (leading dimension rows) and X = L21 (columns divided by their pivots)
template<class T>
struct LdltPanelScale
{
    T* X;
    const T* diag;   // the panel's first pivot; pivot c at diag[c (m + 1)]
    T* W;
    int rows;
    int m;

    GPULDU_HD void operator()(int e) const
    {
        const int r = e%rows;
        const int c = e/rows;
        T& x = X[long(c)*m + r];
        W[long(c)*rows + r] = x;
        x /= diag[long(c)*(m + 1)];
    }
};

} // namespace detail

} // namespace gpuLdu

#endif
